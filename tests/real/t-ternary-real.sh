#!/bin/sh
# The ternary kinds (issue #28) on real PyTorch 2.6.0 made to look like
# current main, as tests/real/t-translate-real.sh makes it: 2.6.0's
# sources under the fixture tests/fixtures/main-shaped (whose
# PointwiseOps.metal registers a ternary functor with REGISTER_TERNARY_OP,
# and whose indexing.h defines the REGISTER_TERNARY_OP family), plus a host
# stub calling lib.exec_ternary_kernel appended to PointwiseOps.mm (and
# one calling lib.exec_binary_kernel to BinaryKernel.mm, for lerp's
# Scalar weight).
#
# addcmul and addcdiv: kind ternary-alpha (value carried as the alpha),
# every overload translated from the CUDA kernel, the floating-point and
# complex ones matching the CPU under the try (when a C++ compiler and
# torch are here); written with --in-place, they verify clean; --undo
# restores the tree byte for byte.  lerp: one plan with a kernel per stub,
# each with its own kind (binary-alpha lerp_alpha for the Scalar weight,
# ternary lerp for the Tensor weight), every overload translated (the
# floating-point math inlined from Lerp.h, the complex math from the
# jiterator string and the #else lambda), matching the CPU when tried,
# applied, verified clean (no placeholder), undone; with --dtypes
# float,half,bfloat each kernel's dtypes filtered (the complex ones left
# out), applied, verified clean, undone.  where: the
# condition input the CUDA lambda reads as bool found, the plan whole (see
# below).  hardtanh_backward: kind binary-params (min_val and max_val in a
# struct), planned, applied, verified clean, undone.
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
for k in BinaryKernel:binary:copysign PointwiseOps:ternary:clamp; do
  f=${k%%:*} r=${k#*:}; kind=${r%%:*} name=${r#*:}
  cat >>"$m/$nf/mps/operations/${f}.mm" <<EOF

// (main-shaped) a host stub of current PyTorch's form
namespace at::native {
static void ${name}_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_${kind}_kernel(iter, "$name");
}
} // namespace at::native
EOF
done
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

# lerp: two stubs, one plan with a kernel each: lerp_alpha (binary-alpha,
# the weight a Scalar the stub takes, as main names it) for
# lerp_kernel_scalar_weight, lerp (ternary) for lerp_kernel_tensor_weight,
# each with the dtypes of its stub's CPU kernel (floating and complex, no
# ComplexHalf) and its own overload's meta function
mps-migrate $try --root "$m" --json lerp >"$tmp/lerp.json" 2>"$tmp/e"; rc=$?
[ $rc = 1 ] || { fail "lerp: exit $rc, want 1"; cat "$tmp/e"; }
grep -q '"part":"kernel","kind":"binary-alpha","name":"lerp_alpha","from":"lerp.Scalar_out","stub":"lerp_kernel_scalar_weight"' "$tmp/lerp.json" ||
  fail "lerp: no binary-alpha kernel lerp_alpha for the Scalar weight"
grep -q '"part":"kernel","kind":"ternary","name":"lerp","from":"lerp.Tensor_out","stub":"lerp_kernel_tensor_weight"' "$tmp/lerp.json" ||
  fail "lerp: no ternary kernel lerp for the Tensor weight"
n=$(grep '"part":"dtypes"' "$tmp/lerp.json" | sed 's/"alpha":"[a-z0-9]*",//g' | grep -c '"pairs":\[{"in":"float","out":"float"},{"in":"half","out":"half"},{"in":"bfloat","out":"bfloat"},{"in":"float2","out":"float2"}\]')
[ "$n" = 2 ] || fail "lerp: $n kernels with the stub's dtypes, want 2"
grep -q '"part":"dtypes".*"meta":"TORCH_META_FUNC(lerp_Tensor)"' "$tmp/lerp.json" ||
  fail "lerp: the Tensor weight's kernel does not read its own meta function"
