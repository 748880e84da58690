#!/usr/bin/env python3
"""What each dtype dispatch macro of a PyTorch tree covers, read from its
own ATen/Dispatch.h and ATen/Dispatch_v2.h: prints one line per macro,
"NAME: Type, Type (+N)" (N: the scalar-type arguments written first), the
types in cppscan's print order, for comparison with `cppscan_probe table`.

usage: dispatch_table.py ROOT
"""
import re
import sys

ORDER = ["Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char",
         "Byte", "Bool", "ComplexDouble", "ComplexFloat", "ComplexHalf",
         "UInt64", "UInt32", "UInt16", "Float8_e5m2", "Float8_e5m2fnuz",
         "Float8_e4m3fn", "Float8_e4m3fnuz", "QInt8", "QUInt8", "QInt32",
         "QUInt4x2", "QUInt2x4"]


def defines(path):
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = text.replace("\\\n", " ")
    out = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\(([^)]*)\))?(.*)$",
                         text, flags=re.M):
        name, params, body = m.group(1), m.group(3), m.group(4)
        if name not in out:  # the first definition wins, as in cppscan
            out[name] = ([p.strip() for p in params.split(",")]
                         if params is not None else None, body)
    return out


def type_of(tok):
    tok = tok.strip()
    for pre in ("at::ScalarType::", "c10::ScalarType::", "ScalarType::"):
        if tok.startswith(pre):
            return tok[len(pre):]
    for pre in ("at::k", "c10::k"):
        if tok.startswith(pre):
            return tok[len(pre):]
    return None


def main():
    root = sys.argv[1]
    d = defines(root + "/aten/src/ATen/Dispatch.h")
    try:  # Dispatch_v2.h is newer than 1.13
        v2 = defines(root + "/aten/src/ATen/Dispatch_v2.h")
    except FileNotFoundError:
        v2 = {}
    d.update({k: v for k, v in v2.items() if k not in d})

    memo = {}

    def types(name, depth=0):
        if name in memo or depth > 20:
            return memo.get(name, set())
        params, body = d[name]
        s = set()
        # fixed cases: AT_DISPATCH_CASE(at::ScalarType::X, ...) and
        # AT_DISPATCH_CASE_QINT(at::kQInt8, ...)
        # fixed types written in the body: the cases it adds, and the
        # types it passes to another case macro (1.13's deprecated
        # ALL_TYPES_AND_HALF passes at::ScalarType::Half)
        for m in re.finditer(r"\b(?:at|c10)::(?:ScalarType::\w+|k[A-Z]\w*)", body):
            t = type_of(m.group(0))
            if t:
                s.add(t)
        for m in re.finditer(r"\b(AT_DISPATCH_CASE_\w+)\(", body):
            if m.group(1) in d and m.group(1) != name and m.group(1) != "AT_DISPATCH_CASE_QINT":
                s |= types(m.group(1), depth + 1)
        # object-like type lists: c10::kX and AT_EXPAND(LIST)
        if params is None:
            for tok in re.findall(r"c10::k\w+", body):
                s.add(tok[len("c10::k"):])
            for m in re.finditer(r"AT_EXPAND\((\w+)\)", body):
                if m.group(1) in d:
                    s |= types(m.group(1), depth + 1)
        memo[name] = s
        return s

    for name in sorted(d):
        params, body = d[name]
        is_list = (params is None and re.match(r"AT_\w*TYPES\w*$", name) and
                   ("c10::k" in body or "AT_EXPAND" in body))
        if not (name.startswith("AT_DISPATCH_") or is_list):
            continue
        extra = 0 if params is None else sum(
            1 for p in params if re.match(r"SCALARTYPE\d*$", p))
        s = types(name)
        if not s:
            continue
        print("%s: %s (+%d)" % (name, ", ".join(t for t in ORDER if t in s),
                                extra))
        for t in s:
            if t not in ORDER:
                print("%s: unknown type %s" % (name, t))


main()
