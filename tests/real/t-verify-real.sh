#!/bin/sh
# mps-verify on real PyTorch 2.6.0 (issue #3).
#  1. sqrt, atan2, div, abs still run MPSGraph: each exits 1 and names the
#     `MPS: x_mps` row(s) of the yaml and the host line defining the kernel.
#  2. atan2 migrated on a copy of the relevant files (rows folded, a Metal
#     registration and a stub added, the old definition and include removed)
#     verifies clean; leaving any one piece behind is caught by its rule.
#  3. --all completes; its counts are printed.
. "$(dirname "$0")/lib.sh"
src=$(real_tree 2.6.0)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
status=0
fail() { echo "FAIL: $*"; status=1; }

# has FILE TEXT: FILE holds TEXT (fixed string)
has() { grep -F -- "$2" "$1" >/dev/null; }

# ---- 1. the unmigrated operators ----
# expect OP YAML_KERNEL... : each MPS-alone kernel of OP must be named with
# its yaml row and its host definition line.
expect() {
  op=$1; shift
  mps-verify --root "$src" "$op" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] || fail "$op: exit $rc, want 1"
  for k in "$@"; do
    yl=$(grep -n "^    MPS: $k\$" "$src/$nf/native_functions.yaml" | cut -d: -f1)
    [ -n "$yl" ] || { fail "$op: no row 'MPS: $k' in the tree"; continue; }
    has "$tmp/err" "$nf/native_functions.yaml:$yl:5: error: " &&
      has "$tmp/err" "\`MPS: $k\`" ||
      fail "$op: row MPS: $k (line $yl) not reported"
    hl=$(grep -n "TORCH_IMPL_FUNC($k)\|_FUNC($k,\|^Tensor& $k(" \
           "$src/$nf/mps/operations/"*.mm | head -n 1)
    file=${hl%%:*}; rest=${hl#*:}; line=${rest%%:*}
    [ -n "$line" ] || { fail "$op: no definition of $k in the tree"; continue; }
    grep -F "$nf/mps/operations/$(basename "$file"):$line:" "$tmp/err" |
      grep -F "\`$k\`" | grep -F '[mpsgraph-host-path]' >/dev/null ||
      fail "$op: definition of $k ($(basename "$file"):$line) not reported"
  done
  echo "$op: $(cat "$tmp/out")"
}
expect sqrt sqrt_out_mps
expect atan2 atan2_out_mps
expect div div_out_mps div_out_mode_mps
expect abs abs_out_mps

# ---- 2. migrate atan2 on a copy ----
# make_tree DIR SKIP: a copy with every migration step but SKIP applied
# (SKIP: none, rows, metal, stub, def, include).
make_tree() {
  d=$1 skip=$2
  mkdir -p "$d/$nf"
  cp "$src/$nf/native_functions.yaml" "$src/$nf/BinaryOps.h" "$d/$nf/"
  cp -R "$src/$nf/mps" "$d/$nf/mps"
  if [ -f "$src/$COMMON" ]; then
    mkdir -p "$d/$(dirname "$COMMON")"; cp "$src/$COMMON" "$d/$COMMON"
  fi
  y=$d/$nf/native_functions.yaml
  ops=$d/$nf/mps/operations
  if [ "$skip" != rows ]; then
    awk '$0 == "    CPU, CUDA: atan2_out" { print "    CPU, CUDA, MPS: atan2_out"; next }
         $0 == "    MPS: atan2_out_mps" { next } { print }' "$y" >"$y.new" && mv "$y.new" "$y"
  fi
  if [ "$skip" != metal ]; then
    cat >>"$d/$nf/mps/kernels/BinaryKernel.metal" <<'EOF'

struct atan2_functor {
  template <typename T>
  inline float operator()(const T a, const T b) {
    return precise::atan2(float(a), float(b));
  }
};
REGISTER_BINARY_OP(atan2, float, float);
REGISTER_BINARY_OP(atan2, half, half);
EOF
  fi
  if [ "$skip" != stub ]; then
    cat >>"$ops/BinaryKernel.mm" <<'EOF'
namespace at::native {
static void atan2_mps_kernel(TensorIteratorBase& iter) {
  mps::lib.exec_binary_kernel(iter, "atan2");
}
REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)
} // namespace at::native
EOF
  fi
  if [ "$skip" != def ]; then
    awk '/^TORCH_IMPL_FUNC\(atan2_out_mps\)/ { drop = 1 }
         { if (!drop) print } drop && /^}/ { drop = 0 }' \
      "$ops/BinaryOps.mm" >"$ops/BinaryOps.mm.new" && mv "$ops/BinaryOps.mm.new" "$ops/BinaryOps.mm"
  fi
  if [ "$skip" != include ]; then
    grep -v '^#include <ATen/ops/atan2_native.h>' "$ops/BinaryOps.mm" >"$ops/BinaryOps.mm.new" &&
      mv "$ops/BinaryOps.mm.new" "$ops/BinaryOps.mm"
  fi
}
COMMON=torch/testing/_internal/common_mps.py

make_tree "$tmp/none" none
mps-verify --root "$tmp/none" atan2 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || { fail "migrated atan2: exit $rc, want 0"; cat "$tmp/err"; }
mps-verify --root "$tmp/none" --before "$src/$nf/native_functions.yaml" atan2 \
  >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || { fail "migrated atan2 with --before: exit $rc, want 0"; cat "$tmp/err"; }
echo "migrated atan2: clean"

# left SKIP RULE: leaving SKIP behind is reported under RULE
left() {
  make_tree "$tmp/$1" "$1"
  mps-verify --root "$tmp/$1" atan2 >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] || fail "atan2 without step '$1': exit $rc, want 1"
  has "$tmp/err" "[$2]" || { fail "atan2 without step '$1': no [$2]"; cat "$tmp/err"; }
  echo "without step '$1': $(grep -c . "$tmp/err") finding(s), $(sed 's/.*\[\(.*\)\]$/\1/' "$tmp/err" | sort -u | tr '\n' ' ')"
  rm -rf "${tmp:?}/$1"
}
left rows legacy-dispatch-row
left metal unregistered-kernel
left stub missing-stub
left def mpsgraph-host-path
left include stale-include

# ---- 3. the survey ----
mps-verify --root "$src" --all >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "--all: exit $rc, want 1"
grep '^total: ' "$tmp/out" >/dev/null || fail "--all: no total line"
cat "$tmp/out"
exit $status
