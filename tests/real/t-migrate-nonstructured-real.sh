#!/bin/sh
# mps-migrate on the real migrations that are not structured (issue #21):
# of the 140 rows PyTorch's contributors moved from `MPS: x_mps` onto a
# shared line between 2.6.0 and 2.14.1 (t-migrations-real.sh), 40 belong
# to functions that are not structured.  For each, mps-migrate plans the
# operator on 2.6.0 and must derive the kernel kind and the dtypes (from
# the stub's CPU kernel and the iterator the shared kernel builds,
# outrule.h cs_iter_rule), for at least the rows counted here; the others
# are said with why (random-number stubs taking a Generator, nullary
# fills, reductions, a stub taking three optional scalars, outputs whose
# dtype the out tensor decides).  Prints the rows derived and the count.
. "$(dirname "$0")/lib.sh"
use_torchgen_python py
use_tree src 2.6.0
use_tree cur 2.14.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mps-overloads --root "$src" --all --json >"$tmp/before" || exit 1
mps-overloads --root "$cur" --all --json >"$tmp/upstream" || exit 1
"$py" - "$tmp/before" "$tmp/upstream" >"$tmp/rows" <<'PY' || exit 1
import json, sys
a = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
b = {r["name"]: r for r in map(json.loads, open(sys.argv[2]))}
for n, r in sorted(a.items()):
    if (r["mps_route"] == "mps-specific" and n in b and
            b[n]["mps_route"] == "shared" and not r["structured"]):
        print(n, r["base"])
PY
mkdir -p "$tmp/plans"
for op in $(cut -d' ' -f2 "$tmp/rows" | sort -u); do
  mps-migrate --root "$src" --json "$op" >"$tmp/plans/$op.json" 2>/dev/null
  [ $? -le 1 ] || { echo "FAIL: mps-migrate $op: exit $?"; exit 1; }
done
"$py" - "$tmp/rows" "$tmp/plans" <<'PY'
import json, os, sys
rows = [l.split() for l in open(sys.argv[1])]
# the rows whose plans derive kind and dtypes now, with what they derive
# (kind, output rule); each read against 2.6.0's sources by hand:
expect = {
    "abs.out": ("unary", "same"),              # unary_op via unary_op_impl_with_complex_to_float_out
    "conj_physical.out": ("unary", "same"),    # TensorIterator::unary_op
    "floor_divide": ("binary", "same"),        # TensorIterator::binary_op, div_floor_stub
    "floor_divide.out": ("binary", "same"),
    "floor_divide_.Tensor": ("binary", "same"),
    "hardswish": ("unary", "same"),            # TensorIterator::unary_op
    "hardswish.out": ("unary", "same"),
    "hardswish_": ("unary", "same"),
    "hardswish_backward": ("binary", "same"),  # TensorIterator::borrowing_binary_op
    "mish_backward": ("binary", "same"),       # TensorIterator::binary_op
}
bad = 0
derived = []
for name, op in rows:
    parts = [json.loads(l) for l in open(os.path.join(sys.argv[2], op + ".json"))]
    k = next(p for p in parts if p["part"] == "kernel")
    d = next(p for p in parts if p["part"] == "dtypes")
    notp = [p for p in parts if p["part"] == "not-planned"]
    ok = k["kind"] is not None and d["source"] == "cpu" and len(d["pairs"]) > 0
    if ok:
        derived.append(name)
        if name in expect and (k["kind"], d["rule"]) != expect[name]:
            print(f"FAIL: {name}: {k['kind']}, {d['rule']}; expected {expect[name]}"); bad = 1
        print(f"derived  {name}: {k['kind']}, rule {d['rule']}, {len(d['pairs'])} registrations")
    else:
        if not notp:
            print(f"FAIL: {name}: neither derived nor said why"); bad = 1
        why = "; ".join(f"{p['what']}: {p['why'][:90]}" for p in notp
                        if p["what"] in ("kernel", "dtypes", "stub"))
        print(f"not      {name}: {why}")
for name in expect:
    if name not in derived:
        print(f"FAIL: {name}: no longer derived"); bad = 1
print(f"{len(derived)} of {len(rows)} non-structured migrated rows get kind and dtypes derived")
if len(rows) != 40:
    print(f"FAIL: {len(rows)} non-structured rows, 40 expected"); bad = 1
sys.exit(bad)
PY
