#!/bin/sh
# valgrind.sh — run every CLI golden case (tests/cli/*/*/) with each tool
# under valgrind (memcheck, --leak-check=full), through wrapper scripts
# put first on PATH; valgrind's reports go to log files so the cases'
# output can still be compared with their expected files.
# Reports per case: the comparison, memcheck errors and definitely lost
# bytes.  Only the tools run under valgrind: what mps-try starts (the C++
# compiler, the harness, python) runs natively (no --trace-children), as
# it is not this project's code; a case whose `needs` file exits 77
# skips.  Exit 0 when every run had 0 errors and 0 bytes definitely lost
# and every case still matched, 1 otherwise, 77 without valgrind.
# ONLY=substring runs a subset; MK_JOBS=N runs N cases at a time
# (default: the processors, at most 4).  Not part of `make check` (slow):
# run `sh tests/hardening/valgrind.sh`.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
command -v valgrind >/dev/null 2>&1 || { echo "skip: valgrind not installed"; exit 77; }
only=${ONLY:-}
out=$repo/build/valgrind

# one_case CASE-DIR: run it under the wrappers; its report (first line
# "ok" or "FAIL", then what to show) goes to $out/res/<case>
one_case() {
  c=$1
  rel=${c#"$repo"/}
  res=$out/res/$(echo "$rel" | tr / _)
  w=$out/cases/$rel
  rm -rf "$w"; mkdir -p "$w/work" "$w/state" "$w/logs"
  if [ -d "$c/tree" ]; then cp -R "$c/tree/." "$w/work/"
  elif [ -f "$c/treeref" ]; then cp -R "$repo/$(cat "$c/treeref")/." "$w/work/"
  fi
  # MK_PCRE2_NO_JIT: PCRE2's JIT code reads past the subject in 16-byte
  # steps, which memcheck reports; the interpreter gives the same results.
  (cd "$w/work" && PATH="$out/bin:$PATH" MK_REPO="$repo" MK_PCRE2_NO_JIT=1 \
     MK_VG_LOGS="$w/logs" XDG_STATE_HOME="$w/state" HOME="$w/state" LC_ALL=C \
     sh "$c/cmd" >"$w/stdout" 2>"$w/stderr" </dev/null; echo "RC=$?" >"$w/rc")
  { cat "$w/stdout"; echo "--- stderr"; cat "$w/stderr"; cat "$w/rc"; } |
    sed -e "s|$w/work|<work>|g" -e "s|$w/state|<state>|g" -e "s|$repo|<repo>|g" >"$w/actual"
  match=same
  cmp -s "$w/actual" "$c/expected" || match=DIFFERS
  # with -q valgrind writes only problems: error reports ("==PID== Invalid
  # read ...") and leak records ("==PID== 12 bytes in 1 blocks are
  # definitely lost ...")
  errs=0 lost=0 runs=0
  for l in "$w"/logs/*.log; do
    [ -f "$l" ] || continue
    runs=$((runs + 1))
    [ -s "$l" ] || continue
    e=$(grep -c '^==[0-9]*== [A-Z]' "$l")
    d=$(sed -n 's/^==[0-9]*== \([0-9,]*\) bytes in [0-9,]* blocks are definitely lost.*/\1/p' "$l" |
        tr -d , | awk '{ s += $1 } END { print s + 0 }')
    errs=$((errs + e)); lost=$((lost + d))
    [ "$d" -gt 0 ] && [ "$e" = 0 ] && errs=$((errs + 1))
  done
  if [ "$match" = same ] && [ $errs = 0 ] && [ $lost = 0 ]; then
    echo "ok   $rel ($runs runs)" >"$res"
  else
    { echo "FAIL $rel ($runs runs): output $match, $errs valgrind report lines, $lost bytes definitely lost"
      for l in "$w"/logs/*.log; do [ -s "$l" ] && sed 's/^/    /' "$l" | head -n 30; done
      [ "$match" = same ] || diff "$c/expected" "$w/actual" | head -n 10 | sed 's/^/    /'
    } >"$res"
  fi
}
if [ "${1:-}" = --one ]; then one_case "$2"; exit 0; fi

rm -rf "$out"; mkdir -p "$out/bin" "$out/res" || exit 2
for t in "$repo"/tools/bin/*; do
  [ -f "$t" ] && [ -x "$t" ] || continue  # not mps-run.d (make's prebuilt folder)
  n=$(basename "$t")
  cat >"$out/bin/$n" <<WRAP
#!/bin/sh
exec $(command -v valgrind) -q --error-exitcode=99 --leak-check=full \\
  --errors-for-leak-kinds=definite --show-leak-kinds=definite \\
  --log-file="\${MK_VG_LOGS:-$out}/$n.%p.log" "$t" "\$@"
WRAP
  chmod +x "$out/bin/$n"
done

list=$out/cases.list
: >"$list"
for c in "$repo"/tests/cli/*/*/; do
  c=${c%/}
  [ -f "$c/cmd" ] || continue
  rel=${c#"$repo"/}
  case $rel in *"$only"*) ;; *) continue ;; esac
  # a case that needs what this machine lacks (a C++ compiler, torch)
  # skips, as in run-all.sh
  if [ -f "$c/needs" ]; then
    why=$(MK_REPO="$repo" sh "$c/needs" 2>&1)
    if [ $? = 77 ]; then echo "skip $rel: $why"; continue; fi
  fi
  echo "$c" >>"$list"
done
n=${MK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $n in ''|*[!0-9]*|0) n=1 ;; esac
[ "$n" -gt 4 ] && n=4
xargs -P "$n" -L 1 sh "$repo/tests/hardening/valgrind.sh" --one <"$list"

cases=0 bad=0
while read -r c; do
  cases=$((cases + 1))
  res=$out/res/$(echo "${c#"$repo"/}" | tr / _)
  if [ -f "$res" ]; then cat "$res"; else echo "FAIL ${c#"$repo"/}: no result"; fi
  [ -f "$res" ] && head -n 1 "$res" | grep -q '^ok' || bad=$((bad + 1))
done <"$list"
echo "$cases cases, $bad with valgrind errors, leaks or changed output"
[ $bad = 0 ]
