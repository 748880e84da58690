#!/bin/sh
# run.sh [SECONDS] — build the libFuzzer targets and run each for SECONDS
# (default 60); called by `make fuzz FUZZ_SECONDS=N`.
#
# Needs clang with libFuzzer (Debian: clang + libclang-rt-14-dev; macOS:
# Homebrew llvm, CC=/opt/homebrew/opt/llvm/bin/clang).  Each target is
# built with -fsanitize=fuzzer,address,undefined into build/fuzz/, starts
# from its seed corpus tests/fuzz/corpus/<target>/ plus what earlier runs
# found (build/fuzz/corpus/<target>/, not part of the repo), and writes a
# crashing input to build/fuzz/crash-<target>-*.
# Prints one line per target: executions, new corpus size, crashes.
# Exit status: 0 no crash, 1 a target crashed (or leaked, or timed out),
# 2 build error.  FUZZ_TARGETS="fuzz_scan fuzz_edit" runs a subset;
# FUZZ_OUT=DIR puts binaries, corpus and logs elsewhere (default build/fuzz);
# FUZZ_JOBS=N runs N targets at a time (default 2).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
case $secs in ''|*[!0-9]*) echo "run.sh: SECONDS must be a number" >&2; exit 2 ;; esac
cc=${FUZZ_CC:-clang}
out=${FUZZ_OUT:-$repo/build/fuzz}
mkdir -p "$out/lib" "$out/corpus" || exit 2
targets=${FUZZ_TARGETS:-"fuzz_nfyaml fuzz_scan fuzz_edit fuzz_schema fuzz_verify fuzz_cppscan fuzz_translate fuzz_rewrite"}
pkgs="yaml-0.1 libpcre2-8 zlib jansson"
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g
  -fno-omit-frame-pointer -fno-sanitize-recover=all -I$repo/tools/lib
  $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lpthread"

# the library, instrumented for coverage
objs=
for src in "$repo"/tools/lib/*/*.c; do
  o=$out/lib/$(basename "$src" .c).o
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] ||
     [ -n "$(find "$repo/tools/lib" -name '*.h' -newer "$o")" ]; then
    $cc $flags -fsanitize=fuzzer-no-link,address,undefined -c -o "$o" "$src" ||
      { echo "run.sh: cannot build $src with $cc" >&2; exit 2; }
  fi
  objs="$objs $o"
done

# build every target first, then run them FUZZ_JOBS at a time (default 2:
# CI's two cores), each for SECONDS; the lines come out in target order
for t in $targets; do
  $cc $flags -fsanitize=fuzzer,address,undefined -o "$out/$t" \
    "$repo/tests/fuzz/$t.c" $objs $libs ||
    { echo "run.sh: cannot build $t (is libFuzzer installed?)" >&2; exit 2; }
  mkdir -p "$out/corpus/$t"
done

# fuzz_one T: run target T; its exit status goes to $out/T.rc
fuzz_one() {
  # -close_fd_mask=3: the targets' own diagnostics are not shown (libFuzzer
  # and sanitizer reports still are, in the log)
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "./$1" -max_total_time="$secs" \
     -print_final_stats=1 -close_fd_mask=3 -timeout=10 -rss_limit_mb=2048 \
     -max_len=65536 -artifact_prefix="$out/crash-$1-" \
     "$out/corpus/$1" "$repo/tests/fuzz/corpus/$1") >"$out/$1.log" 2>&1
  echo $? >"$out/$1.rc"
}
jobs=${FUZZ_JOBS:-2}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
running=0
for t in $targets; do
  rm -f "$out/$t.rc"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait; running=0; fi
done
wait

status=0
for t in $targets; do
  log=$out/$t.log
  rc=$(cat "$out/$t.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  units=$(ls "$out/corpus/$t" | wc -l | tr -d ' ')
  crashes=0
  if [ "$rc" != 0 ]; then
    crashes=1
    status=1
  fi
  printf '%-12s %12s executions  %5s corpus  %s crashes  (%ss)\n' \
    "$t" "${execs:-?}" "$units" "$crashes" "$secs"
  if [ "$rc" != 0 ]; then
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written|deadly|timeout' "$log" |
      head -n 20 | sed 's/^/    /'
    echo "    full log: $log"
  fi
done
exit $status
