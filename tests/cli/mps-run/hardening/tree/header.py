# A syntax error in an included header: the compiler's message at the
# header's checkout path and line.
import torch

try:
    torch.mps.compile_shader("""
#include <c10/metal/oops.h>
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = oops(out[i]);
}
""")
except RuntimeError as e:
    print("RuntimeError:", e)
