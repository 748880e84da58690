#!/bin/sh
# t-busy-time-limit.sh — a functor that never returns gives the time-limit
# verdict on a busy machine too, never an error (issue #25, defect 6).
#
# Under load the C++ compile of the harness outlasted a short --timeout;
# mps-try then ran a harness that had never been built, and said
# "error: cannot run the harness: No such process" (a stale errno of the
# group kill), exit 2.  Here CPU burners keep every core busy (each stops
# by itself after BURN seconds, and all are killed when the script ends)
# while tests/cli/mps-try/time-limit's command runs several times: each
# run must exit 1 with the harness past its time limit, nothing on
# stderr but the no-torch line.
. "$(dirname "$0")/lib.sh"
command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 ||
  command -v clang++ >/dev/null 2>&1 || { echo "skip: no C++ compiler"; exit 77; }
T=$work/tree; mkdir -p "$T"; cp -R "$repo/tests/fixtures/try/planted/." "$T/"
TMPDIR=$work/tmp; export TMPDIR; mkdir -p "$TMPDIR"
RUNS=${MK_BUSY_RUNS:-4} BURN=180

# burners: two per processor (at least 4), each a POSIX awk loop that
# reads the clock (srand) every 2^20 rounds and stops after BURN seconds
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
nb=$((ncpu * 2)); [ "$nb" -ge 4 ] || nb=4
burners=""
i=0
while [ $i -lt $nb ]; do
  awk -v burn=$BURN 'BEGIN {
    srand(); start = srand()
    for (n = 1; ; n++)
      if (n % 1048576 == 0) { srand(); if (srand() - start > burn) exit }
  }' </dev/null >/dev/null 2>&1 &
  burners="$burners $!"
  i=$((i + 1))
done
trap 'kill $burners 2>/dev/null; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT

n=1
while [ $n -le $RUNS ]; do
  checks=$((checks + 1))
  (cd "$T" && mps-try floor --timeout 2 --python "$work/no-such-python") \
    >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  if [ $rc != 1 ]; then
    fail "run $n: exit $rc, expected 1"; sed 's/^/    stderr: /' "$work/err" | head -n 5
  elif ! grep -qxF "  run: the harness ran past the time limit (2 s): the functor may not terminate" "$work/out"; then
    fail "run $n: no time-limit verdict"; sed 's/^/    stdout: /' "$work/out" | head -n 12
  elif grep -v "no python imports torch" "$work/err" | grep -q .; then
    fail "run $n: stderr: $(head -n 3 "$work/err")"
  else
    ok "run $n under load: the time-limit verdict, exit 1"
  fi
  n=$((n + 1))
done
# the group was killed: no harness survives
if pgrep -f "$TMPDIR/mps-try" >/dev/null 2>&1; then fail "a harness survived the time limit"; fi
# the burners really ran all along (else the test proved nothing)
for b in $burners; do
  kill -0 "$b" 2>/dev/null || { fail "burner $b stopped before the runs ended"; break; }
done
finish
