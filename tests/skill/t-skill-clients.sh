#!/bin/sh
# Real clients accept the skill (issue #6): `claude plugin validate --strict`
# on the installed layout and on the plugin, `claude plugin details` lists
# the skill, and `skill-check check` finds 0 errors.  The clients are the
# npm packages pinned in tests/skill/package.json (`npm ci` there; .ci/run
# does it).  Skipped when they are not installed, except in CI.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$repo/tests/skill/node_modules/.bin
if [ ! -x "$bin/claude" ] || [ ! -x "$bin/skill-check" ]; then
  if [ "${CI:-}" = true ]; then echo "validators missing in CI"; exit 1; fi
  echo "skipped: validators not installed (cd tests/skill && npm ci)"
  exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home; mkdir -p "$HOME"
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
fail=0
# timeout(1) is not on every Mac; run without a limit there
command -v timeout >/dev/null 2>&1 || timeout() { shift; "$@"; }
cp -R "$repo/examples/demo-tree" "$tmp/pytorch"
sh "$repo/tools/install.sh" project "$tmp/pytorch" >/dev/null || { echo "install failed"; exit 1; }
inst=$tmp/pytorch/.claude/skills/metal-kernel
[ -x "$inst/tools/bin/mps-verify" ] || { echo "installed tools missing"; fail=1; }

for dir in "$tmp/pytorch/.claude" "$repo"; do
  timeout 120 "$bin/claude" plugin validate --strict "$dir" >"$tmp/v" 2>&1; rc=$?
  if [ $rc != 0 ] || ! grep -q 'Validation passed' "$tmp/v"; then
    echo "claude plugin validate --strict $dir: exit $rc"; cat "$tmp/v"; fail=1
  else echo "claude plugin validate --strict: passed ($(basename "$dir"))"; fi
done
timeout 120 "$bin/claude" --plugin-dir "$repo" plugin details metal-kernel >"$tmp/d" 2>&1
grep -q 'Skills (1) *metal-kernel' "$tmp/d" || { echo "plugin details does not list the skill"; cat "$tmp/d"; fail=1; }

timeout 120 "$bin/skill-check" check "$inst" --no-security-scan --format json >"$tmp/s" 2>/dev/null
errors=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["errorCount"])' "$tmp/s" 2>/dev/null)
if [ "$errors" != 0 ]; then echo "skill-check: ${errors:-unreadable report} errors"; head -c 2000 "$tmp/s"; fail=1
else echo "skill-check: 0 errors"; fi
exit $fail
