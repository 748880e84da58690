# A buffer too small for what the kernel reads: the threads follow `out`
# (64) while `x` has 48 elements.
import torch

lib = torch.mps.compile_shader("""
kernel void copy(device float* out [[buffer(0)]],
                 constant float* x [[buffer(1)]],
                 uint i [[thread_position_in_grid]]) {
  out[i] = x[i];
}
""")
out = torch.zeros(64)
lib.copy(out, torch.ones(48))
print("ran; out[:48] all ones:", bool((out[:48] == 1).all()), "out[48:] zero:", bool((out[48:] == 0).all()))
