#!/bin/sh
# fetch.sh — download the real PyTorch trees the tests compare against
# (Debian source packages, via ../shared/fetch-pytorch-src) into
# $MK_PYTORCH_TREES (default <repo>/.cache/pytorch, ignored by git).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
fetch=${MK_FETCH:-$repo/../shared/fetch-pytorch-src}
[ -x "$fetch" ] || { echo "fetch.sh: '$fetch' not found" >&2; exit 1; }
"$fetch" "$trees" 2.6.0 1.13.1
