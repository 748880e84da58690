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
# a private store of parsed models for the whole benchmark
os.environ["MK_CACHE_DIR"] = os.path.join(build, "bench-cache")
bindir = os.path.join(repo, "tools/bin")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import REPEAT, best as run  # noqa: E402

yaml_path = os.path.join(tree, "aten/src/ATen/native/native_functions.yaml")


def peak_kib(cmd):
    r = subprocess.run(["python3", "-c",
                        "import resource,subprocess,sys\n"
                        "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,check=True)\n"
                        "m=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
                        "print(m//1024 if sys.platform=='darwin' else m)"] + cmd,
                       capture_output=True, text=True, check=True)
    return int(r.stdout.strip())


def line(label, t, base_label=None, base=None):
    if base is None:
        print(f"  {label:<46} {t*1000:9.2f} ms")
    else:
        print(f"  {label:<46} {t*1000:9.2f} ms   {t/base:8.2f}x {base_label}")


print(f"benchmark on {yaml_path} (best of {REPEAT})")
print("cold: MK_CACHE=off, every run parses; warm: the parsed models come "
      "from the store\n(tools/lib/cache.h), filled by one untimed run first")
# --- mps-overloads (issue #2) -------------------------------------------
ov = [os.path.join(bindir, "mps-overloads"), "--yaml", yaml_path, "--all", "--json"]
t_cold = run(ov, cache="off")
t_warm = run(ov, cache="warm")
t_ev = run([os.path.join(build, "yaml_events"), yaml_path])
tg = ["python3", "-c",
      "import sys; sys.path.insert(0, sys.argv[1]);"
      "from torchgen.gen import parse_native_yaml as p;"
      "p(sys.argv[2], sys.argv[3])",
      tree, yaml_path, os.path.join(tree, "aten/src/ATen/native/tags.yaml")]
t_tg = run(tg, repeat=max(1, REPEAT // 2))
print("mps-overloads --all --json")
line("mps-overloads, cold", t_cold)
line("mps-overloads, warm", t_warm)
line("bare libyaml event parse (yaml_events)", t_ev)
line("torchgen parse_native_yaml", t_tg)
for name, t in (("cold", t_cold), ("warm", t_warm)):
    print(f"  {name}: torchgen / mps-overloads = {t_tg/t:.1f}x faster (target >= 100x); "
          f"mps-overloads / bare libyaml = {t/t_ev:.2f}x (target <= 2x)")
print(f"  peak memory: mps-overloads {peak_kib(ov)/1024:.1f} MiB (target <= 32 MiB)")
print(f"  threads: {os.cpu_count()} CPUs here; mps-overloads uses up to one per "
      "CPU (MK_THREADS=N sets it)")

# --- further sections: executable scripts tests/bench/section-*.sh -------
sys.stdout.flush()
for name in sorted(os.listdir(os.path.join(repo, "tests/bench"))):
    if name.startswith("section-") and name.endswith(".sh"):
        subprocess.run(["sh", os.path.join(repo, "tests/bench", name), tree],
                       check=False)
