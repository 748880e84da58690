#!/bin/sh
# cppscan's table of the dtype dispatch macros (cs_dispatch_macro_types),
# written by hand, against what PyTorch 2.6.0's own ATen/Dispatch.h and
# ATen/Dispatch_v2.h define (tests/real/dispatch_table.py reads them):
# every AT_DISPATCH_* macro and Dispatch_v2.h type list must cover the
# same dtypes and take the same number of leading scalar-type arguments;
# macros over types cppscan has no name for (the bit types), and
# AT_DISPATCH_INDEX_TYPES (index tensors, left out on purpose), must be
# unknown to it.  Then the same for 1.13.1 when that tree is present
# (fewer macros, no Dispatch_v2.h).
. "$(dirname "$0")/lib.sh"
use_probe probe
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
use_tree t 2.6.0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

check() { # TREE
  python3 "$repo/tests/real/dispatch_table.py" "$1" >"$tmp/hdr" ||
    { echo "FAIL: cannot read $1's dispatch headers"; status=1; return; }
  # names over types without a cppscan name, and AT_DISPATCH_INDEX_TYPES
  # (index tensors, left out by design): must be unknown
  { sed -n 's/^\([A-Z0-9_]*\): unknown type .*/\1/p' "$tmp/hdr"
    grep -o '^AT_DISPATCH_INDEX_TYPES:' "$tmp/hdr" | tr -d :; } | sort -u >"$tmp/odd"
  grep -v ': unknown type ' "$tmp/hdr" | grep -v -E "^($(paste -sd'|' "$tmp/odd")):" >"$tmp/want" || true
  names=$(sed 's/:.*//' "$tmp/want")
  "$probe" table $names >"$tmp/got"
  if ! diff -u "$tmp/want" "$tmp/got"; then
    echo "FAIL: the table differs from $1's headers"; status=1
  fi
  for n in $(cat "$tmp/odd"); do
    "$probe" table "$n" | grep -qx "$n: unknown" || { echo "FAIL: $n should be unknown"; status=1; }
  done
  echo "$(wc -l <"$tmp/want" | tr -d ' ') macros agree with $1, $(wc -l <"$tmp/odd" | tr -d ' ') unknown as they should be"
}
check "$t"
use_tree t1 1.13.1
check "$t1"
exit $status
