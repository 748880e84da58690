#!/bin/sh
# fetch.sh — download the real PyTorch trees the tests compare against
# into $MK_PYTORCH_TREES (default <repo>/.cache/pytorch, ignored by git):
# 2.6.0 and 1.13.1 (whole source trees, before c10/metal) and 2.14.1
# (today's release, of the c10/metal era; a partial tree: its yaml,
# tags.yaml, torchgen and common_mps.py, no C++ or Metal sources).
# Uses the workplace's downloader, ../shared/fetch-pytorch-src beside the
# repository, or the one $MK_FETCH names; it reads Debian's archive with
# apt-get and a private source list (a few seconds).
# Exit: 0 all trees present; 1 a download failed or no downloader.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
fetch=${MK_FETCH:-$repo/../shared/fetch-pytorch-src}
[ -x "$fetch" ] || { echo "fetch.sh: no downloader: '$fetch' not found" >&2; exit 1; }
"$fetch" "$trees" 2.6.0 1.13.1 2.14.1
