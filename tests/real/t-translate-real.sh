#!/bin/sh
# The functor math mps-migrate translates from the CUDA and CPU kernels
# (issue #21), on real PyTorch 2.6.0 made to look like current main:
# 2.6.0's sources (aten/src/ATen/native, with cuda/ and cpu/) under the
# fixture tests/fixtures/main-shaped (c10/metal headers defining the core
# macros and the helpers of current main's c10/metal, a UnaryKernel.metal),
# plus a host stub of main's form appended to the three host files
# (UnaryKernel.mm, BinaryKernel.mm, PointwiseOps.mm: exec_ternary_kernel),
# so that the Metal side is planned.
#
# The operators: every structured elementwise one (tag pointwise, or
# structured_inherits TensorIteratorBase) with an MPS-specific row, as
# tests/real/t-migrate-real.sh.  Counted: those whose plan writes a new
# functor ("math" parts) and whose stub's CUDA kernel hands at least one
# lambda to gpu_kernel / a jiterator string; per operator (every overload
# translated, some, none) and per overload.  Prints the table the README
# shows (MK_TABLE=1: as Markdown), and fails when a count drops below
# what was measured (a translation lost), when an operator errs, or when
# a translated overload has no source line.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
use_torchgen_python py
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
status=0
fail() { echo "FAIL: $*"; status=1; }

m=$tmp/main-shaped
mkdir -p "$m/aten/src/ATen" "$m/test"
cp -R "$src/$nf" "$m/aten/src/ATen/"
cp "$src/test/test_mps.py" "$m/test/"
cp -R "$repo/tests/fixtures/main-shaped/c10" "$m/"
cp -R "$repo/tests/fixtures/main-shaped/aten" "$m/"
# the core macros with their dense kernel templates, as mps-try compiles them
cp "$repo/tests/fixtures/try/good/c10/metal/indexing.h" "$m/c10/metal/"
for k in UnaryKernel:unary:erfinv BinaryKernel:binary:copysign \
         PointwiseOps:ternary:clamp; do
  f=${k%%:*} r=${k#*:}; kind=${r%%:*} name=${r#*:}
  cat >>"$m/$nf/mps/operations/${f}.mm" <<EOF

// (main-shaped) a host stub of current PyTorch's form
namespace at::native {
static void ${name}_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_${kind}_kernel(iter, "$name");
}
} // namespace at::native
EOF
done

"$py" - "$src/$nf/native_functions.yaml" >"$tmp/ops" <<'PY' || exit 2
import sys, yaml
ops = set()
for e in yaml.safe_load(open(sys.argv[1])):
    base = e["func"].split("(")[0].split(".")[0]
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
mkdir -p "$tmp/plans"
while read -r op; do
  mps-migrate --no-try --root "$m" --json "$op" >"$tmp/plans/$op.json" 2>"$tmp/e"; rc=$?
  [ $rc = 1 ] || { fail "$op: exit $rc, want 1"; cat "$tmp/e"; }
  [ -s "$tmp/e" ] && { fail "$op: wrote to stderr"; cat "$tmp/e"; }
done <"$tmp/ops"

# the translated ones tried against the CPU (mps-migrate's try: a C++
# compiler and a python that imports torch; without them this part is
# skipped, said in one line)
mkdir -p "$tmp/tried"
if sh "$repo/tests/fixtures/try/needs-torch.sh" >"$tmp/why" 2>&1; then
  while read -r op; do
    grep -q '"status":"translated"' "$tmp/plans/$op.json" || continue
    mps-migrate --root "$m" --json "$op" >"$tmp/tried/$op.json" 2>"$tmp/e"
    rc=$?
    [ $rc = 1 ] || { fail "$op (tried): exit $rc, want 1"; cat "$tmp/e"; }
  done <"$tmp/ops"
else
  echo "the try against the CPU is skipped: $(cat "$tmp/why")"
fi

