#!/bin/sh
# mps-verify on real PyTorch 2.6.0 (issue #3).
#  1. sqrt, atan2, div, abs still run MPSGraph: each exits 1 and names the
#     `MPS: x_mps` row(s) of the yaml and the host line defining the kernel;
#     div's rows name the stubs their shared kernels reach.
#  2. atan2 migrated on a copy of the relevant files (rows folded, a Metal
#     registration and a stub added, the old definition and include removed)
#     verifies clean; leaving any one piece behind is caught by its rule.
#     Also: the functor's placeholder marker and a float-only functor given
#     an integral registration are caught; a file that still defines the old
#     kernel keeps its include without a stale-include warning.
#  3. 2.6.0 keeps its expected-failure lists in test/test_mps.py: atan2's
#     entries there are reported; sinc and special_i0e, not on MPS at all,
#     exit 1 (no-mps-kernel).
#  4. --all completes; its counts are printed.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
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
      grep -F "\`$k\`" | grep -F 'mpsgraph-host-path]' >/dev/null ||
      fail "$op: definition of $k ($(basename "$file"):$line) not reported"
  done
  echo "$op: $(cat "$tmp/out")"
}
expect sqrt sqrt_out_mps
expect atan2 atan2_out_mps
expect div div_out_mps div_out_mode_mps
# div's rows name the stubs their shared kernels reach (the C++ sources)
mps-verify --root "$src" div >"$tmp/out" 2>"$tmp/err"
for st in div_true_stub div_trunc_stub div_floor_stub; do
  grep -F 'div.out_mode: ' "$tmp/err" | grep -F "$st" >/dev/null ||
    fail "div: $st not named"
done
echo "div: div_true_stub, div_trunc_stub and div_floor_stub named"
expect abs abs_out_mps

# ---- 2. migrate atan2 on a copy ----
# make_tree DIR SKIP: a copy with every migration step but those in SKIP
# applied (SKIP: a space-separated list of none, rows, metal, stub, def,
# include; or todo: the functor keeps mps-register's placeholder; or
# floatonly: the functor has a floating-point overload only, and an int
# registration is added).
make_tree() {
  d=$1 skip=" $2 "
  mkdir -p "$d/$nf"
  cp "$src/$nf/native_functions.yaml" "$src/$nf/BinaryOps.h" "$d/$nf/"
  cp -R "$src/$nf/mps" "$d/$nf/mps"
  for l in "$COMMON" test/test_mps.py; do
    if [ -f "$src/$l" ]; then mkdir -p "$d/$(dirname "$l")"; cp "$src/$l" "$d/$l"; fi
  done
  y=$d/$nf/native_functions.yaml
  ops=$d/$nf/mps/operations
  case $skip in *" rows "*) ;; *)
    awk '$0 == "    CPU, CUDA: atan2_out" { print "    CPU, CUDA, MPS: atan2_out"; next }
         $0 == "    MPS: atan2_out_mps" { next } { print }' "$y" >"$y.new" && mv "$y.new" "$y"
  esac
  k=$d/$nf/mps/kernels/BinaryKernel.metal
  case $skip in
    *" metal "*) ;;
    *" todo "*) cat >>"$k" <<'EOF'

struct atan2_functor {
  template <typename T>
  inline float operator()(const T a, const T b) {
    // TODO(mps-register): the math of atan2 goes here
    return float(a);
  }
};
REGISTER_BINARY_OP(atan2, float, float);
REGISTER_BINARY_OP(atan2, half, half);
EOF
      ;;
    *" floatonly "*) cat >>"$k" <<'EOF'

struct atan2_functor {
  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>
  inline float operator()(const T a, const T b) {
    return precise::atan2(float(a), float(b));
  }
};
REGISTER_BINARY_OP(atan2, float, float);
REGISTER_BINARY_OP(atan2, half, half);
REGISTER_BINARY_OP(atan2, int, float);
EOF
      ;;
    *) cat >>"$k" <<'EOF'

