#!/bin/sh
# cppscan's stub discovery on real PyTorch trees (issue #12, item 1).
#  1. 2.6.0: the shared kernels of the 40 rows that upstream moved from an
#     MPS-alone line onto a shared one by 2.14.1 without being structured
#     (abs.out ... as_strided) come out stub-backed or device-generic, with
#     exactly the stubs listed here (read from the sources by hand), and
#     every stub named is declared by a DECLARE_DISPATCH in a header;
#     structured div.out and div.out_mode likewise; add.out has no shared
#     kernel in the sources (its CPU kernel is generated from
#     ufunc_inner_loop).
#  2. 2.6.0: kernels that dispatch dtypes themselves come out cpu-only,
#     with the file:line of their AT_DISPATCH.
#  3. 2.6.0: stubs reached only inside a branch for other devices are
#     guarded (index_put_with_sort_stub of _index_put_impl_: CUDA, XPU).
#  4. 2.14.1 (only the yaml and torchgen): "no C++ sources".
# Skipped (77) when the 2.6.0 tree is missing.
. "$(dirname "$0")/lib.sh"
use_tree t 2.6.0
use_probe probe
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
nf=aten/src/ATen/native

# ---- 1. the migrated rows ----
# row, 2.6.0 kernel (its CPU, CUDA line), expected summary.  Where a functor
# struct has two operator() overloads (BernoulliStub, RandomFromToStub) both
# are reached: discovery does not resolve overloads.
cat >"$tmp/rows" <<'EOF'
_cdist_forward _cdist_forward stubs: cdist_stub
abs.out abs_out stubs: abs_stub
as_strided as_strided_tensorimpl device-generic
bernoulli.out bernoulli_out stubs: bernoulli_scalar_stub, bernoulli_tensor_stub
bernoulli_.Tensor bernoulli_ stubs: bernoulli_scalar_stub, bernoulli_tensor_stub
bernoulli_.float bernoulli_ stubs: bernoulli_scalar_stub, bernoulli_tensor_stub
complex.out complex_out stubs: complex_stub
conj_physical.out conj_physical_out stubs: conj_physical_stub
exponential_ exponential_ stubs: exponential_stub
fill_.Scalar fill_ stubs: fill_stub
fill_.Tensor fill_ stubs: fill_stub
floor_divide floor_divide stubs: div_floor_stub
floor_divide.out floor_divide_out stubs: div_floor_stub
floor_divide_.Tensor floor_divide_ stubs: div_floor_stub
hardswish hardswish stubs: hardswish_stub
hardswish.out hardswish_out stubs: hardswish_stub
hardswish_ hardswish_ stubs: hardswish_stub
hardswish_backward hardswish_backward stubs: hardswish_backward_stub
index_fill_.int_Scalar index_fill_ stubs: index_fill_stub
index_fill_.int_Tensor index_fill_ stubs: index_fill_stub
logical_not.out logical_not_out stubs: logical_not_stub
mish_backward mish_backward stubs: mish_backward_stub
multinomial multinomial stubs: multinomial_with_replacement_stub
multinomial.out multinomial_out stubs: multinomial_with_replacement_stub
nan_to_num.out nan_to_num_out stubs: nan_to_num_stub
nansum nansum stubs: nansum_stub
nansum.out nansum_out stubs: nansum_stub
normal.Tensor_Tensor normal stubs: normal_stub
normal.Tensor_Tensor_out normal_out stubs: normal_stub
normal.Tensor_float normal stubs: normal_stub
normal.Tensor_float_out normal_out stubs: normal_stub
normal.float_Tensor normal stubs: normal_stub
normal.float_Tensor_out normal_out stubs: normal_stub
normal_ normal_ stubs: normal_stub
polar.out polar_out stubs: polar_stub
random_ random_ stubs: random_from_to_stub, random_full_64_bits_range_stub, random_stub
random_.from random_ stubs: random_from_to_stub, random_full_64_bits_range_stub, random_stub
random_.to random_ stubs: random_from_to_stub, random_full_64_bits_range_stub, random_stub
uniform_ uniform_ stubs: uniform_stub
zero_ zero_ device-generic
div.out div_out stubs: div_true_stub
div.out_mode div_out_mode stubs: div_floor_stub, div_true_stub, div_trunc_stub
add.out add_out unknown
EOF
n=0
while read -r row kernel want; do
  n=$((n + 1))
  "$probe" "$t" stubs "$kernel" >"$tmp/out" || { fail "probe $kernel"; continue; }
  got=$(sed -n '1s/^[^:]*: //p' "$tmp/out")
  [ "$got" = "$want" ] || { fail "$row ($kernel): want '$want', got '$got'"; sed 's/^/    /' "$tmp/out"; }
  if grep -q ' undeclared$' "$tmp/out"; then fail "$row ($kernel): an undeclared stub"; fi
  # each stub named: a DECLARE_DISPATCH in a header of aten/src/ATen/native
  for s in $(printf '%s\n' "$got" | sed -n 's/^stubs: //p' | tr -d ','); do
    grep -q "^  $s .* declared at $nf/[^ ]*\.h:[0-9]*$" "$tmp/out" ||
      fail "$row: $s has no DECLARE_DISPATCH in a header"
    f=$(sed -n "s|^  $s .* declared at \($nf/[^:]*\):\([0-9]*\)$|\1|p" "$tmp/out")
    l=$(sed -n "s|^  $s .* declared at \($nf/[^:]*\):\([0-9]*\)$|\2|p" "$tmp/out")
    # the declaration starts there (its arguments may span lines)
    [ -n "$f" ] && sed -n "${l}p" "$t/$f" | grep -q "DECLARE_DISPATCH" &&
      sed -n "${l},$((l + 8))p" "$t/$f" | tr '\n' ' ' | grep -q "DECLARE_DISPATCH[^;]*$s" ||
      fail "$row: $s: line $f:$l is not its DECLARE_DISPATCH"
  done
