#!/bin/sh
# The test runner itself: a real test whose tree is missing counts as
# skipped, never as failed, whether the trees cannot be fetched or
# fetching is turned off; the summary line says so and the exit is 0.
. "$(dirname "$0")/lib.sh"
one=tests/real/t-verify-real-2.14
runner() {
  MK_TEST_OUT=$work/out MK_PYTORCH_TREES=$work/no-trees ONLY=$one \
    sh "$repo/tests/run-all.sh" >"$work/run.out" 2>&1
}
checks=$((checks + 1))
MK_NO_FETCH=1 runner; rc=$?
if [ $rc = 0 ] && [ "$(cat "$work/run.out")" = "skip $one.sh: skipped: no PyTorch 2.14.1 tree in $work/no-trees (run: sh tests/real/fetch.sh)
0 passed, 0 failed, 1 skipped" ]; then ok "no fetch: skipped"
else fail "no fetch: exit $rc"; sed 's/^/    /' "$work/run.out"; fi
checks=$((checks + 1))
printf '#!/bin/sh\necho "fetch-pytorch-src: apt-get update failed" >&2\nexit 1\n' >"$work/nofetch"
chmod +x "$work/nofetch"
MK_FETCH=$work/nofetch runner; rc=$?
if [ $rc = 0 ] && [ "$(sed -n 1p "$work/run.out")" = "real trees: not fetched (fetch-pytorch-src: apt-get update failed); their tests skip" ] &&
   [ "$(tail -n 1 "$work/run.out")" = "0 passed, 0 failed, 1 skipped" ]; then ok "failed fetch: skipped"
else fail "failed fetch: exit $rc"; sed 's/^/    /' "$work/run.out"; fi
finish
