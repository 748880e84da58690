#!/bin/sh
# mps-verify --todo on real PyTorch 2.6.0 (whole sources; issue #27): one
# run.  Pins the counts per kind (the README's table), checks a few
# entries by hand-read facts of the tree (sort.values_stable's own kernel,
# nll_loss_forward's, max's two overloads of two kinds, where's stub), and
# that each listed PATH:LINE is the definition of the listed function (or
# the macro line generating it).
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

mps-verify --root "$src" --todo >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "--todo: exit $rc, want 1"
[ -s "$tmp/err" ] && { fail "--todo wrote to stderr"; head -n 5 "$tmp/err"; }

# the counts per kind
sed -n '/ build an MPSGraph$/,$p' "$tmp/out" >"$tmp/table"
cat >"$tmp/want" <<'X'
311 functions of 242 operators build an MPSGraph
  kind       operators functions
  pointwise        104       128
  reduction         26        36
  norm               8        13
  softmax            4         4
  loss              12        18
  indexing          11        16
  pooling           32        36
  linalg            13        16
  random             5        14
  fft                3         6
  shape             10        10
  other             14        14
  total            242       311
X
diff -u "$tmp/want" "$tmp/table" || fail "the counts per kind changed"

# entries: KIND OP FUNCTION FILE:LINE VIA NAME (columns squeezed)
ops=aten/src/ATen/native/mps/operations
tr -s ' ' <"$tmp/out" >"$tmp/rows"
for want in \
  "other sort sort_stable_out_mps $ops/Sort.mm:20 row sort.values_stable" \
  "loss nll_loss_forward nll_loss_forward_out_mps $ops/LossOps.mm:1125 row nll_loss_forward.output" \
  "reduction max max_out_mps $ops/ReduceOps.mm:1387 row max.dim_max" \
  "pointwise where where_kernel_mps $ops/TensorCompare.mm:397 stub where_kernel" \
  "norm native_batch_norm batch_norm_mps $ops/Normalization.mm:363 row native_batch_norm" \
  "fft _fft_r2c _fft_r2c_mps $ops/FastFourierTransform.mm:64 row _fft_r2c"
do
  grep -Fx -- "$want" "$tmp/rows" >/dev/null || fail "no row '$want'"
done

# every PATH:LINE names its function (or is the macro line making it):
# one awk reading each file once
awk -v src="$src" '
  $4 ~ /\.(mm|h|cpp):[0-9]+$/ {
    n++; split($4, p, ":")
    if (!(p[1] in seen)) {
      seen[p[1]] = 1; k = 0
      while ((getline l < (src "/" p[1])) > 0) text[p[1], ++k] = l
      close(src "/" p[1])
    }
    if (index(text[p[1], p[2]], $3) == 0) { bad++; print "  " $4 ": no " $3 }
  }
  END { print n + 0, bad + 0 > "/dev/stderr" }' "$tmp/rows" 2>"$tmp/count"
read -r n bad <"$tmp/count"
[ "$n" = 311 ] || fail "$n rows read, want 311"
[ "$bad" = 0 ] || fail "$bad rows point elsewhere than their function"

cat "$tmp/table"
[ $status = 0 ] && echo "2.6.0: $n functions listed, each at its definition"
exit $status
