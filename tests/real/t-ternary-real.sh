#!/bin/sh
# The ternary kinds (issue #28) on real PyTorch 2.6.0 made to look like
# current main, as tests/real/t-translate-real.sh makes it: 2.6.0's
# sources under the fixture tests/fixtures/main-shaped (whose
# PointwiseOps.metal registers a ternary functor with REGISTER_TERNARY_OP,
# and whose indexing.h defines the REGISTER_TERNARY_OP family), plus a host
# stub calling lib.exec_ternary_kernel appended to PointwiseOps.mm.
#
# addcmul and addcdiv: kind ternary-alpha (value carried as the alpha),
# every overload translated from the CUDA kernel, the floating-point and
# complex ones matching the CPU under the try (when a C++ compiler and
# torch are here); written with --in-place, they verify clean; --undo
# restores the tree byte for byte.  lerp: one register command per stub,
# each with its own kind (binary-alpha for the Scalar weight, ternary for
# the Tensor weight).  where: the condition input the CUDA lambda reads
# as bool found, the plan whole (see below).  hardtanh_backward: kind
# binary-params (min_val and max_val in a struct), planned, applied,
# verified clean, undone.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
status=0
fail() { echo "FAIL: $*"; status=1; }

m=$tmp/main-shaped
mkdir -p "$m/aten/src/ATen" "$m/test"
cp -R "$src/$nf" "$m/aten/src/ATen/"
cp "$src/test/test_mps.py" "$m/test/"
cp -R "$repo/tests/fixtures/main-shaped/c10" "$m/"
cp -R "$repo/tests/fixtures/main-shaped/aten" "$m/"
cp "$repo/tests/fixtures/try/good/c10/metal/indexing.h" "$m/c10/metal/"
cat >>"$m/$nf/mps/operations/PointwiseOps.mm" <<EOF

// (main-shaped) a host stub of current PyTorch's form
namespace at::native {
static void clamp_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_ternary_kernel(iter, "clamp");
}
} // namespace at::native
EOF
# and one handing a params struct over (the fixture's Activation.metal)
cat >>"$m/$nf/mps/operations/Activation.mm" <<EOF

// (main-shaped) a host stub of current PyTorch's form
namespace at::native {
static void soft_shrink_mps_kernel(TensorIteratorBase& iter, const Scalar& lo, const Scalar& hi) {
  SoftShrinkParams<float> params{lo.to<float>(), hi.to<float>()};
  lib.exec_unary_kernel_with_params(iter, "soft_shrink", params, "SoftShrinkParams_float");
}
} // namespace at::native
EOF
(cd "$m" && git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base) ||
  { echo "FAIL: git"; exit 1; }

try=--no-try
if sh "$repo/tests/fixtures/try/needs-torch.sh" >"$tmp/why" 2>&1; then
  try=
else
  echo "the try against the CPU is skipped: $(cat "$tmp/why")"
fi

for op in addcmul addcdiv; do
  mps-migrate $try --root "$m" --json "$op" >"$tmp/$op.json" 2>"$tmp/e"; rc=$?
  [ $rc = 1 ] || { fail "$op: exit $rc, want 1"; cat "$tmp/e"; }
  grep -q '"part":"kernel".*"kind":"ternary-alpha"' "$tmp/$op.json" ||
    fail "$op: not planned as ternary-alpha"
  n=$(grep -c '"part":"math".*"status":"translated"' "$tmp/$op.json")
  [ "$n" = 3 ] || fail "$op: $n overloads translated, want 3"
  if [ -z "$try" ]; then
    for ov in floating-point complex; do
      grep "\"part\":\"math\"" "$tmp/$op.json" | grep "\"overload\":\"$ov\"" |
        grep -q '"verdict":"matches CPU' || fail "$op: $ov overload does not match the CPU"
    done
  fi
  mps-migrate --no-try --root "$m" --in-place "$op" >"$tmp/w" 2>"$tmp/e"; rc=$?
  [ $rc = 0 ] || { fail "$op: --in-place exit $rc"; cat "$tmp/e"; }
  grep -q "^$op: 0 errors, 0 warnings, 0 notes" "$tmp/w" || { fail "$op: not clean after --in-place"; cat "$tmp/w" "$tmp/e"; }
  mps-verify --root "$m" "$op" >"$tmp/v" 2>&1; rc=$?
  [ $rc = 0 ] || { fail "$op: mps-verify exit $rc"; cat "$tmp/v"; }
  grep -q "lib.exec_ternary_kernel(iter, \"$op\", value)" "$m/$nf/mps/operations/PointwiseOps.mm" ||
    fail "$op: no host stub calling exec_ternary_kernel"
  grep -q "REGISTER_OPMATH_TERNARY_ALPHA_OP($op, float, float, float);" \
    "$m/$nf/mps/kernels/PointwiseOps.metal" || fail "$op: no opmath float registration"
  mps-migrate --root "$m" --undo >/dev/null 2>"$tmp/e" || { fail "$op: --undo"; cat "$tmp/e"; }
  (cd "$m" && git status --porcelain) >"$tmp/st"
  [ -s "$tmp/st" ] && { fail "$op: --undo left changes"; cat "$tmp/st"; }
