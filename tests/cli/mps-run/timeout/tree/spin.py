# A kernel whose loop never ends: the call is killed at the time limit and
# reported; the script goes on (its tensor keeps its old values).
import torch

SOURCE = """
kernel void spin(device uint* out [[buffer(0)]],
                 uint i [[thread_position_in_grid]]) {
  for (uint k = 0; k != 1; k += 2)
    out[i] = k;
}
"""

lib = torch.mps.compile_shader(SOURCE)
out = torch.zeros(4, dtype=torch.int32)
lib.spin(out, threads=4)
print("after the call:", out.tolist())
