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


def peak_kib(cmd):
    """Peak resident memory of cmd in KiB (ru_maxrss of the child); an
    exit status above 1 stops the benchmark."""
    r = subprocess.run(["python3", "-c",
                        "import resource,subprocess,sys\n"
                        "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,"
                        "stderr=subprocess.DEVNULL)\n"
                        "r.returncode>1 and sys.exit(r.returncode)\n"
                        "m=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
                        "print(m//1024 if sys.platform=='darwin' else m)"] + cmd,
                       capture_output=True, text=True, check=True)
    return int(r.stdout.strip())
