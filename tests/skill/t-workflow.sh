#!/bin/sh
# examples/ci/mps-verify-code-scanning.yml: a GitHub Actions workflow that
# parses as YAML, whose steps build the tools with a target the Makefile
# has, write the SARIF file the upload step sends, and whose mps-verify
# command line works here (on the demo tree, with this build).
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
wf=$repo/examples/ci/mps-verify-code-scanning.yml
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$wf" >"$tmp/cmd" <<'PY' || exit 1
import re, sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
steps = w["jobs"]["mps-verify"]["steps"]
runs = "\n".join(s.get("run", "") for s in steps)
up = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
assert len(up) == 1, "one upload-sarif step"
sarif = up[0]["with"]["sarif_file"]
assert "make -C metal-kernel tools" in runs, "builds with make tools"
m = re.search(r"metal-kernel/tools/bin/(mps-verify [^>\n]*--format sarif) > (\S+)", runs)
assert m and m.group(2) == sarif, "the verify step writes the uploaded file"
assert w["permissions"]["security-events"] == "write"
print(m.group(1).replace("--root pytorch", ""))
PY
grep -q '^tools:' "$repo/Makefile" || { echo "FAIL: no 'tools' target in the Makefile"; exit 1; }
cp -R "$repo/examples/demo-tree" "$tmp/pytorch"
(cd "$tmp/pytorch" && PATH=$repo/tools/bin:$PATH $(cat "$tmp/cmd") >"$tmp/out.sarif"); rc=$?
[ $rc -le 1 ] || { echo "FAIL: '$(cat "$tmp/cmd")' exited $rc"; exit 1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == "2.1.0"' "$tmp/out.sarif" ||
  { echo "FAIL: not a SARIF 2.1.0 log"; exit 1; }
echo "ok: workflow parses; '$(cat "$tmp/cmd")' gives SARIF 2.1.0 (exit $rc)"
