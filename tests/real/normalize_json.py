#!/usr/bin/env python3
"""Re-print JSON Lines from stdin with sorted keys, sorted by "name"."""
import json
import sys

rows = [json.loads(line) for line in sys.stdin if line.strip()]
for r in sorted(rows, key=lambda r: r["name"]):
    print(json.dumps(r, sort_keys=True))
