#!/bin/sh
# mps-doctor writes nothing but --save's FILE (issue #15).  Every mode
# runs with every XDG_* folder and TMPDIR (and, in the
# first pass, HOME) pointing at one empty folder, on a read-only copy of
# a checkout holding a project install and settings files; in the second
# pass HOME is a read-only home with a user install, settings and a
# plugin registry.  Afterwards the empty folder is still empty, the
# checkout and the home are unchanged (checksums of every file), and the
# folder of --save FILE holds FILE and nothing else.  Also (where there
# is a /dev/full): a full stdout is a write error (exit 2).
. "$(dirname "$0")/lib.sh"

T=$work/tree H=$work/home E=$work/empty S=$work/saved
make_tree "$T"
mkdir -p "$E" "$S" "$H/.claude/plugins" "$T/.claude"
sh "$repo/tools/install.sh" project "$T" >/dev/null || { echo "install failed"; exit 2; }
HOME=$H sh "$repo/tools/install.sh" user >/dev/null || { echo "install failed"; exit 2; }
echo '{"permissions": {"allow": ["Bash(tools/bin/mps-verify:*)"]}}' >"$T/.claude/settings.json"
echo '{"permissions": {"defaultMode": "acceptEdits"}}' >"$T/.claude/settings.local.json"
echo '{"enabledPlugins": {"metal-kernel@team": true}}' >"$H/.claude/settings.json"
printf '{"version": 2, "plugins": {"metal-kernel@team": [{"scope": "user", "installPath": "%s"}]}}\n' \
  "$H/.claude/skills/metal-kernel" >"$H/.claude/plugins/installed_plugins.json"
chmod -R a-w "$T" "$H"

empty_left() {
  checks=$((checks + 1))
  if [ -n "$(ls -A "$E")" ]; then
    fail "$1: wrote into the empty HOME/XDG/TMPDIR folder:"; ls -AR "$E" | head -n 10
    chmod -R u+w "$E"; rm -rf "$E"; mkdir -p "$E"
  else
    ok "$1: nothing in the empty folder"
  fi
}

for home in "$E" "$H"; do
  export HOME="$home" XDG_STATE_HOME="$E" XDG_CACHE_HOME="$E" XDG_CONFIG_HOME="$E" \
    XDG_DATA_HOME="$E" XDG_RUNTIME_DIR="$E" TMPDIR="$E"
  h=$( [ "$home" = "$E" ] && echo "empty home" || echo "home with installs")
  cd "$T" || exit 2
  for args in "" "--json" "--help" "--version" "--root $T"; do
    expect 0 "" "$H" "mps-doctor $args ($h)" -- mps-doctor $args
    expect 0 "" "$T" "mps-doctor $args ($h): checkout unchanged" -- mps-doctor $args
  done
  expect 0 "" "$T" "mps-doctor --save ($h)" -- mps-doctor --save "$S/rec.json"
  checks=$((checks + 1))
  if [ "$(ls -A "$S")" = rec.json ]; then ok "--save ($h): only FILE in its folder"
  else fail "--save ($h): the folder of FILE holds: $(ls -A "$S" | tr '\n' ' ')"; fi
  expect 0 "" "$T" "mps-doctor --check ($h)" -- mps-doctor --check "$S/rec.json"
  expect 0 "" "$H" "mps-doctor --check --json ($h)" -- mps-doctor --check "$S/rec.json" --json
  expect 2 "cannot read record" "$T" "mps-doctor --check missing ($h)" -- mps-doctor --check "$S/none.json"
  if [ -w /dev/full ]; then
    expect 2 "mps-doctor: write error" "$T" "mps-doctor > /dev/full ($h)" -- \
      sh -c 'exec mps-doctor >/dev/full'
  fi
  cd "$work" || exit 2
  expect 0 "" "$T" "mps-doctor outside a checkout ($h)" -- mps-doctor
  empty_left "$h"
  rm -f "$S/rec.json"
done
chmod -R u+w "$T" "$H"
finish