struct atan2_functor {
  template <typename T>
  inline float operator()(const T a, const T b) {
    return precise::atan2(float(a), float(b));
  }
};
REGISTER_BINARY_OP(atan2, float, float);
REGISTER_BINARY_OP(atan2, half, half);
EOF
      ;;
  esac
  case $skip in *" stub "*) ;; *)
    cat >>"$ops/BinaryKernel.mm" <<'EOF'
namespace at::native {
static void atan2_mps_kernel(TensorIteratorBase& iter) {
  mps::lib.exec_binary_kernel(iter, "atan2");
}
REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)
} // namespace at::native
EOF
  esac
  case $skip in *" def "*) ;; *)
    awk '/^TORCH_IMPL_FUNC\(atan2_out_mps\)/ { drop = 1 }
         { if (!drop) print } drop && /^}/ { drop = 0 }' \
      "$ops/BinaryOps.mm" >"$ops/BinaryOps.mm.new" && mv "$ops/BinaryOps.mm.new" "$ops/BinaryOps.mm"
  esac
  case $skip in *" include "*) ;; *)
    grep -v '^#include <ATen/ops/atan2_native.h>' "$ops/BinaryOps.mm" >"$ops/BinaryOps.mm.new" &&
      mv "$ops/BinaryOps.mm.new" "$ops/BinaryOps.mm"
  esac
}
COMMON=torch/testing/_internal/common_mps.py

make_tree "$tmp/none" none
mps-verify --root "$tmp/none" atan2 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || { fail "migrated atan2: exit $rc, want 0"; cat "$tmp/err"; }
mps-verify --root "$tmp/none" --before "$src/$nf/native_functions.yaml" atan2 \
  >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || { fail "migrated atan2 with --before: exit $rc, want 0"; cat "$tmp/err"; }
echo "migrated atan2: clean"

# left SKIP RULE [NOT_RULE]: leaving SKIP behind is reported under RULE
# (and not under NOT_RULE)
left() {
  make_tree "$tmp/x" "$1"
  mps-verify --root "$tmp/x" atan2 >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] || fail "atan2 without step '$1': exit $rc, want 1"
  has "$tmp/err" ": $2]" || { fail "atan2 without step '$1': no [$2]"; cat "$tmp/err"; }
  if [ -n "${3:-}" ] && has "$tmp/err" ": $3]"; then
    fail "atan2 without step '$1': [$3] reported"; cat "$tmp/err"
  fi
  echo "without step '$1': $(grep -c . "$tmp/err") finding(s), $(sed 's/.*\[\(.*\)\]$/\1/' "$tmp/err" | sort -u | tr '\n' ' ')"
  rm -rf "${tmp:?}/x"
}
left rows legacy-dispatch-row
left metal unregistered-kernel
left stub missing-stub
left def dead-mps-definition
left include stale-include
left "def include" dead-mps-definition stale-include
left todo functor-placeholder
left floatonly missing-overload

# ---- 3. the test lists of 2.6.0; operators not on MPS ----
mps-verify --root "$src" atan2 >"$tmp/out" 2>"$tmp/err"
n=0
for l in $(grep -n "^ *'atan2': " "$src/test/test_mps.py" | cut -d: -f1); do
  n=$((n + 1))
  grep -F "test/test_mps.py:$l:" "$tmp/err" | grep -F 'xfail-leftover]' >/dev/null ||
    fail "atan2: entry at test/test_mps.py:$l not reported"
done
[ $n -ge 3 ] || fail "atan2: only $n entries found in test/test_mps.py"
echo "atan2: $n entries of test/test_mps.py reported"
for op in sinc special_i0e; do
  mps-verify --root "$src" $op >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] || fail "$op: exit $rc, want 1"
  has "$tmp/err" "no-mps-kernel]" || fail "$op: no [no-mps-kernel]"
  echo "$op: $(cat "$tmp/out")"
done

# ---- 4. the survey ----
mps-verify --root "$src" --all >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "--all: exit $rc, want 1"
grep '^total: ' "$tmp/out" >/dev/null || fail "--all: no total line"
cat "$tmp/out"
exit $status
