#!/bin/sh
# stdout on a full disk (> /dev/full): every tool and output mode exits 2
# with "write error", never 0 or 1, and writes nothing.
. "$(dirname "$0")/lib.sh"
if [ ! -w /dev/full ]; then echo "skip: no /dev/full on this system"; exit 77; fi

T=$work/tree
make_tree "$T"
cd "$T" || exit 2
for c in "$OV" "$OV --json" "mps-overloads --all" "mps-overloads --survey" \
         "$DI" "$DI --json" "$VE" "$VE --json" "mps-verify --all" \
         "$RE" "$RE --json" "$RE --host --functor" \
         "mps-overloads --help" "mps-dispatch --version" "mps-verify --help" "mps-register --help"; do
  set -- $c
  expect 2 "$1: write error: No space left on device" "$T" "$c > /dev/full" -- \
    sh -c 'exec "$@" >/dev/full' sh "$@"
done
M=$work/migrate
make_migrate_tree "$M"
for c in "$MG" "$MG --json" "mps-migrate --help"; do
  set -- $c
  expect 2 "$1: write error: No space left on device" "$M" "$c > /dev/full" -- \
    sh -c 'cd "$0" && exec "$@" >/dev/full' "$M" "$@"
done
# in-place writes print little or nothing on stdout; a full stdout must
# still not turn a refused write into success
chmod 444 "$T/$N/native_functions.yaml"
expect 2 "is read-only; nothing written" "$T" "mps-dispatch --in-place (read-only) > /dev/full" -- \
  sh -c 'exec "$@" >/dev/full' sh $DI --in-place
finish
