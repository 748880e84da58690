#!/bin/sh
# make bench section: growth with the size of native_functions.yaml
# (issue #7 "Scale").  A synthetic yaml 10x the real one
# (tests/bench/gen_scaled_yaml.py) goes into a shadow tree whose other
# files are symlinks to the real tree $1 (2.6.0); `mps-overloads --all`
# and `mps-verify --all` are timed on the shadow tree with the real yaml
# and with the 10x one (best of BENCH_REPEAT, default 5).  Target: the
# 10x run takes at most 11x the time of the 1x run.  Prints "ROW|..."
# lines for bench.py's table.
set -u
tree=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mk-scale.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
NAT=aten/src/ATen/native
for s in 1 10; do
  d=$tmp/x$s
  mkdir -p "$d/$NAT" "$d/torch/testing/_internal"
  for e in "$tree/$NAT"/* "$tree/$NAT"/.[!.]*; do
    [ -e "$e" ] || continue
    [ "$(basename "$e")" = native_functions.yaml ] || ln -s "$e" "$d/$NAT/"
  done
  [ -f "$tree/torch/testing/_internal/common_mps.py" ] &&
    ln -s "$tree/torch/testing/_internal/common_mps.py" "$d/torch/testing/_internal/"
done
cp "$tree/$NAT/native_functions.yaml" "$tmp/x1/$NAT/"
python3 "$here/gen_scaled_yaml.py" "$tree/$NAT/native_functions.yaml" \
  "$tmp/x10/$NAT/native_functions.yaml" 10 || exit 2
BENCH_DIR=$here python3 - "$tmp" <<'PY'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from timing import best
tmp = sys.argv[1]
y = "aten/src/ATen/native/native_functions.yaml"
s1, s10 = (os.path.getsize(os.path.join(tmp, x, y)) for x in ("x1", "x10"))
print(f"scale: native_functions.yaml {s1/1e6:.1f} MB vs {s10/1e6:.1f} MB ({s10/s1:.1f}x)")
for name, args in (("mps-overloads --all", ["mps-overloads", "--all", "--root"]),
                   ("mps-verify --all", ["mps-verify", "--all", "--root"])):
    t1 = best(args + [os.path.join(tmp, "x1")])
    t10 = best(args + [os.path.join(tmp, "x10")])
    r = t10 / t1
    print(f"  {name:<22} 1x {t1*1000:8.2f} ms   10x {t10*1000:8.2f} ms   ratio {r:5.2f}x "
          f"(target <= 11x){'' if r <= 11 else '  MISSED'}")
    print(f"ROW|`{name}`, yaml 10× the real one|{t10*1000:.1f} ms|1×: {t1*1000:.1f} ms|"
          f"{r:.2f}×|<= 11×|{int(r <= 11)}")
PY
