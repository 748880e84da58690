#!/usr/bin/env python3
"""Print, for every native function of a PyTorch tree, the fields that
`mps-overloads --all --json` prints, computed by the tree's own torchgen.

usage: torchgen_fields.py TREE      (JSON Lines on stdout, sorted by name)

The oracle of tests/real/t-overloads-torchgen.sh.  Only torchgen's public
data model is used: parse_native_yaml, NativeFunction, BackendIndex.
"""
import json
import os
import sys

tree = sys.argv[1]
sys.path.insert(0, tree)
from torchgen.gen import parse_native_yaml  # noqa: E402
from torchgen.model import DispatchKey  # noqa: E402

native = os.path.join(tree, "aten/src/ATen/native")
parsed = parse_native_yaml(os.path.join(native, "native_functions.yaml"),
                           os.path.join(native, "tags.yaml"))
indices = parsed.backend_indices
mps = indices[DispatchKey.MPS]


def kernel(key, f):
    m = indices[key].get_kernel(f) if key in indices else None
    return m.kernel if m is not None else None


rows = []
for f in parsed.native_functions:
    name = f.func.name
    mk = kernel(DispatchKey.MPS, f)
    composite = f.has_composite_kernel
    if mk is not None:
        # shared: a dispatch key outside the MPS family (MPS, SparseMPS, ...)
        # has the same kernel for the same function
        shared = any("MPS" not in str(k) and name in idx.index and
                     idx.index[name].kernel == mk
                     for k, idx in indices.items())
        route = "shared" if shared else "mps-specific"
    elif f.structured_delegate is not None:
        route = "delegate"
    elif composite:
        route = "composite"
    else:
        route = "none"
    rows.append({
        "name": str(name),
        "base": name.name.base,
        "overload": name.overload_name,
        "kind": f.func.kind().name,
        "line": f.loc.line,
        "structured": f.structured,
        "structured_delegate": (str(f.structured_delegate)
                                if f.structured_delegate else None),
        "autogen": "generated" in f.tags,
        "composite": composite,
        "mps_kernel": mk,
        "mps_route": route,
    })
for r in sorted(rows, key=lambda r: r["name"]):
    print(json.dumps(r, sort_keys=True))
