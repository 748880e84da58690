#!/usr/bin/env python3
"""Re-print JSON Lines from stdin with sorted keys, sorted by "name";
the "stubs" field (from the C++ sources, which torchgen does not read) is
left out."""
import json
import sys

rows = [json.loads(line) for line in sys.stdin if line.strip()]
for r in sorted(rows, key=lambda r: r["name"]):
    r.pop("stubs", None)
    print(json.dumps(r, sort_keys=True))
