#!/bin/sh
# register.sh — benchmark of one mps-register edit (issue #5 "Speed"):
# times `mps-register unary foo --preset float` (a diff: read, parse, plan,
# build, print) on a generated 40 KB UnaryKernel.metal and on one 4x that
# size, and prints the time per edit and the ratio (linear = 4).
# Target: < 10 ms per edit at 40 KB, ratio well under 4 + noise.
# Exit 0 when the targets are met, 1 when not, 2 on error.
# Usage: sh tests/bench/register.sh [RUNS]   (default 40 runs per size)
set -u
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$repo/tools/bin/mps-register
runs=${1:-40}
[ -x "$bin" ] || { echo "register: $bin is not built (run make)"; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# now: a time stamp in microseconds (perl or python3; one is everywhere)
if command -v perl >/dev/null 2>&1 && perl -MTime::HiRes -e1 2>/dev/null; then
	now() { perl -MTime::HiRes=time -e 'printf "%d\n", time * 1e6'; }
elif command -v python3 >/dev/null 2>&1; then
	now() { python3 -c 'import time; print(int(time.time() * 1e6))'; }
else
	echo "register: needs perl or python3 for a clock"; exit 2
fi

# gen DIR BYTES: a PyTorch-shaped tree whose UnaryKernel.metal holds about
# BYTES bytes of functors and registrations
gen() {
	mkdir -p "$1/aten/src/ATen/native/mps/kernels"
	echo "- func: foo(Tensor self) -> Tensor" \
		>"$1/aten/src/ATen/native/native_functions.yaml"
	awk -v want="$2" 'BEGIN {
		print "#include <c10/metal/indexing.h>"
		print "using namespace metal;"
		n = 0; size = 0
		while (size < want) {
			s = sprintf("\n// op%d: a generated functor\nstruct op%d_functor {\n  template <typename T>\n  inline T operator()(const T x) {\n    return T(x + %d);\n  }\n};\n", n, n, n)
			s = s sprintf("REGISTER_UNARY_OP(op%d, float, float);\nREGISTER_UNARY_OP(op%d, half, half);\nREGISTER_UNARY_OP(op%d, bfloat, bfloat);\n", n, n, n)
			printf "%s", s
			size += length(s); n++
		}
	}' >"$1/aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
}

# per_edit DIR: microseconds per edit, averaged over $runs runs
per_edit() {
	"$bin" unary foo --preset float --root "$1" >/dev/null 2>&1
	[ $? = 1 ] || { echo "register: mps-register did not propose an edit" >&2; exit 2; }
	t0=$(now)
	i=0
	while [ $i -lt "$runs" ]; do
		"$bin" unary foo --preset float --root "$1" >/dev/null 2>&1
		i=$((i + 1))
	done
	t1=$(now)
	echo $(((t1 - t0) / runs))
}

gen "$tmp/small" 40960
gen "$tmp/large" 163840
s=$(per_edit "$tmp/small")
l=$(per_edit "$tmp/large")
ks=$(($(wc -c <"$tmp/small/aten/src/ATen/native/mps/kernels/UnaryKernel.metal") / 1024))
kl=$(($(wc -c <"$tmp/large/aten/src/ATen/native/mps/kernels/UnaryKernel.metal") / 1024))
awk -v s="$s" -v l="$l" -v ks="$ks" -v kl="$kl" 'BEGIN {
	r = s > 0 ? l / s : 0
	printf "register: %d KB: %.2f ms/edit; %d KB: %.2f ms/edit; ratio %.2f (linear: 4)\n", ks, s / 1000, kl, l / 1000, r
	ok = (s < 10000) && (r < 6)
	printf "register: %s (target: < 10 ms at 40 KB, ratio < 6)\n", ok ? "ok" : "MISSED"
	exit ok ? 0 : 1
}'
