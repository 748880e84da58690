#!/bin/sh
# Nothing is written outside the checkout unless asked: every tool runs,
# --in-place and --undo included, with HOME and every XDG_* folder
# variable pointing at one empty folder, which must stay empty.  The undo
# journal is the checkout's own: ROOT/.metal-kernel/journal, or
# ROOT/.git/metal-kernel/journal in a git work tree.
. "$(dirname "$0")/lib.sh"
home=$work/home
mkdir -p "$home"
# in_home DIR CMD...: run CMD in DIR with the empty home
in_home() {
  d=$1; shift
  (cd "$d" && HOME=$home XDG_STATE_HOME=$home XDG_CACHE_HOME=$home \
     XDG_CONFIG_HOME=$home XDG_DATA_HOME=$home XDG_RUNTIME_DIR=$home \
     "$@" >"$work/out" 2>"$work/err"); echo $?
}
# expect RC DIR CMD...
expect() {
  want=$1; shift
  checks=$((checks + 1))
  rc=$(in_home "$@")
  if [ "$rc" != "$want" ]; then shift; fail "$*: exit $rc, want $want"; sed 's/^/    /' "$work/err" | head -n 5
  elif [ -n "$(ls -A "$home")" ]; then shift; fail "$*: wrote into HOME: $(cd "$home" && find . | tr '\n' ' ')"
  else shift; ok "$*: exit $rc, HOME untouched"; fi
}
for kind in plain git; do
  T=$work/$kind
  make_tree "$T"
  if [ $kind = git ]; then
    command -v git >/dev/null 2>&1 || { ok "git: not installed, skipped"; continue; }
    (cd "$T" && git init -q . && HOME=$home git -c user.name=t -c user.email=t@t \
       -c core.hooksPath=/dev/null add -A >/dev/null 2>&1)
    jdir=$T/.git/metal-kernel/journal
  else
    jdir=$T/.metal-kernel/journal
  fi
  rm -rf "$home"; mkdir -p "$home"
  expect 0 "$T" $OV
  expect 1 "$T" $VE
  expect 1 "$T" mps-verify --all
  expect 0 "$T" $DI --in-place
  expect 0 "$T" $RE --host --functor --in-place
  checks=$((checks + 1))
  n=$(ls "$jdir" 2>/dev/null | grep -c '\.mkj$')
  if [ "$n" = 2 ]; then ok "$kind: two journal entries in ${jdir#$T/}"
  else fail "$kind: $n journal entries in ${jdir#$T/}, want 2"; fi
  expect 0 "$T" mps-register --undo
  expect 0 "$T/aten" mps-dispatch --undo
  checks=$((checks + 1))
  n=$(ls "$jdir" 2>/dev/null | grep -c '\.mkj$')
  if [ "$n" = 0 ]; then ok "$kind: journal empty after both undos"
  else fail "$kind: $n journal entries left"; fi
done
# mps-migrate: a whole migration written and undone, one journal entry
M=$work/migrate
make_migrate_tree "$M"
rm -rf "$home"; mkdir -p "$home"
expect 1 "$M" $MG
# exit 0: written, and the functor (its math translated from the CUDA
# kernel) verifies clean
expect 0 "$M" $MG --in-place
checks=$((checks + 1))
n=$(ls "$M/.metal-kernel/journal" 2>/dev/null | grep -c '\.mkj$')
if [ "$n" = 1 ]; then ok "mps-migrate: one journal entry for five files"
else fail "mps-migrate: $n journal entries, want 1"; fi
expect 0 "$M" mps-migrate --undo
finish
