#!/bin/sh
# run-demo.sh — replay the worked examples on a copy of the demo tree.
# Called by `make demo`.
#
# Each walkthrough (examples/add-unary-op.md, examples/migrate-binary-op.md)
# holds ```console blocks. In them a line "$ CMD" is a command (a trailing
# backslash continues it; a here-document "<<'EOF'" runs to its EOF line);
# the lines after it, up to the next "$ " or the end of the block, are what
# the command prints (stdout and stderr together). A last output line
# "(exit N)" gives the expected exit status; without it the status must be 0.
#
# The script copies examples/demo-tree to a temporary folder, runs every
# command there in order, with tools/bin first on PATH, and compares what it
# prints with the walkthrough. A tool that is not built is reported by name
# and the rest of that walkthrough is skipped. Finally `mps-verify` must be
# clean for the operators the walkthroughs changed.
#
# Environment: UPDATE=1 rewrites the walkthroughs' outputs with what the
# commands printed (review the diff!). KEEP=1 keeps the temporary folder.
# Exit: 0 every step matched and verify is clean; 1 a mismatch or a missing
# tool; 2 setup error.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd) || exit 2
examples=$repo/examples
walks="add-unary-op.md migrate-binary-op.md own-kernel-op.md"
verify_ops="i0 atan2 max"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mk-demo.XXXXXX") || exit 2
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT HUP INT TERM
else echo "run-demo: keeping $tmp"; fi
mkdir -p "$tmp/tree" "$tmp/state" "$tmp/steps" || exit 2
cp -R "$examples/demo-tree/." "$tmp/tree/" || exit 2

fail=0 pass=0 missing=""

