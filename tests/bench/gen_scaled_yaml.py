#!/usr/bin/env python3
"""Write a synthetic native_functions.yaml N times the size of a real one
(default 10): the file repeated N times, copy k > 0 with every operator
name prefixed "sK_" (in `func:`, `structured_delegate:` and `autogen:`),
so names stay unique and every reference still resolves.  Structure,
comments, dispatch sections and line endings are kept as they are.
(torchgen's name-based exceptions such as resize_, set_ and polygamma_
no longer apply to the renamed copies, so a copy indexes ~12 fewer
autogen'd functions than the original; the size is what matters here.)

usage: gen_scaled_yaml.py SRC_YAML OUT_YAML [N]
"""
import re
import sys

FUNC = re.compile(r"^(- func: )([A-Za-z0-9_.]+)(\()", re.M)
DELEGATE = re.compile(r"^(\s+structured_delegate: )([A-Za-z0-9_.]+)", re.M)
AUTOGEN = re.compile(r"^(\s+autogen: )([^\r\n#]*)", re.M)


def renamed(text, prefix):
    text = FUNC.sub(lambda m: m.group(1) + prefix + m.group(2) + m.group(3), text)
    text = DELEGATE.sub(lambda m: m.group(1) + prefix + m.group(2), text)
    return AUTOGEN.sub(
        lambda m: m.group(1) + ", ".join(prefix + n.strip()
                                         for n in m.group(2).split(",") if n.strip()),
        text)


def main():
    src, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with open(src, encoding="utf-8", newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        text += "\n"
    with open(out, "w", encoding="utf-8", newline="") as f:
        for k in range(n):
            f.write(text if k == 0 else renamed(text, "s%d_" % k))


if __name__ == "__main__":
    main()
