#!/bin/sh
# mps-try's tolerances are test_mps.py's (issue #25): on PyTorch 2.6.0's
# real test/test_mps.py, TestConsistency._compute_tolerances as
# try_test_tolerance reads it (build/unit/tol_probe, the call mps-try
# makes per registration).  The pairs are (atol, rtol), as the method
# returns them:
#  - add at half and bfloat16: the half low-precision set's two sides;
#  - nn.functional.conv2d at float32 (and complex64): the float32 set;
#    conv2d (the aten name) reaches the same entry;
#  - pow at half: only a macOS-version clause names it: skipped, defaults;
#  - sin at float32, add at float32: no clause, defaults;
#  - nn.functional.huber_loss by its aten name huber_loss.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
probe=$repo/build/unit/tol_probe
[ -x "$probe" ] || { echo "skipped: $probe not built (run: make check)"; exit 77; }
file=$src/test/test_mps.py
[ -f "$file" ] || { echo "FAIL: no test/test_mps.py in $src"; exit 1; }
line=$(grep -n 'def _compute_tolerances' "$file" | cut -d: -f1)
[ -n "$line" ] || { echo "FAIL: no _compute_tolerances in $file"; exit 1; }
got=$("$probe" "$file" add half add bfloat nn.functional.conv2d float conv2d float2 \
        pow half sin float add float huber_loss half 2>&1) || { echo "FAIL: probe: $got"; exit 1; }
# the clauses' lines, from the method's own line (the float32 set's is the
# first clause, the half set's the second)
fp32=$((line + 1)) fp16=$((line + 4))
want="add half atol 0.01 rtol 0.01 line $fp16
add bfloat atol 0.05 rtol 0.05 line $fp16
nn.functional.conv2d float atol 0.0001 rtol 3e-05 line $fp32
conv2d float2 atol 0.0001 rtol 3e-05 line $fp32
pow half default
sin float default
add float default
huber_loss half atol 0.01 rtol 0.01 line $fp16"
if [ "$got" != "$want" ]; then
  echo "FAIL: tolerances of 2.6.0's test_mps.py"
  printf '%s\n' "--- want" "$want" "--- got" "$got"
  exit 1
fi
echo "ok: 8 tolerances of 2.6.0's test_mps.py (pow's macOS clause skipped)"
