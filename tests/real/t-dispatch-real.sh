#!/bin/sh
# mps-dispatch on real PyTorch 2.6.0 and 2.14.1: every operator with an
# MPS-specific row is folded on a copy of the yaml, one operator at a time.
# Then: the tree's own torchgen still parses the result; every row
# reported "folded" is now shared in mps-overloads; the diff only moves MPS
# between dispatch lines; a second run is silent with exit 0.
# TREE=2.14.1 (the c10/metal era, a partial tree) is run by
# t-dispatch-real-2.14.sh; this script defaults to 2.6.0.
. "$(dirname "$0")/lib.sh"
use_torchgen_python py
v=${TREE:-2.6.0}
use_tree src "$v"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
echo "PyTorch $v"
# the yaml and the C++ sources beside it (whose stubs decide the rows
# that are not structured; 2.14.1 has none)
mkdir -p "$tmp/t/aten/src/ATen"
cp -R "$src/$nf" "$tmp/t/aten/src/ATen/"
cp "$tmp/t/$nf/native_functions.yaml" "$tmp/orig.yaml"
ops=$(mps-overloads --root "$tmp/t" --legacy --all --json |
      "$py" -c 'import json,sys; print("\n".join(sorted({json.loads(l)["base"] for l in sys.stdin})))')
folded=0 partial=0 refused=0 status=0
: >"$tmp/acted"
for op in $ops; do
  mps-dispatch --root "$tmp/t" --in-place --json "$op" >"$tmp/out" 2>"$tmp/err"; rc=$?
  cat "$tmp/out" >>"$tmp/acted"
  nf_=$(grep -c '"action":"folded"' "$tmp/out"); nr=$(grep -c '"action":"refused"' "$tmp/out")
  case $rc in
    0) if [ "$nr" = 0 ]; then folded=$((folded + 1)); else partial=$((partial + 1)); fi ;;
    2) if [ "$nf_" = 0 ] && [ "$nr" -gt 0 ]; then refused=$((refused + 1))
       else echo "$op: exit 2: $(cat "$tmp/err")"; status=1; fi ;;
    *) echo "$op: unexpected exit $rc"; cat "$tmp/err"; status=1 ;;
  esac
done
echo "operators: $folded folded, $partial partly folded, $refused refused"
[ $folded -gt "${MIN_FOLDED:-50}" ] || { echo "too few operators folded"; status=1; }
# torchgen parses the result
"$py" - "$src" "$tmp/t/$nf" <<'PY' || status=1
import sys; sys.path.insert(0, sys.argv[1])
from torchgen.gen import parse_native_yaml
r = parse_native_yaml(sys.argv[2] + "/native_functions.yaml", sys.argv[2] + "/tags.yaml")
print("torchgen parsed", len(r.native_functions), "functions")
PY
# every folded row is now shared
mps-overloads --root "$tmp/t" --all --json >"$tmp/after"
"$py" - "$tmp/acted" "$tmp/after" <<'PY' || status=1
import json, sys
acted = [json.loads(l) for l in open(sys.argv[1])]
after = {r["name"]: r for r in map(json.loads, open(sys.argv[2]))}
bad = [a["function"] for a in acted if a["action"] == "folded" and after[a["function"]]["mps_route"] != "shared"]
print(len([a for a in acted if a["action"] == "folded"]), "rows folded,", len(bad), "not shared afterwards")
sys.exit(1 if bad else 0)
PY
# the diff only removes `MPS:` lines and adds MPS to shared lines
diff "$tmp/orig.yaml" "$tmp/t/$nf/native_functions.yaml" | grep '^[<>]' >"$tmp/d"
"$py" - "$tmp/d" <<'PY' || status=1
import re, sys
rem = [l[2:] for l in open(sys.argv[1]) if l.startswith("< ")]
add = [l[2:] for l in open(sys.argv[1]) if l.startswith("> ")]
plain_rem = [l for l in rem if not re.match(r"^\s+MPS: \w+(\s+#.*)?$", l)]
def without_mps(l):
    # the added line less its MPS key (at its alphabetical place or last)
    m = re.match(r"^(\s*)([^:]+):(.*)$", l, re.S)
    keys = [k.strip() for k in m.group(2).split(",")]
    return m.group(1) + ", ".join(k for k in keys if k != "MPS") + ":" + m.group(3)
ok = sorted(l for l in plain_rem) == sorted(without_mps(l) for l in add)
print(len(rem), "lines removed,", len(add), "added; only dispatch lines:", ok)
sys.exit(0 if ok else 1)
PY
# idempotent on a fully folded operator
for op in ${IDEMPOTENT:-atan2 sqrt}; do
  out=$(mps-dispatch --root "$tmp/t" "$op" 2>&1); rc=$?
  [ $rc = 0 ] && [ -z "$out" ] || { echo "second run on $op: exit $rc, output '$out'"; status=1; }
done
exit $status
