#!/bin/sh
# A limited address space (ulimit -v): every tool gives the same exit
# status and the same output as without the limit.  diag_init takes the
# heap in one 32 MiB step on Linux/glibc (base/diag.c); once it kept
# asking for steps of 32 MiB, and under a limit of 30 MB every tool died
# "out of memory" where it had run before.
. "$(dirname "$0")/lib.sh"
if grep -q __asan_init "$repo/tools/bin/mps-verify" 2>/dev/null; then
  echo "skip: a sanitizer build reserves terabytes of address space"; exit 77
fi
if ! (ulimit -v 30000) 2>/dev/null; then
  echo "skip: this shell cannot limit the address space (ulimit -v)"; exit 77
fi
T=$work/tree
make_tree "$T"
M=$work/migrate
make_migrate_tree "$M"
for lim in 30000 12000; do
  for c in "$OV" "$OV --json" "mps-overloads --all --json" "$DI" "$VE" \
           "mps-verify --all" "$RE" "$MG"; do
    set -- $c
    tree=$T
    [ "$1" = mps-migrate ] && tree=$M
    (cd "$tree" && "$@" >"$work/want" 2>&1 </dev/null; echo "RC=$?" >>"$work/want")
    (cd "$tree" && ulimit -v "$lim" && "$@" >"$work/got" 2>&1 </dev/null
     echo "RC=$?" >>"$work/got")
    checks=$((checks + 1))
    if cmp -s "$work/want" "$work/got"; then ok "ulimit -v $lim: $c"
    else
      fail "ulimit -v $lim: $c: output or exit status differs"
      diff "$work/want" "$work/got" | head -n 5
    fi
  done
done
finish
