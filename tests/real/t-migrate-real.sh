#!/bin/sh
# mps-migrate on real PyTorch 2.6.0 (issue #14).
#  1. Every structured elementwise operator (tag pointwise, or
#     structured_inherits TensorIteratorBase) with an MPS-specific row is
#     planned without error: exit 1, nothing on stderr, a JSON plan whose
#     parts are sane: the rows fold (or are refused, with a reason, and
#     nothing else is planned); the Metal side is "not planned" because the
#     tree predates c10/metal; every plan that folds a row deletes an MPS
#     definition; the text plan's diff applies to a copy of the tree.
#  2. frac, signbit and atan2 migrated on a copy (--in-place): mps-verify's
#     rules then report no old host path, dead definition, stale include or
#     xfail entry for them; --undo restores every file byte for byte.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
use_torchgen_python py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
status=0
fail() { echo "FAIL: $*"; status=1; }

# ---- 1. every structured elementwise operator with an MPS-specific row ----
"$py" - "$src/$nf/native_functions.yaml" >"$tmp/ops" <<'PY' || exit 2
import sys, yaml
ops = set()
for e in yaml.safe_load(open(sys.argv[1])):
    name = e["func"].split("(")[0]
    base = name.split(".")[0]
    if base.endswith("_") and not base.startswith("__"):
        base = base[:-1]
    disp = e.get("dispatch") or {}
    alone = any([k.strip() for k in key.split(",")] == ["MPS"] for key in disp)
    tags = e.get("tags") or []
    if isinstance(tags, str):
        tags = [tags]
    elementwise = "pointwise" in tags or e.get("structured_inherits") == "TensorIteratorBase"
    if e.get("structured") and alone and elementwise:
        ops.add(base)
print("\n".join(sorted(ops)))
PY
n=$(wc -l <"$tmp/ops")
[ "$n" -ge 80 ] || fail "only $n operators found"
# a copy of what the diffs touch, to apply them to
mkdir -p "$tmp/copy/$nf" "$tmp/copy/test" "$tmp/copy/c10"
cp -R "$src/$nf/." "$tmp/copy/$nf/"
cp "$src/test/test_mps.py" "$tmp/copy/test/"
[ -d "$src/torch/testing/_internal" ] && { mkdir -p "$tmp/copy/torch/testing"; cp -R "$src/torch/testing/_internal" "$tmp/copy/torch/testing/"; }

mkdir -p "$tmp/plans"
while read -r op; do
  mps-migrate --root "$src" --json "$op" >"$tmp/plans/$op.json" 2>"$tmp/e"; rc=$?
  [ $rc = 1 ] || { fail "$op: exit $rc, want 1"; cat "$tmp/e"; }
  [ -s "$tmp/e" ] && { fail "$op: wrote to stderr"; cat "$tmp/e"; }
done <"$tmp/ops"
# the sanity of each plan; prints "OP planned|stuck", or "OP FAIL why"
"$py" - "$tmp/plans" "$tmp/ops" >"$tmp/verdicts" <<'PY'
import json, os, sys
def check(op, parts):
    by = {}
    for p in parts:
        by.setdefault(p["part"], []).append(p)
    summary = by["summary"][-1]
    rows = by.get("row", [])
    assert rows, "no rows"
    folded = [r for r in rows if r["action"] == "fold"]
    for r in rows:
        if r["action"] == "refused":
            assert r["reason"], "a refused row without a reason"
    notp = {p["what"] for p in by.get("not-planned", [])}
    if not folded:
        assert "rows" in notp, "nothing folds but the plan does not say so"
        assert summary["files"] == 0, "nothing folds but files change"
        return "stuck"
    assert summary["action"] == "plan" and summary["files"] >= 2, summary
    kernels = by["kernel"]
    if len(kernels) == 1:
        assert kernels[0]["name"] == op, kernels[0]
    else:
        # several stubs, a kernel each (lerp, div, pow): every stub once
        stubs = {p["name"] for p in by["stub"]}
        assert sorted(k["stub"] for k in kernels) == sorted(stubs), kernels
        assert all(p["planned"] for p in by["stub"]), by["stub"]
    # before c10/metal the Metal side is never planned, and the plan says why
    assert not by.get("insert"), "an insertion planned in a tree before c10/metal"
    assert {"metal", "kernel", "stub", "dtypes"} & notp, "the Metal side is not said to be unplanned"
    defs = [d for d in by.get("delete", []) if d["what"] == "definition"]
    assert defs, "a row folds but no MPS definition is deleted"
    for d in by.get("delete", []):
        assert d["line"] >= 1 and d["last"] >= d["line"], d
    return "planned"