done <"$tmp/rows"
echo "$n kernels checked"

# the places named are the real ones
"$probe" "$t" stubs abs_out fill_ floor_divide_out >"$tmp/out"
for w in "abs_stub passed at $nf/UnaryOps.cpp:544 in abs_out" \
         "fill_stub called at $nf/Fill.cpp:35 in fill_out (depth 1)" \
         "div_floor_stub called at $nf/BinaryOps.cpp:971 in floor_divide_out"; do
  grep -qF "  $w" "$tmp/out" || fail "not found: $w"
done

# ---- 2. cpu-only kernels ----
cat >"$tmp/cpu" <<EOF
_bincount_cpu AT_DISPATCH_INTEGRAL_TYPES $nf/SummaryOps.cpp:89
count_nonzero_cpu AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4 $nf/TensorAdvancedIndexing.cpp:2312
_unique_cpu AT_DISPATCH_V2 $nf/Unique.cpp:448
eye_out_cpu AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3 $nf/TensorFactories.cpp:569
range_out AT_DISPATCH_ALL_TYPES_AND2 $nf/RangeFactories.cpp:154
EOF
while read -r kernel marker at; do
  "$probe" "$t" stubs "$kernel" >"$tmp/out"
  head -n 1 "$tmp/out" | grep -qx "$kernel: cpu-only" || fail "$kernel: $(head -n 1 "$tmp/out")"
  grep -qF "  cpu marker $marker at $at (depth 0)" "$tmp/out" || fail "$kernel: marker $marker at $at not named"
done <"$tmp/cpu"

# ---- 3. stubs reached only on other devices (cs_stub.guard) ----
# _index_put_impl_ sorts only for CUDA and XPU; scatter_reduce_two takes
# its expanded-index path only when a predicate true on CPU alone holds;
# the stubs every device reaches stay unguarded.
"$probe" "$t" stubs _index_put_impl_ scatter_reduce_two >"$tmp/out"
for w in "index_put_with_sort_stub only on CUDA, XPU" \
         "scatter_reduce_expanded_index_stub only on CPU"; do
  grep -qxF "  $w" "$tmp/out" || fail "not found: $w"
done
for s in index_put_stub scatter_reduce_two_stub scatter_stub; do
  grep -q "^  $s only on " "$tmp/out" && fail "$s is guarded"
done
grep -qx "_index_put_impl_: stubs: index_put_stub, index_put_with_sort_stub" "$tmp/out" ||
  fail "_index_put_impl_: a guarded stub left the list"

# ---- 4. a tree without C++ sources ----
use_tree t2 2.14.1
"$probe" "$t2" stubs abs_out fill_ >"$tmp/out"
grep -qx "abs_out: unknown" "$tmp/out" || fail "2.14.1 abs_out: $(head -n 1 "$tmp/out")"
[ "$(grep -c '^  why: no C++ sources in this tree' "$tmp/out")" = 2 ] ||
  fail "2.14.1: no 'no C++ sources' reason"
exit $status
