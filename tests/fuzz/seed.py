#!/usr/bin/env python3
"""Regenerate the seed corpora tests/fuzz/corpus/<target>/ from the
project's own fixtures (small files only).  Seeds are named by the
sha1 of their bytes, as libFuzzer names corpus files.

usage: python3 tests/fuzz/seed.py
"""
import hashlib
import os
import re
import struct

repo = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
corpus = os.path.join(repo, "tests", "fuzz", "corpus")
LIMIT = 8192


def files(exts):
    out = []
    for top in ("tests/fixtures", "tests/cli", "examples"):
        for d, _, names in os.walk(os.path.join(repo, top)):
            for n in sorted(names):
                if n.endswith(exts):
                    p = os.path.join(d, n)
                    if os.path.getsize(p) <= LIMIT:
                        out.append(p)
    return sorted(out)


def save(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def read(p):
    with open(p, "rb") as f:
        return f.read()


yamls = files((".yaml",))
sources = files((".mm", ".metal", ".h", ".py"))
for p in yamls:
    save("fuzz_nfyaml", read(p))
for p in sources:
    save("fuzz_scan", read(p))
# fuzz_cppscan: the shared file, 0x01, the CPU kernel file (cppscan's own
# fixture tree: each shared file with the kernel file, each file alone)
cs = os.path.join(repo, "tests", "fixtures", "cppscan", "tree", "aten", "src",
                  "ATen", "native")
if os.path.isdir(cs):
    kern = read(os.path.join(cs, "cpu", "UnaryKernel.cpp"))
    for n in sorted(os.listdir(cs)):
        p = os.path.join(cs, n)
        if os.path.isfile(p) and n.endswith((".cpp", ".h")):
            save("fuzz_cppscan", read(p) + b"\x01" + kern)
            save("fuzz_cppscan", read(p))
# fuzz_edit: 2 bytes offset seed, 1 byte text length, text, file
inserts = [b"REGISTER_UNARY_OP(x, float, float);\n", b"\r\n", b"",
           b"  MPS: x_out\n"]
for i, p in enumerate(sources[:12] + yamls[:4]):
    t = inserts[i % len(inserts)]
    save("fuzz_edit", struct.pack(">HB", i * 37, len(t)) + t + read(p))
# fuzz_schema: every func: value of the fixtures
func = re.compile(rb"^- func: (.*?)\s*$", re.M)
for p in yamls:
    for m in func.finditer(read(p)):
        save("fuzz_schema", m.group(1))
# fuzz_verify: host file, 0xFF, kernel file, 0xFF, test list — from the
# golden trees of mps-verify
t = os.path.join(repo, "tests", "cli", "mps-verify", "_trees", "clean")
ops = os.path.join(t, "aten/src/ATen/native/mps/operations")
kern = os.path.join(t, "aten/src/ATen/native/mps/kernels")
lists = read(os.path.join(t, "torch/testing/_internal/common_mps.py"))
for h in sorted(os.listdir(ops)):
    for k in sorted(os.listdir(kern)):
        save("fuzz_verify", read(os.path.join(ops, h)) + b"\xff" +
             read(os.path.join(kern, k)) + b"\xff" + lists)
