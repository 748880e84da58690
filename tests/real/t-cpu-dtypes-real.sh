#!/bin/sh
# cppscan's CPU dtypes and output rules on real PyTorch 2.6.0 (issue #14,
# "the dtypes, from the CPU kernel"), compared with a table written by
# reading the kernels by hand: tests/real/cpu_dtypes_2.6.0.tsv.
# For each row: the dtype set of the stub's registered CPU function, the
# meta function's output rule, the dtypes handled before the stub and the
# dtypes the meta function rejects must all equal the table's, and for
# the operators that are not structured, the output rule of the iterator
# their shared kernel builds (outrule.h cs_iter_rule).  Prints
# the agreement per column; any disagreement fails.
. "$(dirname "$0")/lib.sh"
use_tree t 2.6.0
use_probe probe
table=$repo/tests/real/cpu_dtypes_2.6.0.tsv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

# norm LIST: a comma- or ", "-separated dtype list, sorted, one line
norm() { printf '%s\n' "$1" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^-$' |
         grep -v '^$' | LC_ALL=C sort | tr '\n' ',' | sed 's/,$//'; }

rows=0 ok_types=0 ok_rule=0 ok_before=0 ok_rejects=0
tab=$(printf '\t')
ok_iter=0 iters=0
while IFS="$tab" read -r op stub types rule before rejects how iter; do
  case $op in '#'*|'') continue ;; esac
  rows=$((rows + 1))
  "$probe" "$t" dtypes "$stub" >"$tmp/d" || { echo "FAIL: probe dtypes $stub"; status=1; continue; }
  "$probe" "$t" rule "$op" >"$tmp/r" || { echo "FAIL: probe rule $op"; status=1; continue; }
  got_types=$(sed -n '1s/^[^:]*: [^:]*: //p' "$tmp/d")
  head -n 1 "$tmp/d" | grep -q ': none$' && got_types=
  got_rule=$(sed -n '1s/^[^:]*: //p' "$tmp/r")
  got_before=$(sed -n 's/^  before stub: \(.*\) (.*/\1/p' "$tmp/r")
  got_rejects=$(sed -n 's/^  rejects: \(.*\) (.*/\1/p' "$tmp/r")
  if [ "$(norm "$types")" = "$(norm "$got_types")" ]; then ok_types=$((ok_types + 1))
  else echo "FAIL: $op ($stub) dtypes: table $(norm "$types"), cppscan $(norm "$got_types")"; status=1; fi
  if [ "$rule" = "$got_rule" ]; then ok_rule=$((ok_rule + 1))
  else echo "FAIL: $op rule: table $rule, cppscan $got_rule"; status=1; fi
  if [ "$(norm "$before")" = "$(norm "$got_before")" ]; then ok_before=$((ok_before + 1))
  else echo "FAIL: $op before stub: table $(norm "$before"), cppscan $(norm "$got_before")"; status=1; fi
  if [ "$(norm "$rejects")" = "$(norm "$got_rejects")" ]; then ok_rejects=$((ok_rejects + 1))
  else echo "FAIL: $op rejects: table $(norm "$rejects"), cppscan $(norm "$got_rejects")"; status=1; fi
  if [ "$iter" != "-" ]; then
    # not structured: the iterator its shared kernel OP_out builds
    iters=$((iters + 1))
    got_iter=$("$probe" "$t" iter "${op}_out" | sed -n '1s/^[^:]*: //p')
    if [ "$iter" = "$got_iter" ]; then ok_iter=$((ok_iter + 1))
    else echo "FAIL: $op iterator rule: table $iter, cppscan $got_iter"; status=1; fi
  fi
done <"$table"

[ "$rows" -ge 25 ] || { echo "FAIL: only $rows rows in $table"; status=1; }
[ "$iters" -ge 4 ] || { echo "FAIL: only $iters rows with an iterator rule"; status=1; }
echo "rows $rows: dtypes $ok_types, rule $ok_rule, before-stub $ok_before, rejects $ok_rejects agree; iterator rule $ok_iter of $iters"
exit $status
