#!/bin/sh
# mps-doctor on the real trees (issue #15): the tree part of the record of
# PyTorch 2.6.0 (before c10/metal: mps-register cannot work, the test
# lists are in test/test_mps.py) and of the partial 2.14.1 tree (yaml,
# torchgen and common_mps.py only: no version.txt, era unknown), and
# 1.13.1; --save
# then --check finds no drift, and the 2.14.1 tree checked against the
# 2.6.0 record drifts in version and era; run with an empty HOME, which
# stays empty.  Skipped without the trees.  Prints each tree part.
. "$(dirname "$0")/lib.sh"
use_tree t26 2.6.0
use_tree t113 1.13.1
use_tree t214 2.14.1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mk-doctor-real.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home"
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home"
unset CLAUDE_CONFIG_DIR
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# check VERSION ROOT EXPECTED: EXPECTED is "version era c10 mps common test
# overloads dispatch register verify" as the python below prints them
check() {
  mps-doctor --root "$2" --json >"$tmp/rec.json" || { bad "$1: exit $?"; return; }
  got=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tree"]
w = t["tools"]
print(t["version"], t["era"], t["c10_metal"], t["mps_sources"], t["common_mps"],
      t["test_mps"], w["mps-overloads"]["works"], w["mps-dispatch"]["works"],
      w["mps-register"]["works"], w["mps-verify"]["works"],
      sum(1 for m in t["macros"].values() if m["defined"] or m["used"]),
      sum(1 for v in t["exec"].values() if v))
' "$tmp/rec.json")
  if [ "$got" = "$3" ]; then echo "$1: $got"
  else bad "$1: got '$got', expected '$3'"; fi
  mps-doctor --root "$2" | sed -n '/^tree:/,/^$/p'
  mps-doctor --root "$2" --save "$tmp/saved.json" >/dev/null || bad "$1: --save exit $?"
  mps-doctor --root "$2" --check "$tmp/saved.json" >"$tmp/check" ||
    { bad "$1: --check exit $?"; cat "$tmp/check"; }
}
check 2.6.0 "$t26" "2.6.0a0 pre-c10/metal False True False True yes yes no yes 0 0"
check 1.13.1 "$t113" "1.13.0a0 pre-c10/metal False True False True yes yes no yes 0 0"
{
  check 2.14.1 "$t214" "None unknown False False True False yes partly no partly 0 0"
  # the trees differ, and --check says so: version and era
  mps-doctor --root "$t26" --save "$tmp/r26.json" >/dev/null
  mps-doctor --root "$t214" --check "$tmp/r26.json" >"$tmp/drift"; rc=$?
  [ $rc = 1 ] || bad "2.14.1 against the 2.6.0 record: exit $rc, expected 1"
  grep -q '^drift: tree: era: pre-c10/metal -> unknown$' "$tmp/drift" || { bad "no era drift"; cat "$tmp/drift"; }
  grep -q '^drift: tree: version: 2.6.0a0 -> none$' "$tmp/drift" || { bad "no version drift"; cat "$tmp/drift"; }
}
[ -z "$(ls -A "$HOME")" ] || bad "HOME is no longer empty: $(ls -A "$HOME")"
[ $fail = 0 ] && echo "mps-doctor on the real trees: as expected"
exit $fail
