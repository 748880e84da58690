#!/bin/sh
# Sliced and partial reads of native_functions.yaml (nfyaml.h) give what
# one serial pass gives.  For every yaml fixture (good ones, the bad-input
# ones, the slicing traps of tests/fixtures/slices: a quoted string or a
# flow list with a "- " line in column 1, "---"/"..." markers, CRLF, an
# error late in the file, a delegate whose entry never names the
# operator), `mps-overloads --all`, `--all --json` and `--survey` print
# the same bytes, messages and exit status whether the file is read in
# one pass (MK_THREADS=1) or cut into 2, 3 or 9 slices; and for every
# operator of a good file, `mps-overloads --json OP` (which reads only the
# entries that mention OP) prints exactly OP's rows of `--all --json`.
. "$(dirname "$0")/lib.sh"

run() { # run THREADS ARGS...: stdout, stderr and status in one text
  t=$1; shift
  MK_THREADS=$t mps-overloads "$@" >"$work/o" 2>"$work/e"; echo "RC=$?" >>"$work/o"
  cat "$work/e" >>"$work/o"
}
for y in "$repo"/tests/fixtures/slices/*.yaml "$repo"/tests/fixtures/bad/*.yaml \
         "$repo"/tests/fixtures/fold/$N/native_functions.yaml \
         "$repo"/examples/demo-tree/$N/native_functions.yaml; do
  b=${y#"$repo"/tests/fixtures/}
  for mode in --all "--all --json" --survey; do
    run 1 --yaml "$y" $mode; mv "$work/o" "$work/serial"
    for t in 2 3 9; do
      checks=$((checks + 1))
      run $t --yaml "$y" $mode
      if cmp -s "$work/serial" "$work/o"; then ok "$b $mode: $t slices = one pass"
      else fail "$b $mode: $t slices differ from one pass"; diff "$work/serial" "$work/o" | head -n 6; fi
    done
  done
  # partial reads: every operator of a file that loads
  MK_THREADS=1 mps-overloads --yaml "$y" --all --json >"$work/all" 2>/dev/null || continue
  checks=$((checks + 1))
  if python3 "$repo/tests/real/partial_check.py" "$y" <"$work/all" >"$work/pc"; then
    ok "$b: $(cat "$work/pc")"
  else fail "$b: partial reads differ"; head -n 6 "$work/pc"; fi
done
finish
