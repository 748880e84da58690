#!/usr/bin/env python3
"""Try one elementwise functor on MPS against a CPU reference.

Needs a Mac with an MPS build of PyTorch (torch.mps.compile_shader is public
from 2.7; 2.6 has it as torch.mps._compile_shader). Elsewhere it explains
why it cannot run and exits 77 ("skipped").

The kernel below wraps a functor exactly as written in BinaryKernel.metal
(here: the atan2 functor from examples/migrate-binary-op.md) in a minimal
dense kernel: one thread per element, out[i] = f(a[i], b[i]). That isolates
the math from the host code, the dtype registrations and the strided path.

    python3 examples/compile_shader_harness.py            # all dtypes
    python3 examples/compile_shader_harness.py int32      # one input dtype

Edit FUNCTOR, REFERENCE and CASES for another operator.
"""
import sys

FUNCTOR = r"""
struct atan2_functor {
  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(precise::atan2(float(a), float(b)));
  }
  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>
  inline float operator()(const T a, const T b) {
    return precise::atan2(float(a), float(b));
  }
};
"""

# One kernel per (input, output) Metal type pair, named like the real ones
# (NAME_dense_OUT_IN) so that messages read the same.
KERNEL = r"""
template <typename IN, typename OUT>
kernel void harness(device OUT* out [[buffer(0)]],
                    constant IN* a [[buffer(1)]],
                    constant IN* b [[buffer(2)]],
                    constant long& n [[buffer(3)]],
                    uint i [[thread_position_in_grid]]) {
  if (long(i) >= n) return;  // the grid may be rounded up to whole threadgroups
  atan2_functor f;
  out[i] = static_cast<OUT>(f(a[i], b[i]));
}
#define INSTANTIATE(IN, OUT) \
  template [[host_name("atan2_dense_" #OUT "_" #IN)]] kernel void harness<IN, OUT>( \
      device OUT*, constant IN*, constant IN*, constant long&, uint);
INSTANTIATE(float, float)
INSTANTIATE(half, half)
INSTANTIATE(int, float)
INSTANTIATE(long, float)
INSTANTIATE(short, float)
INSTANTIATE(bool, float)
"""

SOURCE = "#include <metal_stdlib>\nusing namespace metal;\n" + FUNCTOR + KERNEL


def main(argv):
    try:
        import torch
    except ImportError:
        print("compile_shader_harness: torch is not installed; skipped")
        return 77
    if not torch.backends.mps.is_available():
        print("compile_shader_harness: no MPS device here; run this on a Mac. skipped")
        return 77
    compile_shader = getattr(torch.mps, "compile_shader", None) or torch.mps._compile_shader
    lib = compile_shader(SOURCE)

    # (torch input dtype, Metal IN, Metal OUT, output torch dtype, tolerance)
    cases = [
        (torch.float32, "float", "float", torch.float32, 1e-6),
        (torch.float16, "half", "half", torch.float16, 1e-3),
        (torch.int32, "int", "float", torch.float32, 1e-6),
        (torch.int64, "long", "float", torch.float32, 1e-6),
        (torch.int16, "short", "float", torch.float32, 1e-6),
        (torch.bool, "bool", "float", torch.float32, 1e-6),
    ]
    only = argv[1] if len(argv) > 1 else None
    failures = 0
    for dtype, min_, mout, out_dtype, tol in cases:
        if only and str(dtype).replace("torch.", "") != only:
            continue
        n = 1000
        g = torch.Generator().manual_seed(0)
        if dtype.is_floating_point:
            a = torch.randn(n, generator=g).to(dtype)
            b = torch.randn(n, generator=g).to(dtype)
            a[:4] = torch.tensor([0.0, -0.0, float("inf"), float("nan")], dtype=dtype)
        elif dtype == torch.bool:
            a = torch.randint(0, 2, (n,), generator=g).bool()
            b = torch.randint(0, 2, (n,), generator=g).bool()
        else:
            a = torch.randint(-100, 100, (n,), generator=g).to(dtype)
            b = torch.randint(-100, 100, (n,), generator=g).to(dtype)
        # Reference: CPU torch in float64, rounded to the output dtype.
        ref = torch.atan2(a.double(), b.double()).to(out_dtype)
        out = torch.empty(n, dtype=out_dtype, device="mps")
        kernel = getattr(lib, f"atan2_dense_{mout}_{min_}")
        # threads = total threads in the grid; group_size = threads per
        # threadgroup. 1000 is not a multiple of 64: the last group is partial.
        kernel(out, a.to("mps"), b.to("mps"), n, threads=n, group_size=64)
        got = out.cpu()  # synchronises: any device error surfaces here
        try:
            torch.testing.assert_close(got, ref, atol=tol, rtol=tol, equal_nan=True)
            print(f"ok    {dtype} -> {out_dtype}")
        except AssertionError as e:
            failures += 1
            print(f"FAIL  {dtype} -> {out_dtype}: {e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
