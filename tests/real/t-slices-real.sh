#!/bin/sh
# Sliced and partial reads on the real yamls (nfyaml.h): `mps-overloads
# --all --json` and `--survey` print the same bytes in one pass
# (MK_THREADS=1) and in 2 or 5 slices, and for every operator of both
# trees `mps-overloads --json OP` (a read of only the entries that mention
# OP) prints exactly OP's rows of `--all --json`.
. "$(dirname "$0")/lib.sh"
PATH=$repo/tools/bin:$PATH
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
for v in 2.6.0 1.13.1; do
  t=$(real_tree $v)
  y=$t/aten/src/ATen/native/native_functions.yaml
  for mode in "--all --json" --survey; do
    MK_THREADS=1 mps-overloads --yaml "$y" $mode >"$tmp/one" || status=1
    for n in 2 5; do
      MK_THREADS=$n mps-overloads --yaml "$y" $mode >"$tmp/n" || status=1
      if cmp -s "$tmp/one" "$tmp/n"; then echo "$v $mode: $n slices = one pass ($(wc -l <"$tmp/n") lines)"
      else echo "$v $mode: $n slices differ from one pass"; diff "$tmp/one" "$tmp/n" | head -n 6; status=1; fi
    done
  done
  MK_THREADS=1 mps-overloads --yaml "$y" --all --json >"$tmp/all"
  printf '%s partial reads: ' "$v"
  python3 "$repo/tests/real/partial_check.py" "$y" <"$tmp/all" || status=1
done
exit $status