n=$(grep -c '"part":"stub".*"planned":true' "$tmp/lerp.json")
[ "$n" = 2 ] || fail "lerp: $n stubs planned, want 2"
grep -q '"part":"not-planned"' "$tmp/lerp.json" && { fail "lerp: a part not planned"; grep not-planned "$tmp/lerp.json"; }
# the math of both functors, every overload translated.  Floating-point:
# the CUDA lambdas call Lerp.h's lerp helper (aliases of opmath_type,
# opmath locals, a return calling is_lerp_weight_small), inlined from the
# header the lambda's file includes.  Complex: the Tensor weight's from
# 2.6.0's jiterator string (std::abs of a complex weight is its
# magnitude, compared as a float; complex products are c10::metal::mul;
# static_cast<T>(1) is float2(1, 0)); the Scalar weight's from the
# #else branch's plain lambda (the jiterator kernel hands the weight as
# an extra argument), whose call of the generic lerp template is inlined
# for complex values with is_lerp_weight_small's complex overload, its
# opmath copies that nothing reads left out.  With torch, every overload
# matches the CPU (complex64 as float2)
for f in lerp_alpha_functor lerp_functor; do
  for ov in floating-point complex; do
    grep '"part":"math"' "$tmp/lerp.json" | grep "\"functor\":\"$f\"" |
      grep "\"overload\":\"$ov\"" | grep -q '"status":"translated"' ||
      fail "lerp: $f's $ov overload not translated"
    if [ -z "$try" ]; then
      grep '"part":"math"' "$tmp/lerp.json" | grep "\"functor\":\"$f\"" |
        grep "\"overload\":\"$ov\"" | grep -q '"verdict":"matches CPU' ||
        fail "lerp: $f's $ov overload does not match the CPU"
    fi
  done
done
grep '"part":"math"' "$tmp/lerp.json" | grep '"functor":"lerp_functor"' |
  grep '"overload":"complex"' | grep -q '"line":23,' ||
  fail "lerp: lerp_functor's complex overload not from the jiterator string (Lerp.cu:23)"
grep '"part":"math"' "$tmp/lerp.json" | grep '"functor":"lerp_alpha_functor"' |
  grep '"overload":"complex"' | grep -q '"line":122,' ||
  fail "lerp: lerp_alpha_functor's complex overload not from the #else lambda (Lerp.cu:122)"
mps-migrate --no-try --root "$m" --in-place lerp >"$tmp/w" 2>"$tmp/e"; rc=$?
# clean after --in-place: no placeholder left; the Tensor weight's lambda
# is no branch of the math (its early is_cpu_scalar(3) return hands the
# iterator over)
[ $rc = 0 ] || { fail "lerp: --in-place exit $rc, want 0"; cat "$tmp/w" "$tmp/e"; }
grep -q "^lerp: 0 errors, 0 warnings, 0 notes" "$tmp/w" || { fail "lerp: not clean after --in-place"; cat "$tmp/w" "$tmp/e"; }
grep '"part":"math"' "$tmp/lerp.json" | grep -q 'lambdas in branches' &&
  fail "lerp: the is_cpu_scalar(3) hand-over read as a branch of the math"
mps-verify --root "$m" lerp >"$tmp/v" 2>&1; rc=$?
[ $rc = 0 ] || { fail "lerp: mps-verify exit $rc, want 0"; cat "$tmp/v"; }
grep -q '^lerp: 0 errors, 0 warnings, 0 notes' "$tmp/v" || { fail "lerp: mps-verify findings"; cat "$tmp/v"; }
grep -q 'TODO(mps-register)' "$m/$nf/mps/kernels/PointwiseOps.metal" "$m/$nf/mps/kernels/BinaryKernel.metal" &&
  fail "lerp: a placeholder is left"
grep -q '^    return static_cast<T>((metal::fabs(weight_val) < static_cast<T>(0.5f)) ?$' \
  "$m/$nf/mps/kernels/PointwiseOps.metal" ||
  fail "lerp: lerp_functor's floating-point overload does not test the weight"
