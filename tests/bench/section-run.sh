#!/bin/sh
# make bench section: mps-run (issue #26).  The issue's benchmark: a sum
# over 1,024 rows of 1,024 floats, 256-thread groups, simd_sum and a
# threadgroup tree.  Rows: the whole mps-run cold (python and torch's
# import, the compile of the kernel unit against make's prebuilt runtime
# and precompiled header, the run; target <= 3 s) beside the same without
# the prebuilt parts and beside python + import torch alone; the build
# alone; the run alone against one OS thread per GPU thread (std::thread +
# std::barrier; target >= 10x); the peak memory.  Skips with one line
# without a C++ compiler or a python with torch.
repo=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$repo/tools/bin:$PATH
echo "mps-run"
CXX=${CXX:-$(command -v c++ || command -v g++ || command -v clang++)}
[ -n "$CXX" ] || { echo "  skipped: no C++ compiler"; exit 0; }
sh "$repo/tests/fixtures/try/needs-torch.sh" >/dev/null 2>&1 || {
  echo "  skipped: no python imports torch"; exit 0; }
w=$(mktemp -d "${TMPDIR:-/tmp}/mk-bench-run.XXXXXX") || exit 0
trap 'rm -rf "$w"' EXIT
cp "$repo/tests/bench/run_rowsum.py" "$w/"
# the python that imports torch, given to mps-run: its fallback from a
# python3 without torch (here a pyenv shim) costs a second python start
py=""
for p in python3 /usr/bin/python3; do
  (cd / && "$p" -c 'import torch') >/dev/null 2>&1 && { py=$(command -v "$p"); break; }
done
wall() { s=$(date +%s.%N); "$@" >"$w/out" 2>"$w/err"; e=$(date +%s.%N); echo "$e - $s" | bc; }
stat_of() { sed -n "s/^mps-run: stats: $1/\1/p" "$w/err" | tail -1; }
min() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
# each cold run alternates with the same run without make's prebuilt
# runtime object and precompiled header (MPS_RUN_NO_PREBUILT), and with
# python + import torch alone, so that all three see the same load
best=""; run=""; build=""; nobest=""; nobuild=""; imp=""
for i in 1 2 3; do
  t=$(cd "$w" && MPS_RUN_STATS=1 wall mps-run --python "$py" run_rowsum.py)
  grep -q '^call ' "$w/out" || { echo "  failed:"; cat "$w/err"; exit 0; }
  best=$(min "$best" "$t")
  run=$(min "$run" "$(stat_of '[0-9]* switches, \([0-9.]*\) s$')")
  build=$(min "$build" "$(stat_of 'build \([0-9.]*\) s (prebuilt runtime and header: used)$')")
  t=$(cd "$w" && MPS_RUN_NO_PREBUILT=1 MPS_RUN_STATS=1 wall mps-run --python "$py" run_rowsum.py)
  nobest=$(min "$nobest" "$t")
  nobuild=$(min "$nobuild" "$(stat_of 'build \([0-9.]*\) s (prebuilt runtime and header: not used)$')")
  imp=$(min "$imp" "$(cd / && wall "$py" -c 'import torch')")
done
if [ -z "$build" ]; then
  echo "  the prebuilt runtime was not used (make builds tools/bin/mps-run.d):"; cat "$w/err"; exit 0
fi
ok=0; [ "$(echo "$best <= 3" | bc)" = 1 ] && ok=1
echo "ROW|\`mps-run\` row sum 1024x1024, cold (python, import torch, compile, run)|$(printf '%.2f s' "$best")|without make's prebuilt runtime and header: $(printf '%.2f s' "$nobest"); python + import torch alone: $(printf '%.2f s' "$imp")|$(printf '%.2fx' "$(echo "$nobest / $best" | bc -l)")|<= 3 s|$ok"
echo "ROW|its build (kernel unit, link; prebuilt runtime, precompiled header)|$(printf '%.2f s' "$build")|without them (the runtime compiled beside the unit): $(printf '%.2f s' "$nobuild")|$(printf '%.2fx' "$(echo "$nobuild / $build" | bc -l)")|-|1"
"$CXX" -std=c++20 -O1 -pthread -o "$w/threads" "$repo/tests/bench/rowsum_threads.cpp" 2>/dev/null || {
  echo "  the std::thread baseline did not compile (needs C++20 <barrier>)"; exit 0; }
# 64 of the 1,024 groups, times 16 (the time is linear in the groups)
th=$(echo "$("$w/threads" 64) * 16" | bc -l)
ratio=$(echo "$th / $run" | bc -l)
ok=0; [ "$(echo "$ratio >= 10" | bc)" = 1 ] && ok=1
echo "ROW|the run alone (262,144 GPU threads as tasks)|$(printf '%.3f s' "$run")|std::thread + std::barrier per GPU thread: $(printf '%.2f s' "$th") (64 groups x 16)|$(printf '%.0fx' "$ratio")|>= 10x|$ok"
# the peak memory of the whole run (python included)
pk=$(cd "$w" && "$repo/build/peak" mps-run --python "$py" run_rowsum.py)
echo "  peak memory of mps-run run_rowsum.py (python, torch, the run): $pk KiB"
exit 0
