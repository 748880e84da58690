#!/bin/sh
# The leftover rules on real trees.
#  1. Real 2.6.0 compiles, so it has no dead MPS definition and no
#     undefined call; every kernel of its .metal files is asked for by host
#     code (unused-kernel is a heuristic: this keeps it honest).
#  2. A tree shaped like current main (2.6.0's sources under 2.14.1's yaml
#     and common_mps.py, the rows PyTorch's contributors migrated since):
#     the old definitions those migrations left would not compile and are
#     reported: TORCH_IMPL_FUNC(lgamma_out_mps), digamma, polygamma in
#     Gamma.mm, bitwise_not_out_mps in BitwiseOps.mm.  With
#     logical_not_out_mps deleted (as main did), its caller
#     _bitwise_not_out_mps is an undefined call.  set_ and _ctc_loss, whose
#     shared rows are wrappers, are no partial migration.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
use_tree cur 2.14.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
nf=aten/src/ATen/native

mps-verify --root "$src" --all >"$tmp/out" 2>"$tmp/err"
for r in dead-mps-definition undefined-call unused-kernel; do
  n=$(grep -c ": $r]" "$tmp/err")
  [ "$n" = 0 ] && echo "2.6.0: no $r" || { fail "2.6.0: $n $r"; grep ": $r]" "$tmp/err" | head -n 3; }
done

m=$tmp/main-shaped
mkdir -p "$m/aten/src/ATen" "$m/torch/testing/_internal"
cp -R "$src/$nf" "$m/aten/src/ATen/"
cp "$cur/$nf/native_functions.yaml" "$cur/$nf/tags.yaml" "$m/$nf/"
cp "$cur/torch/testing/_internal/common_mps.py" "$m/torch/testing/_internal/"
u=$m/$nf/mps/operations/UnaryOps.mm
awk '/^Tensor& logical_not_out_mps\(/ { drop = 1 } !drop { print } drop && /^}/ { drop = 0 }' "$u" >"$tmp/u" && mv "$tmp/u" "$u"
mps-verify --root "$m" --all >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "main-shaped --all: exit $rc, want 1"
# expect FILE FUNC RULE: a finding of RULE at FILE's line defining FUNC
expect() {
  l=$(grep -n "$2" "$m/$nf/mps/operations/$1" | head -n 1 | cut -d: -f1)
  [ -n "$l" ] || { fail "no $2 in $1"; return; }
  grep -F "$nf/mps/operations/$1:$l:" "$tmp/err" | grep -F ": $3]" >/dev/null &&
    echo "main-shaped: $1:$l $3" || fail "$1:$l ($2): no $3"
}
expect Gamma.mm 'TORCH_IMPL_FUNC(lgamma_out_mps)' dead-mps-definition
expect Gamma.mm 'TORCH_IMPL_FUNC(digamma_out_mps)' dead-mps-definition
expect Gamma.mm 'TORCH_IMPL_FUNC(polygamma_out_mps)' dead-mps-definition
expect BitwiseOps.mm 'TORCH_IMPL_FUNC(bitwise_not_out_mps)' dead-mps-definition
expect BitwiseOps.mm 'logical_not_out_mps(self' undefined-call
for op in set_ _ctc_loss; do
  ! grep -F ": $op: " "$tmp/err" | grep -F 'partial-migration]' >/dev/null &&
    echo "main-shaped: $op is no partial migration" || fail "$op: partial-migration"
done
sed -n '/^defects:/,/^total:/p' "$tmp/out"
exit $status
