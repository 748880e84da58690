#!/usr/bin/env python3
"""make bench: time each tool against a named alternative in the same run
and print ratios.  Each command runs REPEAT times; the best (minimum) wall
time counts.  Peak memory is the child's ru_maxrss.

usage: bench.py REPO TREE(2.6.0) BUILD_DIR
"""
import os
import subprocess
import sys

repo, tree, build = sys.argv[1:4]
bindir = os.path.join(repo, "tools/bin")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import REPEAT, best as run, peak_kib  # noqa: E402

yaml_path = os.path.join(tree, "aten/src/ATen/native/native_functions.yaml")


def line(label, t, base_label=None, base=None):
    if base is None:
        print(f"  {label:<46} {t*1000:9.2f} ms")
    else:
        print(f"  {label:<46} {t*1000:9.2f} ms   {t/base:8.2f}x {base_label}")


print(f"benchmark on {yaml_path} (best of {REPEAT}; every run is cold "
      "and serial: the tools keep nothing between runs)")
# --- mps-overloads ----------------------------------------------------------
ov = [os.path.join(bindir, "mps-overloads"), "--yaml", yaml_path, "--all", "--json"]
t_ov = run(ov)
t_ev = run([os.path.join(build, "yaml_events"), yaml_path])
tg = ["python3", "-c",
      "import sys; sys.path.insert(0, sys.argv[1]);"
      "from torchgen.gen import parse_native_yaml as p;"
      "p(sys.argv[2], sys.argv[3])",
      tree, yaml_path, os.path.join(tree, "aten/src/ATen/native/tags.yaml")]
t_tg = run(tg, repeat=max(1, REPEAT // 2))
print("mps-overloads --all --json")
line("mps-overloads", t_ov)
line("bare libyaml event parse (yaml_events)", t_ev)
line("torchgen parse_native_yaml", t_tg)
r_tg, r_ev = t_tg / t_ov, t_ov / t_ev
print(f"  torchgen / mps-overloads = {r_tg:.1f}x faster (target >= 30x)"
      f"{'' if r_tg >= 30 else '  MISSED'}")
print(f"  mps-overloads / bare libyaml = {r_ev:.2f}x (target <= 3x)"
      f"{'' if r_ev <= 3 else '  MISSED'}")
m = peak_kib(ov) / 1024
print(f"  peak memory: mps-overloads {m:.1f} MiB (target <= 32 MiB)"
      f"{'' if m <= 32 else '  MISSED'}")

# --- further sections: executable scripts tests/bench/section-*.sh -------
sys.stdout.flush()
for name in sorted(os.listdir(os.path.join(repo, "tests/bench"))):
    if name.startswith("section-") and name.endswith(".sh"):
        subprocess.run(["sh", os.path.join(repo, "tests/bench", name), tree],
                       check=False)