done

# where: the condition is read as bool by the CUDA lambda, the output has
# the other inputs' dtype; every overload translated and (with torch)
# matching the CPU with the condition handed over as x != 0; the old
# MPSGraph host stub and its registration go; verified clean; undone
mps-migrate $try --root "$m" --json where >"$tmp/where.json" 2>"$tmp/e"; rc=$?
[ $rc = 1 ] || { fail "where: exit $rc, want 1"; cat "$tmp/e"; }
grep -q '"part":"dtypes".*"rule":"same".*"condition":1,"condition_at":"aten/src/ATen/native/cuda/TensorCompare.cu:18"' "$tmp/where.json" ||
  fail "where: condition input not read"
grep -q '"part":"dtypes".*"pairs":\[{"in":"float","out":"float"}' "$tmp/where.json" ||
  fail "where: float:float not registered"
n=$(grep -c '"part":"math".*"status":"translated"' "$tmp/where.json")
[ "$n" = 3 ] || fail "where: $n overloads translated, want 3"
if [ -z "$try" ]; then
  n=$(grep '"part":"math"' "$tmp/where.json" | grep -c '"verdict":"matches CPU')
  [ "$n" = 3 ] || fail "where: $n overloads match the CPU, want 3"
fi
grep -q '"part":"delete","what":"registration".*"name":"where_kernel"' "$tmp/where.json" ||
  fail "where: the MPSGraph registration of where_kernel is not deleted"
grep -q '"part":"delete","what":"definition".*"name":"where_kernel_mps"' "$tmp/where.json" ||
  fail "where: where_kernel_mps is not deleted"
mps-migrate --no-try --root "$m" --in-place where >"$tmp/w" 2>"$tmp/e"; rc=$?
[ $rc = 0 ] || { fail "where: --in-place exit $rc"; cat "$tmp/w" "$tmp/e"; }
mps-verify --root "$m" where >"$tmp/v" 2>&1; rc=$?
[ $rc = 0 ] || { fail "where: mps-verify exit $rc"; cat "$tmp/v"; }
grep -q 'const bool cond_val = static_cast<float>(a) != 0.0f;' "$m/$nf/mps/kernels/PointwiseOps.metal" ||
  fail "where: the floating-point overload does not test the condition"
grep -q 'const bool cond_val = a.x != 0 || a.y != 0;' "$m/$nf/mps/kernels/PointwiseOps.metal" ||
  fail "where: the complex overload does not test the condition"
grep -q 'REGISTER_DISPATCH(where_kernel' "$m/$nf/mps/operations/TensorCompare.mm" &&
  fail "where: the old registration is left"
mps-migrate --root "$m" --undo >/dev/null 2>"$tmp/e" || { fail "where: --undo"; cat "$tmp/e"; }
(cd "$m" && git status --porcelain) >"$tmp/st"
[ -s "$tmp/st" ] && { fail "where: --undo left changes"; cat "$tmp/st"; }

# where on 2.6.0 itself (no PointwiseOps.metal: no new host stub): the
# old registration and where_kernel_mps stay
mps-migrate --no-try --root "$src" --json where >"$tmp/w0.json" 2>"$tmp/e"
grep -q '"part":"delete","what":"registration"' "$tmp/w0.json" &&
  fail "where on 2.6.0: the registration is deleted with no new host stub"
grep -q '"part":"delete","what":"definition".*"name":"where_kernel_mps"' "$tmp/w0.json" &&
  fail "where on 2.6.0: where_kernel_mps is deleted with no new host stub"

# lerp: two stubs, each registered with its own kind
mps-migrate --no-try --root "$m" lerp >"$tmp/lerp" 2>&1
grep -q 'mps-register binary-alpha lerp_kernel_scalar_weight --stub lerp_kernel_scalar_weight' "$tmp/lerp" ||
  fail "lerp: no binary-alpha command for the Scalar weight"
grep -q 'mps-register ternary lerp_kernel_tensor_weight --stub lerp_kernel_tensor_weight' "$tmp/lerp" ||
  fail "lerp: no ternary command for the Tensor weight"
# each with the dtypes of its stub's CPU kernel (floating and complex,
# no ComplexHalf) and its row's output rule
n=$(grep -c 'mps-register .* --dtypes float:float,half:half,bfloat:bfloat,float2:float2 --functor --host$' "$tmp/lerp")
[ "$n" = 2 ] || { fail "lerp: $n register commands with the stub's dtypes, want 2"; grep register "$tmp/lerp"; }

