# normalize.py — a record from `mps-doctor --json` (stdin) with what varies
# from machine to machine replaced, printed with sorted keys: the schema
# and the values that do not depend on the machine stay visible.
import json
import sys

rec = json.load(sys.stdin)
b = rec["build"]
ids = {}
if b.get("sources"):
    ids[b["sources"]] = "<sources>"
if b.get("checksum"):
    ids[b["checksum"]] = "<build-crc>"
if b.get("skill_md"):
    ids[b["skill_md"]] = "<SKILL.md-crc>"
for n, c in b["tools"].items():
    ids[c] = "<%s-crc>" % n


def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x) for x in v]
    if isinstance(v, str):
        return ids.get(v, v)
    return v


rec = walk(rec)
b = rec["build"]
b["compiler"] = "<compiler>"
for k in b["arch"]:
    b["arch"][k] = "<%s>" % k
for lib in b["libraries"]:
    for k in ("built", "running", "jit"):
        if k in lib:
            lib[k] = "<%s>" % k
json.dump(rec, sys.stdout, indent=1, sort_keys=True)
print()
