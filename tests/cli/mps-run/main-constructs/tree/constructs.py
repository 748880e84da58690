# Kernels written for mps-run's tests (not PyTorch's), each reproducing a
# construct met in main's ReduceOps/SoftMax/RMSNorm/ScanKernel/Sort/
# CrossEntropyKernel .metal files that the host copy did not compile or
# checked wrongly, each compared with torch on the CPU:
#  - an instantiation macro whose template name is a macro parameter
#    (`NAME<DTYPE>(...)`, SoftMax.metal's backward registrations);
#  - a 1-D threadgroup array passed whole to a template helper taking
#    `threadgroup T*` (reduction_utils.h's threadgroup_max);
#  - an instantiation repeating a thread-position parameter with another
#    attribute than its definition (RMSNorm.metal): the definition's counts;
#  - packed vectors read and written through casts of buffer pointers at an
#    unaligned element (CrossEntropyKernel.metal);
#  - the source's own functions named simd_* (ScanKernel.metal);
#  - instantiations with unnamed parameters (Sort.metal);
#  - integer threadgroup memory written with -1 and 255 (Sort.metal pads
#    uchar rows with 255): no uninitialized-read.
import torch

SOURCE = r"""
#include <metal_stdlib>
using namespace metal;

template <typename T>
kernel void scaled(constant T* x [[buffer(0)]], device T* y [[buffer(1)]],
                   constant float& k [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  y[i] = static_cast<T>(float(x[i]) * k);
}
#define SCALED(DTYPE, NAME)                                                \
  template [[host_name(#NAME "_" #DTYPE)]] kernel void NAME<DTYPE>(       \
      constant DTYPE * x [[buffer(0)]], device DTYPE * y [[buffer(1)]],    \
      constant float& k [[buffer(2)]], uint i [[thread_position_in_grid]]);
SCALED(float, scaled)
SCALED(half, scaled)

template <typename T>
T group_max(threadgroup T* buf, T v, uint i, uint n) {
  buf[i] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = 32; s > 0; s /= 2) {
    if (i < s && i + s < n)
      buf[i] = max(buf[i], buf[i + s]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  return buf[0];
}
kernel void row_max(constant float* x [[buffer(0)]], device float* out [[buffer(1)]],
                    constant uint& n [[buffer(2)]],
                    uint row [[threadgroup_position_in_grid]],
                    uint t [[thread_position_in_threadgroup]],
                    uint size [[threads_per_threadgroup]]) {
  threadgroup float scratch[64];
  float v = -INFINITY;
  for (uint c = t; c < n; c += size)
    v = max(v, x[row * n + c]);
  v = group_max(scratch, v, t, size);
  if (t == 0)
    out[row] = v;
}

template <typename T>
kernel void per_group(device T* out [[buffer(0)]],
                      uint g [[threadgroup_position_in_grid]],
                      uint t [[thread_position_in_threadgroup]]) {
  if (t == 0)
    out[g] = T(g);
}
template [[host_name("per_group_int")]] kernel void per_group<int>(
    device int* out [[buffer(0)]],
    uint g [[thread_position_in_grid]],
    uint t [[thread_position_in_threadgroup]]);

kernel void packed_copy(constant float* x [[buffer(0)]], constant half* h [[buffer(1)]],
                        device float* y [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  constant float* p = x + 1 + 4 * i;
  float4 a = *reinterpret_cast<constant packed_float4*>(p);
  constant half* q = h + 4 * i;
  float4 b = float4(*reinterpret_cast<constant packed_half4*>(q));
  device float* o = y + 1 + 4 * i;
  *reinterpret_cast<device packed_float4*>(o) = a + b;
}

inline float simd_total(float v) {
  return simd_sum(v);
}
struct Halver {
  float simd_half_sum(float v) const {
    return simd_sum(v) / 2;
  }
};
kernel void lane_sums(constant float* x [[buffer(0)]], device float* y [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  Halver h;
  y[i] = simd_total(x[i]) + h.simd_half_sum(x[i]);
}

template <typename T>
kernel void iota(device T* out [[buffer(0)]], constant uint& n [[buffer(1)]],
                 uint i [[thread_position_in_grid]]) {
  if (i < n)
    out[i] = T(i);
}
template [[host_name("iota_long")]] kernel void iota<long>(device long*, constant uint&, uint);

kernel void pads(device int* out [[buffer(0)]], device uchar* bytes [[buffer(1)]],
                 uint t [[thread_position_in_threadgroup]],
                 uint size [[threads_per_threadgroup]]) {
  threadgroup int a[32];
  threadgroup uchar b[32];
  a[t] = -1;
  b[t] = 255;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[t] = a[(t + 1) % size];
  bytes[t] = b[(t + 1) % size];
}
"""

lib = torch.mps.compile_shader(SOURCE)


def show(label, ok):
    print("%-44s %s" % (label, "ok" if ok else "DIFF"))


x = torch.arange(10, dtype=torch.float) - 3
for dt, name in ((torch.float, "float"), (torch.half, "half")):
    y = torch.zeros(10, dtype=dt)
    getattr(lib, "scaled_" + name)(x.to(dt), y, 1.5, threads=10, group_size=4)
    show("macro-named template, " + name, torch.equal(y, (x * 1.5).to(dt)))

m = torch.randn(5, 37)
out = torch.zeros(5)
lib.row_max(m, out, 37, threads=5 * 48, group_size=48)
show("threadgroup array to threadgroup T*", torch.equal(out, m.amax(1)))

g = torch.full((4,), -7, dtype=torch.int)
lib.per_group_int(g, threads=4 * 8, group_size=8)
show("definition's position attribute", torch.equal(g, torch.arange(4, dtype=torch.int)))

xs = torch.arange(13, dtype=torch.float)
hs = torch.arange(12, dtype=torch.half) / 4
ys = torch.zeros(13)
lib.packed_copy(xs, hs, ys, threads=3, group_size=3)
want = torch.zeros(13)
want[1:] = xs[1:] + hs.float()
show("packed_float4, packed_half4 at offset 1", torch.equal(ys, want))

v = torch.arange(64, dtype=torch.float)
w = torch.zeros(64)
lib.lane_sums(v, w, threads=64, group_size=64)
sums = v.view(2, 32).sum(1).repeat_interleave(32)
show("own simd_* functions", torch.equal(w, sums * 1.5))

io = torch.full((9,), -5, dtype=torch.long)
lib.iota_long(io, 9, threads=9, group_size=4)
show("unnamed instantiation parameters", torch.equal(io, torch.arange(9)))

a = torch.zeros(32, dtype=torch.int)
b = torch.zeros(32, dtype=torch.uint8)
lib.pads(a, b, threads=32, group_size=32)
show("threadgroup ints written -1 and 255", bool((a == -1).all()) and bool((b == 255).all()))
