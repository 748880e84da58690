#!/bin/sh
# t-headers-real.sh — the Metal host layer compiles PyTorch 2.14.1's real
# c10/metal headers (issue #25).
#
# Every c10/metal/*.h of .cache/pytorch/pytorch-2.14.1-metal is copied with
# the rewrites of tools/metal-host/REWRITES.md applied by the code mps-try
# uses (build/unit/rewrite_probe calls try_rewrite), then, with every C++
# compiler present (g++, clang++; CXX too when set) and the FLAGS:
#   - each header is compiled alone (#include <c10/metal/NAME>): exit 0 and
#     no output, except the warnings listed below (properties of the
#     headers themselves);
#   - all of them together, followed by real/driver.cpp, are compiled and
#     run: exit 0, no compiler output, and the output equal to
#     real/expected byte for byte.
# Exit 0 when all pass; 77 (one line) when the tree, a C++ compiler or the
# probe is absent.
set -u
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$repo/tests/metal-host
layer=$repo/tools/metal-host
tree=$repo/.cache/pytorch/pytorch-2.14.1-metal
probe=$repo/build/unit/rewrite_probe
out=${MK_TEST_OUT:-$repo/tests/out}/metal-host-real

if [ ! -d "$tree/c10/metal" ]; then
	echo "skipped: $tree/c10/metal absent (tests/real/fetch.sh fetches it)"
	exit 77
fi
if [ ! -x "$probe" ]; then
	echo "skipped: $probe not built (run: make check)"
	exit 77
fi
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

rm -rf "$out"
mkdir -p "$out/tree/c10/metal" || exit 2
headers=""
for h in "$tree"/c10/metal/*.h; do
	n=$(basename "$h")
	"$probe" "$h" "$out/tree/c10/metal/$n" || exit 2
	headers="$headers $n"
done

# Warnings that belong to the headers, not to the layer: igamma.h declares
# c10::metal::expm1f inline and uses it, but its definition is in
# expm1f.h, which igamma.h does not include (special_math.h includes both).
# ("N warnings generated." is clang's count line)
allowed='igamma\.h:[0-9]*:[0-9]*: warning: inline function .*expm1f.* (is not defined|used but never defined)|^[0-9]+ warnings? generated\.$'

flags() {
	sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$layer/FLAGS"
}

# the unit holding every header, then the driver
{
	for n in $headers; do
		printf '#include <c10/metal/%s>\n' "$n"
	done
	printf '#include "%s"\n' "$here/real/driver.cpp"
} >"$out/all.cpp"

fail=0
bad() { echo "FAIL: $*"; fail=1; }

for c in $compilers; do
	cname=$(basename "$c")
	set -- $(flags)
	ok=0
	for n in $headers; do
		printf '#include <c10/metal/%s>\n' "$n" >"$out/$n.cpp"
		log=$out/$n.$cname.log
		if ! "$c" "$@" -I"$layer" -I"$out/tree" -fsyntax-only "$out/$n.cpp" >"$log" 2>&1; then
			bad "$n alone does not compile with $cname"
			grep -E 'error' "$log" | head -n 10
			continue
		fi
		# what is left once the allowed warnings (and their context
		# lines) are gone must be nothing
		if grep -E 'warning|error' "$log" | grep -Ev "$allowed" | grep -q .; then
			bad "$n alone: warnings with $cname"
			grep -E 'warning' "$log" | grep -Ev "$allowed" | head -n 10
			continue
		fi
		ok=$((ok + 1))
	done
	echo "$cname: $ok of $(echo $headers | wc -w) headers compile alone"

	log=$out/all.$cname.log
	if ! "$c" "$@" -I"$layer" -I"$out/tree" -O1 "$out/all.cpp" -o "$out/all.$cname" >"$log" 2>&1; then
		bad "all headers and the driver do not compile with $cname"
		grep -E 'error' "$log" | head -n 20
		continue
	fi
	if [ -s "$log" ]; then
		bad "all headers and the driver: warnings with $cname"
		head -n 20 "$log"
	fi
	"$out/all.$cname" >"$out/all.$cname.out" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		bad "the driver with $cname: exit $rc"
	elif cmp -s "$here/real/expected" "$out/all.$cname.out"; then
		echo "$cname: all headers together, driver output as expected"
	else
		bad "the driver with $cname: output differs"
		diff "$here/real/expected" "$out/all.$cname.out" | head -n 20
	fi
done
exit $fail
