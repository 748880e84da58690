#!/bin/sh
# make bench section: mps-verify against `grep -rnE` for the same old names
# over the same files (issue #3): the yaml, the MPS folder, and the test
# lists the tool reads (common_mps.py, or test_mps.py when that is absent,
# as in 2.6.0).  Targets: mps-verify OP <= 5x and --all <= 12x the grep
# pass; peak memory <= 32 MiB.  $1: the 2.6.0 tree.
tree=$(cd "$1" && pwd)
BENCH_DIR=$(cd "$(dirname "$0")" && pwd) python3 - "$tree" <<'PY'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from timing import best, peak_kib
tree = sys.argv[1]
files = ["aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/mps"]
lists = "torch/testing/_internal/common_mps.py"
files.append(lists if os.path.exists(os.path.join(tree, lists)) else "test/test_mps.py")
files = [f for f in files if os.path.exists(os.path.join(tree, f))]
g1 = best(["grep", "-rnE", r"sqrt(_out)?_mps|sqrt_stub|sqrt_native\.h|REGISTER_[A-Z_]*OP\(sqrt"] + files, cwd=tree)
ga = best(["grep", "-rnE", r"[a-z0-9_]+(_out)?_mps\b|[a-z0-9_]+_stub\b|ATen/ops/[a-z0-9_]+_native\.h|REGISTER_[A-Z_]*OP\("] + files, cwd=tree)
print(f"mps-verify (grep reads {', '.join(files)})")
for name, cmd, g, target in (("mps-verify sqrt", ["mps-verify", "--root", tree, "sqrt"], g1, 5),
                             ("mps-verify --all", ["mps-verify", "--root", tree, "--all"], ga, 12)):
    t = best(cmd, cwd=tree)
    m = peak_kib(cmd) / 1024
    print(f"  {name:<18} {t*1000:7.2f} ms   grep -rnE {g*1000:6.2f} ms   "
          f"ratio {t/g:5.2f}x (target <= {target}x){'' if t/g <= target else '  MISSED'}"
          f"   peak {m:.1f} MiB (target <= 32){'' if m <= 32 else '  MISSED'}")
PY
