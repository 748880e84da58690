#!/bin/sh
# CRLF files and files without a final newline must work, for every tool:
# the same findings as the LF tree, and writes that keep the file's style
# (CRLF stays CRLF on every line; the last line stays unterminated).
. "$(dirname "$0")/lib.sh"

L=$work/lf
make_tree "$L"
# crlf DIR / noeol DIR: convert every text file of a tree
to_crlf() { find "$1" -type f | while IFS= read -r f; do
  sed 's/$/\r/' "$f" >"$f.x" && mv "$f.x" "$f"; done; }
no_eol() { find "$1" -type f | while IFS= read -r f; do
  printf '%s' "$(cat "$f")" >"$f.x" && mv "$f.x" "$f"; done; }
# the bytes of FILE with CRs removed / with a final newline added
strip_cr() { tr -d '\r' <"$1"; }

C=$work/crlf; make_tree "$C"; to_crlf "$C"
E=$work/noeol; make_tree "$E"; no_eol "$E"
checks=$((checks + 1))
if grep -q "$(printf '\r')" "$C/$N/native_functions.yaml"; then ok "tree converted to CRLF"
else fail "the CRLF conversion did nothing"; fi

# readers: identical output (stdout and stderr, exit status)
for c in "$OV" "mps-overloads --all --json" "mps-overloads --survey" "$VE" "mps-verify --all" \
         "mps-verify --all --json" "$DI --json" "$RE --json"; do
  # mps-register --json shows the inserted text, which has the file's
  # line ends: compare it with the escaped CRs taken out
  norm=cat
  case $c in mps-register*) norm="sed s/\\\\r//g" ;; esac
  run "$L" $c; want_rc=$rc; $norm <"$work/out" >"$work/want.out"; cp "$work/err" "$work/want.err"
  for v in crlf noeol; do
    V=$work/$v
    checks=$((checks + 1))
    run "$V" $c
    $norm <"$work/out" >"$work/out.n"; mv "$work/out.n" "$work/out"
    if [ "$rc" != "$want_rc" ]; then fail "$v: $c: exit $rc, LF tree $want_rc"
    elif ! cmp -s "$work/out" "$work/want.out"; then fail "$v: $c: stdout differs"
      diff "$work/want.out" "$work/out" | head -n 6
    elif ! cmp -s "$work/err" "$work/want.err"; then fail "$v: $c: stderr differs"
      diff "$work/want.err" "$work/err" | head -n 6
    else ok "$v: $c: same as LF (exit $rc)"; fi
  done
done

# writers: --in-place on each tree; the CRLF result is the LF result with
# CRLF line ends, the no-final-newline result is the LF result without
# its last newline
for c in "$DI" "$RE --host --functor"; do
  for v in lf crlf noeol; do
    rm -rf "$work/w-$v"; cp -R "$work/$v" "$work/w-$v"
    run "$work/w-$v" $c --in-place
    checks=$((checks + 1))
    if [ $rc != 0 ]; then fail "$v: $c --in-place: exit $rc"; sed 's/^/    /' "$work/err" | head -n 3
    else ok "$v: $c --in-place: exit 0"; fi
  done
  for f in $(cd "$work/w-lf" && find . -path ./.metal-kernel -prune -o -type f -print | LC_ALL=C sort); do
    cmp -s "$work/lf/$f" "$work/w-lf/$f" && continue  # not written
    checks=$((checks + 2))
    # every line of the CRLF result ends in CRLF, and CRs aside it is the LF result
    if [ "$(tr -d '\r' <"$work/w-crlf/$f" | wc -l)" = "$(grep -c "$(printf '\r')\$" "$work/w-crlf/$f")" ] &&
       strip_cr "$work/w-crlf/$f" | cmp -s - "$work/w-lf/$f"; then ok "crlf: $c: $f keeps CRLF"
    else fail "crlf: $c: $f: line ends mixed or content differs"
      strip_cr "$work/w-crlf/$f" | diff "$work/w-lf/$f" - | head -n 6; fi
    if [ "$(tail -c 1 "$work/w-noeol/$f" | od -An -c | tr -d ' ')" != '\n' ] &&
       { cat "$work/w-noeol/$f"; echo; } | cmp -s - "$work/w-lf/$f"; then
      ok "noeol: $c: $f keeps no final newline"
    else fail "noeol: $c: $f: final newline added or content differs"
      { cat "$work/w-noeol/$f"; echo; } | diff "$work/w-lf/$f" - | head -n 6; fi
  done
done
finish
