#!/bin/sh
# The store of parsed models (tools/lib/cache.h) on the real trees: with
# the store off, on the run that fills it and on the run that reads it,
# every command prints the same bytes and exits the same; a damaged
# stored file is a miss (same output again, stored anew).
. "$(dirname "$0")/lib.sh"
PATH=$repo/tools/bin:$PATH
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
MK_CACHE_DIR=$tmp/cache; export MK_CACHE_DIR
status=0
same() { # same NAME FILE1 FILE2
  if cmp -s "$2" "$3"; then :; else echo "FAIL $1: outputs differ"; diff "$2" "$3" | head -n 6; status=1; fi
}
for v in 2.6.0 1.13.1; do
  t=$(real_tree $v)
  rm -rf "$MK_CACHE_DIR"
  i=0
  while read -r cmd; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    (cd "$t" && MK_CACHE=off $cmd >"$tmp/off" 2>"$tmp/off.err"; echo "RC=$?" >>"$tmp/off")
    cat "$tmp/off.err" >>"$tmp/off"
    (cd "$t" && MK_CACHE_DEBUG=1 $cmd >"$tmp/fill" 2>"$tmp/fill.err"; echo "RC=$?" >>"$tmp/fill")
    (cd "$t" && MK_CACHE_DEBUG=1 $cmd >"$tmp/read" 2>"$tmp/read.err"; echo "RC=$?" >>"$tmp/read")
    grep -v '^cache: ' "$tmp/fill.err" >>"$tmp/fill"
    grep -v '^cache: ' "$tmp/read.err" >>"$tmp/read"
    same "$v $cmd (filling the store)" "$tmp/off" "$tmp/fill"
    same "$v $cmd (read from the store)" "$tmp/off" "$tmp/read"
    hits=$(grep -c '^cache: hit' "$tmp/read.err")
    echo "$v: $cmd: $(wc -l <"$tmp/off") lines, $(grep '^cache: ' "$tmp/read.err" | tr '\n' ' ' | sed 's/ $//')"
    case $cmd in
      *--all*|*--survey*) [ "$hits" -ge 1 ] || { echo "FAIL $v $cmd: the second run read nothing from the store"; status=1; } ;;
    esac
  done <<CMDS
mps-overloads --all --json
mps-overloads --survey
mps-verify --all
mps-verify --all --json
mps-verify sqrt atan2 div abs
mps-verify --json add
CMDS
  # damage every stored file: a miss, the same output, stored anew
  for f in "$MK_CACHE_DIR"/*.mkc; do
    printf 'XXXX' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
  done
  (cd "$t" && MK_CACHE=off mps-verify --all >"$tmp/off" 2>"$tmp/off.err"; echo "RC=$?" >>"$tmp/off")
  cat "$tmp/off.err" >>"$tmp/off"
  (cd "$t" && MK_CACHE_DEBUG=1 mps-verify --all >"$tmp/dmg" 2>"$tmp/dmg.err"; echo "RC=$?" >>"$tmp/dmg")
  grep -v '^cache: ' "$tmp/dmg.err" >>"$tmp/dmg"
  same "$v mps-verify --all (damaged store)" "$tmp/off" "$tmp/dmg"
  if grep -q '^cache: hit' "$tmp/dmg.err" || ! grep -q '^cache: stored' "$tmp/dmg.err"; then
    echo "FAIL $v: a damaged stored file was used or not replaced"; grep '^cache' "$tmp/dmg.err"; status=1
  else echo "$v: damaged store: $(grep '^cache' "$tmp/dmg.err" | tr '\n' ' ')"; fi
done
exit $status
