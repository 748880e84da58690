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
# fuzz_cache: a kind byte (0 yaml index, 1 host model) + the payload of
# each model the tools store for examples/demo-tree (needs tools/bin)
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
save("fuzz_cache", b"\x00")
save("fuzz_cache", b"\x01")
with tempfile.TemporaryDirectory() as tmp:
    tree = os.path.join(tmp, "tree")
    shutil.copytree(os.path.join(repo, "examples", "demo-tree"), tree)
    env = dict(os.environ, MK_CACHE_DIR=os.path.join(tmp, "store"))
    env.pop("MK_CACHE", None)
    subprocess.run([os.path.join(repo, "tools", "bin", "mps-verify"), "--root",
                    tree, "--all"], env=env, capture_output=True)
    for n in sorted(os.listdir(env["MK_CACHE_DIR"])):
        b = read(os.path.join(env["MK_CACHE_DIR"], n))
        at = len(b"metal-kernel cache\n") + 4
        ml = struct.unpack("<Q", b[at:at + 8])[0]
        at += 8 + ml
        pl = struct.unpack("<Q", b[at:at + 8])[0]
        kind = b"\x01" if n.startswith("hostscan") else b"\x00"
        save("fuzz_cache", kind + b[at + 8:at + 8 + pl])
