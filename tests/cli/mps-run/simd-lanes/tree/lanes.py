# The SIMD-group and quad functions on real lanes, against what the Metal
# Shading Language specification says they give, computed here in Python
# for the run's SIMD width (threads_per_simdgroup): full SIMD-groups for
# every function, and a group whose last SIMD-group is partial for those
# defined over the active lanes only.
import sys
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;

kernel void lanes_full(device long* out [[buffer(0)]],
                       uint i [[thread_position_in_grid]]) {
  int x = int((i * 5) % 11);
  long o = long(i) * 16;
  out[o + 0] = simd_sum(x);
  out[o + 1] = simd_prefix_exclusive_sum(x);
  out[o + 2] = simd_prefix_inclusive_sum(x);
  out[o + 3] = simd_shuffle_down(x, 1);
  out[o + 4] = simd_shuffle_up(x, 2);
  out[o + 5] = simd_shuffle_xor(x, 1);
  out[o + 6] = simd_broadcast(x, 3);
  out[o + 7] = simd_max(x);
  out[o + 8] = quad_sum(x);
  out[o + 9] = simd_shuffle_and_fill_up(x, -x, 1);
  out[o + 10] = long(ulong(simd_ballot(x > 4)));
  out[o + 11] = simd_is_first();
  out[o + 12] = simd_shuffle_and_fill_down(x, 100 + x, 3);
  out[o + 13] = simd_min(x);
  out[o + 14] = quad_shuffle_xor(x, 2);
  out[o + 15] = simd_shuffle_rotate_down(x, 1);
}

kernel void lanes_partial(device long* out [[buffer(0)]],
                          uint i [[thread_position_in_grid]]) {
  int x = int((i * 5) % 11);
  long o = long(i) * 4;
  out[o + 0] = simd_sum(x);
  out[o + 1] = simd_prefix_exclusive_sum(x);
  out[o + 2] = long(ulong(simd_ballot(x > 4)));
  out[o + 3] = simd_broadcast_first(x);
}
"""

W = int(sys.argv[1])
lib = torch.mps.compile_shader(SOURCE)
print("SIMD width", W, "thread_execution_width", lib.lanes_full.thread_execution_width)


def expect_full(n):
    x = [(i * 5) % 11 for i in range(n)]
    rows = []
    for i in range(n):
        lane, base = i % W, i - i % W
        g = x[base:base + W]
        q = x[i - i % 4:i - i % 4 + 4]
        up = g[lane - 2] if lane >= 2 else x[i]
        down = g[lane + 1] if lane + 1 < W else x[i]
        fill_up = g[lane - 1] if lane >= 1 else -g[W - 1]
        fill_down = g[lane + 3] if lane + 3 < W else 100 + g[lane + 3 - W]
        ballot = sum(1 << k for k, v in enumerate(g) if v > 4)
        rows.append([sum(g), sum(g[:lane]), sum(g[:lane + 1]), down, up, g[lane ^ 1], g[3],
                     max(g), sum(q), fill_up, ballot, int(lane == 0), fill_down, min(g),
                     q[(i % 4) ^ 2], g[(lane + 1) % W]])
    return rows


def expect_partial(n):
    x = [(i * 5) % 11 for i in range(n)]
    rows = []
    for i in range(n):
        lane, base = i % W, i - i % W
        g = x[base:min(base + W, n)]
        ballot = sum(1 << k for k, v in enumerate(g) if v > 4)
        rows.append([sum(g), sum(g[:lane]), ballot, g[0]])
    return rows


names = ["sum", "prefix_exclusive_sum", "prefix_inclusive_sum", "shuffle_down 1", "shuffle_up 2",
         "shuffle_xor 1", "broadcast 3", "max", "quad_sum", "shuffle_and_fill_up 1", "ballot",
         "is_first", "shuffle_and_fill_down 3", "min", "quad_shuffle_xor 2", "shuffle_rotate_down 1"]
out = torch.full((64 * 16,), -7, dtype=torch.long)
lib.lanes_full(out, threads=64, group_size=64)
got, want = out.view(64, 16).tolist(), expect_full(64)
for k, name in enumerate(names):
    bad = [i for i in range(64) if got[i][k] != want[i][k]]
    print("%-24s %s" % (name, "ok" if not bad else "MISMATCH at thread %d: %d, expected %d"
                                                     % (bad[0], got[bad[0]][k], want[bad[0]][k])))

out = torch.full((40 * 4,), -7, dtype=torch.long)
lib.lanes_partial(out, threads=40, group_size=40)
got, want = out.view(40, 4).tolist(), expect_partial(40)
for k, name in enumerate(["partial sum", "partial prefix_exclusive_sum", "partial ballot",
                          "partial broadcast_first"]):
    bad = [i for i in range(40) if got[i][k] != want[i][k]]
    print("%-28s %s" % (name, "ok" if not bad else "MISMATCH at thread %d: %d, expected %d"
                                                     % (bad[0], got[bad[0]][k], want[bad[0]][k])))
