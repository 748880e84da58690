#!/usr/bin/env python3
"""verify_ops_check.py TREE

Runs `mps-verify --root TREE --all --json` once, then `mps-verify --root
TREE --json OP` for every operator of the tree's yaml (a run that reads
only the yaml entries and host files OP needs), and checks that:
  - every finding --all gives for OP is in OP's own run, byte for byte;
  - OP's run gives nothing else, except an old host definition
    (mpsgraph-host-path) that --all reports once, under another operator
    that shares it (--all names each definition once);
  - the exit status is 1 when OP has an error or warning, else 0.
Prints "N operators, M differ" and exits 1 when M > 0.
"""
import collections
import json
import subprocess
import sys

tree = sys.argv[1]


def lines(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, [json.loads(x) for x in p.stdout.splitlines() if x.strip()]


_, allf = lines(["mps-verify", "--root", tree, "--all", "--json"])
by_op = collections.defaultdict(list)
elsewhere = set()
for f in allf:
    by_op[f["op"]].append(f)
    elsewhere.add((f["path"], f["line"], f["column"], f["rule"]))
_, rows = lines(["mps-overloads", "--root", tree, "--all", "--json"])
ops = sorted({r["base"] for r in rows})
bad = 0
for op in ops:
    p, got = lines(["mps-verify", "--root", tree, "--json", op])
    want = by_op.get(op, [])
    missing = [f for f in want if f not in got]
    extra = [f for f in got if f not in want and not (
        f["rule"] == "mpsgraph-host-path" and
        (f["path"], f["line"], f["column"], f["rule"]) in elsewhere)]
    rc = 1 if any(f["severity"] in ("error", "warning") for f in got) else 0
    if missing or extra or p.returncode != rc:
        bad += 1
        if bad <= 5:
            print(f"{op}: exit {p.returncode} (want {rc}); missing "
                  f"{[(f['rule'], f['path'], f['line']) for f in missing][:3]}; extra "
                  f"{[(f['rule'], f['path'], f['line']) for f in extra][:3]}")
print(f"{len(ops)} operators, {len(allf)} findings of --all, {bad} differ")
sys.exit(1 if bad else 0)
