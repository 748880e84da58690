#!/usr/bin/env python3
"""make bench: time each tool's run as the README's benchmark table names
it against a named alternative in the same run, print the ratio and the
target of every row (MISSED where it misses), then the table itself
(Markdown, dated) for the README.

Every command runs BENCH_REPEAT times (default 5); the best (minimum)
wall time counts.  Every run is cold and serial: the tools keep nothing
between runs.  Peak memory is the child's ru_maxrss, measured by the
small C parent tests/bench/peak.c.

usage: bench.py REPO TREE(2.6.0) BUILD_DIR
"""
import datetime
import os
import platform
import subprocess
import sys

repo, tree, build = sys.argv[1:4]
bindir = os.path.join(repo, "tools/bin")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import REPEAT, best, peak_kib  # noqa: E402

NAT = "aten/src/ATen/native"
yaml_path = os.path.join(tree, NAT, "native_functions.yaml")
tool = lambda name: os.path.join(bindir, name)  # noqa: E731
rows = []  # (what, time, alternative, ratio text, target, ok)


def ms(t):
    return f"{t * 1000:.1f} ms"


def row(what, t, alt, ratio, target, ok, shown=None):
    """Print one measured row and keep it for the table."""
    rows.append((what, shown or ms(t), alt, ratio, target, ok))
    print(f"  {what:<52} {shown or ms(t):>10}   {ratio:<22} (target {target})"
          f"{'' if ok else '  MISSED'}")


def peak_row(what, cmd):
    m = peak_kib(cmd, os.path.join(build, "peak")) / 1024
    row(f"peak memory of {what}", 0, "", "", "<= 32 MiB", m <= 32,
        shown=f"{m:.1f} MiB")


load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
print(f"benchmark on {tree} ({now}; {platform.machine()}, {os.cpu_count()} "
      f"cores, load average {load:.2f} at the start; best of {REPEAT}; every "
      "run is cold and serial: the tools keep nothing between runs)")

# The files the tools read, as grep is given them: the C++ sources of
# aten/src/ATen/native outside the device folders (stub discovery), the
# MPS host and kernel files and the yaml, the test lists.
devices = ("cuda", "hip", "miopen", "cudnn", "xpu", "vulkan", "metal", "mtia",
           "hpu")
skip = ["--exclude-dir=" + d for d in devices]
cxx = ["--include=*.cpp", "--include=*.h"] + skip + ["--exclude-dir=mps"]
lists = [f for f in ("torch/testing/_internal/common_mps.py", "test/test_mps.py")
         if os.path.exists(os.path.join(tree, f))]
allsel = ["--include=*.cpp", "--include=*.h", "--include=*.mm",
          "--include=*.metal", "--include=native_functions.yaml"] + skip

# --- mps-overloads ----------------------------------------------------------
print("mps-overloads")
t_ev = best([os.path.join(build, "yaml_events"), yaml_path])
t_gc = best(["grep", "-rnE", r"[a-z0-9_]+_stub\b"] + cxx + [NAT], cwd=tree)
ov_root = [tool("mps-overloads"), "--root", tree, "--all", "--json"]
t_root = best(ov_root)
r = t_root / (t_ev + t_gc)
row("`mps-overloads --all --json` (`--root`: with the stubs)", t_root,
    f"bare libyaml parse {ms(t_ev)} + `grep -rnE` for stubs over the same "
    f"C++ files {ms(t_gc)}", f"{r:.2f}x", "<= 3x", r <= 3)
ov_yaml = [tool("mps-overloads"), "--yaml", yaml_path, "--all", "--json"]
t_yaml = best(ov_yaml)
r = t_yaml / t_ev
row("`mps-overloads --yaml FILE --all --json` (no sources)", t_yaml,
    f"bare libyaml event parse (yaml_events): {ms(t_ev)}", f"{r:.2f}x",
    "<= 3x", r <= 3)
tg = ["python3", "-c",
      "import sys; sys.path.insert(0, sys.argv[1]);"
      "from torchgen.gen import parse_native_yaml as p;"
      "p(sys.argv[2], sys.argv[3])",
      tree, yaml_path, os.path.join(tree, NAT, "tags.yaml")]
t_tg = best(tg, repeat=max(1, REPEAT // 2))
r = t_tg / t_yaml
row("same", t_yaml, f"torchgen `parse_native_yaml`: {ms(t_tg)}",
    f"{r:.1f}x faster", ">= 30x", r >= 30)
peak_row("`mps-overloads --all --json` (`--root`)", ov_root)

# --- mps-verify -------------------------------------------------------------
print("mps-verify (grep -rnE reads " + NAT + ": *.cpp *.h *.mm *.metal and "
      "the yaml, not the device folders" +
      (", and " + ", ".join(lists) if lists else "") + ")")
g1 = best(["grep", "-rnE",
           r"sqrt(_out)?_mps|sqrt_stub|sqrt_native\.h|REGISTER_[A-Z_]*OP\(sqrt"]
          + allsel + [NAT] + lists, cwd=tree)
ga = best(["grep", "-rnE",
           r"[a-z0-9_]+(_out)?_mps\b|[a-z0-9_]+_stub\b|ATen/ops/[a-z0-9_]+"
           r"_native\.h|REGISTER_[A-Z_]*OP\("] + allsel + [NAT] + lists, cwd=tree)
for name, cmd, g, alt in (
        ("`mps-verify sqrt`", [tool("mps-verify"), "--root", tree, "sqrt"], g1,
         "`grep -rnE` for the same names over the same files"),
        ("`mps-verify --all`", [tool("mps-verify"), "--root", tree, "--all"], ga,
         "`grep -rnE` for all old-name patterns, same files")):
    t = best(cmd, cwd=tree)
    r = t / g
    row(name, t, f"{alt}: {ms(g)}", f"{r:.2f}x", "<= 3x", r <= 3)
peak_row("`mps-verify --all`", [tool("mps-verify"), "--root", tree, "--all"])

# --- further sections: tests/bench/section-*.sh, each printing rows
# "ROW|what|time|alternative|ratio|target|ok" for the table ---------------
sys.stdout.flush()
for name in sorted(os.listdir(os.path.join(repo, "tests/bench"))):
    if name.startswith("section-") and name.endswith(".sh"):
        p = subprocess.run(["sh", os.path.join(repo, "tests/bench", name), tree],
                           capture_output=True, text=True, check=False)
        for ln in p.stdout.splitlines():
            if ln.startswith("ROW|"):
                f = ln.split("|")
                rows.append((f[1], f[2], f[3], f[4], f[5], f[6] == "1"))
            else:
                print(ln)
        sys.stdout.write(p.stderr)

# --- the README's table ---------------------------------------------------
missed = sum(1 for x in rows if not x[5])
print()
print(f"README table ({now}, {platform.machine()}, {os.cpu_count()} cores, "
      f"load average {load:.2f}; best of {REPEAT}):")
print()
print("| what | time | alternative, same run | ratio | target | |")
print("|---|---|---|---|---|---|")
for what, t, alt, ratio, target, ok in rows:
    print(f"| {what} | {t} | {alt} | {ratio} | {target} | "
          f"{'met' if ok else 'MISSED'} |")
print()
print(f"{len(rows) - missed} of {len(rows)} targets met"
      f"{'' if not missed else f', {missed} MISSED'}")
