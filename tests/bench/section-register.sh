#!/bin/sh
# make bench section: mps-register, one edit at 40 KB and 160 KB (issue #5).
echo "mps-register"
sh "$(dirname "$0")/register.sh" 20 | sed "s/^/  /"
exit 0
