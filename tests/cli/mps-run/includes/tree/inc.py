# A compile_shader source that includes the checkout's headers (this
# test's own small checkout): resolved on the host; inline_includes gives
# what the real compile_shader on a Mac would be handed.
import torch
import mps_run

SOURCE = """
#include <metal_stdlib>
#include <c10/metal/twice.h>
#include <ATen/native/mps/kernels/Offset.h>
using namespace metal;

kernel void twice_plus(device float* out [[buffer(0)]],
                       constant float* x [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  out[i] = twice(x[i]) + OFFSET;
}
"""

lib = torch.mps.compile_shader(SOURCE)
x = torch.linspace(-1, 1, 50)
out = torch.empty(50)
lib.twice_plus(out, x)
print("twice_plus", "ok" if torch.equal(out, x * 2 + 0.5) else "MISMATCH")

flat = mps_run.inline_includes(SOURCE)
print("inlined:", [l for l in flat.splitlines() if l.startswith("// ---- begin")])
print("no checkout #include left:", "#include <c10" not in flat and "#include <ATen" not in flat)

try:
    torch.mps.compile_shader('#include <c10/metal/missing.h>\nkernel void k(device float* o) {}\n')
except RuntimeError as e:
    print("missing header:", str(e).splitlines()[-1])
