# lib.sh — sourced by the mps-doctor golden cases (tests/cli/mps-doctor/*/cmd).
#
# The runner (tests/run-all.sh) starts each case in a fresh copy of its
# tree with HOME=<state> (an empty private folder), tools/bin first on
# PATH and MK_REPO set; the helpers here build fixture homes, installs
# and plugins from that, and mask what differs from one machine to the
# next, so the expected files hold on any machine:
#   - this build's own checksums and sources id (they change with every
#     build), found by asking `mps-doctor --json` and replaced wherever
#     they appear, by <sources>, <build-crc>, <SKILL.md-crc>, <TOOL-crc>;
#   - the compiler, architecture and library lines of "this build:".
# Everything else (fixture installs, rules, states, the tree, warnings,
# drift lines) is compared as printed.  The record itself is tested on
# its own (tests/unit/test_setup.c; tests/real/t-doctor-real.sh).
unset CLAUDE_CONFIG_DIR
masks=${TMPDIR:-/tmp}/mk-doctor-masks.$$
trap 'rm -f "$masks" "$masks.out"' EXIT

# make_masks: the sed script that masks this build's ids (see above)
make_masks() {
  mps-doctor --json | python3 -c '
import json, sys
b = json.load(sys.stdin)["build"]
subs = []
if b.get("sources"): subs.append((b["sources"], "<sources>"))
if b.get("checksum"): subs.append((b["checksum"], "<build-crc>"))
if b.get("skill_md"): subs.append((b["skill_md"], "<SKILL.md-crc>"))
for n, c in sorted(b["tools"].items()): subs.append((c, "<%s-crc>" % n))
for v, t in subs: print("s/%s/%s/g" % (v, t))
' >"$masks"
}

# doctor_filter: stdin -> stdout, masked
doctor_filter() {
  [ -s "$masks" ] || make_masks
  sed -f "$masks" | sed -E \
    -e '/^this build:/,/^$/s/^(  compiler ).*/\1<compiler>; <architecture>/' \
    -e '/^this build:/,/^$/s/^(  (libyaml|PCRE2|zlib|jansson)) .*/\1 <versions>/' \
    -e 's/^(drift: build: (compiler|architecture [a-z]+|(libyaml|PCRE2|zlib|jansson) [A-Za-z ]+): .* -> ).*/\1<this machine>/'
}

# doctor ARGS...: run mps-doctor (or $DOCTOR), print its stdout masked,
# then "rc=N"
doctor() {
  ${DOCTOR:-mps-doctor} "$@" >"$masks.out"
  _rc=$?
  doctor_filter <"$masks.out"
  echo "rc=$_rc"
}

# old_install DIR VERSION: a made-up copy of the skill from an older
# release: its own SKILL.md (allowed-tools naming a tool it lacks) and two
# stand-in tools carrying that release's marker
old_install() {
  mkdir -p "$1/tools/bin"
  cat >"$1/SKILL.md" <<SKILL
---
name: metal-kernel
description: An older copy of the metal-kernel skill, made up for the tests of mps-doctor.
allowed-tools: Bash(\${CLAUDE_SKILL_DIR}/tools/bin/mps-overloads:*), Bash(\${CLAUDE_SKILL_DIR}/tools/bin/mps-verify:*), Bash(\${CLAUDE_SKILL_DIR}/tools/bin/mps-fold:*), Read
---
# metal-kernel, release $2
SKILL
  for t in mps-overloads mps-verify; do
    printf '#!/bin/sh\n# stands for %s of release %s\n# @(#)metal-kernel %s sources 1111111111\nexit 2\n' \
      "$t" "$2" "$2" >"$1/tools/bin/$t"
    chmod +x "$1/tools/bin/$t"
  done
}

# plugin_copy DIR: this repository as a plugin folder (what a marketplace
# install would hold): plugin.json, SKILL.md and the built tools
plugin_copy() {
  mkdir -p "$1/.claude-plugin" "$1/tools/bin"
  cp "$MK_REPO/.claude-plugin/plugin.json" "$1/.claude-plugin/"
  cp "$MK_REPO/SKILL.md" "$1/"
  for f in "$MK_REPO"/tools/bin/mps-*; do
    # the tools, not mps-run's prebuilt folder (mps-run.d)
    [ -f "$f" ] && cp "$f" "$1/tools/bin/"
  done
}
