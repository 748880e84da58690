#!/bin/sh
# The store of parsed models (tools/lib/cache.h) never answers for other
# bytes, and a store that cannot be used changes nothing:
#   - a same-size edit of a host file, a kernel file or the yaml (no
#     change in length, only in content) between two runs: the second run
#     prints what a run without the store prints, and not the first run's
#     answer;
#   - a store folder that cannot be created (under a file), a read-only
#     one, MK_CACHE=off: the same output and exit status as without.
. "$(dirname "$0")/lib.sh"

T=$work/t
make_tree "$T"
MK_CACHE_DIR=$work/store; export MK_CACHE_DIR
run() { # run NAME DIR ARGS...: output (stdout, stderr, status) in $work/NAME
  name=$1; dir=$2; shift 2
  (cd "$dir" && "$@" >"$work/$name" 2>"$work/$name.err"; echo "RC=$?" >>"$work/$name")
  cat "$work/$name.err" >>"$work/$name"
}
check_same() { # check_same WHAT A B
  checks=$((checks + 1))
  if cmp -s "$work/$2" "$work/$3"; then ok "$1"
  else fail "$1"; diff "$work/$2" "$work/$3" | head -n 6; fi
}
check_differs() {
  checks=$((checks + 1))
  if cmp -s "$work/$2" "$work/$3"; then fail "$1"; else ok "$1"; fi
}

for cmd in "mps-verify hypot" "mps-verify --all" "mps-overloads --all --json"; do
  rm -rf "$MK_CACHE_DIR"
  make_tree "$T"
  run first "$T" $cmd
  run again "$T" $cmd
  check_same "$cmd: a second run, from the store, = the first" first again
  # same-size edits: a host file asks for another kernel name, the kernel
  # file registers another one, the yaml names another MPS kernel
  sed 's/exec_binary_kernel(iter, "hypot")/exec_binary_kernel(iter, "hypoz")/' \
    "$T/$N/mps/operations/BinaryKernel.mm" >"$work/x" && cat "$work/x" >"$T/$N/mps/operations/BinaryKernel.mm"
  sed 's/REGISTER_UNARY_OP(sqrt,/REGISTER_UNARY_OP(sqrz,/' \
    "$T/$N/mps/kernels/UnaryKernel.metal" >"$work/x" && cat "$work/x" >"$T/$N/mps/kernels/UnaryKernel.metal"
  sed 's/MPS: hypot_out_mps/MPS: hypot_out_mpz/' \
    "$T/$N/native_functions.yaml" >"$work/x" && cat "$work/x" >"$T/$N/native_functions.yaml"
  run edited "$T" $cmd
  MK_CACHE=off run plain "$T" $cmd
  check_same "$cmd: after same-size edits, the store answers as no store" edited plain
  check_differs "$cmd: after same-size edits, not the old answer" first edited
done

# stored yaml indexes with a right checksum but contents the parse never
# gives (tests/hardening/forge_store.py): refused, parsed again
for what in declared-by route; do
  rm -rf "$MK_CACHE_DIR"
  make_tree "$T"
  # a yaml with an autogen'd function
  cp "$repo/tests/fixtures/slices/cross-delegate.yaml" "$T/$N/native_functions.yaml"
  MK_CACHE=off run plain "$T" mps-overloads --all
  (cd "$T" && mps-overloads --all >/dev/null 2>&1)
  for f in "$MK_CACHE_DIR"/nfyaml-*.mkc; do
    python3 "$repo/tests/hardening/forge_store.py" "$f" $what || fail "forge_store.py $what"
  done
  run forged "$T" mps-overloads --all
  check_same "a stored index forged ($what): refused, same as no store" plain forged
done

# a store file that is a FIFO or a device: a miss, no hang
TO=; command -v timeout >/dev/null 2>&1 && TO="timeout 10"
rm -rf "$MK_CACHE_DIR"
make_tree "$T"
(cd "$T" && mps-overloads --all >/dev/null 2>&1)
for f in "$MK_CACHE_DIR"/nfyaml-*.mkc; do rm -f "$f"; mkfifo "$f"; done
MK_CACHE=off run plain "$T" mps-overloads --all
run fifo "$T" $TO mps-overloads --all
check_same "a FIFO in the store: a miss, same as no store" plain fifo
for f in "$MK_CACHE_DIR"/nfyaml-*.mkc; do rm -f "$f"; ln -s /dev/zero "$f"; done
run devzero "$T" $TO mps-overloads --all
check_same "/dev/zero in the store: a miss, same as no store" plain devzero

# a relative MK_CACHE_DIR is not used (the tools change folders)
rm -rf "$T/relstore" "$work/relstore"
MK_CACHE_DIR=relstore run rel "$T" mps-verify hypot
MK_CACHE=off run plain "$T" mps-verify hypot
check_same "a relative MK_CACHE_DIR: same output" plain rel
checks=$((checks + 1))
if [ -e "$T/relstore" ] || [ -e "$work/relstore" ]; then fail "a relative MK_CACHE_DIR was written"
else ok "a relative MK_CACHE_DIR: nothing written"; fi

# stores that cannot be used
make_tree "$T"
MK_CACHE=off run plain "$T" mps-verify --all
: >"$work/afile"
MK_CACHE_DIR=$work/afile/store run underfile "$T" mps-verify --all
check_same "a store folder under a file: same as no store" plain underfile
mkdir -p "$work/ro" && chmod 0555 "$work/ro"
MK_CACHE_DIR=$work/ro run readonly "$T" mps-verify --all
check_same "a read-only store folder: same as no store" plain readonly
checks=$((checks + 1))
if [ -z "$(ls "$work/ro")" ] || [ "$(id -u)" = 0 ]; then ok "nothing written into a read-only store"
else fail "a read-only store got files"; fi
finish
