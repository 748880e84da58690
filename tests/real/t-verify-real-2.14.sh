#!/bin/sh
# mps-verify --all on PyTorch 2.14.1, today's release: a partial tree (its
# yaml and common_mps.py, no C++ or Metal sources), so only the rules of
# the yaml and the test lists can fire.  It completes, exits 1 (findings),
# and prints its totals.
. "$(dirname "$0")/lib.sh"
use_tree src 2.14.1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mps-verify --root "$src" --all >"$tmp/out" 2>"$tmp/err"; rc=$?
cat "$tmp/out"
[ $rc = 1 ] || { echo "FAIL: --all: exit $rc, want 1"; head -n 5 "$tmp/err"; exit 1; }
grep '^total: ' "$tmp/out" >/dev/null || { echo "FAIL: --all: no total line"; exit 1; }
