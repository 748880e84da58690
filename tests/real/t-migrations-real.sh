#!/bin/sh
# The real migrations (issue #12).  Between PyTorch 2.6.0 and 2.14.1,
# PyTorch's contributors moved 140 MPS rows of 105 operators from a line
# of MPS alone (`MPS: x_mps`) onto a shared one (`CPU, CUDA, MPS: x`).
# Replayed on a copy of 2.6.0 with `mps-dispatch --in-place OP`, one
# operator at a time (or, where upstream moved only some rows of an
# operator, as pow, those rows by name): every such row folds; each of the 140 rows ends
# with upstream's MPS kernel; no other row of the file changes its MPS
# kernel; every stub named exists in a DECLARE_DISPATCH of 2.6.0 (the
# file:line given is that of the reach, which is checked to name the
# stub); torchgen still parses the result; a second run changes nothing.
. "$(dirname "$0")/lib.sh"
use_torchgen_python py
use_tree src 2.6.0
use_tree cur 2.14.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
t=$tmp/t
mkdir -p "$t/aten/src/ATen"
cp -R "$src/$nf" "$t/aten/src/ATen/"
mps-overloads --root "$src" --all --json >"$tmp/before" || exit 1
mps-overloads --root "$cur" --all --json >"$tmp/upstream" || exit 1
"$py" - "$tmp/before" "$tmp/upstream" >"$tmp/ops" <<'PY' || exit 1
import json, sys
a = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
b = {r["name"]: r for r in map(json.loads, open(sys.argv[2]))}
mig = [n for n, r in a.items() if r["mps_route"] == "mps-specific"
       and n in b and b[n]["mps_route"] == "shared"]
# an operator whose every MPS-specific row moved is folded as a whole;
# otherwise its moved rows are named one by one
ops = sorted({a[n]["base"] for n in mig})
for op in ops:
    mine = [n for n, r in a.items() if r["base"] == op and r["mps_route"] == "mps-specific"]
    if all(n in mig for n in mine):
        print(op)
    else:
        print("\n".join(sorted(n for n in mine if n in mig)))
print(len(mig), "rows of", len({a[n]["base"] for n in mig}), "operators migrated upstream", file=sys.stderr)
PY
status=0
: >"$tmp/acted"
for op in $(cat "$tmp/ops"); do
  mps-dispatch --root "$t" --in-place --json "$op" >>"$tmp/acted" 2>"$tmp/err"; rc=$?
  [ $rc = 0 ] || { echo "FAIL: $op: exit $rc: $(head -n 3 "$tmp/err")"; status=1; }
done
mps-overloads --root "$t" --all --json >"$tmp/after" || exit 1
"$py" - "$tmp/before" "$tmp/upstream" "$tmp/after" "$tmp/acted" "$t" <<'PY' || status=1
import json, re, sys
a = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
b = {r["name"]: r for r in map(json.loads, open(sys.argv[2]))}
c = {r["name"]: r for r in map(json.loads, open(sys.argv[3]))}
acted = [json.loads(l) for l in open(sys.argv[4])]
root = sys.argv[5]
mig = {n for n, r in a.items() if r["mps_route"] == "mps-specific"
       and n in b and b[n]["mps_route"] == "shared"}
bad = 0
ok = sum(1 for n in mig if c[n]["mps_kernel"] == b[n]["mps_kernel"])
for n in sorted(mig):
    if c[n]["mps_kernel"] != b[n]["mps_kernel"]:
        print(f"FAIL: {n}: ends with {c[n]['mps_kernel']}, upstream {b[n]['mps_kernel']}"); bad = 1
other = [n for n in a if n not in mig and a[n]["mps_kernel"] != c[n]["mps_kernel"]]
for n in other:
    print(f"FAIL: {n}: not migrated upstream but changed {a[n]['mps_kernel']} -> {c[n]['mps_kernel']}"); bad = 1
refused = [x for x in acted if x["action"] == "refused"]
for x in refused:
    if x["function"] in mig:
        print(f"FAIL: {x['function']}: refused: {x['reason']}"); bad = 1
stubs = {}
for x in acted:
    for s in x["stubs"] or []:
        stubs.setdefault(s["name"], (s["reached_at"], s["declared"]))
decl = 0
for name, (at, declared) in sorted(stubs.items()):
    f, line = at.rsplit(":", 1)
    text = open(f"{root}/{f}", errors="replace").read().split("\n")[int(line) - 1]
    # the reach, or the macro line that makes it (names the stub's op)
    if name not in text and not re.search(r"\(\s*" + re.escape(name[:-5]) + r"\b", text):
        print(f"FAIL: {name}: {at} does not name it: {text.strip()}"); bad = 1
    if not declared:
        print(f"FAIL: {name}: no DECLARE_DISPATCH"); bad = 1
    decl += declared
folded = [x for x in acted if x["action"] == "folded"]
print(f"{len(folded)} rows folded, {len(refused)} refused; {ok} of {len(mig)} migrated rows "
      f"end with upstream's MPS kernel; {len(other)} other rows changed; "
      f"{len(stubs)} stubs named, {decl} declared")
sys.exit(bad)
PY
# torchgen still parses the result
"$py" - "$src" "$t/$nf" <<'PY' || status=1
import sys; sys.path.insert(0, sys.argv[1])
from torchgen.gen import parse_native_yaml
r = parse_native_yaml(sys.argv[2] + "/native_functions.yaml", sys.argv[2] + "/tags.yaml")
print("torchgen parsed", len(r.native_functions), "functions")
PY
# a second run changes nothing
cp "$t/$nf/native_functions.yaml" "$tmp/once.yaml"
for op in $(cat "$tmp/ops"); do
  mps-dispatch --root "$t" --in-place "$op" >/dev/null 2>&1
done
cmp -s "$tmp/once.yaml" "$t/$nf/native_functions.yaml" && echo "a second run changes nothing" ||
  { echo "FAIL: a second run changed the yaml"; status=1; }
exit $status
