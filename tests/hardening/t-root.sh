#!/bin/sh
# Bad roots and folders where files should be, for every tool: exit 2, a
# message naming the problem, nothing changed.
. "$(dirname "$0")/lib.sh"

T=$work/tree
make_tree "$T"
: >"$work/a-file"
for t in $TOOLS_CMDS; do
  c=$(tool_cmd "$t")
  # shellcheck disable=SC2086
  set -- $c
  tool=$1; shift
  expect 2 "$tool: error: cannot open root '$work/missing': No such file or directory" \
    "$T" "$tool: missing root" -- $tool --root "$work/missing" "$@"
  expect 2 "$tool: error: root '$work/a-file' is not a folder" \
    "$T" "$tool: root is a file" -- $tool --root "$work/a-file" "$@"
done

# a folder where native_functions.yaml should be: given as --root, and
# found by walking up from a subfolder
D=$work/dirtree
make_tree "$D"
rm "$D/$N/native_functions.yaml"; mkdir "$D/$N/native_functions.yaml"
for t in $TOOLS_CMDS; do
  c=$(tool_cmd "$t")
  set -- $c
  tool=$1; shift
  expect 2 "$tool: error: '$D' is not a PyTorch checkout (no $N/native_functions.yaml)" \
    "$D" "$tool: native_functions.yaml is a folder (--root)" -- $tool --root "$D" "$@"
  expect 2 "$tool: error: no PyTorch checkout found from the current folder up" \
    "$D" "$tool: native_functions.yaml is a folder (walk up)" -- \
    sh -c 'cd "$1/aten/src" && shift && exec "$@"' sh "$D" $tool "$@"
done

# a folder where a file the tool reads should be
K=$work/kdir
make_tree "$K"
rm "$K/$N/mps/kernels/UnaryKernel.metal"; mkdir "$K/$N/mps/kernels/UnaryKernel.metal"
expect 2 "mps-register: cannot open '$N/mps/kernels/UnaryKernel.metal': Is a directory" \
  "$K" "mps-register: the kernel file is a folder" -- $RE --root "$K"
H=$work/hdir
make_tree "$H"
rm "$H/$N/mps/operations/UnaryKernel.mm"; mkdir "$H/$N/mps/operations/UnaryKernel.mm"
expect 2 "mps-register: cannot open '$N/mps/operations/UnaryKernel.mm': Is a directory" \
  "$H" "mps-register --host: the host file is a folder" -- $RE --host --root "$H"
# the kernels folder is a file
F=$work/kfile
make_tree "$F"
rm -r "$F/$N/mps/kernels"; echo x >"$F/$N/mps/kernels"
expect 2 "mps-register: cannot open '$N/mps/kernels/UnaryKernel.metal': Not a directory" \
  "$F" "mps-register: the kernels folder is a file" -- $RE --root "$F"
# mps-verify reads common_mps.py when it exists: a folder there is an
# error (this crashed with SIGSEGV in hs_load, hostscan.c free_strv)
C=$work/cdir
make_tree "$C"
mkdir -p "$C/torch/testing/_internal/common_mps.py"
expect 2 "mps-verify: cannot open 'torch/testing/_internal/common_mps.py': Is a directory" \
  "$C" "mps-verify: common_mps.py is a folder" -- $VE --root "$C"
finish
