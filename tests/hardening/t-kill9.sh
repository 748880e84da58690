#!/bin/sh
# kill -9 during --in-place on a large file, 20 times per writing tool at
# delays spread over the run: afterwards the file is always exactly the
# old or exactly the new version (checksums), never a mix or truncated.
# KILL9_ROUNDS=N changes the count.
. "$(dirname "$0")/lib.sh"
rounds=${KILL9_ROUNDS:-20}
sleep 0.01 2>/dev/null || { echo "skip: sleep does not take fractions here"; exit 77; }

# pad FILE LINES: LINES comment lines before the file's own text (the
# prefix is yaml and C comment syntax alike: '#' for yaml, '//' for C)
pad() {
  awk -v n="$2" -v c="$3" 'BEGIN { for (i = 0; i < n; i++)
    printf "%s padding line %d of a large file, to make reading and writing slow\n", c, i }' >"$1.pad"
  cat "$1" >>"$1.pad" && mv "$1.pad" "$1"
}

# now_ms: milliseconds since the epoch (coarse is fine)
now_ms() { python3 -c 'import time; print(int(time.time()*1000))' 2>/dev/null || echo $(( $(date +%s) * 1000 )); }

# trial NAME FILE CMD...: measure CMD on a copy, then kill it repeatedly
trial() {
  name=$1 rel=$2; shift 2
  B=$work/base-$name
  make_tree "$B"
  case $rel in *.yaml) pad "$B/$rel" 300000 "#" ;; *) pad "$B/$rel" 300000 "//" ;; esac
  old=$(cksum <"$B/$rel")
  # the new version, and how long a whole run takes
  rm -rf "$work/t"; cp -R "$B" "$work/t"
  t0=$(now_ms)
  (cd "$work/t" && "$@" --in-place) >/dev/null 2>"$work/err" || {
    fail "$name: the uninterrupted run failed"; cat "$work/err"; return; }
  t1=$(now_ms)
  new=$(cksum <"$work/t/$rel")
  checks=$((checks + 1))
  if [ "$old" = "$new" ]; then fail "$name: the run changed nothing"; return; fi
  span=$((t1 - t0)); [ $span -gt 0 ] || span=1
  echo "$name: a whole run takes ${span} ms; killing at $rounds points in it"
  nold=0 nnew=0 i=0
  while [ $i -lt $rounds ]; do
    i=$((i + 1))
    rm -rf "$work/t"; cp -R "$B" "$work/t"
    d=$((span * i / rounds))
    (cd "$work/t" && exec "$@" --in-place) >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v d="$d" 'BEGIN { printf "%.3f", d / 1000 }')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    now=$(cksum <"$work/t/$rel")
    checks=$((checks + 1))
    if [ "$now" = "$old" ]; then nold=$((nold + 1))
    elif [ "$now" = "$new" ]; then nnew=$((nnew + 1))
    else fail "$name: killed after ${d} ms: the file is neither the old nor the new version"; fi
  done
  ok "$name: $rounds kills: $nold times the old file, $nnew times the new one, never anything else"
}

trial mps-dispatch "$N/native_functions.yaml" $DI
trial mps-register "$N/mps/kernels/UnaryKernel.metal" $RE
finish
