#!/bin/sh
# make bench section: mps-register, one edit at 40 KB and 160 KB (issue #5).
# Prints register.sh's lines and one "ROW|..." line for bench.py's table.
out=$(sh "$(dirname "$0")/register.sh" 20)
echo "mps-register"
echo "$out" | sed "s/^/  /"
echo "$out" | awk '/ms\/edit/ {
	gsub(/;/, ""); s = $4; l = $8; r = $11
	ok = (s + 0 < 10) && (r + 0 < 6)
	printf "ROW|`mps-register` edit, 40 KB .metal|%s ms|same at 160 KB: %s ms|%s× for 4× the size|< 10 ms, linear (ratio < 6)|%d\n", s, l, r, ok
}'
exit 0
