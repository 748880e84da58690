# --orders 2: each call run again with each group's threads in reverse
# order; a written element that differs is a race, even where the checks
# see nothing (here: writes through a raw pointer).  The scale kernel,
# right, is the same in both orders.
import torch
SOURCE = """
#include <metal_stdlib>
using namespace metal;
// every thread stores its index through a raw pointer: the last wins
kernel void last_wins(device int* out [[buffer(0)]],
                      uint i [[thread_position_in_grid]]) {
  device int* p = out;
  p[0] = int(i);
}

kernel void scale(constant float* x [[buffer(0)]],
                  device float* out [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
  out[i] = 2 * x[i];
}
"""
lib = torch.mps.compile_shader(SOURCE)
out = torch.zeros(1, dtype=torch.int32)
lib.last_wins(out, threads=64, group_size=64)
print(out.tolist())
y = torch.zeros(40)
lib.scale(torch.arange(40, dtype=torch.float32), y, threads=40, group_size=16)
print(y[:4].tolist(), y[-1].item())