# parse WALK DIR: writes DIR/N.cmd, DIR/N.exp, DIR/N.rc for each command.
parse() {
  awk -v dir="$2" '
    function flush() {
      if (n == 0 || flushed[n]) return
      flushed[n] = 1
      rc = 0
      if (nout > 0 && out[nout] ~ /^\(exit [0-9]+\)$/) {
        rc = out[nout]; gsub(/[^0-9]/, "", rc); nout--
      }
      f = dir "/" n ".exp"; printf "" > f
      for (i = 1; i <= nout; i++) print out[i] > f
      close(f)
      print rc > (dir "/" n ".rc"); close(dir "/" n ".rc")
      nout = 0
    }
    /^```console[ \t]*$/ { inblock = 1; next }
    inblock && /^```[ \t]*$/ { flush(); inblock = 0; mode = ""; next }
    !inblock { next }
    mode == "cont" || mode == "here" {
      print > cmdf
      if (mode == "cont" && $0 !~ /\\$/) { mode = ""; close(cmdf) }
      else if (mode == "here" && $0 == delim) { mode = ""; close(cmdf) }
      next
    }
    /^\$ / {
      flush(); n++
      cmdf = dir "/" n ".cmd"
      line = substr($0, 3)
      print line > cmdf
      if (line ~ /\\$/) mode = "cont"
      else if (match(line, /<<-?[ ]*'"'"'?[A-Za-z_]+'"'"'?/)) {
        delim = substr(line, RSTART, RLENGTH)
        gsub(/[<\-'"'"' ]/, "", delim)
        mode = "here"
      } else close(cmdf)
      next
    }
    { out[++nout] = $0 }
    END { flush() }
  ' "$1"
}

# update WALK DIR: rewrite the outputs in WALK from DIR/N.out and DIR/N.got.
update() {
  awk -v dir="$2" '
    function emit_out() {
      if (n == 0 || done[n]) return
      done[n] = 1
      f = dir "/" n ".out"
      while ((getline l < f) > 0) print l
      close(f)
      f = dir "/" n ".got"
      if ((getline rc < f) > 0 && rc != 0) print "(exit " rc ")"
      close(f)
    }
    /^```console[ \t]*$/ { inblock = 1; print; next }
    inblock && /^```[ \t]*$/ { if (mode == "") emit_out(); inblock = 0; print; next }
    !inblock { print; next }
    mode == "cont" || mode == "here" {
      print
      if (mode == "cont" && $0 !~ /\\$/) mode = ""
      else if (mode == "here" && $0 == delim) mode = ""
      if (mode == "") emit_out()
      next
    }
    /^\$ / {
      emit_out(); n++; print
      line = substr($0, 3)
      if (line ~ /\\$/) mode = "cont"
      else if (match(line, /<<-?[ ]*'"'"'?[A-Za-z_]+'"'"'?/)) {
        delim = substr(line, RSTART, RLENGTH)
        gsub(/[<\-'"'"' ]/, "", delim)
        mode = "here"
      } else emit_out()
      next
    }
    { next }  # old output: dropped, replaced by emit_out
  ' "$1"
}

for w in $walks; do
  md=$examples/$w
  d=$tmp/steps/${w%.md}
  mkdir -p "$d"
  if [ ! -f "$md" ]; then echo "run-demo: missing walkthrough $md"; fail=$((fail + 1)); continue; fi
  parse "$md" "$d"
  echo "=== $w"
  i=1
  while [ -f "$d/$i.cmd" ]; do
    # Which of our tools does the step call? Each must be built.
    need=$(grep -o 'mps-[a-z]*' "$d/$i.cmd" | sort -u)
    gap=""
    for t in $need; do
      case $t in mps-overloads|mps-dispatch|mps-register|mps-verify|mps-migrate) ;; *) continue ;; esac
      [ -x "$repo/tools/bin/$t" ] || gap="$gap $t"
    done
    if [ -n "$gap" ]; then
      for t in $gap; do
        case " $missing " in *" $t "*) ;; *) missing="$missing $t" ;; esac
      done
      echo "run-demo: MISSING TOOL:$gap (tools/bin/ not built) - skipping the rest of $w"
      fail=$((fail + 1))
      break
    fi
    sed 's/^/$ /;2,$s/^\$ /  /' "$d/$i.cmd"
    (cd "$tmp/tree" && PATH="$repo/tools/bin:$PATH" LC_ALL=C \
       XDG_STATE_HOME="$tmp/state" EXAMPLES="$examples" \
       sh "$d/$i.cmd" >"$d/$i.out" 2>&1 </dev/null; echo $? >"$d/$i.got")
    sed 's/^/  /' "$d/$i.out"
    want=$(cat "$d/$i.rc") got=$(cat "$d/$i.got")
    if [ "$want" = "$got" ] && cmp -s "$d/$i.exp" "$d/$i.out"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "run-demo: MISMATCH in $w step $i (exit: want $want, got $got)"
      diff -u "$d/$i.exp" "$d/$i.out" | sed 's/^/    /' | head -n 40
    fi
    i=$((i + 1))
  done
  if [ -n "${UPDATE:-}" ]; then
    update "$md" "$d" >"$d/new.md" && cat "$d/new.md" >"$md" && echo "run-demo: rewrote $w"
  fi
done

# The demo ends with the changed operators verifying clean.
echo "=== final check"
if [ -x "$repo/tools/bin/mps-verify" ]; then
  if (cd "$tmp/tree" && "$repo/tools/bin/mps-verify" $verify_ops); then
    echo "run-demo: mps-verify $verify_ops: clean"; pass=$((pass + 1))
  else
    echo "run-demo: mps-verify $verify_ops: NOT clean"; fail=$((fail + 1))
  fi
else
  case " $missing " in *" mps-verify "*) ;; *) missing="$missing mps-verify" ;; esac
  echo "run-demo: MISSING TOOL: mps-verify - cannot check the result"
  fail=$((fail + 1))
fi

[ -n "$missing" ] && echo "run-demo: tools not built:$missing (run make)"
echo "run-demo: $pass steps passed, $fail failed"
[ "$fail" -eq 0 ]
