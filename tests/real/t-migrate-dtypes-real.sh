#!/bin/sh
# mps-migrate's dtypes on real PyTorch 2.6.0 (issue #14): for every row of
# the hand-read table tests/real/cpu_dtypes_2.6.0.tsv whose operator has no
# overload and whose stub is the one mps-migrate plans, the plan's CPU
# dtypes, output rule, dtypes handled before the stub and dtypes the meta
# function refuses equal the table's, and the registrations it chooses
# (and the host dtype check) follow from the table by the rules written in
# tools/lib/plan/migrate.h (mg_derive_pairs), computed here again independently:
#   Metal inputs: each CPU dtype that has a Metal type (Double and the
#     types Metal lacks dropped), minus before-stub and refused ones;
#   outputs: same -> the input's; float -> floating and complex keep
#     theirs, the six integral and bool inputs give float; bool -> bool;
#   unknown -> no registrations (the plan asks for --dtypes);
#   not structured: the rule of the iterator the shared kernel builds
#     (the table's last column); mixed -> no registrations;
#   a kernel kind not planned (a stub taking several scalars) -> none;
#   check: the inputs that reach no kernel and are not handled otherwise.
. "$(dirname "$0")/lib.sh"
use_tree t 2.6.0
use_torchgen_python py
table=$repo/tests/real/cpu_dtypes_2.6.0.tsv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plans"
tab=$(printf '\t')
while IFS="$tab" read -r op stub rest; do
  case $op in '#'*|''|*.*) continue ;; esac
  mps-migrate --root "$t" --json "$op" >"$tmp/plans/$op.json" 2>"$tmp/plans/$op.err"
done <"$table"
"$py" - "$table" "$tmp/plans" <<'PY'
import json, os, sys
METAL = [("Float", "float"), ("Half", "half"), ("BFloat16", "bfloat"),
         ("Long", "long"), ("Int", "int"), ("Short", "short"), ("Char", "char"),
         ("Byte", "uchar"), ("Bool", "bool"), ("ComplexFloat", "float2"),
         ("ComplexHalf", "half2")]
FLOATISH = {"float", "half", "bfloat", "float2", "half2"}
def dset(s):
    return set() if s in ("", "-") else set(s.split(","))
def expected(types, rule, before, rejects):
    skip = {m for n, m in METAL if n in before | rejects}
    have = {m for n, m in METAL if n in types}
    pairs = []
    if rule not in ("same", "float", "bool"):
        return None, None
    for n, m in METAL:
        if m in skip:
            continue
        if rule == "float" and m not in FLOATISH:
            pairs.append((m, "float"))
        elif m not in have:
            continue
        else:
            pairs.append((m, "bool" if rule == "bool" else m))
    allowed = {i for i, _ in pairs} | skip
    check = None if allowed == {m for _, m in METAL} else sorted(allowed, key=[m for _, m in METAL].index)
    return pairs, check
rows = checked = skipped = 0
bad = []
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    op, stub, types, rule, before, rejects, how, it = line.rstrip("\n").split("\t")
    if rule == "unknown" and it != "-":
        rule = it  # not structured: the iterator's rule
    if "." in op:
        continue
    rows += 1
    parts = [json.loads(l) for l in open(os.path.join(sys.argv[2], op + ".json"))]
    by = {}
    for p in parts:
        by.setdefault(p["part"], []).append(p)
    k = by.get("kernel", [{}])[0]
    if k.get("stub") != stub:
        skipped += 1
        print(f"skip {op}: plans stub {k.get('stub')}, the table read {stub}")
        continue
    d = by["dtypes"][0]
    types_s, before_s, rejects_s = dset(types), dset(before), dset(rejects)
    why = []
    if set(d["cpu_dtypes"] or []) != types_s:
        why.append(f"cpu dtypes {sorted(d['cpu_dtypes'] or [])} != {sorted(types_s)}")
    if d["rule"] != rule:
        why.append(f"rule {d['rule']} != {rule}")
    if set(d["before_stub"]) != before_s:
        why.append(f"before-stub {d['before_stub']} != {sorted(before_s)}")
    if set(d["rejects"]) != rejects_s:
        why.append(f"rejects {d['rejects']} != {sorted(rejects_s)}")
    pairs, check = expected(types_s, rule, before_s, rejects_s)
    got = [(p["in"], p["out"]) for p in d["pairs"]]
    if k.get("kind") is None:
        # the kind is not planned (nan_to_num: three scalars): nothing
        # registered, and the plan says why
        notp = {p["what"] for p in by.get("not-planned", [])}
        if got or "kernel" not in notp:
            why.append("a kernel not planned must plan no registrations and say why")
    elif pairs is None:
        notp = {p["what"] for p in by.get("not-planned", [])}
        if got or "dtypes" not in notp:
            why.append("an unknown output rule must plan no registrations and ask for --dtypes")
    else:
        if got != pairs:
            why.append(f"pairs {got} != {pairs}")
        if d["check"] != check:
            why.append(f"check {d['check']} != {check}")
    checked += 1
    if why:
        bad.append(f"{op}: " + "; ".join(why))
for b in bad:
    print("FAIL:", b)
print(f"rows {rows}: {checked} checked, {checked - len(bad)} agree, {skipped} skipped (another stub planned)")
sys.exit(1 if bad or checked < 25 else 0)
PY