# the complex overloads as written (within the kernel file's column limit)
sed -n '/^struct lerp_functor/,/^};/p' "$m/$nf/mps/kernels/PointwiseOps.metal" |
  sed -n '/is_complex_v/,$p' >"$tmp/lc"
cat >"$tmp/lc.want" <<'EOF'
  template <typename T, enable_if_t<is_complex_v<T>, bool> = true>
  inline T operator()(const T a, const T b, const T c) {
    const float2 self_val = float2(a);
    const float2 end_val = float2(b);
    const float2 weight_val = float2(c);
    return T((metal::precise::sqrt(metal::dot(weight_val, weight_val)) < 0.5f) ?
        self_val + c10::metal::mul(weight_val, end_val - self_val) : end_val -
        c10::metal::mul(end_val - self_val, float2(1, 0) - weight_val));
  }
};
EOF
cmp -s "$tmp/lc" "$tmp/lc.want" || { fail "lerp: lerp_functor's complex overload"; diff "$tmp/lc.want" "$tmp/lc"; }
sed -n '/^struct lerp_alpha_functor/,/^};/p' "$m/$nf/mps/kernels/BinaryKernel.metal" |
  sed -n '/is_complex_v/,$p' >"$tmp/la"
cat >"$tmp/la.want" <<'EOF'
  template <typename T, typename A, enable_if_t<is_complex_v<T>, bool> = true>
  inline T operator()(const T a, const T b, const A alpha) {
    const float2 self_val = float2(a);
    const float2 end_val = float2(b);
    return T(((float2(alpha).x * float2(alpha).x + float2(alpha).y *
        float2(alpha).y) < static_cast<float>(0.25f)) ? self_val +
        c10::metal::mul(float2(alpha), end_val - self_val) : end_val -
        c10::metal::mul(end_val - self_val, float2(1, 0) - float2(alpha)));
  }
};
EOF
cmp -s "$tmp/la" "$tmp/la.want" || { fail "lerp: lerp_alpha_functor's complex overload"; diff "$tmp/la.want" "$tmp/la"; }
grep -q 'lib.exec_binary_kernel(iter, "lerp_alpha", weight);' "$m/$nf/mps/operations/BinaryKernel.mm" ||
  fail "lerp: no host stub passing the weight to exec_binary_kernel"
grep -q '^REGISTER_DISPATCH(lerp_kernel_scalar_weight, &lerp_alpha_mps_kernel)' "$m/$nf/mps/operations/BinaryKernel.mm" ||
  fail "lerp: lerp_kernel_scalar_weight not registered"
grep -q 'lib.exec_ternary_kernel(iter, "lerp");' "$m/$nf/mps/operations/PointwiseOps.mm" ||
  fail "lerp: no host stub calling exec_ternary_kernel"
grep -q '^REGISTER_DISPATCH(lerp_kernel_tensor_weight, &lerp_mps_kernel);' "$m/$nf/mps/operations/PointwiseOps.mm" ||
  fail "lerp: lerp_kernel_tensor_weight not registered"
grep -q 'REGISTER_BINARY_ALPHA_OP(lerp_alpha, float, float, float);' "$m/$nf/mps/kernels/BinaryKernel.metal" ||
  fail "lerp: no float registration of lerp_alpha"
grep -q 'REGISTER_TERNARY_OP(lerp, float, float);' "$m/$nf/mps/kernels/PointwiseOps.metal" ||
  fail "lerp: no float registration of lerp"
grep -q 'TORCH_IMPL_FUNC(lerp_Tensor_mps)' "$m/$nf/mps/operations/Lerp.mm" &&
  fail "lerp: the MPSGraph lerp_Tensor_mps is left"
mps-migrate --root "$m" --undo >/dev/null 2>"$tmp/e" || { fail "lerp: --undo"; cat "$tmp/e"; }
(cd "$m" && git status --porcelain) >"$tmp/st"
[ -s "$tmp/st" ] && { fail "lerp: --undo left changes"; cat "$tmp/st"; }