# the counts measured on 2.6.0 (main-shaped); a drop fails
MK_MIN_OPS=77 MK_MIN_FULL=47 MK_MIN_OV=142 MK_MIN_OV_ALL=179 \
"$py" - "$tmp/plans" "$tmp/ops" "$tmp/tried" >"$tmp/out" <<'PY' || status=1
import json, os, sys
plans, ops, tried = sys.argv[1], open(sys.argv[2]).read().split(), sys.argv[3]
# per operator and overload: what the try said (match, rounding, mismatch,
# not tried), from the plans made with the try
def verdicts(op):
    f = os.path.join(tried, op + ".json")
    if not os.path.exists(f):
        return None
    v = {}
    for p in (json.loads(l) for l in open(f)):
        if p["part"] != "math":
            continue
        t = p["verdict"] or ""
        if p["status"] == "left" and "does not match the CPU" in (p["construct"] or ""):
            v[p["overload"]] = ("mismatch", p["construct"])
        elif t.startswith("matches CPU") and "up to rounding" in t:
            v[p["overload"]] = ("rounding", t)
        elif t.startswith("matches CPU"):
            v[p["overload"]] = ("match", t)
        elif p["status"] == "translated":
            v[p["overload"]] = ("not tried", t)
    return v
tally = {"match": 0, "rounding": 0, "mismatch": 0, "not tried": 0}
ops_match = 0
rows, notp = [], []
nov = ntr = full = some = none = 0
bad = []
for op in ops:
    parts = [json.loads(l) for l in open(os.path.join(plans, op + ".json"))]
    math = [p for p in parts if p["part"] == "math"]
    kind = [p["kind"] for p in parts if p["part"] == "kernel"]
    if not math or not math[0]["cuda_lambdas"]:
        why = [n["what"] for n in parts if n["part"] == "not-planned"]
        notp.append((op, "no CUDA lambda" if math else
                     "not planned (%s)" % ", ".join(sorted(set(why))) if why else
                     "no new functor"))
        continue
    t = [m for m in math if m["status"] == "translated"]
    for m in t:
        if not m["file"] or not m["line"]:
            bad.append("%s: %s translated without a source line" % (op, m["overload"]))
    nov += len(math)
    ntr += len(t)
    if len(t) == len(math):
        full += 1
        verdict = "translated"
    elif t:
        some += 1
        verdict = "partly"
    else:
        none += 1
        verdict = "left"
    cells = []
    v = verdicts(op)
    all_match = v is not None
    for m in math:
        if m["status"] == "translated":
            w = v.get(m["overload"], ("not tried", "")) if v is not None else None
            if w:
                tally[w[0]] += 1
            if not w or w[0] not in ("match", "rounding"):
                all_match = False
            cells.append("%s: from %s%s" % (m["overload"], m["side"],
                         ", CPU: " + w[0] if w else ""))
        else:
            all_match = False
            cells.append("%s: left (%s)" % (m["overload"], m["construct"]))
    if all_match:
        ops_match += 1
    rows.append((op, kind[0], math[0]["cuda_kernel"].split(": ")[-1], verdict, "; ".join(cells)))
n = len(rows)
md = os.environ.get("MK_TABLE")
if md:
    print("| operator | kind | CUDA kernel | math | overloads |")
    print("|---|---|---|---|---|")
for r in rows:
    print(("| %s | %s | %s | %s | %s |" if md else "%-22s %-12s %-34s %-10s %s") % r)
print("%s%d operators with a CUDA loop kernel and a new functor: %d translated, "
      "%d partly, %d left (%.0f%% translated, %.0f%% with some overload); "
      "overloads: %d of %d translated (%.0f%%)" %
      ("\n" if md else "", n, full, some, none, 100.0 * full / n,
       100.0 * (full + some) / n, ntr, nov, 100.0 * ntr / nov))
if any(os.path.exists(os.path.join(tried, op + ".json")) for op in ops):
    print("tried against the CPU (mps-migrate's try, torch on this machine): of %d "
          "translated overloads %d match, %d match up to rounding, %d do not match "
          "(written as comments), %d not tried (a c10/metal function the fixture "
          "does not implement, or the file does not compile on the host); "
          "%d operators (%.0f%%) translated and matching on every overload" %
          (ntr, tally["match"], tally["rounding"], tally["mismatch"], tally["not tried"],
           ops_match, 100.0 * ops_match / n))
print("not counted (%d): %s" % (len(notp), ", ".join("%s (%s)" % x for x in notp)))
env = os.environ
for what, got, want in (("operators", n, "MK_MIN_OPS"), ("fully translated", full, "MK_MIN_FULL"),
                        ("translated overloads", ntr, "MK_MIN_OV"), ("overloads", nov, "MK_MIN_OV_ALL")):
    if got < int(env[want]):
        bad.append("%s: %d, below the %s measured" % (what, got, env[want]))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
cat "$tmp/out"
grep -q '^FAIL' "$tmp/out" && status=1
exit $status