for op in open(sys.argv[2]).read().split():
    try:
        parts = [json.loads(l) for l in open(os.path.join(sys.argv[1], op + ".json"))]
        print(op, check(op, parts))
    except Exception as e:  # noqa
        print(op, "FAIL", repr(e))
PY
if grep -q " FAIL " "$tmp/verdicts"; then
  grep " FAIL " "$tmp/verdicts" | sed 's/^/FAIL: /'; status=1
fi
planned=$(grep -c " planned$" "$tmp/verdicts") stuck=$(grep -c " stuck$" "$tmp/verdicts")
# the text plan's diff of each planned operator applies to a copy
applied=0
for op in $(sed -n 's/ planned$//p' "$tmp/verdicts"); do
  mps-migrate --root "$src" "$op" >"$tmp/d" 2>/dev/null
  if (cd "$tmp/copy" && patch -p1 --dry-run -s <"$tmp/d" >/dev/null 2>&1); then
    applied=$((applied + 1))
  else
    fail "$op: the diff does not apply"
  fi
done
echo "operators: $n; planned $planned (diff applies: $applied), rows cannot move: $stuck"
[ "$planned" -ge 70 ] || fail "too few planned"

# ---- 2. frac, signbit and atan2 written on a copy ----
w=$tmp/w
mkdir -p "$w/$nf" "$w/test"
cp -R "$src/$nf/." "$w/$nf/"
cp "$src/test/test_mps.py" "$w/test/"
(cd "$w" && find . -type f | LC_ALL=C sort | xargs cksum) >"$tmp/before.sum"
for op in frac signbit atan2; do
  mps-migrate --root "$w" --in-place "$op" >"$tmp/out" 2>"$tmp/err"; rc=$?
  # written (exit 1: mps-verify still finds the stub MPS must register,
  # the Metal side that 2.6.0 cannot have)
  [ $rc = 1 ] || { fail "$op --in-place: exit $rc, want 1"; cat "$tmp/err"; }
  grep -q "^wrote [0-9]* files" "$tmp/out" || fail "$op: no 'wrote' line"
  mps-verify --root "$w" "$op" >/dev/null 2>"$tmp/v"
  for rule in mpsgraph-host-path dead-mps-definition stale-include xfail-leftover legacy-dispatch-row; do
    grep -F "$rule]" "$tmp/v" >/dev/null && { fail "$op: $rule after the migration"; grep -F "$rule]" "$tmp/v"; }
  done
  mps-migrate --root "$w" "$op" >"$tmp/again" 2>&1
  grep -q "^nothing to do$" "$tmp/again" || fail "$op: a second run has more to do"
  # what is left is the Metal side 2.6.0 cannot have: MPS registers no stub yet
  others=$(grep 'error:' "$tmp/v" | grep -v -F 'missing-stub]')
  [ -z "$others" ] || fail "$op: errors other than missing-stub: $others"
  echo "$op: written; verify: $(grep -c 'error:' "$tmp/v") error (missing-stub: the Metal side is by hand before c10/metal)"
done
for op in atan2 signbit frac; do
  mps-migrate --root "$w" --undo >/dev/null 2>"$tmp/err" || { fail "undo after $op: $(cat "$tmp/err")"; }
done
(cd "$w" && find . -type f -not -path './.metal-kernel/*' | LC_ALL=C sort | xargs cksum) >"$tmp/after.sum"
cmp -s "$tmp/before.sum" "$tmp/after.sum" && echo "undo: every file restored" || fail "undo did not restore the tree"
exit $status
