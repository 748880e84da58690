#!/bin/sh
# make bench section: mps-verify against `grep -rnE` for the same old names
# over the same files (issue #3): the yaml, the MPS folder, and the test
# lists the tool reads (common_mps.py, or test_mps.py when that is absent,
# as in 2.6.0).  Cold (MK_CACHE=off) and warm (models from the store).
# $1: the 2.6.0 tree.
tree=$(cd "$1" && pwd)
BENCH_DIR=$(cd "$(dirname "$0")" && pwd) python3 - "$tree" <<'PY'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from timing import best
tree = sys.argv[1]
files = ["aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/mps"]
lists = "torch/testing/_internal/common_mps.py"
files.append(lists if os.path.exists(os.path.join(tree, lists)) else "test/test_mps.py")
files = [f for f in files if os.path.exists(os.path.join(tree, f))]
g1 = best(["grep", "-rnE", r"sqrt(_out)?_mps|sqrt_stub|sqrt_native\.h|REGISTER_[A-Z_]*OP\(sqrt"] + files, cwd=tree)
ga = best(["grep", "-rnE", r"[a-z0-9_]+(_out)?_mps\b|[a-z0-9_]+_stub\b|ATen/ops/[a-z0-9_]+_native\.h|REGISTER_[A-Z_]*OP\("] + files, cwd=tree)
print(f"mps-verify (grep reads {', '.join(files)})")
for name, cmd, g, target in (("mps-verify sqrt", ["mps-verify", "--root", tree, "sqrt"], g1, 1),
                             ("mps-verify --all", ["mps-verify", "--root", tree, "--all"], ga, 3)):
    cold = best(cmd, cwd=tree, cache="off")
    warm = best(cmd, cwd=tree, cache="warm")
    print(f"  {name:<18} cold {cold*1000:7.2f} ms  warm {warm*1000:7.2f} ms   "
          f"grep -rnE {g*1000:6.2f} ms   ratio cold {cold/g:5.2f}x, warm {warm/g:5.2f}x "
          f"(target <= {target}x)")
PY
