#!/bin/sh
# mps-try on PyTorch 2.14.1's own c10/metal headers (the 2.14.1-metal tree;
# issue #25): the kernels of each registration are read from the real
# indexing.h's macros, the dense ones run on the host and are compared with
# the CPU.  Kernel files: tests/fixtures/try/v2141 (2.14.1-shaped, our own
# text) for correct functors (exit 0), and the planted suite of
# tests/cli/mps-try (tests/fixtures/try/planted, its cmd files reused) on the
# same real headers (exit 1 each).  The headers are copied in here, never
# kept in the repository.
. "$(dirname "$0")/lib.sh"
use_tree src 2.14.1-metal
[ -f "$src/c10/metal/indexing.h" ] ||
  { echo "skipped: $src has no c10/metal/indexing.h"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# a tree: the kernel files of fixture $1, the real c10/metal
mktree() {
  rm -rf "$tmp/tree"; mkdir -p "$tmp/tree"
  cp -R "$repo/$1/." "$tmp/tree/"
  rm -rf "$tmp/tree/c10/metal"; mkdir -p "$tmp/tree/c10/metal"
  cp "$src"/c10/metal/*.h "$tmp/tree/c10/metal/"
}

# 1. the kernels read from the real macros (no compiler needed): the
# harness runs unary_dense_scalar (one element per thread) against the CPU
# and unary_dense (ILP, with numel) beside it
mktree tests/fixtures/try/v2141
(cd "$tmp/tree" && mps-try neg --dtypes float:float --emit) >"$tmp/emit" 2>&1
for want in '::c10::metal::unary_dense_scalar<float, neg_functor>(o.data(), a.data(), (uint)i)' \
            '::c10::metal::unary_dense<float, neg_functor>(o2.data(), a.data(), mk_n, (uint)i)' \
            'case 0 kernel neg_dense_scalar_float_float 0' \
            'case 0 kernel neg_dense_float_float'; do
  grep -qF "$want" "$tmp/emit" || { echo "FAIL: neg --emit lacks: $want"; fail=1; }
done
(cd "$tmp/tree" && mps-try atan2 --dtypes half:half --emit) >"$tmp/emit" 2>&1
for want in '::c10::metal::binary_dense<half, atan2_functor, half>(o.data(), a.data(), b.data(), (uint)i)' \
            '::c10::metal::binary_dense_ilp<half, atan2_functor, half>(o2.data(), a.data(), b.data(), mk_n, (uint)i)' \
            'case 0 kernel atan2_dense_ilp4_half_half'; do
  grep -qF "$want" "$tmp/emit" || { echo "FAIL: atan2 --emit lacks: $want"; fail=1; }
done
[ $fail = 0 ] && echo "kernels read from 2.14.1's indexing.h: neg and atan2 harnesses as expected"

# 2. compiled and run: needs a compiler, torch, and a host layer that
# takes 2.14.1's headers (<metal_array>: engineer H1's part of issue #25)
why=$(sh "$repo/tests/fixtures/try/needs-torch.sh" 2>&1) ||
  { echo "skipped the runs: $why"; exit $fail; }
[ -f "$repo/tools/metal-host/metal_array" ] ||
  { echo "skipped the runs: the host layer has no <metal_array> yet"; exit $fail; }
for op in neg sigmoid atan2 hypot mul floor_divide add; do
  (cd "$tmp/tree" && mps-try "$op") >"$tmp/out" 2>&1; rc=$?
  if [ $rc != 0 ]; then
    echo "FAIL: mps-try $op on 2.14.1's headers: exit $rc"; head -n 30 "$tmp/out"; fail=1
  else
    echo "$op: exit 0; $(grep -c '^  ran: ' "$tmp/out") cases ran"
  fi
done
grep -qF 'ran: add_dense_float_float_float (against the CPU)' "$tmp/out" ||
  { echo "FAIL: add's dense alpha kernel did not run"; fail=1; }
mktree tests/fixtures/try/planted
for c in "$repo"/tests/cli/mps-try/planted-*; do
  [ "$(cat "$c/treeref")" = tests/fixtures/try/planted ] || continue
  (cd "$tmp/tree" && sh "$c/cmd") >"$tmp/out" 2>&1
  if grep -qx 'rc=1' "$tmp/out" && grep -q '^  verdict: mismatch' "$tmp/out" &&
     ! grep -q '^  compile: error' "$tmp/out"; then
    echo "$(basename "$c"): caught (exit 1, a mismatch)"
  else
    echo "FAIL: $(basename "$c") on 2.14.1's headers: not exit 1 with a mismatch"; tail -n 20 "$tmp/out"; fail=1
  fi
done
exit $fail
