#!/bin/sh
# Operator (and kernel) names with '/', '..', spaces, ';' or shell
# characters are rejected before any file access: with a root that does
# not exist the name error, not "cannot open root", must be the message;
# with strace (when installed) no file of a real tree is touched.
. "$(dirname "$0")/lib.sh"

T=$work/tree
make_tree "$T"
nr=$work/no-such-root
cd "$work" || exit 2
i=0
for op in 'a/b' '..' '../etc/passwd' 'a..b' 'a b' ' add' 'add;rm' 'a|b' 'a&b' \
          '$(touch pwned)' '`touch pwned`' 'a*' 'a?' "a'b" 'a"b' 'a>b' 'a\b' \
          '.add' 'add.' 'a.b.c' '' '-' 'add
x'; do
  i=$((i + 1))
  for tool in mps-overloads mps-dispatch mps-verify mps-migrate; do
    expect 2 "$tool: error: '$op' is not an operator name" "$T" \
      "$tool: bad operator name #$i" -- $tool --root "$nr" -- "$op"
  done
  expect 2 "mps-register: error: invalid kernel name '$op'" "$T" \
    "mps-register: bad kernel name #$i" -- mps-register --root "$nr" --preset float -- unary "$op"
  expect 2 "mps-dispatch: error: '$op' is not an operator name" "$T" \
    "mps-dispatch --in-place: bad operator name #$i" -- mps-dispatch --in-place --root "$T" -- "$op"
done
checks=$((checks + 1))
if [ -e "$work/pwned" ] || [ -e "$T/pwned" ]; then fail "a shell character was run"
else ok "no shell ran"; fi

# strace: not one open/stat of a path under the tree before the refusal
if command -v strace >/dev/null 2>&1 &&
   strace -f -o /dev/null true >/dev/null 2>&1; then
  for c in "mps-overloads" "mps-dispatch --in-place" "mps-verify" \
           "mps-register --preset float"; do
    kind=; case $c in mps-register*) kind=unary ;; esac
    checks=$((checks + 1))
    # LeakSanitizer (make check-asan) cannot run under a tracer: off here
    # shellcheck disable=SC2086
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
      strace -f -o "$work/trace" $c --root "$T" -- $kind 'a;b' >"$work/out" 2>"$work/err"
    rc=$?
    set -- $c
    if [ $rc != 2 ]; then fail "$c under strace: exit $rc"
    elif ! grep -qF "'a;b'" "$work/err"; then fail "$c under strace: not refused for the name"
      sed 's/^/    /' "$work/err" | head -n 3
    elif grep -F "$T" "$work/trace" | grep -v 'execve(' >"$work/hits"; then
      fail "$c touched the tree before refusing the name:"; head -n 3 "$work/hits"
    else ok "$1: no access to the tree (strace)"; fi
  done
else
  echo "note: strace not available or not permitted; the nonexistent-root checks stand alone"
fi
finish
