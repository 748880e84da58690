#!/bin/sh
# mps-overloads --all --json agrees with each real tree's own torchgen on
# every function: 3144 in 2.6.0, 2952 in 1.13.1, 3103 in 2.14.1.
. "$(dirname "$0")/lib.sh"
use_torchgen_python py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
for v in 2.6.0 1.13.1 2.14.1; do
  use_tree t $v
  "$py" "$repo/tests/real/torchgen_fields.py" "$t" >"$tmp/tg" || { echo "torchgen failed on $v"; exit 1; }
  mps-overloads --root "$t" --all --json >"$tmp/raw"; rc=$?
  [ $rc = 0 ] || { echo "mps-overloads exit $rc on $v"; status=1; }
  "$py" "$repo/tests/real/normalize_json.py" <"$tmp/raw" >"$tmp/mk"
  n=$(wc -l <"$tmp/tg"); m=$(diff "$tmp/tg" "$tmp/mk" | grep -c '^[<>]')
  echo "$v: $n functions from torchgen, $(wc -l <"$tmp/mk") from mps-overloads, $m differing lines"
  case $v in 2.6.0) want=3144 ;; 1.13.1) want=2952 ;; 2.14.1) want=3103 ;; esac
  [ "$n" = "$want" ] || { echo "expected $want functions from torchgen"; status=1; }
  if [ "$m" != 0 ]; then diff "$tmp/tg" "$tmp/mk" | head -n 20; status=1; fi
done
exit $status
