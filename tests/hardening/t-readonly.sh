#!/bin/sh
# --in-place on a read-only target, and on a symlink that points outside
# the root: exit 2, "...; nothing written", no file changed (the file
# outside the root included).  The reading tools follow such a symlink
# and write nothing.
. "$(dirname "$0")/lib.sh"

T=$work/ro
make_tree "$T"
chmod 444 "$T/$N/native_functions.yaml" "$T/$N/mps/kernels/UnaryKernel.metal" \
  "$T/$N/mps/operations/UnaryKernel.mm"
expect 2 "mps-dispatch: error: '$N/native_functions.yaml' is read-only; nothing written" \
  "$T" "mps-dispatch --in-place: read-only yaml" -- $DI --in-place --root "$T"
expect 2 "mps-register: error: '$N/mps/kernels/UnaryKernel.metal' is read-only; nothing written" \
  "$T" "mps-register --in-place: read-only kernel file" -- $RE --in-place --root "$T"
expect 2 "is read-only; nothing written" \
  "$T" "mps-register --in-place --host: read-only files" -- $RE --host --functor --in-place --root "$T"
[ -z "$(ls "$work/state" 2>/dev/null)" ] || fail "a journal was written for a refused edit"
# mps-migrate writes every file or none: one read-only file of five
M=$work/ro-migrate
make_migrate_tree "$M"
chmod 444 "$M/torch/testing/_internal/common_mps.py"
expect 2 "mps-migrate: error: 'torch/testing/_internal/common_mps.py' is read-only; nothing written" \
  "$M" "mps-migrate --in-place: one read-only file" -- $MG --in-place --root "$M"
[ ! -d "$M/.metal-kernel" ] || fail "mps-migrate: a journal was written for a refused edit"

# a read-only folder (the file itself writable): the temporary file
# cannot be made; root ignores folder permissions, so only as a user
if [ "$(id -u)" != 0 ]; then
  D=$work/rodir
  make_tree "$D"
  chmod 555 "$D/$N"
  expect 2 "nothing written" "$D" "mps-dispatch --in-place: read-only folder" -- \
    $DI --in-place --root "$D"
  chmod 755 "$D/$N"
fi

S=$work/sym
O=$work/outside
make_tree "$S"
mkdir -p "$O"
mv "$S/$N/native_functions.yaml" "$S/$N/mps/kernels/UnaryKernel.metal" "$O/"
ln -s "$O/native_functions.yaml" "$S/$N/native_functions.yaml"
ln -s "$O/UnaryKernel.metal" "$S/$N/mps/kernels/UnaryKernel.metal"
sums "$O" >"$work/outside.before"
Sr=$(cd "$S" && pwd -P); Or=$(cd "$O" && pwd -P)
expect 2 "mps-dispatch: error: '$N/native_functions.yaml' resolves to '$Or/native_functions.yaml', outside the root '$Sr'; nothing written" \
  "$S" "mps-dispatch --in-place: yaml symlinked outside the root" -- $DI --in-place --root "$S"
expect 2 "mps-register: error: '$N/mps/kernels/UnaryKernel.metal' resolves to '$Or/UnaryKernel.metal', outside the root '$Sr'; nothing written" \
  "$S" "mps-register --in-place: kernel file symlinked outside the root" -- $RE --in-place --root "$S"
expect 0 "" "$S" "mps-overloads: reads through the symlink" -- $OV --root "$S"
expect 1 "legacy-dispatch-row]" "$S" "mps-verify: reads through the symlink" -- $VE --root "$S"
sums "$O" >"$work/outside.after"
checks=$((checks + 1))
if cmp -s "$work/outside.before" "$work/outside.after"; then ok "files outside the root unchanged"
else fail "files outside the root changed"; fi
[ -z "$(ls "$work/state" 2>/dev/null)" ] || fail "a journal was written for a refused edit"
finish
