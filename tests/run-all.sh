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
# The cases run MK_JOBS at a time (default: the number of processors,
# at most 4); what each printed is shown in the order above, so the
# output does not depend on MK_JOBS.
#
# Ends with the line "N passed, N failed, N skipped".
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
out=${MK_TEST_OUT:-$repo/tests/out}
only=${ONLY:-}
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}

# run_one KIND PATH: one case; writes its result to $out/res/<PATH>:
# a first line "ok", "FAIL" or "skip", then the lines to show under it
run_one() {
  kind=$1 c=$2
  r=$out/res/$(echo "$c" | tr / _)
  case $kind in
  unit)
    log=$out/$(basename "$c").log
    if "$c" >"$log" 2>&1; then echo ok >"$r"
    else { echo FAIL; sed 's/^/    /' "$log" | tail -n 30; } >"$r"; fi ;;
  cli)
    w=$out/$c
    # a case may need what a machine can lack (a C++ compiler, torch): its
    # `needs` file is a script that prints one line and exits 77 to skip
    if [ -f "$c/needs" ]; then
      why=$(MK_REPO="$repo" sh "$c/needs" 2>&1); st=$?
      if [ $st = 77 ]; then printf 'skip\n%s\n' "$why" >"$r"; return; fi
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
      { echo FAIL; echo "    wrote outside the checkout, into HOME/XDG folders:"
        (cd "$w/state" && find . | sed 's/^/      /' | head -n 10); } >"$r"
    elif [ -f "$c/expected" ] && cmp -s "$w/actual" "$c/expected"; then echo ok >"$r"
    else
      { echo FAIL
        if [ -f "$c/expected" ]; then diff -u "$c/expected" "$w/actual" | head -n 40 | sed 's/^/    /'
        else echo "    (no expected file)"; fi; } >"$r"
    fi ;;
  script)
    log=$out/$(echo "$c" | tr / _).log
    MK_REPO="$repo" MK_PYTORCH_TREES="$trees" PATH="$repo/tools/bin:$PATH" \
      sh "$c" >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then { echo ok; [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$log"; } >"$r"
    elif [ $rc = 77 ]; then printf 'skip\n%s\n' "$(tail -n 1 "$log")" >"$r"
    else { echo FAIL; tail -n 30 "$log" | sed 's/^/    /'; } >"$r"; fi ;;
  esac
}

if [ "${1:-}" = --one ]; then
  run_one "$2" "$3"
  exit 0
fi

[ -n "$only" ] || rm -rf "$out"   # each case also clears its own folder
mkdir -p "$out" || exit 2
rm -rf "$out/res"; mkdir -p "$out/res" || exit 2

# 3's real trees are fetched first when absent (tests/real/fetch.sh, a few
# seconds); when they cannot be, every real test skips with one line.
# MK_NO_FETCH=1 never fetches.
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

# the cases, in the order their results are shown
jobs=$out/jobs
: >"$jobs"
for t in build/unit/test_*; do
  [ -x "$t" ] || continue
  case $t in *"$only"*) echo "unit $t" >>"$jobs" ;; esac
done
for c in tests/cli/*/*/; do
  c=${c%/}
  [ -f "$c/cmd" ] || continue
  case $c in *"$only"*) echo "cli $c" >>"$jobs" ;; esac
done
for t in tests/*/t-*.sh; do
  [ -f "$t" ] || continue
  case $t in *"$only"*) echo "script $t" >>"$jobs" ;; esac
done

# run: the script tests first (the longest), MK_JOBS at a time
n=${MK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $n in ''|*[!0-9]*|0) n=1 ;; esac
[ "$n" -gt 4 ] && n=4
{ grep '^script ' "$jobs"; grep -v '^script ' "$jobs"; } |
  xargs -P "$n" -L 1 sh "$repo/tests/run-all.sh" --one

pass=0 fail=0 skip=0
while read -r kind c; do
  r=$out/res/$(echo "$c" | tr / _)
  name=$c
  [ "$kind" = unit ] && name=unit/$(basename "$c")
  if [ ! -f "$r" ]; then
    fail=$((fail + 1)); echo "FAIL $name"; echo "    (no result: the runner was killed?)"
    continue
  fi
  case $(head -n 1 "$r") in
  ok)   pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $name" && tail -n +2 "$r" ;;
  skip) skip=$((skip + 1)); echo "skip $name: $(sed -n 2p "$r")" ;;
  *)    fail=$((fail + 1)); echo "FAIL $name"; tail -n +2 "$r" ;;
  esac
done <"$jobs"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
