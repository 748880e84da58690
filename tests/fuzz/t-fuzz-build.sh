#!/bin/sh
# t-fuzz-build.sh — every libFuzzer target compiles against today's library
# headers with the flags of run.sh (-Wall -Wextra -Werror), syntax only, so
# that a field added to a request struct cannot break `make fuzz` (CI) while
# `make check` stays green.  Found by CI: fuzz_verify.c's rt_request missed
# the is_op/op_arg initializers.  Needs no libFuzzer: LLVMFuzzerTestOneInput
# is plain C.  Skips (77) without a C compiler.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
cc=${FUZZ_CC:-${CC:-cc}}
command -v "$cc" >/dev/null 2>&1 || { echo "skip: no $cc"; exit 77; }
pkgs="yaml-0.1 libpcre2-8 zlib jansson"
cflags=$(pkg-config --cflags $pkgs 2>/dev/null) || { echo "skip: pkg-config"; exit 77; }
fail=0
n=0
for src in "$repo"/tests/fuzz/fuzz_*.c; do
  n=$((n + 1))
  if ! "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
       -Wmissing-field-initializers -fsyntax-only -I"$repo/tools/lib" $cflags "$src"; then
    echo "FAIL: $(basename "$src") does not compile"
    fail=1
  fi
done
[ "$n" -ge 7 ] || { echo "FAIL: only $n fuzz targets found"; fail=1; }
exit $fail
