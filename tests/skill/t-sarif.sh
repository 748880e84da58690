#!/bin/sh
# mps-verify --format sarif is valid SARIF 2.1.0 for Microsoft's SARIF
# multitool (pinned in tests/skill/package.json; `npm ci` there, .ci/run
# does it): `sarif-multitool validate` reports 0 errors and 0 warnings on
# a fixture tree with defects of every layer, on real 2.6.0 and on a tree
# shaped like current main (2.6.0's sources under 2.14.1's yaml), and the
# log holds one result per listed defect.  A damaged log is rejected (the
# check can fail).  Skipped when the multitool is not installed, except in
# CI; the real trees are used when present.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
mt=$repo/tests/skill/node_modules/.bin/sarif-multitool
if [ ! -x "$mt" ]; then
  if [ "${CI:-}" = true ]; then echo "sarif-multitool missing in CI"; exit 1; fi
  echo "skipped: sarif-multitool not installed (cd tests/skill && npm ci)"
  exit 77
fi
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home DOTNET_CLI_TELEMETRY_OPTOUT=1; mkdir -p "$HOME"
PATH=$repo/tools/bin:$PATH
fail=0
command -v timeout >/dev/null 2>&1 || timeout() { shift; "$@"; }

# counts FILE: "E W N" — results of the validator's log by level
counts() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {"error": 0, "warning": 0, "note": 0}
for run in d.get("runs", []):
    for r in run.get("results", []):
        c[r.get("level", "warning")] = c.get(r.get("level", "warning"), 0) + 1
print(c["error"], c["warning"], c["note"])
PY
}
# check NAME ROOT: SARIF of `mps-verify --all` on ROOT validates, and holds
# as many results as the text run lists defects
check() {
  mps-verify --root "$2" --all --format sarif >"$tmp/$1.sarif" 2>/dev/null
  want=$(mps-verify --root "$2" --all 2>&1 >/dev/null | grep -c ': \(error\|warning\|note\): ')
  got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$tmp/$1.sarif")
  [ "$got" = "$want" ] || { echo "FAIL: $1: $got results, want $want"; fail=1; }
  timeout 300 "$mt" validate --output "$tmp/$1.val" "$tmp/$1.sarif" >"$tmp/$1.log" 2>&1
  set -- "$1" $(counts "$tmp/$1.val" 2>/dev/null || echo x x x)
  if [ "$2" = 0 ] && [ "$3" = 0 ]; then echo "ok: $1: $got results; validator: 0 errors, 0 warnings"
  else echo "FAIL: $1: validator: ${2} errors, ${3} warnings"; cat "$tmp/$1.log" | tail -n 5; fail=1; fi
}

# a fixture with a defect in each layer
f=$tmp/fixture
cp -R "$repo/tests/cli/mps-verify/_trees/clean" "$f"
awk '$0 == "    CPU, CUDA, MPS: sqrt_out" { print "    CPU, CUDA: sqrt_out"; print "    MPS: sqrt_out_mps"; next } { print }' \
  "$f/aten/src/ATen/native/native_functions.yaml" >"$tmp/y" && mv "$tmp/y" "$f/aten/src/ATen/native/native_functions.yaml"
echo '#include <ATen/ops/atan2_native.h>' >>"$f/aten/src/ATen/native/mps/operations/UnaryOps.mm"
printf 'kernel void lonely(device float* o, uint i [[thread_position_in_grid]]) { o[i] = 0; }\n' \
  >>"$f/aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
sed 's/"unique",/"unique", "atan2",/' "$f/torch/testing/_internal/common_mps.py" >"$tmp/c" && mv "$tmp/c" "$f/torch/testing/_internal/common_mps.py"
check fixture "$f"

# the validator rejects a damaged log (a region starting at line 0)
python3 - "$tmp/fixture.sarif" "$tmp/bad.sarif" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 "$mt" validate --output "$tmp/bad.val" "$tmp/bad.sarif" >/dev/null 2>&1
set -- $(counts "$tmp/bad.val" 2>/dev/null || echo 0 0 0)
if [ "$1" -gt 0 ]; then echo "ok: a damaged log: $1 errors"
else echo "FAIL: the validator accepted a damaged log"; fail=1; fi

if [ -f "$trees/pytorch-2.6.0/aten/src/ATen/native/native_functions.yaml" ]; then
  check real-2.6.0 "$trees/pytorch-2.6.0"
  if [ -f "$trees/pytorch-2.14.1/aten/src/ATen/native/native_functions.yaml" ]; then
    m=$tmp/main-shaped
    mkdir -p "$m/aten/src/ATen" "$m/torch/testing/_internal"
    cp -R "$trees/pytorch-2.6.0/aten/src/ATen/native" "$m/aten/src/ATen/"
    cp "$trees/pytorch-2.14.1/aten/src/ATen/native/native_functions.yaml" \
       "$trees/pytorch-2.14.1/aten/src/ATen/native/tags.yaml" "$m/aten/src/ATen/native/"
    cp "$trees/pytorch-2.14.1/torch/testing/_internal/common_mps.py" "$m/torch/testing/_internal/"
    check main-shaped "$m"
  fi
else
  echo "note: no real trees in $trees; the fixture alone was checked"
fi
exit $fail