# lerp --dtypes float,half,bfloat (issue #28): the same plan of a kernel
# per stub, --dtypes filtering each kernel's dtypes (float2 left out, and
# with it the complex overloads and their placeholders): both kernels
# planned whole, each functor matching the CPU when tried, applied,
# verified clean, undone; every insert line printed is the written
# file's
mps-migrate $try --root "$m" lerp --dtypes float,half,bfloat >"$tmp/ld" 2>"$tmp/e"; rc=$?
[ $rc = 1 ] || { fail "lerp --dtypes: exit $rc, want 1"; cat "$tmp/e"; }
grep -q '^for lerp_kernel_scalar_weight:$' "$tmp/ld" &&
  grep -q '^kernel: binary-alpha lerp_alpha (two inputs and a scalar: Scalar weight in the schema' "$tmp/ld" &&
  grep -q '^for lerp_kernel_tensor_weight:$' "$tmp/ld" &&
  grep -q '^kernel: ternary lerp (three inputs in the schema)$' "$tmp/ld" ||
  { fail "lerp --dtypes: not one plan with a kernel per stub"; sed -n '1,/^---/p' "$tmp/ld"; }
n=$(grep -c '^  left out by --dtypes: float2 (same dtype)$' "$tmp/ld")
[ "$n" = 2 ] || fail "lerp --dtypes: $n kernels leaving float2 out, want 2"
n=$(grep -c '^  registered: float, half, bfloat (same dtype)$' "$tmp/ld")
[ "$n" = 2 ] || fail "lerp --dtypes: $n kernels registering float, half, bfloat, want 2"
grep -q '^  aten/src/ATen/native/mps/kernels/BinaryKernel.metal:[0-9]*: REGISTER_BINARY_ALPHA_OP(lerp_alpha, float, float, float); \.\.\.$' "$tmp/ld" ||
  fail "lerp --dtypes: no registrations of lerp_alpha"
grep -q '^  aten/src/ATen/native/mps/kernels/PointwiseOps.metal:[0-9]*: REGISTER_TERNARY_OP(lerp, float, float); \.\.\.$' "$tmp/ld" ||
  fail "lerp --dtypes: no registrations of lerp"
grep -q '^  complex (' "$tmp/ld" && fail "lerp --dtypes: a complex overload planned"
grep -q '^not planned:' "$tmp/ld" && { fail "lerp --dtypes: a part not planned"; sed -n '/^not planned:/,/^left/p' "$tmp/ld"; }
grep -q '^  register lerp_kernel' "$tmp/ld" && fail "lerp --dtypes: a per-stub mps-register command left"
n=$(grep -c '^  floating-point (float -> float): translated from aten/src/ATen/native/cuda/Lerp.cu:[0-9]* (CUDA)' "$tmp/ld")
[ "$n" = 2 ] || fail "lerp --dtypes: $n floating-point overloads translated, want 2"
if [ -z "$try" ]; then
  n=$(grep -c '^  floating-point (float -> float): translated .*; matches CPU on [0-9]* values (float, half, bfloat' "$tmp/ld")
  [ "$n" = 2 ] || { fail "lerp --dtypes: $n functors match the CPU, want 2"; grep '^  floating-point' "$tmp/ld"; }
fi
mps-migrate --no-try --root "$m" --in-place lerp --dtypes float,half,bfloat >"$tmp/w" 2>"$tmp/e"; rc=$?
[ $rc = 0 ] || { fail "lerp --dtypes: --in-place exit $rc, want 0"; cat "$tmp/w" "$tmp/e"; }
mps-verify --root "$m" lerp >"$tmp/v" 2>&1; rc=$?
[ $rc = 0 ] || { fail "lerp --dtypes: mps-verify exit $rc"; cat "$tmp/v"; }
grep -q 'float2' "$m/$nf/mps/kernels/PointwiseOps.metal" "$m/$nf/mps/kernels/BinaryKernel.metal" &&
  fail "lerp --dtypes: a float2 registration or overload written"
