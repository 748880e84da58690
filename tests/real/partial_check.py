#!/usr/bin/env python3
"""partial_check.py YAML < ALL_JSON

ALL_JSON: the output of `mps-overloads --yaml YAML --all --json`.  For
every operator base name in it, run `mps-overloads --yaml YAML --json OP`
(a partial read: only the entries that mention OP, nfyaml.h nf_load_ops)
and check that it prints exactly the rows of ALL_JSON that OP selects
(base name OP, or name OP / OP.overload), in the same order, with exit 0.
Prints "N operators, M differ" and exits 1 when M > 0.
"""
import json
import subprocess
import sys

yaml = sys.argv[1]
rows = [json.loads(line) for line in sys.stdin if line.strip()]
ops = sorted({r["base"] for r in rows} | {r["name"].split(".")[0] for r in rows})
bad = 0
for op in ops:
    want = [r for r in rows
            if r["base"] == op or r["name"] == op or r["name"].startswith(op + ".")]
    p = subprocess.run(["mps-overloads", "--yaml", yaml, "--json", op],
                       capture_output=True, text=True)
    got = [json.loads(line) for line in p.stdout.splitlines()]
    if got != want or p.returncode != 0:
        bad += 1
        if bad <= 5:
            print(f"{op}: exit {p.returncode}, {len(got)} rows, want {len(want)} "
                  f"{p.stderr.strip()[:200]}")
print(f"{len(ops)} operators, {bad} differ")
sys.exit(1 if bad else 0)
