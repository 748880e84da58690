#!/bin/sh
# The C++ reader (cppscan) on bad input, through the tools that read the
# sources of aten/src/ATen/native (mps-dispatch, mps-overloads --json,
# mps-verify): a .cpp with an unbalanced brace, definitions that call one
# another in a cycle, a 10 MB line, a file holding a NUL byte.  No crash,
# no hang (each run is bounded), the usual exit status, nothing written;
# the NUL byte is an error that names the file (exit 2).
. "$(dirname "$0")/lib.sh"
command -v timeout >/dev/null 2>&1 || timeout() { shift; "$@"; }
# the operator the reader is asked about: a row that is not structured,
# whose shared kernel lives in the bad file
row='
- func: badop.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: badop_out
    MPS: badop_out_mps
'
# case NAME WANT: write $T/$N/Bad.cpp (from stdin) and run the tools;
# WANT: "ok" (a diff from mps-dispatch, exit 1; mps-overloads 0;
# mps-verify 1: the old kernel's row) or "error" (exit 2 from each)
case_() {
  name=$1 want=$2
  T=$work/$name
  make_tree "$T"
  printf '%s' "$row" >>"$T/$N/native_functions.yaml"
  cat >"$T/$N/Bad.cpp"
  sum_before=$(cd "$T" && find . -type f | LC_ALL=C sort | xargs cksum)
  for cmd in "mps-dispatch badop:1" "mps-dispatch --json badop:1" \
             "mps-overloads --json badop:0" "mps-verify badop:1"; do
    w=${cmd##*:} cmd=${cmd%:*}
    [ "$want" = error ] && w=2
    checks=$((checks + 1))
    (cd "$T" && timeout 60 $cmd >"$work/out" 2>"$work/err"); rc=$?
    if [ $rc != "$w" ]; then fail "$name: $cmd: exit $rc (want $w)"; sed 's/^/    /' "$work/err" | head -n 3
    else ok "$name: $cmd: exit $rc"; fi
  done
  checks=$((checks + 1))
  [ "$sum_before" = "$(cd "$T" && find . -type f | LC_ALL=C sort | xargs cksum)" ] &&
    ok "$name: nothing written" || fail "$name: files changed"
}
case_ unbalanced ok <<'X'
namespace at::native {
Tensor& badop_out(const Tensor& self, Tensor& out) {
  if (self.numel()) {
    badop_stub(self.device().type(), out);
  return out;
// the closing braces never come
X
case_ cycle ok <<'X'
namespace at::native {
Tensor& ping_(Tensor& self);
Tensor& pong_(Tensor& self) { return ping_(self); }
Tensor& ping_(Tensor& self) { return pong_(self); }
Tensor& badop_out(const Tensor& self, Tensor& out) { ping_(out); return badop_out(self, out); }
}
X
# (generated into files first: a function at the end of a pipeline runs
# in a subshell, whose counts would be lost)
python3 -c 'import sys; sys.stdout.write("namespace at::native {\n// " + "x" * 10485760 + "\nTensor& badop_out(const Tensor& s, Tensor& o) { badop_stub(s.device().type(), o); return o; }\n}\n")' \
  >"$work/long.cpp"
case_ longline ok <"$work/long.cpp"
printf 'namespace at::native {\nTensor& badop_out(const Tensor& s, Tensor& o) {\0 return o; }\n}\n' >"$work/nul.cpp"
case_ nulbyte error <"$work/nul.cpp"
checks=$((checks + 1))
grep -q "Bad.cpp' is not a text file" "$work/err" && ok "nulbyte: the file is named" ||
  { fail "nulbyte: message: $(cat "$work/err")"; }
finish
