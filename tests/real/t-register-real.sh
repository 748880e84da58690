#!/bin/sh
# mps-register on real PyTorch 2.6.0 (defect #1): the tree predates the
# c10/metal kernels (no c10/metal/ folder, no REGISTER_BINARY_OP, no
# MetalShaderLibrary::exec_*_kernel; its UnaryKernel.mm has a file-local
# exec_unary_kernel taking Tensors, which must not count).  On a copy of
# the kernels and host files, registering atan2 (binary) or sinc (unary,
# into SpecialOps.metal) must exit 2, name what is missing, print nothing
# on stdout and change no file, dry run and --in-place alike.
. "$(dirname "$0")/lib.sh"
use_tree src 2.6.0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nf=aten/src/ATen/native
status=0
fail() { echo "FAIL: $*"; status=1; }
command -v mps-register >/dev/null || { echo "skipped: mps-register not built"; exit 77; }

t=$tmp/tree
mkdir -p "$t/$nf"
cp "$src/$nf/native_functions.yaml" "$src/$nf/BinaryOps.h" "$src/$nf/UnaryOps.h" "$t/$nf/"
cp -R "$src/$nf/mps" "$t/$nf/mps"
[ ! -d "$src/c10/metal" ] || fail "2.6.0 has c10/metal/: the premise of this test is wrong"
sums() { (cd "$t" && find . -type f | LC_ALL=C sort | xargs cksum); }
sums >"$tmp/before"
export XDG_STATE_HOME=$tmp/state

# run WANT_TAGS... -- ARGS: exit 2, empty stdout, each [tag] on stderr
run() {
  tags=""
  while [ "$1" != -- ]; do tags="$tags $1"; shift; done; shift
  (cd "$t" && mps-register "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc = 2 ] || fail "mps-register $*: exit $rc, want 2"
  [ ! -s "$tmp/out" ] || fail "mps-register $*: printed on stdout: $(head -c 300 "$tmp/out")"
  for g in $tags; do
    grep -F "[$g]" "$tmp/err" >/dev/null || fail "mps-register $*: no [$g]: $(cat "$tmp/err")"
  done
  grep -F "predates the c10/metal kernels" "$tmp/err" >/dev/null ||
    fail "mps-register $*: the message does not say the tree predates c10/metal"
  echo "ok: mps-register $* -> 2"
  sed 's/^/    /' "$tmp/err"
}
K=$nf/mps/kernels/BinaryKernel.metal
run no-c10-metal no-exec-kernel -- binary atan2 --preset float --functor --host
run no-c10-metal no-exec-kernel -- binary atan2 --preset float --functor --host --in-place
run no-c10-metal -- binary atan2 --preset all --in-place
grep -F "$K: error: REGISTER_BINARY_OP is neither used nor #defined" "$tmp/err" >/dev/null ||
  fail "the kernel file and the missing macro are not named"
run no-c10-metal no-exec-kernel -- unary sinc --preset float --functor --host \
  --kernel-file "$nf/mps/kernels/SpecialOps.metal" --in-place
grep -F "$nf/mps/operations/UnaryKernel.mm: error: neither this file nor any file under $nf/mps/ mentions lib.exec_unary_kernel" \
  "$tmp/err" >/dev/null || fail "UnaryKernel.mm's own exec_unary_kernel(Tensor...) was taken for the library's"

sums >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { fail "files changed"; diff "$tmp/before" "$tmp/after" | head; }
[ ! -d "$tmp/state/metal-kernel/journal" ] || [ -z "$(ls "$tmp/state/metal-kernel/journal")" ] ||
  fail "a journal entry was written"
[ $status = 0 ] && echo "all checks passed"
exit $status
