# lib.sh — sourced by tests/real/t-*.sh.  Finds the real PyTorch trees.
#
# Trees live in $MK_PYTORCH_TREES (default: <repo>/.cache/pytorch), where
# `make check` (tests/run-all.sh), .ci/run and `sh tests/real/fetch.sh`
# put them.  A test whose tree is absent is skipped: exit 77 and one line.
#
# use_tree VAR VERSION: set VAR to the tree's path, or skip the test.
# Called as a plain command, never inside $(...), so that its exit leaves
# the test itself and not a subshell.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
use_tree() {
  if [ ! -f "$trees/pytorch-$2/aten/src/ATen/native/native_functions.yaml" ]; then
    echo "skipped: no PyTorch $2 tree in $trees (run: sh tests/real/fetch.sh)"
    exit 77
  fi
  eval "$1=\$trees/pytorch-\$2"
}
# use_probe VAR: set VAR to build/unit/cppscan_probe (cppscan's answers
# as text, built by `make check`), or skip the test.
use_probe() {
  if [ ! -x "$repo/build/unit/cppscan_probe" ]; then
    echo "skipped: $repo/build/unit/cppscan_probe not built (run: make check)"
    exit 77
  fi
  eval "$1=\$repo/build/unit/cppscan_probe"
}
# use_torchgen_python VAR: set VAR to a python3 with PyYAML and
# typing_extensions (what torchgen imports), or skip the test.
use_torchgen_python() {
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import yaml, typing_extensions' >/dev/null 2>&1; then
      eval "$1=\$p"; return 0
    fi
  done
  echo "skipped: no python3 with PyYAML and typing_extensions"
  exit 77
}
