#!/bin/sh
# t-register-verify.sh — issue #5 acceptance: the kernel names mps-register
# writes agree with what mps-verify expects.  After
# `mps-register KIND foo --preset float --host --in-place` on a fixture tree,
# `mps-verify foo` is clean for foo's kernel/host pair; with either half taken
# away again it is not (so the check can fail).  The same on a copy of the
# demo tree, for i0 after `mps-dispatch --add i0` (with the functor's
# placeholder reported until it is replaced).
# Exit 0 pass, 77 skip (a tool is not built), else fail.
set -u
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$repo/tools/bin
for t in mps-register mps-verify; do
	[ -x "$bin/$t" ] || { echo "skip: $t is not built"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
XDG_STATE_HOME=$tmp/state
export XDG_STATE_HOME
K=aten/src/ATen/native/mps/kernels
O=aten/src/ATen/native/mps/operations

fail() { echo "FAIL: $*"; exit 1; }

# verify OP WANT_RC [RULE]: run mps-verify OP, check its exit status and,
# when given, that RULE is reported
verify() {
	out=$("$bin/mps-verify" "$1" 2>&1)
	rc=$?
	[ "$rc" = "$2" ] || fail "$(pwd): mps-verify $1 exited $rc, wanted $2: $out"
	if [ -n "${3:-}" ]; then
		echo "$out" | grep -q ": $3\]" || fail "$(pwd): mps-verify $1 did not report $3: $out"
	fi
	echo "ok: mps-verify $1 -> $rc ${3:-}"
}

# 1. unary, REGISTER_UNARY_TI_DISPATCH host file
cp -R "$repo/tests/fixtures/register/tree" "$tmp/unary"
cd "$tmp/unary" || exit 1
verify foo 1 missing-stub
"$bin/mps-register" unary foo --preset float --host --in-place >/dev/null ||
	fail "mps-register unary foo failed"
verify foo 0
cp "$K/UnaryKernel.metal" k.bak
grep -v 'REGISTER_UNARY_OP(foo,' k.bak >"$K/UnaryKernel.metal"
verify foo 1 unregistered-kernel
cp k.bak "$K/UnaryKernel.metal"
cp "$O/UnaryKernel.mm" h.bak
grep -v 'REGISTER_UNARY_TI_DISPATCH(foo)' h.bak >"$O/UnaryKernel.mm"
verify foo 1 unused-kernel
cp h.bak "$O/UnaryKernel.mm"
verify foo 0

# 2. binary: a file-local helper call and a function + REGISTER_DISPATCH stub
cp -R "$repo/tests/fixtures/register/tree" "$tmp/binary"
cd "$tmp/binary" || exit 1
"$bin/mps-register" binary foo --preset float --host --in-place >/dev/null ||
	fail "mps-register binary foo failed"
grep -q '^REGISTER_FLOAT_BINARY_OP(foo);' "$K/BinaryKernel.metal" ||
	fail "the helper REGISTER_FLOAT_BINARY_OP was not used"
verify foo 0

# 3. the demo tree: add i0 end to end
if [ -d "$repo/examples/demo-tree" ] && [ -x "$bin/mps-dispatch" ]; then
	cp -R "$repo/examples/demo-tree" "$tmp/demo"
	cd "$tmp/demo" || exit 1
	verify i0 1 no-mps-kernel # untouched: not on MPS yet
	"$bin/mps-dispatch" --add i0 --in-place >/dev/null || fail "mps-dispatch --add i0"
	verify i0 1 missing-stub
	"$bin/mps-register" unary i0 --preset float --functor --host --in-place \
		>/dev/null || fail "mps-register unary i0 failed"
	# the functor skeleton is a placeholder until its math is written
	verify i0 1 functor-placeholder
	sed 's|// TODO(mps-register): .*|// (the math of i0 would be written here)|' \
		"$K/UnaryKernel.metal" >k.new && cat k.new >"$K/UnaryKernel.metal"
	verify i0 0
else
	echo "note: demo tree or mps-dispatch missing; demo part not run"
fi
echo "all checks passed"