grep -q 'TODO(mps-register)' "$m/$nf/mps/kernels/PointwiseOps.metal" "$m/$nf/mps/kernels/BinaryKernel.metal" &&
  fail "lerp --dtypes: a placeholder written"
grep -q '^REGISTER_DISPATCH(lerp_kernel_scalar_weight, &lerp_alpha_mps_kernel)' "$m/$nf/mps/operations/BinaryKernel.mm" &&
  grep -q '^REGISTER_DISPATCH(lerp_kernel_tensor_weight, &lerp_mps_kernel);' "$m/$nf/mps/operations/PointwiseOps.mm" ||
  fail "lerp --dtypes: a stub not registered"
# each "FILE:LINE: LABEL" of the insert lists is that line of the file
# (the line LABEL starts with: a long signature is wrapped in the file)
sed -n '/^insert (lines of the new files):$/,/^functor math/p' "$tmp/ld" | grep '^  aten/' |
  while IFS= read -r l; do
    f=${l#  }; f=${f%%:*}; r=${l#*:}; n=${r%%:*}; lab=${r#*: }
    lab=${lab%, with the dtype check}; lab=${lab% ...}
    line=$(sed -n "${n}p" "$m/$f"); line=${line%" {"}
    case $lab in "$line"?*|"$line") [ -n "$line" ] ;; *) false ;; esac ||
      echo "$f:$n is not $lab"
  done >"$tmp/lines"
[ -s "$tmp/lines" ] && { fail "lerp --dtypes: insert lines not the written files'"; cat "$tmp/lines"; }
n=$(sed -n '/^insert (lines of the new files):$/,/^functor math/p' "$tmp/ld" | grep -c '^  aten/')
[ "$n" = 6 ] || fail "lerp --dtypes: $n insert lines, want 6"
mps-migrate --root "$m" --undo >/dev/null 2>"$tmp/e" || { fail "lerp --dtypes: --undo"; cat "$tmp/e"; }
(cd "$m" && git status --porcelain) >"$tmp/st"
[ -s "$tmp/st" ] && { fail "lerp --dtypes: --undo left changes"; cat "$tmp/st"; }
# a dtype no kernel of lerp has: an error, nothing written
mps-migrate --no-try --root "$m" --in-place lerp --dtypes float,long >"$tmp/w" 2>"$tmp/e"; rc=$?
[ $rc = 2 ] || fail "lerp --dtypes float,long: exit $rc, want 2"
grep -q "^mps-migrate: error: --dtypes: no kernel of lerp has 'long' (lerp_alpha: float, half, bfloat, float2; lerp: float, half, bfloat, float2)$" "$tmp/e" ||
  { fail "lerp --dtypes float,long: no error"; cat "$tmp/e"; }
(cd "$m" && git status --porcelain) >"$tmp/st"
[ -s "$tmp/st" ] && { fail "lerp --dtypes float,long: files changed"; cat "$tmp/st"; }

# div: three stubs, a kernel each named as main does (div_true,
# div_trunc, div_floor); their output dtype is mixed (the meta function
# builds a float op or a plain one by rounding mode), so each stub's
# register command is left, as before
mps-migrate --no-try --root "$m" div >"$tmp/div" 2>&1
for st in div_true div_trunc div_floor; do
  grep -q "^  register ${st}_stub: mps-register binary $st --stub ${st}_stub --dtypes \.\.\. --functor --host" "$tmp/div" ||
    { fail "div: no register command for ${st}_stub"; grep register "$tmp/div"; }
done

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

[ $status = 0 ] && echo "ok: addcmul, addcdiv planned as ternary-alpha, translated${try:+ (not tried)}, applied, verified clean, undone; where planned with its bool condition${try:+ (not tried)}, the old registration deleted, applied, verified clean, undone; lerp planned whole (a kernel per stub, every overload translated${try:+ (not tried)}, applied, verified clean, undone), and with --dtypes float,half,bfloat (each kernel's dtypes filtered, applied, verified clean, undone); div's stubs a command each; hardtanh_backward planned as binary-params, translated, applied, verified clean, undone"
exit $status
