"""Best-of-N wall time of a command, shared by bench.py and the
tests/bench/section-*.sh scripts."""
import os
import subprocess
import sys
import time

REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))


def best(cmd, repeat=None, cwd=None, cache=None):
    """Run cmd (stdout and stderr discarded) repeat times (default
    BENCH_REPEAT, 5) and return the smallest wall time in seconds.  An exit
    status above 1 (an error, not findings) stops the benchmark.
    cache: None leaves the environment alone; "off" runs with MK_CACHE=off
    (every run parses: cold); "warm" runs once untimed first, so that the
    timed runs read the parsed models from the store (tools/lib/cache.h;
    bench.py points MK_CACHE_DIR at a private folder)."""
    env = dict(os.environ)
    if cache == "off":
        env["MK_CACHE"] = "off"
    elif cache == "warm":
        env.pop("MK_CACHE", None)
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=cwd, env=env)
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
