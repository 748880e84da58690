#!/bin/sh
# mps-verify OP, which reads only what OP needs, agrees with mps-verify
# --all on every operator of both real trees (tests/real/verify_ops_check.py).
. "$(dirname "$0")/lib.sh"
PATH=$repo/tools/bin:$PATH
status=0
for v in 2.6.0 1.13.1; do
  t=$(real_tree $v)
  printf '%s: ' "$v"
  python3 "$repo/tests/real/verify_ops_check.py" "$t" || status=1
done
exit $status
