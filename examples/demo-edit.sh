#!/bin/sh
# demo-edit.sh — the hand edits of the worked examples, as replayable commands.
#
# In a real checkout you make these edits in your editor. The walkthroughs
# (examples/*.md) use this script instead so that `make demo` can replay
# them exactly. Plain POSIX sh + awk; edits one file in place.
#
#   demo-edit.sh replace-struct FILE NAME   replace `struct NAME {` ... `};`
#                                           with the text read from stdin
#   demo-edit.sh delete-block FILE TEXT     delete from the first line that
#                                           starts with TEXT through the next
#                                           line that is exactly `}` (plus one
#                                           blank line after it)
#   demo-edit.sh delete-line FILE TEXT      delete every line containing TEXT
#
# Prints "FILE: N removed, M added (lines)". Exit 0 done, 1 nothing matched
# (file unchanged), 2 usage or I/O error.
set -u
prog=demo-edit.sh
[ $# -eq 3 ] || { echo "usage: $prog replace-struct|delete-block|delete-line FILE ARG" >&2; exit 2; }
cmd=$1 file=$2 arg=$3
[ -f "$file" ] || { echo "$prog: cannot open '$file'" >&2; exit 2; }
tmp="$file.demo-edit.$$"
new="$file.demo-new.$$"
trap 'rm -f "$tmp" "$new"' EXIT HUP INT TERM

case $cmd in
replace-struct)
  cat >"$new" || exit 2
  awk -v name="$arg" -v newf="$new" '
    BEGIN { state = 0 }
    state == 0 && index($0, "struct " name " {") == 1 {
      state = 1; removed++
      while ((getline l < newf) > 0) { print l; added++ }
      next
    }
    state == 1 { removed++; if ($0 == "};") state = 2; next }
    { print }
    END { printf "%d %d\n", removed, added > "/dev/stderr"; exit(state == 2 ? 0 : 1) }
  ' "$file" >"$tmp" 2>"$tmp.n" || { rm -f "$tmp.n"; echo "$prog: $file: no 'struct $arg {' block" >&2; exit 1; }
  ;;
delete-block)
  awk -v text="$arg" '
    BEGIN { state = 0 }
    state == 0 && index($0, text) == 1 { state = 1; removed++; next }
    state == 1 { removed++; if ($0 == "}") state = 2; next }
    state == 2 { state = 3; if ($0 == "") { removed++; next } }
    { print }
    END { printf "%d 0\n", removed > "/dev/stderr"; exit(state >= 2 ? 0 : 1) }
  ' "$file" >"$tmp" 2>"$tmp.n" || { rm -f "$tmp.n"; echo "$prog: $file: no block starting with '$arg'" >&2; exit 1; }
  ;;
delete-line)
  awk -v text="$arg" '
    index($0, text) > 0 { removed++; next }
    { print }
    END { printf "%d 0\n", removed > "/dev/stderr"; exit(removed > 0 ? 0 : 1) }
  ' "$file" >"$tmp" 2>"$tmp.n" || { rm -f "$tmp.n"; echo "$prog: $file: no line contains '$arg'" >&2; exit 1; }
  ;;
*)
  echo "$prog: unknown command '$cmd'" >&2; exit 2 ;;
esac

read -r removed added <"$tmp.n"
rm -f "$tmp.n"
cat "$tmp" >"$file" || exit 2
echo "$file: $removed removed, $added added (lines)"
