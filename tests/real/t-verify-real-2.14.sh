#!/bin/sh
# mps-verify --all on PyTorch 2.14.1, today's release: a partial tree (its
# yaml and common_mps.py, no C++ or Metal sources), so only the rules of
# the yaml and the test lists can fire.  It completes, exits 0 or 1, and
# prints its totals: defects by rule, to-do by family.
. "$(dirname "$0")/lib.sh"
use_tree src 2.14.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mps-verify --root "$src" --all >"$tmp/out" 2>"$tmp/err"; rc=$?
cat "$tmp/out"
[ $rc -le 1 ] || { echo "FAIL: --all: exit $rc"; head -n 5 "$tmp/err"; exit 1; }
grep '^to-do: ' "$tmp/out" >/dev/null || { echo "FAIL: --all: no to-do line"; exit 1; }
grep '^total: ' "$tmp/out" >/dev/null || { echo "FAIL: --all: no total line"; exit 1; }
# the lists 2.14.1 writes with a type annotation are read (issue #21):
# heaviside's entry of UNIMPLEMENTED_XFAILLIST: dict[str, list | None] = {
mps-verify --root "$src" --rule xfail-leftover heaviside >/dev/null 2>"$tmp/h"
grep -q "'heaviside' is still listed in UNIMPLEMENTED_XFAILLIST:" "$tmp/h" ||
  { echo "FAIL: heaviside's annotated-list entry not found"; cat "$tmp/h"; exit 1; }
echo "heaviside: found in UNIMPLEMENTED_XFAILLIST"
# and mps-migrate plans its deletion
mps-migrate --root "$src" heaviside >"$tmp/m" 2>&1
grep -q '"heaviside" in UNIMPLEMENTED_XFAILLIST' "$tmp/m" ||
  { echo "FAIL: mps-migrate heaviside plans no deletion of its entry"; grep -A3 '^delete' "$tmp/m"; exit 1; }
echo "mps-migrate heaviside: deletes it"
