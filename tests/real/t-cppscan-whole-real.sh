#!/bin/sh
# cppscan over whole real trees (2.6.0 and 1.13.1): every kernel of a
# dispatch line that lists CPU asked for its stubs, every name ending in
# _stub in the C++ sources for its CPU dtypes, every operator (and every
# operator with its CPU-line kernel) for its output rule.  What comes out
# is summed up as counts per kind and checksums of the probe's whole
# output, and must equal tests/real/cppscan_whole.expected: any change of
# the reader that changes an answer, a location or a reason shows here
# (the file holds counts and checksums only, no text of the trees).
#
# UPDATE=1 rewrites the expected file; review the change first, e.g. by
# running the probe on the same names before and after (SHOW=DIR keeps
# the probe's outputs in DIR).
# Skipped (77) when a tree is missing.
. "$(dirname "$0")/lib.sh"
use_tree t6 2.6.0
use_tree t1 1.13.1
use_probe probe
expected=$repo/tests/real/cppscan_whole.expected
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
export LC_ALL=C

summary() { # VERSION TREE: the lines of the expected file for one tree
  v=$1; t=$2; y=$t/$nf/native_functions.yaml; d=$tmp/$v; mkdir -p "$d"
  # kernels of dispatch lines that list CPU; operators; operator=kernel
  awk '
    /^- func:/ { f = $3; sub(/\(.*/, "", f); print f > "'"$d/ops"'" }
    /^    [A-Za-z][A-Za-z0-9_, ]*: *[A-Za-z_][A-Za-z0-9_]*[ \t]*(#.*)?$/ {
      keys = $0; sub(/:.*/, "", keys); k = $0; sub(/^[^:]*: */, "", k)
      sub(/[ \t#].*/, "", k); n = split(keys, a, ",")
      for (i = 1; i <= n; i++) { gsub(/ /, "", a[i]); if (a[i] == "CPU") {
        print k > "'"$d/kernels"'"; print f "=" k > "'"$d/pairs"'" } }
    }' "$y"
  sort -u -o "$d/kernels" "$d/kernels"
  sort -u -o "$d/ops" "$d/ops"
  sort -u -o "$d/pairs" "$d/pairs"
  find "$t/$nf" -type f \( -name '*.cpp' -o -name '*.h' \) -exec \
    grep -ohE '\b[A-Za-z_][A-Za-z0-9_]*_stub\b' {} + | sort -u >"$d/stubs"
  "$probe" "$t" stubs $(cat "$d/kernels") >"$d/stubs.out" || return 1
  "$probe" "$t" dtypes $(cat "$d/stubs") >"$d/dtypes.out" || return 1
  "$probe" "$t" rules $(cat "$d/ops") $(cat "$d/pairs") >"$d/rules.out" || return 1
  "$probe" "$t" stats >"$d/stats.out" || return 1
  echo "# PyTorch $v"
  sed -n 1p "$d/stats.out"
  for q in stubs dtypes rules; do
    o=$d/$q.out
    case $q in
      stubs)  kinds=$(grep -v '^ ' "$o" | sed 's/^[^:]*: //; s/:.*//' | sort | uniq -c |
                      awk '{printf " %s %s", $2, $1}') ;;
      dtypes) kinds=$(grep -v '^ ' "$o" | awk '{print ($NF == "none" && NF == 2) ? "none" : "found"}' |
                      sort | uniq -c | awk '{printf " %s %s", $2, $1}') ;;
      rules)  kinds=$(grep -v '^ ' "$o" | sed 's/^[^:]*: //' | sort | uniq -c |
                      awk '{printf " %s %s", $2, $1}') ;;
    esac
    [ $q = stubs ] && kinds="$kinds; stubs only on other devices $(grep -c '^  [^ ]* only on ' "$o")"
    echo "$q $(grep -vc '^ ' "$o") asked:$kinds"
    echo "$q summary cksum $(grep -v '^ ' "$o" | cksum | cut -d' ' -f1,2)"
    echo "$q all cksum $(cksum <"$o" | cut -d' ' -f1,2)"
  done
  if [ -n "${SHOW:-}" ]; then mkdir -p "$SHOW/$v" && cp "$d"/*.out "$SHOW/$v/"; fi
}

{ summary 2.6.0 "$t6" && summary 1.13.1 "$t1"; } >"$tmp/got" || { echo "FAIL: probe"; exit 1; }
if [ -n "${UPDATE:-}" ]; then
  cp "$tmp/got" "$expected"
  echo "updated $expected"
  exit 0
fi
if ! diff -u "$expected" "$tmp/got"; then
  echo "FAIL: cppscan's answers on the real trees changed (UPDATE=1 rewrites $expected after review)"
  exit 1
fi
grep -c ' asked:' "$tmp/got" | sed 's/$/ question sets unchanged/'
