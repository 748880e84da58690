#!/bin/sh
# install.sh — install or remove the metal-kernel skill.  Called by make:
#
#   sh tools/install.sh project PYTORCH_DIR   (make install PYTORCH=DIR)
#       -> PYTORCH_DIR/.claude/skills/metal-kernel/
#   sh tools/install.sh user                  (make install-user)
#       -> ~/.claude/skills/metal-kernel/
#   sh tools/install.sh uninstall [PYTORCH_DIR]   (make uninstall [PYTORCH=DIR])
#       removes what the matching install put there (user install when no
#       PYTORCH_DIR is given)
#
# Installs SKILL.md, references/, examples/, tools/bin/* (mode 0755; built
# on this machine by `make`) and tools/metal-host/ (mps-try's host layer),
# plus the slash commands .claude/commands/*.md
# into the neighbouring .claude/commands/ unless a different file of the same
# name is already there.  Every installed path is listed in
# skills/metal-kernel/.installed, and uninstall removes exactly those paths
# (then empty folders), nothing else.  Re-installing first removes the files
# of the previous install.  Uses no network.
#
# Exit: 0 done, 2 error (nothing changed where the error was found first).
set -u
prog=install.sh
repo=$(cd "$(dirname "$0")/.." && pwd) || exit 2
name=metal-kernel
tools="mps-overloads mps-dispatch mps-register mps-verify mps-doctor mps-migrate mps-try mps-run"

die() { echo "$prog: error: $*" >&2; exit 2; }

usage() {
  echo "usage: sh tools/install.sh project PYTORCH_DIR | user | uninstall [PYTORCH_DIR]" >&2
  exit 2
}

# base_for MODE [DIR]: the .claude folder to work in.
project_base() {
  [ -n "${1:-}" ] || die "no PyTorch checkout given: run 'make install PYTORCH=/path/to/pytorch'"
  [ -d "$1" ] || die "'$1' is not a folder"
  [ -f "$1/aten/src/ATen/native/native_functions.yaml" ] ||
    die "'$1' does not look like a PyTorch checkout (no aten/src/ATen/native/native_functions.yaml)"
  echo "$(cd "$1" && pwd)/.claude"
}
user_base() {
  [ -n "${HOME:-}" ] || die "HOME is not set"
  echo "$HOME/.claude"
}

# remove_installed BASE: delete the files listed in the manifest, then the
# folders that became empty.  Returns 1 when there is no manifest.
remove_installed() {
  base=$1
  man=$base/skills/$name/.installed
  [ -f "$man" ] || return 1
  while IFS= read -r rel; do
    case $rel in ''|/*|*..*) continue ;; esac
    if [ -f "$base/$rel" ] || [ -L "$base/$rel" ]; then rm -f "$base/$rel"; fi
  done <"$man"
  rm -f "$man"
  # Folders: deepest first; rmdir only succeeds on empty ones.
  sort -r "$man.dirs" 2>/dev/null | while IFS= read -r rel; do
    case $rel in ''|/*|*..*) continue ;; esac
    rmdir "$base/$rel" 2>/dev/null || true
  done
  rm -f "$man.dirs"
  rmdir "$base/skills/$name" "$base/skills" "$base/commands" "$base" 2>/dev/null || true
  return 0
}

install_to() {
  base=$1
  dest=$base/skills/$name
  for t in $tools; do
    [ -x "$repo/tools/bin/$t" ] || die "tools/bin/$t is not built: run 'make' first"
  done
  if [ -d "$dest" ] && [ ! -f "$dest/.installed" ]; then
    [ -z "$(ls -A "$dest")" ] || die "'$dest' exists and was not installed by $prog; remove it yourself"
  fi
  remove_installed "$base" || true

  stage=$(mktemp -d "${TMPDIR:-/tmp}/mk-install.XXXXXX") || die "cannot make a temporary folder"
  trap 'rm -rf "$stage"' EXIT HUP INT TERM
  mkdir -p "$stage/skill/tools/bin" || die "cannot write '$stage'"
  cp "$repo/SKILL.md" "$stage/skill/" || die "cannot copy SKILL.md"
  cp -R "$repo/references" "$stage/skill/references" || die "cannot copy references/"
  cp -R "$repo/examples" "$stage/skill/examples" || die "cannot copy examples/"
  for t in $tools; do
    cp "$repo/tools/bin/$t" "$stage/skill/tools/bin/$t" || die "cannot copy tools/bin/$t"
    chmod 0755 "$stage/skill/tools/bin/$t"
  done
  # the Metal host layer mps-try compiles against, found beside tools/bin
  if [ -d "$repo/tools/metal-host" ]; then
    cp -R "$repo/tools/metal-host" "$stage/skill/tools/metal-host" ||
      die "cannot copy tools/metal-host/"
  fi
  find "$stage/skill" -name '*.pyc' -exec rm -f {} + 2>/dev/null
  find "$stage/skill" -type d -name __pycache__ -exec rm -rf {} + 2>/dev/null

  mkdir -p "$dest" || die "cannot create '$dest'"
  (cd "$stage/skill" && find . -type d) | sed 's|^\./*||' | while IFS= read -r d; do
    [ -n "$d" ] && mkdir -p "$dest/$d"
  done
  man=$dest/.installed
  : >"$man" || die "cannot write '$man'"
  (cd "$stage/skill" && find . -type d) | sed "s|^\\.|skills/$name|" >"$man.dirs"
  (cd "$stage/skill" && find . -type f) | sed 's|^\./||' | while IFS= read -r f; do
    cp -p "$stage/skill/$f" "$dest/$f" || exit 2
    echo "skills/$name/$f" >>"$man"
  done || die "copy into '$dest' failed"

  # Slash commands, unless someone else's file of that name is there.
  mkdir -p "$base/commands" || die "cannot create '$base/commands'"
  for c in "$repo"/.claude/commands/*.md; do
    [ -f "$c" ] || continue
    n=$(basename "$c")
    if [ -e "$base/commands/$n" ] && ! cmp -s "$c" "$base/commands/$n"; then
      echo "$prog: note: $base/commands/$n exists and differs; left as it is" >&2
      continue
    fi
    cp "$c" "$base/commands/$n" || die "cannot copy command $n"
    echo "commands/$n" >>"$man"
  done
  rmdir "$base/commands" 2>/dev/null || true

  echo "installed $name into $dest ($(wc -l <"$man" | tr -d ' ') files)"
  echo "keep a record of this setup: $dest/tools/bin/mps-doctor --save FILE (README: mps-doctor)"
}

[ $# -ge 1 ] || usage
case $1 in
project)
  [ $# -le 2 ] || usage
  base=$(project_base "${2:-}") || exit 2
  install_to "$base"
  ;;
user)
  [ $# -eq 1 ] || usage
  base=$(user_base) || exit 2
  install_to "$base"
  ;;
uninstall)
  [ $# -le 2 ] || usage
  if [ -n "${2:-}" ]; then base=$(project_base "$2") || exit 2
  else base=$(user_base) || exit 2; fi
  if remove_installed "$base"; then
    echo "removed $name from $base/skills/$name"
  else
    echo "$prog: nothing to uninstall in $base/skills/$name"
  fi
  ;;
*) usage ;;
esac
