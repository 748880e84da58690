#!/bin/sh
# run-all.sh — the whole test suite; called by `make check`.
#
#  1. cmocka unit tests: every build/unit/test_* binary.
#  2. CLI golden tests: every folder tests/cli/*/*/ holding a `cmd` file.
#     The case runs in a fresh copy of its tree (the case's own `tree/`
#     folder, or the repo-relative folder named in its `treeref` file, or
#     an empty folder), with tools/bin first on PATH, MK_REPO set to the
#     repo, and HOME and every XDG_* folder variable pointing at one empty
#     private folder, <state>.
#     What it printed is stdout, a line "--- stderr", stderr, and "RC=<exit status>", with the
#     case's folders written <work> and <state> and the repo <repo>; that
#     text must equal the case's `expected` file byte for byte.  The tools
#     write nothing outside the checkout unless asked: <state> must still
#     be empty afterwards (a case whose cmd writes there on purpose says
#     so in a file `home-writes`).
#     UPDATE=1 rewrites `expected` files instead (review the diff!).
#  3. Script tests: every tests/*/t-*.sh; exit 0 pass, 77 skip, else fail.
#
# Ends with the line "N passed, N failed, N skipped".
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
out=${MK_TEST_OUT:-$repo/tests/out}
[ -n "${ONLY:-}" ] || rm -rf "$out"   # each case also clears its own folder
mkdir -p "$out"
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
  # a case may need what a machine can lack (a C++ compiler, torch): its
  # `needs` file is a script that prints one line and exits 77 to skip
  if [ -f "$c/needs" ]; then
    why=$(MK_REPO="$repo" sh "$c/needs" 2>&1); st=$?
    if [ $st = 77 ]; then skip=$((skip + 1)); echo "skip $c: $why"; continue; fi
  fi
  rm -rf "$w"; mkdir -p "$w/work" "$w/state"
  if [ -d "$c/tree" ]; then cp -R "$c/tree/." "$w/work/"
  elif [ -f "$c/treeref" ]; then cp -R "$repo/$(cat "$c/treeref")/." "$w/work/"
  fi
  (cd "$w/work" && PATH="$repo/tools/bin:$PATH" MK_REPO="$repo" \
     HOME="$w/state" XDG_STATE_HOME="$w/state" XDG_CACHE_HOME="$w/state" \
     XDG_CONFIG_HOME="$w/state" XDG_DATA_HOME="$w/state" \
     XDG_RUNTIME_DIR="$w/state" LC_ALL=C \
     sh "$repo/$c/cmd" >"$w/stdout" 2>"$w/stderr" </dev/null; echo "RC=$?" >"$w/rc")
  # machine-specific paths become <work>, <state>, <repo>
  { cat "$w/stdout"; echo "--- stderr"; cat "$w/stderr"; cat "$w/rc"; } |
    sed -e "s|$w/work|<work>|g" -e "s|$w/state|<state>|g" -e "s|$repo|<repo>|g" >"$w/actual"
  if [ -n "${UPDATE:-}" ]; then cp "$w/actual" "$c/expected"; fi
  if [ ! -f "$c/home-writes" ] && [ -n "$(ls -A "$w/state")" ]; then
    bad "$c"; echo "    wrote outside the checkout, into HOME/XDG folders:"
    (cd "$w/state" && find . | sed 's/^/      /' | head -n 10)
  elif [ -f "$c/expected" ] && cmp -s "$w/actual" "$c/expected"; then ok "$c"
  else
    bad "$c"
    if [ -f "$c/expected" ]; then diff -u "$c/expected" "$w/actual" | head -n 40 | sed 's/^/    /'
    else echo "    (no expected file)"; fi
  fi
done

# 3. script tests.  The real trees of tests/real are fetched first when
# absent (tests/real/fetch.sh, a few seconds); when they cannot be, every
# real test skips with one line.  MK_NO_FETCH=1 never fetches.
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
want_real=0
for t in tests/real/t-*.sh; do case $t in *"$only"*) want_real=1 ;; esac; done
if [ $want_real = 1 ]; then
  missing=0
  for v in 2.6.0 1.13.1 2.14.1; do
    [ -f "$trees/pytorch-$v/aten/src/ATen/native/native_functions.yaml" ] || missing=1
  done
  if [ $missing = 1 ] && [ -z "${MK_NO_FETCH:-}" ]; then
    to=""; command -v timeout >/dev/null 2>&1 && to="timeout 600"
    if $to sh tests/real/fetch.sh >"$out/fetch.log" 2>&1; then
      echo "real trees: fetched into $trees"
    else
      echo "real trees: not fetched ($(tail -n 1 "$out/fetch.log")); their tests skip"
    fi
  fi
fi
for t in tests/*/t-*.sh; do
  [ -f "$t" ] || continue
  case $t in *"$only"*) ;; *) continue ;; esac
  log=$out/$(echo "$t" | tr / _).log
  MK_REPO="$repo" MK_PYTORCH_TREES="$trees" PATH="$repo/tools/bin:$PATH" \
    sh "$t" >"$log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then ok "$t"; [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$log"
  elif [ $rc = 77 ]; then skip=$((skip + 1)); echo "skip $t: $(tail -n 1 "$log")"
  else bad "$t"; tail -n 30 "$log" | sed 's/^/    /'; fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
