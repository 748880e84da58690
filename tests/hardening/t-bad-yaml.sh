#!/bin/sh
# Malformed native_functions.yaml: every fixture of tests/fixtures/bad
# (truncated, tabs, duplicate keys, wrong types, NUL bytes, invalid
# UTF-8, the torchgen crash cases ...) plus generated ones (a 10 MB single
# line, a 10 MB key, a 10 MB scalar, deep nesting) given to every tool
# that reads the yaml: exit 2, the same "PATH:LINE:COL: error: ..." message
# from each, nothing changed.  mps-register does not read the yaml.
. "$(dirname "$0")/lib.sh"

G=$work/gen
mkdir -p "$G"
awk 'BEGIN { s = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  for (i = 0; i < 100000; i++) printf "%s", s }' >"$G/ten-mb-one-line.yaml"
{ printf -- '- func: frob(Tensor self) -> Tensor\n  '; cat "$G/ten-mb-one-line.yaml"; printf ': True\n'; } >"$G/ten-mb-key.yaml"
{ printf -- '- func: frob(Tensor self) -> Tensor\n  dispatch:\n    CPU: "'; cat "$G/ten-mb-one-line.yaml"; } >"$G/ten-mb-unterminated-string.yaml"
{ printf -- '- func: frob(Tensor self) -> Tensor\n  tags: '; awk 'BEGIN { for (i = 0; i < 100000; i++) printf "[" }'; echo; } >"$G/deep-nesting.yaml"
printf -- '- func: frob(Tensor self) -> Tensor\n  dispatch: CPU\n' >"$G/dispatch-scalar.yaml"
printf -- '- func: frob(Tensor self) -> Tensor\n- func: frob(Tensor self) -> Tensor\n' >"$G/same-function-twice.yaml"
printf -- '- &a {func: "frob(Tensor self) -> Tensor"}\n- *a\n' >"$G/alias.yaml"
printf -- '- func: frob(Tensor self) -> Tensor\n---\n- func: frab(Tensor self) -> Tensor\n' >"$G/two-documents.yaml"
printf -- '- func: frob(Tensor self) -> Tensor\n  dispatch:\n    CPU: frob\n   MPS: frob_mps\n' >"$G/bad-indent.yaml"

for y in "$repo"/tests/fixtures/bad/*.yaml "$G"/*.yaml; do
  b=$(basename "$y" .yaml)
  T=$work/t-$b
  make_tree "$T"
  cp "$y" "$T/$N/native_functions.yaml"
  expect 2 "mps-overloads: $T/$N/native_functions.yaml:" "$T" "mps-overloads: $b" -- \
    mps-overloads --yaml "$T/$N/native_functions.yaml" --all
  sed "s|^mps-overloads: $T/||" "$work/err" >"$work/first"
  for c in "mps-overloads --all" "$DI" "$DI --in-place" "$DI --add --in-place" "$VE" "mps-verify --all"; do
    set -- $c
    # with --root (found from the current folder) every tool names the
    # yaml relative to the root
    p=
    expect 2 "$1: $p$N/native_functions.yaml:" "$T" "$c: $b" -- sh -c 'cd "$1" && shift && exec "$@"' sh "$T" "$@"
    checks=$((checks + 1))
    if sed "s|^$1: $p||" "$work/err" | cmp -s - "$work/first"; then ok "$c: $b: same message as mps-overloads"
    else fail "$c: $b: message differs from mps-overloads'"
      sed "s|^$1: $p||" "$work/err" | diff "$work/first" - | head -n 4; fi
  done
  [ -z "$(ls "$work/state" 2>/dev/null)" ] || fail "$b: a journal was written"
done
finish
