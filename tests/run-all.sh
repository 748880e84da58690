#!/bin/sh
# run-all.sh — the whole test suite; called by `make check`.
#
#  1. cmocka unit tests: every build/unit/test_* binary.
#  2. CLI golden tests: every folder tests/cli/*/*/ holding a `cmd` file.
#     The case runs in a fresh copy of its tree (the case's own `tree/`
#     folder, or the repo-relative folder named in its `treeref` file, or
#     an empty folder), with tools/bin first on PATH, MK_REPO set to the
#     repo, and XDG_STATE_HOME set to a private folder (MK_CACHE_DIR, the
#     store of parsed models, is one private folder for the whole run).
#     What it printed is stdout, a line "--- stderr", stderr, and "RC=<exit status>", with the
#     case's folders written <work> and <state> and the repo <repo>; that
#     text must equal the case's `expected` file byte for byte.
#     UPDATE=1 rewrites `expected` files instead (review the diff!).
#  3. Script tests: every tests/*/t-*.sh; exit 0 pass, 77 skip, else fail.
#
# Ends with the line "N passed, N failed, N skipped".
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
out=$repo/tests/out
[ -n "${ONLY:-}" ] || rm -rf "$out"   # each case also clears its own folder
mkdir -p "$out"
# one cache (tools/lib/cache.h) for the whole run, never the user's: the
# first case on a tree stores its models, later ones read them, and every
# output must be the same either way
MK_CACHE_DIR=$out/cache
export MK_CACHE_DIR
pass=0 fail=0 skip=0
only=${ONLY:-}

ok()   { pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $1"; return 0; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; }

# 1. unit tests
for t in build/unit/test_*; do
  [ -x "$t" ] || continue
  case $t in *"$only"*) ;; *) continue ;; esac
  name=unit/$(basename "$t")
  if "$t" >"$out/$(basename "$t").log" 2>&1; then ok "$name"
  else bad "$name"; sed 's/^/    /' "$out/$(basename "$t").log" | tail -n 30; fi
done

# 2. CLI golden tests
for c in tests/cli/*/*/; do
  c=${c%/}
  [ -f "$c/cmd" ] || continue
  case $c in *"$only"*) ;; *) continue ;; esac
  w=$out/$c
  rm -rf "$w"; mkdir -p "$w/work" "$w/state"
  if [ -d "$c/tree" ]; then cp -R "$c/tree/." "$w/work/"
  elif [ -f "$c/treeref" ]; then cp -R "$repo/$(cat "$c/treeref")/." "$w/work/"
  fi
  (cd "$w/work" && PATH="$repo/tools/bin:$PATH" MK_REPO="$repo" \
     XDG_STATE_HOME="$w/state" HOME="$w/state" LC_ALL=C \
     sh "$repo/$c/cmd" >"$w/stdout" 2>"$w/stderr" </dev/null; echo "RC=$?" >"$w/rc")
  # machine-specific paths become <work>, <state>, <repo>
  { cat "$w/stdout"; echo "--- stderr"; cat "$w/stderr"; cat "$w/rc"; } |
    sed -e "s|$w/work|<work>|g" -e "s|$w/state|<state>|g" -e "s|$repo|<repo>|g" >"$w/actual"
  if [ -n "${UPDATE:-}" ]; then cp "$w/actual" "$c/expected"; fi
  if [ -f "$c/expected" ] && cmp -s "$w/actual" "$c/expected"; then ok "$c"
  else
    bad "$c"
    if [ -f "$c/expected" ]; then diff -u "$c/expected" "$w/actual" | head -n 40 | sed 's/^/    /'
    else echo "    (no expected file)"; fi
  fi
done

# 3. script tests
for t in tests/*/t-*.sh; do
  [ -f "$t" ] || continue
  case $t in *"$only"*) ;; *) continue ;; esac
  log=$out/$(echo "$t" | tr / _).log
  MK_REPO="$repo" PATH="$repo/tools/bin:$PATH" sh "$t" >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then ok "$t"; [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$log"
  elif [ $rc = 77 ]; then skip=$((skip + 1)); echo "skip $t: $(tail -n 1 "$log")"
  else bad "$t"; tail -n 30 "$log" | sed 's/^/    /'; fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
