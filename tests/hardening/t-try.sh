#!/bin/sh
# t-try.sh — mps-try's bad-input matrix (issue #20): a missing compiler, a
# python without torch, a functor that never returns (time limit), output
# to /dev/full, a read-only checkout, an OP with no kernel; and no folder
# of its own left in TMPDIR afterwards (also after a kill -9).
. "$(dirname "$0")/lib.sh"
command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || {
  echo "skip: no C++ compiler"; exit 77; }
H=""
T=$work/tree; mkdir -p "$T"; cp -R "$repo/tests/fixtures/try/planted/." "$T/"
TMPDIR=$work/tmp; export TMPDIR; mkdir -p "$TMPDIR"
NP="--python $work/no-such-python"
sum() { (cd "$T" && find . -type f -exec cksum {} + | sort); }
before=$(sum)

# a missing compiler: exit 2, one message
out=$(cd "$T" && mps-try neg --cxx "$work/no-such-c++" $H 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "no C++ compiler found" && ok "missing compiler" || fail "missing compiler: rc=$rc $out"

# a python without torch: one line, the torch-free checks, exit 0
cat >"$work/py" <<'PY'
#!/bin/sh
# a python in which `import torch` fails (called as PY -I -B ref.py DIR)
shift 2
exec python3 -I -c 'import sys, runpy; sys.modules["torch"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' "$@"
PY
chmod +x "$work/py"
out=$(cd "$T" && mps-try neg --dtypes float:float --python "$work/py" $H 2>&1 >/dev/null); rc=$?
[ $rc = 0 ] && [ "$(echo "$out" | wc -l)" -le 1 ] && echo "$out" | grep -q "no python imports torch" &&
  ok "python without torch" || fail "python without torch: rc=$rc $out"

# a functor that loops forever: killed at the time limit, exit 1
out=$(cd "$T" && mps-try floor --timeout 2 $NP $H 2>/dev/null); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "ran past the time limit" && ok "time limit" || fail "time limit: rc=$rc"
pgrep -f "$TMPDIR/mps-try" >/dev/null 2>&1 && fail "a harness survived the time limit"

# output to /dev/full: exit 2
if [ -w /dev/full ]; then
  (cd "$T" && mps-try neg --dtypes float:float $NP $H >/dev/full 2>"$work/err"); rc=$?
  [ $rc = 2 ] && grep -q "write error" "$work/err" && ok "/dev/full" || fail "/dev/full: rc=$rc"
fi

# a read-only checkout: still runs (it writes only in TMPDIR)
chmod -R a-w "$T"
(cd "$T" && mps-try neg --dtypes float:float $NP $H >/dev/null 2>&1); rc=$?
[ $rc = 0 ] && ok "read-only checkout" || fail "read-only checkout: rc=$rc"
chmod -R u+w "$T"

# an OP with no kernel: exit 2 before anything runs
out=$(cd "$T" && mps-try logit $H 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "no registration of kernel 'logit'" && ok "no kernel" || fail "no kernel: rc=$rc"

# the checkout is unchanged, TMPDIR holds no folder of a run
[ "$(sum)" = "$before" ] && ok "checkout unchanged" || fail "the checkout changed"
[ -z "$(ls -A "$TMPDIR")" ] && ok "temporary folders removed" || fail "left in TMPDIR: $(ls "$TMPDIR")"

# kill -9 mid-run leaves a folder; the next run removes it.  mps-try is
# killed while its harness loops (floor never returns): the orphaned
# harness is not killed here, its CPU limit (--timeout + 2 s, proc.h)
# ends it; the compiler's temporaries were in the folder ($TMPDIR is the
# folder for the programs mps-try runs)
(cd "$T" && exec mps-try floor --timeout 10 $NP $H >/dev/null 2>&1) & p=$!
i=0; while [ $i -lt 600 ] && ! ls "$TMPDIR"/mps-try.*/harness >/dev/null 2>&1; do
  sleep 0.1; i=$((i + 1)); done
sleep 0.3; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
left=$(ls -A "$TMPDIR")
(cd "$T" && mps-try logit $H >/dev/null 2>&1)
(cd "$T" && mps-try neg --dtypes float:float --emit $H >/dev/null 2>&1)
(cd "$T" && mps-try neg --dtypes float:float $NP $H >/dev/null 2>&1)
[ -n "$left" ] && [ -z "$(ls -A "$TMPDIR")" ] && ok "stale folder of a killed run removed" ||
  fail "stale folder: left='$left' now='$(ls -A "$TMPDIR")'"
finish
