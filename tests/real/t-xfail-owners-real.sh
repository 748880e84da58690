#!/bin/sh
# The test-list entries mps-migrate deletes with an operator's old path
# name that operator (issue #25, defect 1), on PyTorch 2.14.1's real
# common_mps.py: for every operator of its yaml, the entries rt_plan_op
# deletes (build/unit/retire_probe, the same call mps-migrate makes).
#  1. foreign entries: 0.  An entry is OP's when its key, with the
#     namespaces of aten operators read ("nn.functional.X" is X,
#     "special.X" / "linalg.X" / "fft.X" are special_X ...), is OP, OP's
#     in-place form OP_, or OP followed directly by a variant name that
#     starts with a letter; a key of any other dotted namespace
#     (signal.windows.*, masked.*, sparse.*) is never an operator plus a
#     variant.  (Before: sign took the 11 signal.windows.* entries, max
#     took max_unpool1d, mul multilabel_soft_margin_loss ...)
#  2. no entry is deleted for two operators.
#  3. the variant readings, pinned (each checked against the OpInfo
#     names and variant_test_names of PyTorch's
#     common_methods_invocations.py).
. "$(dirname "$0")/lib.sh"
use_tree src 2.14.1
probe=$repo/build/unit/retire_probe
[ -x "$probe" ] || { echo "skipped: $probe not built (run: make check)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
lists=$src/torch/testing/_internal/common_mps.py
[ -f "$lists" ] || { fail "no common_mps.py in $src"; exit 1; }

"$probe" "$src" xfails >"$tmp/del" 2>"$tmp/err" || { fail "probe: $(cat "$tmp/err")"; exit 1; }
n=$(wc -l <"$tmp/del")
[ "$n" -ge 100 ] || fail "only $n entries deleted in all: the lists were not read"

# 1. foreign entries
awk -F'\t' '
{
  op = $1; k = $2; name = ""
  if (k ~ /^nn\.functional\./) name = substr(k, 15)
  else if (k ~ /^(special|linalg|fft)\./) { name = k; sub(/\./, "_", name) }
  else if (k ~ /\./) name = ""          # another namespace: exact form only
  else name = k
  if (name == "") { t = k; gsub(/\./, "_", t); ok = (t == op) }
  else if (name == op || name == op "_") ok = 1
  else ok = index(name, op) == 1 && name !~ /\./ &&
            substr(name, length(op) + 1, 1) ~ /[A-Za-z]/
  if (!ok) { print "foreign: " op " <- " k " (" $4 ")"; bad++ }
}
END { print (bad + 0) " foreign" }' "$tmp/del" >"$tmp/foreign"
tail -n 1 "$tmp/foreign" | grep -qx "0 foreign" ||
  { fail "entries of other operators deleted:"; sed 's/^/    /' "$tmp/foreign" | head -n 20; }
# the file does hold keys that read as sign + "al_windows_..."
nsig=$(grep -c '"signal\.windows\.' "$lists")
[ "$nsig" -ge 10 ] || fail "only $nsig signal.windows entries in $lists"
grep -q '	signal\.windows\.' "$tmp/del" && fail "a signal.windows entry is deleted"
"$probe" "$src" xfails sign >"$tmp/sign"
grep -v '^sign	sign	' "$tmp/sign" | grep -q . && fail "sign deletes: $(cat "$tmp/sign")"

# 2. each entry at most once
cut -f 4 "$tmp/del" | sort | uniq -d >"$tmp/dup"
[ -s "$tmp/dup" ] && fail "entries deleted for two operators: $(cat "$tmp/dup")"

# 3. the variant readings (operator <- key), each once
awk -F'\t' '{ k = $2; sub(/^nn\.functional\./, "", k); gsub(/\./, "_", k)
              if (k != $1) print $1 " <- " $2 }' "$tmp/del" | sort -u >"$tmp/var"
cat >"$tmp/want" <<'X'
as_strided <- as_stridedpartial_views
feature_alpha_dropout <- nn.functional.feature_alpha_dropoutwith_train
linalg_lstsq <- linalg.lstsqgrad_oriented
log_softmax <- log_softmaxwith_dtype
logspace <- logspacetensor_overload
max_unpool2d <- nn.functional.max_unpool2dgrad
max_unpool3d <- nn.functional.max_unpool3dgrad
pad <- nn.functional.padreplicate_negative
resize <- resize_
resize_as <- resize_as_
round <- rounddecimals_0
scatter_reduce <- scatter_reduceprod
X
diff -u "$tmp/want" "$tmp/var" >"$tmp/d" || { fail "variant readings differ:"; sed 's/^/    /' "$tmp/d"; }
echo "2.14.1: $n entries deleted over all operators, $(wc -l <"$tmp/var") as OpInfo name + variant, 0 foreign"
exit $status
