#!/bin/sh
# make bench section: mps-verify against `grep -rnE` for the same old names
# over the same files (issue #3).  $1: the 2.6.0 tree.
tree=$(cd "$1" && pwd)
BENCH_DIR=$(cd "$(dirname "$0")" && pwd) python3 - "$tree" <<'PY'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from timing import best
tree = sys.argv[1]
files = ["aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/mps",
         "torch/testing/_internal/common_mps.py"]
files = [f for f in files if os.path.exists(os.path.join(tree, f))]
one = best(["mps-verify", "--root", tree, "sqrt"], cwd=tree)
g1 = best(["grep", "-rnE", r"sqrt(_out)?_mps|sqrt_stub|sqrt_native\.h|REGISTER_[A-Z_]*OP\(sqrt"] + files, cwd=tree)
allv = best(["mps-verify", "--root", tree, "--all"], cwd=tree)
ga = best(["grep", "-rnE", r"[a-z0-9_]+(_out)?_mps\b|[a-z0-9_]+_stub\b|ATen/ops/[a-z0-9_]+_native\.h|REGISTER_[A-Z_]*OP\("] + files, cwd=tree)
print("mps-verify")
print(f"  mps-verify sqrt            {one*1000:8.2f} ms   grep -rnE (same names, same files) {g1*1000:7.2f} ms   ratio {one/g1:6.2f}x (target <= 1x)")
print(f"  mps-verify --all           {allv*1000:8.2f} ms   grep -rnE (all old-name patterns)  {ga*1000:7.2f} ms   ratio {allv/ga:6.2f}x (target <= 3x)")
print(f"  --all / one operator: {allv/one:.2f}x (each file is read once for all operators)")
PY
