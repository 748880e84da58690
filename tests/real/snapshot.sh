#!/bin/sh
# snapshot.sh OUT [BIN]: the outputs of every reading tool on the three
# real trees, one file per run (stdout, "--- stderr", stderr, RC=), into
# folder OUT.  For refactors that must keep every output byte for byte:
#   sh tests/real/snapshot.sh /tmp/before   (on the old commit)
#   sh tests/real/snapshot.sh /tmp/after    (on the new one)
#   diff -r /tmp/before /tmp/after
# BIN: the folder of the tools (default: tools/bin of this repository).
# Not part of `make check` (it takes a minute or two); needs the trees
# (sh tests/real/fetch.sh).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: snapshot.sh OUT [BIN]}
bin=${2:-$repo/tools/bin}
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
mkdir -p "$out"
run() { # NAME CMD...: one file of output
  f=$out/$1; shift
  { "$@" 2>"$f.err"; echo "RC=$?"; } >"$f"
  { echo "--- stderr"; cat "$f.err"; } >>"$f"; rm -f "$f.err"
}
ops="sqrt frac atan2 div abs signbit sgn logit add sub tanh_backward heaviside mul pow"
for v in 2.6.0 1.13.1 2.14.1; do
  t=$trees/pytorch-$v
  [ -f "$t/aten/src/ATen/native/native_functions.yaml" ] || { echo "no tree $t" >&2; continue; }
  run "$v.overloads-all-json" "$bin/mps-overloads" --root "$t" --all --json
  run "$v.overloads-yaml-json" "$bin/mps-overloads" --yaml "$t/aten/src/ATen/native/native_functions.yaml" --all --json
  run "$v.overloads-survey" "$bin/mps-overloads" --root "$t" --survey
  run "$v.overloads-legacy" "$bin/mps-overloads" --root "$t" --all --legacy
  for f in text json sarif markdown; do
    run "$v.verify-all-$f" "$bin/mps-verify" --root "$t" --all --format "$f"
  done
  for op in $ops; do
    run "$v.verify-$op" "$bin/mps-verify" --root "$t" "$op"
    run "$v.migrate-$op" "$bin/mps-migrate" --root "$t" "$op"
    run "$v.migrate-json-$op" "$bin/mps-migrate" --root "$t" --json "$op"
  done
  # every operator with an MPS-specific row: mps-dispatch --json
  "$bin/mps-overloads" --root "$t" --all --legacy --json 2>/dev/null |
    sed -n 's/^{"name":"[^"]*","base":"\([^"]*\)".*/\1/p' | sort -u >"$out/$v.legacy-ops"
  : >"$out/$v.dispatch-json"
  while read -r op; do
    { echo "== $op"; "$bin/mps-dispatch" --root "$t" --json "$op" 2>&1; echo "RC=$?"; } >>"$out/$v.dispatch-json"
  done <"$out/$v.legacy-ops"
done
echo "snapshot in $out"
