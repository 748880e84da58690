#!/usr/bin/env python3
"""forge_store.py FILE WHAT

Rewrite a stored yaml index (an nfyaml-*.mkc file of tools/lib/cache.h)
so that its checksum is right but its contents break what the parse
guarantees, as a damaged or hand-made file could:
  declared-by   the first autogen'd function says no entry declares it
  route         the first function without an MPS kernel says its route
                is mps-specific
The fields are read in the order nfyaml.c save_index writes them.
"""
import struct
import sys
import zlib

path, what = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
magic = b"metal-kernel cache\n"
at = len(magic) + 4
ml = struct.unpack("<Q", b[at:at + 8])[0]
at += 8 + ml
pl = struct.unpack("<Q", b[at:at + 8])[0]
start = at + 8
p = bytes(b[start:start + pl])
pos = 0


def u64():
    global pos
    v = shift = 0
    while True:
        c = p[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v
        shift += 7


def string():
    global pos
    n = u64()
    if n:
        pos += n  # n - 1 bytes and the NUL


def enc(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


nfuncs, nentries = u64(), u64()
target = None
for i in range(nfuncs):
    string(); string(); string()              # name, base, overload
    u64(); u64(); u64(); u64()                # inplace, kind, line, structured
    string()                                  # structured_delegate
    u64(); u64()                              # autogen, composite
    has_mps = u64()
    route_at = pos
    u64()                                     # route
    for _ in range(u64()):                    # dispatch lines
        for _ in range(u64()):
            string()
        string(); u64(); u64(); u64(); u64()
    u64(); u64(); u64(); u64(); u64()         # has_dispatch .. delegate
    decl_at = pos
    u64()                                     # declared_by + 1
    if what == "declared-by" and i >= nentries:
        target = (decl_at, pos, enc(0))       # declared_by -1
        break
    if what == "route" and has_mps == 0:
        target = (route_at, route_at + 1, enc(1))  # ROUTE_MPS_SPECIFIC
        break
if target is None:
    sys.exit("forge_store.py: nothing to change")
a, e, new = target
p = p[:a] + new + p[e:]
out = bytearray(b[:at]) + struct.pack("<Q", len(p)) + p
out += struct.pack("<I", zlib.crc32(bytes(out)) & 0xFFFFFFFF)
open(path, "wb").write(bytes(out))