# hardtanh_backward: two tensors and two scalars (min_val, max_val), kind
# binary-params: the struct in kernels/Activation.h, the helper's
# registrations, the host stub handing the struct over, 2.6.0's MPSGraph
# path deleted; tried with the forward operator's defaults
mps-migrate $try --root "$m" hardtanh_backward >"$tmp/ht" 2>&1; rc=$?
[ $rc = 1 ] || { fail "hardtanh_backward: exit $rc, want 1"; cat "$tmp/ht"; }
grep -q '^kernel: binary-params hardtanh_backward (two inputs and 2 scalars the stub takes: min_val, max_val)$' "$tmp/ht" ||
  { fail "hardtanh_backward: not planned as binary-params"; cat "$tmp/ht"; }
grep -q 'tried with min_val=-1, max_val=1 (the forward operator' "$tmp/ht" ||
  fail "hardtanh_backward: no try values from hardtanh's defaults"
grep -q '^  floating-point (float -> float): translated from aten/src/ATen/native/cuda/ActivationHardtanhKernel.cu:34 (CUDA)' "$tmp/ht" ||
  { fail "hardtanh_backward: not translated"; grep floating-point "$tmp/ht"; }
if [ -z "$try" ]; then
  # float, half and bfloat match the CPU on what the gradient tests sample
  # (the NaN `self` the CPU's vectorized path zeroes is apart)
  grep '^  floating-point (float -> float)' "$tmp/ht" |
    grep -q 'matches CPU on [0-9]* values (float, half, bfloat; mps-try); [0-9]* differ beyond what PyTorch' ||
    { fail "hardtanh_backward: does not match the CPU"; grep floating-point "$tmp/ht"; }
fi
grep -q '^  aten/src/ATen/native/mps/operations/Activation.mm:1865-1938: hardtanh_backward_out_mps (function; builds an MPSGraph' "$tmp/ht" ||
  fail "hardtanh_backward: hardtanh_backward_out_mps not deleted"
mps-migrate --no-try --root "$m" --in-place hardtanh_backward >"$tmp/w" 2>"$tmp/e"; rc=$?
[ $rc = 0 ] || { fail "hardtanh_backward: --in-place exit $rc"; cat "$tmp/w" "$tmp/e"; }
k=$m/$nf/mps/kernels
grep -qF 'return static_cast<T>((bop <= params.min_val) || (bop >= params.max_val) ?' "$k/Activation.metal" ||
  fail "hardtanh_backward: the functor does not read the params"
grep -qF '  typedef HardtanhBackwardParams<float> HardtanhBackwardParams_##T; \' "$k/Activation.metal" ||
  fail "hardtanh_backward: no typedef in the helper"
grep -q '^REGISTER_HARDTANH_BACKWARD_OP(bfloat);$' "$k/Activation.metal" ||
  fail "hardtanh_backward: no bfloat registration"
grep -q '^  T max_val;$' "$k/Activation.h" || fail "hardtanh_backward: no struct in Activation.h"
grep -A1 -F 'lib.exec_binary_kernel_with_params(' "$m/$nf/mps/operations/Activation.mm" |
  grep -qF 'iter, "hardtanh_backward", params, params_type);' ||
  fail "hardtanh_backward: no host stub with exec_binary_kernel_with_params"
grep -q '^#include <ATen/native/mps/kernels/Activation.h>$' "$m/$nf/mps/operations/Activation.mm" ||
  fail "hardtanh_backward: the host file does not include the header"
grep -q 'hardtanh_backward_out_mps' "$m/$nf/mps/operations/Activation.mm" &&
  fail "hardtanh_backward: the MPSGraph path is left"
mps-verify --root "$m" hardtanh_backward >"$tmp/v" 2>&1; rc=$?
[ $rc = 0 ] || { fail "hardtanh_backward: mps-verify exit $rc"; cat "$tmp/v"; }
mps-migrate --root "$m" --undo >/dev/null 2>"$tmp/e" || { fail "hardtanh_backward: --undo"; cat "$tmp/e"; }
(cd "$m" && git status --porcelain) >"$tmp/st"
[ -s "$tmp/st" ] && { fail "hardtanh_backward: --undo left changes"; cat "$tmp/st"; }

# --kind binary-params where no stub scalars are read: said, not planned
mps-migrate --no-try --root "$m" --kind binary-params atan2 >"$tmp/kp" 2>&1
grep -q "^  metal: binary-params needs the Scalars atan2's stub takes besides its two tensors, and none were read" "$tmp/kp" ||
  { fail "--kind binary-params atan2: no reason"; cat "$tmp/kp"; }

[ $status = 0 ] && echo "ok: addcmul, addcdiv planned as ternary-alpha, translated${try:+ (not tried)}, applied, verified clean, undone; where planned with its bool condition${try:+ (not tried)}, the old registration deleted, applied, verified clean, undone; lerp per stub with its dtypes; hardtanh_backward planned as binary-params, translated, applied, verified clean, undone"
exit $status
