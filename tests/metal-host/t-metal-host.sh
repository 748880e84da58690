#!/bin/sh
# t-metal-host.sh — the Metal host layer's tests (tools/metal-host).
#
# With every C++ compiler present (g++, clang++; CXX too when set), with the
# lines of tools/metal-host/FLAGS (one argument per line, '#' comments):
#   - compiles and runs each tests/metal-host/test_*.cpp: exit 0, and its
#     last line "NAME: N checks, 0 failures";
#   - builds the two-unit harness of the contract (two_units/): a Metal unit
#     compiled with FLAGS and a C driver compiled without, linked; its output
#     must equal two_units/expected byte for byte;
#   - checks that cond ? half : float does not compile as plain C++ and
#     compiles, with type float, once REWRITES.md rule 5 is applied by
#     build/unit/rewrite_probe (try_rewrite; skipped when not built), so
#     that README.md and REWRITES.md stay true.
# Exit 0 when all pass, 77 (one line) when there is no C++ compiler.
set -u
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$repo/tests/metal-host
layer=$repo/tools/metal-host
probe=$repo/build/unit/rewrite_probe
out=${MK_TEST_OUT:-$repo/tests/out}/metal-host
rm -rf "$out"
mkdir -p "$out" || exit 2

compilers=""
for c in ${CXX:-} g++ clang++; do
	command -v "$c" >/dev/null 2>&1 || continue
	case " $compilers " in *" $c "*) continue ;; esac
	compilers="$compilers $c"
done
if [ -z "$compilers" ]; then
	echo "no C++ compiler (g++, clang++) found"
	exit 77
fi

# the FLAGS lines, read as mps-try reads them: trimmed, '#' and empty lines
# skipped, one argument each
flags() {
	sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$layer/FLAGS"
}

fail=0
bad() { echo "FAIL: $*"; fail=1; }

for c in $compilers; do
	cname=$(basename "$c")
	# the flags as positional parameters (no flag contains a space)
	set -- $(flags)
	for t in "$here"/test_*.cpp; do
		name=$(basename "$t" .cpp)
		bin=$out/$name.$cname
		if ! "$c" "$@" -I"$layer" -I"$here/fixture" -O1 "$t" -o "$bin" >"$out/$name.$cname.log" 2>&1; then
			bad "$name: does not compile with $cname"
			head -n 30 "$out/$name.$cname.log"
			continue
		fi
		if [ -s "$out/$name.$cname.log" ]; then
			bad "$name: warnings with $cname"
			head -n 20 "$out/$name.$cname.log"
		fi
		"$bin" >"$out/$name.$cname.out" 2>&1
		rc=$?
		last=$(tail -n 1 "$out/$name.$cname.out")
		echo "$cname $last"
		case $rc:$last in
		0:"$name: "*" checks, 0 failures") ;;
		*) bad "$name with $cname: exit $rc"; head -n 25 "$out/$name.$cname.out" ;;
		esac
	done

	# the two-unit harness of the contract
	u=$here/two_units
	if "$c" "$@" -I"$layer" -I"$here/fixture" -c "$u/metal_unit.cpp" -o "$out/metal_unit.$cname.o" \
		>"$out/two_units.$cname.log" 2>&1 &&
		${CC:-cc} -std=c11 -Wall -Wextra -c "$u/driver.c" -o "$out/driver.$cname.o" >>"$out/two_units.$cname.log" 2>&1 &&
		"$c" "$out/metal_unit.$cname.o" "$out/driver.$cname.o" -o "$out/two_units.$cname" \
			>>"$out/two_units.$cname.log" 2>&1; then
		"$out/two_units.$cname" >"$out/two_units.$cname.out" 2>&1
		if cmp -s "$u/expected" "$out/two_units.$cname.out"; then
			echo "$cname two_units: output as expected"
		else
			bad "two_units with $cname: output differs"
			diff "$u/expected" "$out/two_units.$cname.out" | head -n 20
		fi
	else
		bad "two_units: does not build with $cname"
		head -n 30 "$out/two_units.$cname.log"
	fi

	# cond ? half : float: not C++ a class half can type (both operands
	# convert to the other's type), so REWRITES.md rule 5 exists; with the
	# rule applied (the very code mps-try uses) it compiles and is float
	printf 'auto f(bool c, half h, float x) { return c ? h : x; }\nstatic_assert(std::is_same<decltype(f(true, half(), 0.0f)), float>::value, "float");\n' >"$out/ternary.cpp"
	if "$c" "$@" -I"$layer" -fsyntax-only "$out/ternary.cpp" >/dev/null 2>&1; then
		bad "cond ? half : float compiles with $cname without rule 5: update README.md and REWRITES.md"
	else
		echo "$cname cond ? half : float: does not compile without rule 5, as documented"
	fi
	if [ -x "$probe" ]; then
		"$probe" "$out/ternary.cpp" "$out/ternary-rw.cpp" || bad "rewrite_probe failed"
		if "$c" "$@" -I"$layer" -fsyntax-only "$out/ternary-rw.cpp" >"$out/ternary.$cname.log" 2>&1 &&
			[ ! -s "$out/ternary.$cname.log" ]; then
			echo "$cname cond ? half : float: float with rule 5"
		else
			bad "cond ? half : float with rule 5 does not compile cleanly with $cname"
			head -n 10 "$out/ternary.$cname.log"
		fi
	else
		echo "$cname cond ? half : float with rule 5: not checked ($probe not built)"
	fi
done
exit $fail
