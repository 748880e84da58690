#!/bin/sh
# fetch.sh — download the real PyTorch trees the tests compare against
# into $MK_PYTORCH_TREES (default <repo>/.cache/pytorch, ignored by git):
# 2.6.0 and 1.13.1 (whole source trees, before c10/metal) and 2.14.1
# (today's release, of the c10/metal era; a partial tree: its yaml,
# tags.yaml, torchgen and common_mps.py, no C++ or Metal sources), and
# 2.14.1-metal: that tree plus the real c10/metal/*.h and
# aten/src/ATen/native/mps/**/*.h of the same release (Debian's
# libtorch-dev), for the host layer and every test that compiles Metal code.
#
# The downloader: $MK_FETCH when set, else the workplace's
# ../shared/fetch-pytorch-src beside the repository when present, else
# this script's own: Debian's archive through apt-get, with a private
# source list and state under the trees folder (nothing of the system's
# apt configuration is touched; a few seconds).  2.6.0 and 1.13.1 are the
# upstream tarballs of Debian's source packages; 2.14.1's sources are not
# served, so its files come from the binary package python3-torch.
# Trees already present are kept.  Prints each tree's path.
# Exit: 0 all trees present; 1 a download failed or no downloader.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
trees=${MK_PYTORCH_TREES:-$repo/.cache/pytorch}
versions="2.6.0 1.13.1 2.14.1 2.14.1-metal"

fetch=${MK_FETCH:-}
if [ -z "$fetch" ] && [ -x "$repo/../shared/fetch-pytorch-src" ]; then
  fetch=$repo/../shared/fetch-pytorch-src
fi
if [ -n "$fetch" ]; then
  [ -x "$fetch" ] || { echo "fetch.sh: no downloader: '$fetch' not found" >&2; exit 1; }
  # shellcheck disable=SC2086
  exec "$fetch" "$trees" $versions
fi

fail() { echo "fetch.sh: $1" >&2; exit 1; }
have_all=1
for v in $versions; do
  [ -f "$trees/pytorch-$v/aten/src/ATen/native/native_functions.yaml" ] || have_all=0
done
if [ $have_all = 1 ]; then
  for v in $versions; do echo "$trees/pytorch-$v"; done
  exit 0
fi

command -v apt-get >/dev/null 2>&1 || fail "no downloader: no apt-get (not a Debian machine), and no MK_FETCH"
key=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$key" ] || fail "no downloader: $key missing (apt-get install debian-archive-keyring)"
# the mirror this machine's apt already uses
mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
  tr ' ' '\n' | grep -v security | head -n 1 || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' \
  /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

mkdir -p "$trees"
trees=$(cd "$trees" && pwd)
apt=$trees/.apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
[ -f "$apt/status" ] || : >"$apt/status"
{
  echo "deb-src [signed-by=$key] $mirror bookworm main"
  echo "deb-src [signed-by=$key] $mirror trixie main"
  echo "deb [signed-by=$key arch=amd64] $mirror forky main"
} >"$apt/sources.list"
aptq() {
  apt-get -qq -o Dir::Etc::SourceList="$apt/sources.list" \
    -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt/lists" \
    -o Dir::Cache="$apt/cache" -o Dir::State::status="$apt/status" \
    -o APT::Sandbox::User="$(id -un)" "$@" >&2
}
aptq update || fail "apt-get update from $mirror failed"

for v in $versions; do
  tree=$trees/pytorch-$v
  if [ ! -f "$tree/aten/src/ATen/native/native_functions.yaml" ]; then
    work=$trees/.fetch-$v
    rm -rf "$work" && mkdir -p "$work/unpacked"
    case $v in
      2.6.0) deb=2.6.0+dfsg-7 ;;
      1.13.1) deb=1.13.1+dfsg-4 ;;
      2.14.1|2.14.1-metal) deb=2.14.1+dfsg-1 ;;
    esac
    if [ "$v" = 2.14.1 ] || [ "$v" = 2.14.1-metal ]; then
      (cd "$work" && aptq download "python3-torch=$deb") ||
        fail "python3-torch $deb could not be downloaded"
      dpkg-deb -x "$work"/python3-torch_*.deb "$work/deb" || fail "python3-torch $deb does not unpack"
      pk=$work/deb/usr/lib/python3/dist-packages
      t=$work/unpacked/pytorch
      mkdir -p "$t/aten/src/ATen/native" "$t/torch/testing/_internal"
      cp "$pk/torchgen/packaged/ATen/native/native_functions.yaml" \
        "$pk/torchgen/packaged/ATen/native/tags.yaml" "$t/aten/src/ATen/native/"
      cp -R "$pk/torchgen" "$t/torchgen"
      cp "$pk/torch/testing/_internal/common_mps.py" "$t/torch/testing/_internal/"
      if [ "$v" = 2.14.1-metal ]; then
        (cd "$work" && aptq download "libtorch-dev=$deb") ||
          fail "libtorch-dev $deb could not be downloaded"
        dpkg-deb -x "$work"/libtorch-dev_*.deb "$work/h" || fail "libtorch-dev $deb does not unpack"
        mkdir -p "$t/c10/metal" "$t/aten/src/ATen/native/mps"
        cp "$work"/h/usr/include/c10/metal/*.h "$t/c10/metal/"
        cp -R "$work"/h/usr/include/ATen/native/mps/. "$t/aten/src/ATen/native/mps/"
      fi
    else
      (cd "$work" && aptq source --download-only --tar-only "pytorch=$deb") ||
        fail "the pytorch $deb sources could not be downloaded"
      tar -xf "$(ls "$work"/pytorch_*.orig.tar.* | head -n 1)" -C "$work/unpacked" ||
        fail "the pytorch $deb sources do not unpack"
    fi
    top=$(ls "$work/unpacked" | head -n 1)
    rm -rf "$tree" && mv "$work/unpacked/$top" "$tree" && rm -rf "$work"
  fi
  echo "$tree"
done
