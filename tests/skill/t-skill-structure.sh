#!/bin/sh
# SKILL.md's promises hold (issue #6): frontmatter rules, every tool it
# names exists and answers --help, every reference file is linked from it,
# every relative link resolves.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$repo" || exit 2
fail=0
bad() { echo "FAIL: $*"; fail=1; }

lines=$(wc -l < SKILL.md)
[ "$lines" -le 500 ] || bad "SKILL.md has $lines lines (max 500)"
fm=$(awk 'NR==1 && $0=="---" {in_fm=1; next} in_fm && $0=="---" {exit} in_fm' SKILL.md)
echo "$fm" | grep -qx 'name: metal-kernel' || bad "frontmatter name is not metal-kernel"
desc=$(echo "$fm" | sed -n 's/^description: //p')
[ -n "$desc" ] || bad "no description"
[ "${#desc}" -le 1024 ] || bad "description has ${#desc} characters (max 1024)"
case $desc in *'<'*|*'>'*) bad "description holds < or >" ;; esac
allowed=$(echo "$fm" | sed -n 's/^allowed-tools: //p')

# every tool named in the body is in allowed-tools, exists and answers --help
for t in $(grep -o 'tools/bin/mps-[a-z]*' SKILL.md | sort -u); do
  tool=${t#tools/bin/}
  case $allowed in *"\${CLAUDE_SKILL_DIR}/tools/bin/$tool"*) ;; *) bad "$tool not in allowed-tools" ;; esac
  [ -x "$t" ] || { bad "$t is not built"; continue; }
  "$t" --help >/tmp/mk-help.$$ 2>&1 || bad "$tool --help exits $?"
  grep -q "^usage: $tool" /tmp/mk-help.$$ || bad "$tool --help prints no usage line"
  grep -qi 'network' /tmp/mk-help.$$ || bad "$tool --help does not say whether it uses the network"
done
rm -f /tmp/mk-help.$$
for t in mps-overloads mps-dispatch mps-register mps-verify mps-doctor mps-migrate; do
  grep -q "tools/bin/$t" SKILL.md || bad "SKILL.md never calls $t"
done

# every reference is linked from SKILL.md with "read this when"
for r in references/*.md; do
  grep -q "($r)" SKILL.md || bad "$r is not linked from SKILL.md"
done
n=$(grep -ci 'read this when' SKILL.md)
[ "$n" -ge "$(ls references/*.md | wc -l)" ] || bad "only $n 'read this when' introductions"

# relative links in SKILL.md, references/ and examples/ resolve
for f in SKILL.md references/*.md examples/*.md; do
  d=$(dirname "$f")
  for l in $(grep -o '](\([^)#]*\)' "$f" | sed 's/^](//' | grep -v '^[a-z]*:'); do
    [ -e "$d/$l" ] || bad "$f links to missing '$l'"
  done
done
[ $fail = 0 ] && echo "SKILL.md: $lines lines, description ${#desc} characters, all tools and references present"
exit $fail
