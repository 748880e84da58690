#!/bin/sh
# A binary file (NUL bytes) as .metal or .mm: every tool that reads it
# refuses it with exit 2 and writes nothing; a NUL byte in
# native_functions.yaml likewise.
. "$(dirname "$0")/lib.sh"

K=$work/kernel
make_tree "$K"
printf 'kernel void x();\n\000\001\002\377REGISTER_UNARY_OP(abs, float, float);\n' \
  >"$K/$N/mps/kernels/UnaryKernel.metal"
expect 2 "mps-register: error: '$N/mps/kernels/UnaryKernel.metal' is not a text file (it holds a NUL byte)" \
  "$K" "mps-register: binary .metal" -- $RE --root "$K"
expect 2 "mps-register: error: '$N/mps/kernels/UnaryKernel.metal' is not a text file (it holds a NUL byte)" \
  "$K" "mps-register --in-place: binary .metal" -- $RE --in-place --root "$K"
# same wording as mps-register (mps-verify scanned such files as text)
expect 2 "mps-verify: error: '$N/mps/kernels/UnaryKernel.metal' is not a text file (it holds a NUL byte)" \
  "$K" "mps-verify: binary .metal" -- $VE --root "$K"

H=$work/host
make_tree "$H"
printf '#include <x>\n\000\000REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel);\n' \
  >"$H/$N/mps/operations/BinaryKernel.mm"
printf '\000' >>"$H/$N/mps/operations/UnaryKernel.mm"
expect 2 "mps-register: error: '$N/mps/operations/UnaryKernel.mm' is not a text file (it holds a NUL byte)" \
  "$H" "mps-register --host: binary .mm" -- $RE --host --root "$H"
expect 2 "mps-verify: error: '$N/mps/operations/BinaryKernel.mm' is not a text file (it holds a NUL byte)" \
  "$H" "mps-verify: binary .mm" -- $VE --root "$H"

Y=$work/yaml
make_tree "$Y"
printf '\000' >>"$Y/$N/native_functions.yaml"
for t in OV DI VE; do
  c=$(tool_cmd $t)
  set -- $c
  expect 2 "error: file holds a NUL byte: not YAML text" "$Y" "$1: NUL byte in the yaml" -- "$@" --root "$Y"
done
finish
