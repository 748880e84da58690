#!/bin/sh
# make bench: build the baseline (a bare libyaml parse) and the peak
# memory helper, find the 2.6.0 tree, run bench.py.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
tree=$trees/pytorch-2.6.0
if [ ! -f "$tree/aten/src/ATen/native/native_functions.yaml" ]; then
  echo "bench: no PyTorch 2.6.0 tree in $trees; run: sh tests/real/fetch.sh" >&2
  exit 2
fi
mkdir -p "$repo/build"
${CC:-cc} -O2 -o "$repo/build/yaml_events" "$repo/tests/bench/yaml_events.c" \
  $(pkg-config --cflags --libs yaml-0.1)
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -o "$repo/build/peak" \
  "$repo/tests/bench/peak.c"
PATH="$repo/tools/bin:$PATH" python3 "$repo/tests/bench/bench.py" "$repo" "$tree" "$repo/build"
