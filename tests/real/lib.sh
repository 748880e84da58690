# lib.sh — sourced by tests/real/t-*.sh.  Finds a real PyTorch tree.
#
# real_tree VERSION: prints the tree's path, or exits the test with 77
# (skip) and a message when it is absent.  Trees live in
# $MK_PYTORCH_TREES (default: <repo>/.cache/pytorch), where .ci/run and
# `sh tests/real/fetch.sh` put them with ../shared/fetch-pytorch-src.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
real_tree() {
  t=$trees/pytorch-$1
  if [ ! -f "$t/aten/src/ATen/native/native_functions.yaml" ]; then
    echo "skipped: no PyTorch $1 tree in $trees (run: sh tests/real/fetch.sh)"
    exit 77
  fi
  echo "$t"
}
# python with PyYAML and typing_extensions, for torchgen (exit 77 if none)
torchgen_python() {
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import yaml, typing_extensions' >/dev/null 2>&1; then echo "$p"; return; fi
  done
  echo "skipped: no python3 with PyYAML and typing_extensions"
  exit 77
}
