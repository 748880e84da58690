#!/bin/sh
# make bench section: mps-try (issue #20), cold runs, compile included:
# one registration (target <= 3 s) and every registration of a
# 12-registration kernel (target <= 10 s).  The fixture tree and the
# Metal host layer (tools/metal-host); the CPU reference when a python
# with torch is there (its start runs beside the compile).  Wall time,
# best of 3.
repo=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$repo/tools/bin:$PATH
echo "mps-try"
command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || {
  echo "  skipped: no C++ compiler"; exit 0; }
w=$(mktemp -d "${TMPDIR:-/tmp}/mk-bench-try.XXXXXX") || exit 0
trap 'rm -rf "$w"' EXIT
cp -R "$repo/tests/fixtures/try/good/." "$w/"
k=$w/aten/src/ATen/native/mps/kernels/UnaryKernel.metal
for d in half bfloat; do echo "REGISTER_UNARY_ALPHA_OP(round_decimals, $d, long, $d);" >>"$k"; done
for a in int short char; do for d in float half bfloat; do
  echo "REGISTER_UNARY_ALPHA_OP(round_decimals, $d, $a, $d);" >>"$k"; done; done
H=""
best() { # best wall time of 3 runs of "$@", in seconds
  b=""
  for i in 1 2 3; do
    s=$(date +%s.%N); (cd "$w" && "$@" >/dev/null 2>&1); e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc); [ -z "$b" ] && b=$t
    [ "$(echo "$t < $b" | bc)" = 1 ] && b=$t
  done
  echo "$b"
}
line() { # what time target
  st=ok; [ "$(echo "$2 > $3" | bc)" = 1 ] && st=MISSED
  printf '  %-58s %6.2f s  target <= %s s  %s\n' "$1" "$2" "$3" "$st"
}
t1=$(best mps-try neg --dtypes float:float $H)
line "one registration (neg float), cold, compile included" "$t1" 3
n=$(cd "$w" && mps-try round --kernel round_decimals --arg decimals=2 --json $H 2>/dev/null | wc -l)
t2=$(best mps-try round --kernel round_decimals --arg decimals=2 $H)
line "all $n registrations of round_decimals" "$t2" 10
exit 0
