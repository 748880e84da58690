# A source that does not compile: the compiler's error on the script's line.
import torch

lib = torch.mps.compile_shader("""
kernel void twice(device float* out [[buffer(0)]],
                  uint i [[thread_position_in_grid]]) {
  out[i] = 2 * out[i] +;
}
""")
