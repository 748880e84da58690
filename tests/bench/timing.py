"""Best-of-N wall time and peak memory of a command, shared by bench.py
and the tests/bench/section-*.sh scripts."""
import os
import subprocess
import sys
import time

REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))


def best(cmd, repeat=None, cwd=None):
    """Run cmd (stdout and stderr discarded) repeat times (default
    BENCH_REPEAT, 5) and return the smallest wall time in seconds.  An exit
    status above 1 (an error, not findings) stops the benchmark.  Every
    run of the tools is cold: they keep nothing between runs."""
    env = dict(os.environ)
    b = None
    for _ in range(repeat or REPEAT):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        d = time.perf_counter() - t0
        if r.returncode > 1:
            sys.exit(f"bench: {' '.join(cmd)} exited {r.returncode}")
        b = d if b is None or d < b else b
    return b


def peak_kib(cmd, helper):
    """Peak resident memory of cmd in KiB: ru_maxrss of the child, as the
    small C parent HELPER (tests/bench/peak.c, built by run.sh) measures
    it (a python parent would count its own pages in a child it forks).
    An exit status above 1 stops the benchmark."""
    r = subprocess.run([helper] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed (peak)")
    return int(r.stdout.strip())
