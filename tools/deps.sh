#!/bin/sh
# deps.sh — make sure the build (and, with --tests, the test) dependencies
# are present.  Installs them with apt-get (Debian/Ubuntu, as root) or
# Homebrew (macOS); otherwise prints the exact command to run and fails.
# --try (make demo): also a C++ compiler and a python that imports torch,
# which mps-migrate and mps-try use to try the functor's math; Debian's
# python3-torch through apt-get, elsewhere the pip command is printed.
# usage: sh tools/deps.sh [--quiet] [--tests] [--try]
quiet=0 tests=0 try=0
for a in "$@"; do
  case $a in --quiet) quiet=1 ;; --tests) tests=1 ;; --try) try=1 ;; esac
done
say() { [ $quiet = 1 ] || echo "deps: $*"; }

pcs="yaml-0.1 libpcre2-8 zlib jansson"
[ $tests = 1 ] && pcs="$pcs cmocka"
missing=""
if ! command -v pkg-config >/dev/null 2>&1; then
  missing="pkg-config"
else
  for p in $pcs; do
    pkg-config --exists "$p" || missing="$missing $p"
  done
fi
if [ $tests = 1 ] && ! python3 -c 'import yaml, typing_extensions' >/dev/null 2>&1; then
  missing="$missing python3-yaml"
fi
# mps-try's tests: a C++ compiler, and python3 with torch for the CPU
# reference (Debian's python3-torch); without them those tests skip
if [ $try = 1 ] && ! command -v apt-get >/dev/null 2>&1; then
  command -v c++ >/dev/null 2>&1 || command -v clang++ >/dev/null 2>&1 ||
    { echo "deps: no C++ compiler — install Xcode's command line tools (xcode-select --install)" >&2; exit 1; }
  python3 -c 'import torch' >/dev/null 2>&1 ||
    { echo "deps: python3 cannot import torch — run: python3 -m pip install torch" >&2; exit 1; }
fi
if { [ $tests = 1 ] || [ $try = 1 ]; } && command -v apt-get >/dev/null 2>&1; then
  command -v g++ >/dev/null 2>&1 || command -v c++ >/dev/null 2>&1 || missing="$missing g++"
  /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || missing="$missing python3-torch"
fi
[ -z "$missing" ] && { say "all present"; exit 0; }

apt_name() {
  case $1 in
    pkg-config) echo pkgconf ;; yaml-0.1) echo libyaml-dev ;;
    libpcre2-8) echo libpcre2-dev ;; zlib) echo zlib1g-dev ;;
    jansson) echo libjansson-dev ;; cmocka) echo libcmocka-dev ;;
    python3-yaml) echo "python3-yaml python3-typing-extensions" ;;
    g++) echo g++ ;; python3-torch) echo python3-torch ;;
  esac
}
brew_name() {
  case $1 in
    pkg-config) echo pkgconf ;; yaml-0.1) echo libyaml ;;
    libpcre2-8) echo pcre2 ;; zlib) echo zlib ;; jansson) echo jansson ;;
    cmocka) echo cmocka ;; python3-yaml) echo pyyaml ;;
  esac
}
if command -v apt-get >/dev/null 2>&1; then
  pk=""; for m in $missing; do pk="$pk $(apt_name "$m")"; done
  cmd="apt-get install -y$pk"
  if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$pk" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >&2 && exit 0
    echo "deps: '$cmd' failed" >&2; exit 1
  fi
  echo "deps: missing:$missing — run: sudo $cmd" >&2; exit 1
elif command -v brew >/dev/null 2>&1; then
  pk=""; for m in $missing; do pk="$pk $(brew_name "$m")"; done
  echo "deps: installing with Homebrew:$pk" >&2
  brew install $pk >&2 && exit 0
  echo "deps: 'brew install$pk' failed" >&2; exit 1
fi
echo "deps: missing:$missing — install them with your package manager (pkg-config names)" >&2
exit 1
