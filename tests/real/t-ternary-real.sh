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
# the Tensor weight).  where and hardtanh_backward: the reason each is not
# planned, one line.
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

# lerp: two stubs, each registered with its own kind
mps-migrate --no-try --root "$m" lerp >"$tmp/lerp" 2>&1
grep -q 'mps-register binary-alpha lerp_kernel_scalar_weight --stub lerp_kernel_scalar_weight' "$tmp/lerp" ||
  fail "lerp: no binary-alpha command for the Scalar weight"
grep -q 'mps-register ternary lerp_kernel_tensor_weight --stub lerp_kernel_tensor_weight' "$tmp/lerp" ||
  fail "lerp: no ternary command for the Tensor weight"

# hardtanh_backward: two tensors and two scalars, said in one line
mps-migrate --no-try --root "$m" hardtanh_backward >"$tmp/ht" 2>&1
grep -q '^  kernel: hardtanh_backward_stub takes 2 scalars besides the iterator' "$tmp/ht" ||
  { fail "hardtanh_backward: no reason"; cat "$tmp/ht"; }

[ $status = 0 ] && echo "ok: addcmul, addcdiv planned as ternary-alpha, translated${try:+ (not tried)}, applied, verified clean, undone; lerp per stub; hardtanh_backward refused with its reason"
exit $status
