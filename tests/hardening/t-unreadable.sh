#!/bin/sh
# Unreadable input files, for every tool: exit 2, "cannot open 'PATH':
# REASON", nothing changed.  As root, permission bits do not stop a read,
# so the file is replaced by a symlink to /proc/self/mem, which opens but
# fails every read at offset 0 with EIO (Linux); elsewhere chmod 000.
. "$(dirname "$0")/lib.sh"

# make_unreadable FILE: prints the strerror text the tools should show
make_unreadable() {
  if [ "$(id -u)" != 0 ]; then
    chmod 000 "$1"; echo "Permission denied"
  elif [ -r /proc/self/mem ] && [ "$(uname -s)" = Linux ]; then
    rm -f "$1"; ln -s /proc/self/mem "$1"; echo "Input/output error"
  else
    echo "skip: running as root without /proc/self/mem: no way to make a file unreadable" >&2
    exit 77
  fi
}

# mps-register checks that its targets resolve inside the root before it
# reads them: the /proc/self/mem symlink is refused as outside the root
reg_msg() { # FILE WHY
  if [ "$2" = "Input/output error" ]; then echo "mps-register: error: '$1' resolves to '/proc/"
  else echo "mps-register: cannot open '$1': $2"; fi
}

T=$work/yaml
make_tree "$T"
why=$(make_unreadable "$T/$N/native_functions.yaml") || exit $?
expect 2 "mps-overloads: cannot open '$N/native_functions.yaml': $why" \
  "$T" "mps-overloads: unreadable native_functions.yaml" -- $OV --root "$T"
expect 2 "mps-dispatch: cannot open '$N/native_functions.yaml': $why" \
  "$T" "mps-dispatch: unreadable native_functions.yaml" -- $DI --root "$T"
expect 2 "mps-dispatch: cannot open '$N/native_functions.yaml': $why" \
  "$T" "mps-dispatch --in-place: unreadable native_functions.yaml" -- $DI --in-place --root "$T"
expect 2 "mps-verify: cannot open '$N/native_functions.yaml': $why" \
  "$T" "mps-verify: unreadable native_functions.yaml" -- $VE --root "$T"
expect 2 "mps-overloads: cannot open '$work/nope.yaml': No such file or directory" \
  "$T" "mps-overloads --yaml: missing file" -- $OV --yaml "$work/nope.yaml"

K=$work/kernel
make_tree "$K"
why=$(make_unreadable "$K/$N/mps/kernels/UnaryKernel.metal") || exit $?
expect 2 "$(reg_msg "$N/mps/kernels/UnaryKernel.metal" "$why")" \
  "$K" "mps-register: unreadable kernel file" -- $RE --root "$K"
expect 2 "$(reg_msg "$N/mps/kernels/UnaryKernel.metal" "$why")" \
  "$K" "mps-register --in-place: unreadable kernel file" -- $RE --in-place --root "$K"
expect 2 "mps-verify: cannot open '$N/mps/kernels/UnaryKernel.metal': $why" \
  "$K" "mps-verify: unreadable kernel file" -- $VE --root "$K"

H=$work/host
make_tree "$H"
why=$(make_unreadable "$H/$N/mps/operations/UnaryKernel.mm") || exit $?
expect 2 "$(reg_msg "$N/mps/operations/UnaryKernel.mm" "$why")" \
  "$H" "mps-register --host: unreadable host file" -- $RE --host --root "$H"
expect 2 "mps-verify: cannot open '$N/mps/operations/UnaryKernel.mm': $why" \
  "$H" "mps-verify: unreadable host file" -- $VE --root "$H"
finish
