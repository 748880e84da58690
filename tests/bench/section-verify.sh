#!/bin/sh
# make bench section: mps-verify against `grep -rnE` for the same old names
# over the same files the tool reads: the yaml, the MPS host and kernel
# files, the test lists (common_mps.py and test_mps.py, each when present)
# and the C++ sources of aten/src/ATen/native outside the device folders
# (the tool reads them for the stubs of shared rows).  Targets: mps-verify
# OP <= 5x and --all <= 12x the grep pass; peak memory <= 32 MiB.
# $1: the 2.6.0 tree.
tree=$(cd "$1" && pwd)
BENCH_DIR=$(cd "$(dirname "$0")" && pwd) python3 - "$tree" <<'PY'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from timing import best, peak_kib
tree = sys.argv[1]
nat = "aten/src/ATen/native"
files = [nat] + [f for f in ("torch/testing/_internal/common_mps.py", "test/test_mps.py")
                 if os.path.exists(os.path.join(tree, f))]
sel = ["--include=*.cpp", "--include=*.h", "--include=*.mm", "--include=*.metal",
       "--include=native_functions.yaml"]
sel += ["--exclude-dir=" + d for d in ("cuda", "hip", "miopen", "cudnn", "xpu",
                                       "vulkan", "metal", "mtia", "hpu")]
# the .py lists are named explicitly, so --include does not drop them
g1 = best(["grep", "-rnE", r"sqrt(_out)?_mps|sqrt_stub|sqrt_native\.h|REGISTER_[A-Z_]*OP\(sqrt"] + sel + files, cwd=tree)
ga = best(["grep", "-rnE", r"[a-z0-9_]+(_out)?_mps\b|[a-z0-9_]+_stub\b|ATen/ops/[a-z0-9_]+_native\.h|REGISTER_[A-Z_]*OP\("] + sel + files, cwd=tree)
print(f"mps-verify (grep -rnE reads {nat} (*.cpp *.h *.mm *.metal, the yaml; not the device folders)"
      f"{', ' + ', '.join(files[1:]) if files[1:] else ''})")
for name, cmd, g, target in (("mps-verify sqrt", ["mps-verify", "--root", tree, "sqrt"], g1, 5),
                             ("mps-verify --all", ["mps-verify", "--root", tree, "--all"], ga, 12)):
    t = best(cmd, cwd=tree)
    m = peak_kib(cmd) / 1024
    print(f"  {name:<18} {t*1000:7.2f} ms   grep -rnE {g*1000:6.2f} ms   "
          f"ratio {t/g:5.2f}x (target <= {target}x){'' if t/g <= target else '  MISSED'}"
          f"   peak {m:.1f} MiB (target <= 32){'' if m <= 32 else '  MISSED'}")
PY
