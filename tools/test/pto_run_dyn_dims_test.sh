#!/bin/bash
# pto-run binds dynamic dimensions (docs/pto-run.md, "Dynamic dimensions"): the
# first program of docs/pto-run.md with `NR = pl.dynamic("NR")` runs on 3 ranks
# (bound by --ranks) and on 2 (bound by --ranks and an input of 2 rows); an
# input of 3 rows with --ranks=2 is a conflict naming both sources.
set -euo pipefail
run="$1"
doc="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
expect() {
  local want="$1"
  shift
  local rc=0
  "$run" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ "$rc" == "$want" ]] || fail "pto-run $* exited $rc, want $want; stderr: $(cat "$tmp/err")"
}
python3 - "$doc" "$tmp" <<'PY'
import os, struct, sys
text = open(sys.argv[1]).read()
start = text.index("```python\n", text.index("## A first run")) + len("```python\n")
program = text[start:text.index("```", start)]
assert "\nNR = 2\n" in program, "docs/pto-run.md's first program no longer sets NR = 2"
open(sys.argv[2] + "/dyn.pto", "w").write(program.replace("\nNR = 2\n", '\nNR = pl.dynamic("NR")\n'))

def save(path, rows):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 64), }" % rows
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % (rows * 64), *[float(i % 50) for i in range(rows * 64)]))
os.makedirs(sys.argv[2] + "/in2", exist_ok=True)
os.makedirs(sys.argv[2] + "/in3", exist_ok=True)
save(sys.argv[2] + "/in2/x.npy", 2)
save(sys.argv[2] + "/in3/x.npy", 3)
PY
shape_of() {
  python3 - "$1" <<'PY'
import ast, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<H", b[8:10])[0]
h = ast.literal_eval(b[10:10 + n].decode())
print(h["shape"])
PY
}

expect 0 "$tmp/dyn.pto" --platform=a2a3 --ranks=3 --outputs="$tmp/out3"
grep -q "^pto-run: Hello on 3 ranks" "$tmp/out" || fail "3 ranks: $(cat "$tmp/out")"
[[ "$(shape_of "$tmp/out3/y.npy")" == "(3, 64)" ]] || fail "y.npy on 3 ranks: $(shape_of "$tmp/out3/y.npy")"

expect 0 "$tmp/dyn.pto" --platform=a2a3 --ranks=2 --inputs="$tmp/in2" --outputs="$tmp/out2"
[[ "$(shape_of "$tmp/out2/y.npy")" == "(2, 64)" ]] || fail "y.npy on 2 ranks: $(shape_of "$tmp/out2/y.npy")"

expect 1 "$tmp/dyn.pto" --platform=a2a3 --ranks=2 --inputs="$tmp/in3"
grep -qF "dynamic dimension 'NR' is 2 from --ranks=2 (the first dimension of 'x') but 3 from $tmp/in3/x.npy (dimension 0 of 'x'); give inputs that agree" "$tmp/err" ||
  fail "conflict message: $(cat "$tmp/err")"
echo PASS
