#!/usr/bin/env python3
"""partial_check.py YAML < ALL_JSON

ALL_JSON: the output of `mps-overloads --yaml YAML --all --json`.  For
every operator base name in it, and every name written after "func:"
anywhere in the file's text (which may lie inside a quoted string and
name no entry), run `mps-overloads --yaml YAML --json OP` (a partial
read: only the entries that mention OP, nfyaml.h nf_load_ops) and check
that it prints exactly the rows of ALL_JSON that OP selects (base name
OP, or name OP / OP.overload), in the same order, with exit 0 when there
are some and exit 1 when there are none.
Prints "N operators, M differ" and exits 1 when M > 0.
"""
import json
import re
import subprocess
import sys

yaml = sys.argv[1]
rows = [json.loads(line) for line in sys.stdin if line.strip()]
with open(yaml, "rb") as f:
    written = {m.group(1).decode() for m in
               re.finditer(rb"func:\s*[\"']?([A-Za-z_][A-Za-z0-9_]*)", f.read())}
ops = sorted({r["base"] for r in rows} | {r["name"].split(".")[0] for r in rows}
             | written)
bad = 0
for op in ops:
    want = [r for r in rows
            if r["base"] == op or r["name"] == op or r["name"].startswith(op + ".")]
    p = subprocess.run(["mps-overloads", "--yaml", yaml, "--json", op],
                       capture_output=True, text=True)
    got = [json.loads(line) for line in p.stdout.splitlines()]
    if got != want or p.returncode != (0 if want else 1):
        bad += 1
        if bad <= 5:
            print(f"{op}: exit {p.returncode}, {len(got)} rows, want {len(want)} "
                  f"{p.stderr.strip()[:200]}")
print(f"{len(ops)} operators, {bad} differ")
sys.exit(1 if bad else 0)
