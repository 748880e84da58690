# lib.sh — shared helpers of the bad-input matrix tests (issue #7).
# Sourced by tests/hardening/t-*.sh; run them with `make check` or
# `ONLY=hardening sh tests/run-all.sh`.
#
# Every case runs a tool in a private copy of a small PyTorch-shaped tree
# ($T, built by make_tree from tests/fixtures: register/tree with the fold
# fixture's native_functions.yaml), with XDG_STATE_HOME and HOME in the
# scratch folder, and checks the exit status, a fixed part of the message
# and, through checksums of every file and symlink of the tree, that
# nothing changed.  A script ends with `finish`: exit 0 when every check
# passed, 1 otherwise (each failure is printed as "FAIL: ...").
set -u
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
PATH=$repo/tools/bin:$PATH
N=aten/src/ATen/native
work=$(mktemp -d "${TMPDIR:-/tmp}/mk-hardening.XXXXXX") || exit 2
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
XDG_STATE_HOME=$work/state HOME=$work/state LC_ALL=C
export PATH XDG_STATE_HOME HOME LC_ALL
fails=0
checks=0

# The tools, each with a command line that reads (and for the
# writing tools would change) files of the tree.
OV="mps-overloads hypot"
DI="mps-dispatch hypot"
VE="mps-verify hypot"
RE="mps-register unary frob --preset float"
TOOLS_CMDS="OV DI VE RE"

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# make_migrate_tree DIR: a fresh copy of mps-migrate's fixture tree (shaped
# like current PyTorch, with C++ sources).  MG: a migration in it.
MG="mps-migrate --no-try frac"
make_migrate_tree() {
  rm -rf "$1"; mkdir -p "$1"
  cp -R "$repo/tests/fixtures/migrate/tree/." "$1/"
}

# make_tree DIR: a fresh copy of the test tree.
make_tree() {
  rm -rf "$1"; mkdir -p "$1"
  cp -R "$repo/tests/fixtures/register/tree/." "$1/"
  cp "$repo/tests/fixtures/fold/$N/native_functions.yaml" "$1/$N/"
}

# sums DIR: one line per file or symlink under DIR: checksum and path
# (a symlink's target, not its contents).
sums() {
  (cd "$1" && find . \( -type f -o -type l \) -print | LC_ALL=C sort |
     while IFS= read -r f; do
       if [ -L "$f" ]; then printf 'link %s -> %s\n' "$f" "$(ls -l "$f" | sed 's/.* -> //')"
       elif [ -r "$f" ]; then printf '%s %s\n' "$(cksum <"$f" 2>/dev/null)" "$f"
       else printf 'unreadable %s\n' "$f"; fi
     done)
}

# run DIR CMD...: run CMD in DIR; sets rc, and $work/out, $work/err.
run() {
  _d=$1; shift
  (cd "$_d" && "$@") >"$work/out" 2>"$work/err" </dev/null
  rc=$?
}

# expect RC MSG TREE DESC -- CMD...: run CMD (in the current folder),
# check its exit status is RC, that stderr holds the fixed string MSG
# (skipped when MSG is empty) and that nothing under TREE changed.
expect() {
  _rc=$1 _msg=$2 _tree=$3 _desc=$4; shift 5
  checks=$((checks + 1))
  sums "$_tree" >"$work/before"
  "$@" >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  sums "$_tree" >"$work/after"
  if [ "$rc" != "$_rc" ]; then
    fail "$_desc: exit $rc, expected $_rc"; sed 's/^/    stderr: /' "$work/err" | head -n 5
  elif [ -n "$_msg" ] && ! grep -qF -- "$_msg" "$work/err"; then
    fail "$_desc: stderr lacks '$_msg'"; sed 's/^/    stderr: /' "$work/err" | head -n 5
  elif ! cmp -s "$work/before" "$work/after"; then
    fail "$_desc: files changed"; diff "$work/before" "$work/after" | head -n 5
  else
    ok "$_desc"
  fi
}

# tool_cmd NAME: the command line of OV, DI, VE or RE.
tool_cmd() { eval "echo \"\$$1\""; }

finish() {
  echo "$checks checks, $fails failed"
  [ "$fails" = 0 ]
}
