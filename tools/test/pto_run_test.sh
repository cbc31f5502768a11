#!/bin/bash
# pto-run end to end (docs/pto-run.md): examples/all_to_all_v_chip.pto on 2
# simulated 910B chips, its outputs checked against the all_to_all_v golden
# computed here from the inputs, and its summary against the README's; the
# trace, the stats and --keep-build; the HOST-rail example; the first program
# of docs/pto-run.md; input file errors; failing runs; an unmergeable output;
# usage, program and internal errors; the README's first program and the
# single-chip entry of a program without a HOST orchestrator; a race fails
# the run; BF16 parameters in and out.
set -euo pipefail
run="$1"
[[ "$run" == /* ]] || run="$PWD/$run"
doc="$2"
readme="$3"
shift 3
example=""
kernels=""
host=""
incore=""
for f in "$@"; do
  case "$f" in
    */all_to_all_v_chip.pto) example="$f" ;;
    */kernels.pto) kernels="$f" ;;
    */all_to_all_v_host.pto) host="$f" ;;
    */all_to_all_v_incore.pto) incore="$f" ;;
  esac
done
if [[ -z "$example" || -z "$kernels" || -z "$host" || -z "$incore" ]]; then
  echo "FAIL: example programs not passed" >&2
  exit 1
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# Runs pto-run expecting exit status $1; stdout/stderr in $tmp/out, $tmp/err.
expect() {
  local want="$1"
  shift
  local rc=0
  "$run" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ "$rc" == "$want" ]] || fail "pto-run $* exited $rc, want $want; stderr: $(cat "$tmp/err")"
}
expect_err() {
  grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1': $(cat "$tmp/err")"
}

# A .npy writer and reader in plain Python (no numpy in CI).
cat >"$tmp/npy.py" <<'PY'
import ast, struct, sys

def save(path, descr, shape, values):
    fmt = {"<f4": "f", "<i4": "i"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

def load(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
    n = struct.unpack("<H", b[8:10])[0]
    assert (10 + n) % 64 == 0, "data not 64-byte aligned"
    h = ast.literal_eval(b[10:10 + n].decode())
    count = 1
    for d in h["shape"]:
        count *= d
    fmt = {"<f4": "f", "<i4": "i"}[h["descr"]]
    return h, list(struct.unpack("<%d%s" % (count, fmt), b[10 + n:]))
PY

# The example's constants: NR ranks, MAX_RECV rows per peer, SIZE columns.
NR=2 MAX_RECV=4 SIZE=64
mkdir -p "$tmp/in"
python3 - "$tmp" <<PY
import sys
sys.path.insert(0, sys.argv[1])
import npy
n = $NR * $NR * $MAX_RECV * $SIZE
# Distinct per element, exact in FP32.
npy.save(sys.argv[1] + "/in/inputs.npy", "<f4", [$NR, $NR * $MAX_RECV, $SIZE],
         [(i * 7 % 1000) * 0.5 - 100 for i in range(n)])
PY

# 1. The golden run: inputs from the file, outputs from the pattern.
expect 0 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --outputs="$tmp/out_dir" \
  --trace="$tmp/trace.json" --stats="$tmp/stats.txt" --keep-build="$tmp/build"
# The README shows this line (the timing does not depend on the data).
readme_line="$(grep -m1 '^pto-run: AllToAllVChip on 2 ranks' "$readme")"
[[ "$(head -1 "$tmp/out")" == "$readme_line" ]] || fail "result line '$(head -1 "$tmp/out")' != README '$readme_line'"
# The summary table: per rank, the busiest links and GM ports, the critical
# path and the collective's bus bandwidth (sim/trace/run_summary.h).
grep -qxF 'rank  tasks  dispatches  kernel us      sent  received   wait us' "$tmp/out" || fail "no summary table: $(cat "$tmp/out")"
grep -qE '^   1      3           1 ' "$tmp/out" || fail "rank 1 row: $(cat "$tmp/out")"
grep -qE '^busiest links: link c[01]->c[01] [0-9.]+% \(' "$tmp/out" || fail "busiest links: $(cat "$tmp/out")"
grep -qE '^busiest GM ports: gm c[01] ' "$tmp/out" || fail "busiest GM ports: $(cat "$tmp/out")"
grep -qE '^critical path \(to [0-9.]+ us\): .*__builtin_all_to_all_v__fp32 ' "$tmp/out" || fail "critical path: $(cat "$tmp/out")"
grep -qE '^collective \(__builtin_\*\): [0-9.]+ us, busbw [0-9.]+ GB/s of the 56 GB/s link bound' "$tmp/out" || fail "busbw: $(cat "$tmp/out")"
python3 - "$tmp" <<PY
import sys
sys.path.insert(0, sys.argv[1])
import npy
NR, MAX_RECV, SIZE = $NR, $MAX_RECV, $SIZE
TOTAL = NR * MAX_RECV
_, inp = npy.load(sys.argv[1] + "/in/inputs.npy")
h, out = npy.load(sys.argv[1] + "/out_dir/outputs.npy")
assert h["descr"] == "<f4" and h["shape"] == (NR, TOTAL, SIZE) and not h["fortran_order"], h
# Every device starts from the documented pattern; device r changes only
# row r of its copy, so the merged file has row r from device r.
want = [((i * 31 + 7) % 1021) * 0.25 - 64 for i in range(NR * TOTAL * SIZE)]
# Rank src stages row src of its copy doubled, MAX_RECV rows per peer;
# all_to_all_v lands src's rows for r in slot src of r, which consume_step
# copies to outputs[r].
for r in range(NR):
    for src in range(NR):
        for j in range(MAX_RECV):
            for c in range(SIZE):
                want[(r * TOTAL + src * MAX_RECV + j) * SIZE + c] = \
                    2 * inp[(src * TOTAL + r * MAX_RECV + j) * SIZE + c]
bad = [i for i in range(len(want)) if out[i] != want[i]]
assert not bad, "%d wrong elements, first %d: %r != %r" % (len(bad), bad[0], out[bad[0]], want[bad[0]])
PY
[[ ! -e "$tmp/out_dir/inputs.npy" ]] || fail "an input parameter was written to --outputs"
python3 - "$tmp/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
xs = [e for e in ev if e["ph"] == "X"]
assert xs, "no slices in the trace"
names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
assert "AICPU orchestrator" in names, names
assert {e["pid"] for e in xs} >= {0, 1}, "slices of both chips"
PY
grep -q 'name: "dispatch fifo c0"' "$tmp/stats.txt" || fail "stats lack the dispatch FIFO"
grep -qE '^sim_time_ps: [0-9]+$' "$tmp/stats.txt" || fail "stats lack sim_time_ps"
grep -q 'kernel: "stage_step"' "$tmp/stats.txt" || fail "stats lack the tasks"

# --timing-only: no payload moved, the same statistics as the full run; it
# writes no outputs, so --outputs is refused.
expect 0 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --stats="$tmp/stats_timing.txt" \
  --timing-only --nosummary
grep -q '^pto-run: AllToAllVChip on 2 ranks (a2a3, timing only): simulated ' "$tmp/out" \
  || fail "timing-only result line: $(cat "$tmp/out")"
cmp -s "$tmp/stats.txt" "$tmp/stats_timing.txt" || fail "--timing-only changed the statistics"
expect 2 "$example" --platform=a2a3 --ranks=2 --timing-only --outputs="$tmp/out_t"
expect_err "--timing-only moves no payload, so it writes no outputs: drop --outputs and --record-golden"

# --stats-json: the same statistics for scripts; --progress: progress lines on
# stderr (captured here, so not a terminal) and a last one when the run ends;
# running in slices for progress changes no figure (the same text stats).
expect 0 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --stats="$tmp/stats2.txt" \
  --stats-json="$tmp/stats.json" --progress --nosummary
[[ "$(wc -l <"$tmp/out")" == 1 ]] || fail "--nosummary printed more than the result line"
cmp -s "$tmp/stats.txt" "$tmp/stats2.txt" || fail "--progress changed the statistics"
expect_err "pto-run: progress: simulated "
grep -qE '^pto-run: progress: finished at simulated [0-9.]+ us, tasks 6 done, wall [0-9.]+ s$' "$tmp/err" ||
  fail "no final progress line: $(cat "$tmp/err")"
python3 - "$tmp/stats.json" "$tmp/stats.txt" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert str(j["sim_time_ps"]) == re.search(r"^sim_time_ps: (\d+)$", text, re.M).group(1), j["sim_time_ps"]
assert j["chips"] == 2 and len(j["tasks"]) == 6, (j["chips"], len(j["tasks"]))
assert j["tasks"][0]["chip"] == 0 and j["tasks"][0]["kernel"] == "stage_step", j["tasks"][0]
assert any(l["name"] == "link c0->c1" and int(l["bytes"]) > 0 for l in j["links"]), j["links"]
assert not j.get("trace_json") and not j.get("outputs"), "the JSON holds the trace or outputs"
PY
for f in program.cc entry.cc program.so; do
  [[ -s "$tmp/build/$f" ]] || fail "--keep-build did not keep $f"
done
grep -q 'absl::Status RunHost(pto::rt::Host& host,' "$tmp/build/program.cc" || fail "program.cc"

# The HOST rail: its generated entry needs common/launch_width and the
# builtin's entry_support.h, shipped with pto-run; one builtin dispatch per
# card between the stage and consume pipelines.
expect 0 "$host" --platform=a2a3 --ranks=2
grep -qE '^pto-run: AllToAllVHost on 2 ranks \(a2a3\): .* dispatches per card: c0=3 c1=3$' <(head -1 "$tmp/out") ||
  fail "HOST rail summary: $(cat "$tmp/out")"

# The build cache and the precompiled prelude (docs/pto-run.md): a compiler
# wrapper logs every compile and g++'s -H header list. The second run of a
# program compiles nothing; another program, or --nobuild-cache, compiles;
# every compile forces the prelude in and g++ takes its .gch ("! ...gch").
cat >"$tmp/cxx" <<SH
#!/bin/bash
[[ "\$1" == --version ]] && exec g++ --version
echo "compile \$*" >>"$tmp/cxx.log"
exec g++ "\$@" -H 2>>"$tmp/cxx.headers"
SH
chmod +x "$tmp/cxx"
compiles() { grep -c '^compile ' "$tmp/cxx.log" 2>/dev/null || true; }
export PTO_RUN_CACHE="$tmp/cache"
expect 0 "$example" --platform=a2a3 --ranks=2 --cxx="$tmp/cxx" --nosummary
[[ "$(compiles)" == 1 ]] || fail "first run: $(compiles) compiles, want 1"
grep -q -- '-include [^ ]*/tools/pto_run_prelude.h ' "$tmp/cxx.log" || fail "no -include of the prelude: $(cat "$tmp/cxx.log")"
grep -q '^! .*/tools/pto_run_prelude.h.gch$' "$tmp/cxx.headers" || fail "g++ did not use the .gch: $(head -5 "$tmp/cxx.headers")"
first_line="$(head -1 "$tmp/out")"
expect 0 "$example" --platform=a2a3 --ranks=2 --cxx="$tmp/cxx" --nosummary
[[ "$(compiles)" == 1 ]] || fail "a cached program was compiled again"
[[ "$(head -1 "$tmp/out")" == "$first_line" ]] || fail "the cached run printed $(head -1 "$tmp/out")"
expect 0 "$host" --platform=a2a3 --ranks=2 --cxx="$tmp/cxx" --nosummary
[[ "$(compiles)" == 2 ]] || fail "another program was not compiled"
expect 0 "$example" --platform=a2a3 --ranks=2 --cxx="$tmp/cxx" --nosummary --nobuild-cache
[[ "$(compiles)" == 3 ]] || fail "--nobuild-cache used the cache"
[[ "$(ls "$tmp/cache" | wc -l)" == 2 ]] || fail "cache entries: $(ls -a "$tmp/cache")"
unset PTO_RUN_CACHE

# The first program of docs/pto-run.md, run as the page says, prints the
# page's line and doubles every device's row.
python3 - "$doc" "$tmp/hello.pto" <<'PY'
import sys
text = open(sys.argv[1]).read()
start = text.index("```python\n", text.index("## A first run")) + len("```python\n")
open(sys.argv[2], "w").write(text[start:text.index("```", start)])
PY
doc_line="$(grep -m1 '^pto-run: Hello on 2 ranks' "$doc")"
expect 0 "$tmp/hello.pto" --platform=a2a3 --ranks=2 --outputs="$tmp/hello_out"
[[ "$(head -1 "$tmp/out")" == "$doc_line" ]] || fail "hello: '$(head -1 "$tmp/out")' != docs '$doc_line'"
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import npy
h, y = npy.load(sys.argv[1] + "/hello_out/y.npy")
assert h["shape"] == (2, 64), h
want = [2 * (((i * 31 + 7) % 1021) * 0.25 - 64) for i in range(128)]
assert y == want, (y[:4], want[:4])
PY

# The README's first program: one InCore kernel and no HOST orchestrator,
# run as the README writes it (no --platform, no --ranks: a2a3, one chip).
python3 - "$readme" "$tmp/first.pto" <<'PY'
import sys
text = open(sys.argv[1]).read()
start = text.index("```python\n", text.index("## Your first program")) + len("```python\n")
open(sys.argv[2], "w").write(text[start:text.index("```", start)])
PY
grep -q 'def double' "$tmp/first.pto" || fail "the README's first program was not found"
readme_first="$(grep -m1 '^pto-run: Hello.double on 1 chip' "$readme")"
[[ -n "$readme_first" ]] || fail "the README shows no result line of its first program"
(cd "$tmp" && "$run" first.pto --outputs=first_out >"$tmp/out" 2>"$tmp/err") ||
  fail "the README's first program failed: $(cat "$tmp/err")"
[[ "$(head -1 "$tmp/out")" == "$readme_first" ]] || fail "first program: '$(head -1 "$tmp/out")' != README '$readme_first'"
grep -qE '^critical path \(to [0-9.]+ us\): double ' "$tmp/out" || fail "first program summary: $(cat "$tmp/out")"
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import npy
h, y = npy.load(sys.argv[1] + "/first_out/y.npy")
assert h["shape"] == (64,), h
want = [2 * (((i * 31 + 7) % 1021) * 0.25 - 64) for i in range(64)]
assert y == want, (y[:4], want[:4])
assert y[0] == -124.5, y[0]
PY
[[ ! -e "$tmp/first_out/x.npy" ]] || fail "the first program's input was written to --outputs"
# Its input from a file: y = 2 * x.
mkdir -p "$tmp/first_in"
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import npy
npy.save(sys.argv[1] + "/first_in/x.npy", "<f4", [64], [i * 0.5 - 3 for i in range(64)])
PY
expect 0 "$tmp/first.pto" --inputs="$tmp/first_in" --outputs="$tmp/first_out2" --nosummary
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import npy
_, y = npy.load(sys.argv[1] + "/first_out2/y.npy")
assert y == [2 * (i * 0.5 - 3) for i in range(64)], y[:4]
PY
expect 2 "$tmp/first.pto" --ranks=2
expect_err "pto-run: --ranks=2: the program has no HOST orchestrator, so its entry 'double' runs on one chip; drop --ranks or use --ranks=1"
# An orchestration is the entry before a kernel (examples/kernels.pto's
# pipeline runs scaled_add); --entry picks another; a name that
# is neither is a located error listing the candidates.
expect 0 "$kernels" --nosummary --outputs="$tmp/k_out"
doc_kernels="$(grep -m1 '^pto-run: Kernels.pipeline on 1 chip' "$doc")"
[[ "$(head -1 "$tmp/out")" == "$doc_kernels" ]] || fail "kernels.pto: '$(head -1 "$tmp/out")' != docs '$doc_kernels'"
[[ -s "$tmp/k_out/out.npy" ]] || fail "kernels.pto wrote no out.npy"
expect 0 "$kernels" --entry=scaled_add --nosummary
grep -q '^pto-run: Kernels.scaled_add on 1 chip (a2a3)' "$tmp/out" || fail "--entry=scaled_add: $(cat "$tmp/out")"
expect 1 "$kernels" --entry=nope
expect_err "kernels.pto:13:1: error: --entry=nope: the program has no CHIP orchestration or kernel of that name (candidates: 'pipeline', 'countdown', 'scaled_add')"
expect 1 "$example" --platform=a2a3 --ranks=2 --entry=stage_step
expect_err "--entry=stage_step: the program has a HOST orchestrator, which is its entry"
sed 's/^    @pl.function(type=pl.FunctionType.Orchestration)$/&\n    def pipeline2(self, a: pl.Tensor[[ROWS, COLS], pl.FP16]) -> pl.Tensor[[ROWS, COLS], pl.FP16]:\n        return a\n\n    @pl.function(type=pl.FunctionType.Orchestration)/' \
  "$kernels" >"$tmp/two_orch.pto"
grep -q 'def pipeline2' "$tmp/two_orch.pto" || fail "the two-orchestration variant did not apply"
expect 1 "$tmp/two_orch.pto"
expect_err "error: the program has no HOST orchestrator and 2 CHIP orchestrations ('pipeline', 'pipeline2'); choose the one to run with --entry=NAME"

# 2. Input files must match the parameter exactly.
python3 - "$tmp" <<PY
import sys
sys.path.insert(0, sys.argv[1])
import npy
npy.save(sys.argv[1] + "/in/inputs.npy", "<f4", [$NR, 8, 32], [0.0] * ($NR * 8 * 32))
PY
expect 1 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in"
expect_err "in/inputs.npy: parameter 'inputs' is FP32 of shape (2, 8, 64) ('<f4'), but the file holds '<f4' of shape (2, 8, 32)"
python3 - "$tmp" <<PY
import sys
sys.path.insert(0, sys.argv[1])
import npy
npy.save(sys.argv[1] + "/in/inputs.npy", "<i4", [$NR, 8, 64], [0] * ($NR * 8 * 64))
PY
expect 1 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in"
expect_err "but the file holds '<i4' of shape (2, 8, 64)"
printf 'not an npy file' >"$tmp/in/inputs.npy"
expect 1 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in"
expect_err "in/inputs.npy: not a .npy file (bad magic)"
# NaN / Inf in an input are refused unless --allow-nonfinite (and then run).
python3 - "$tmp" <<PY
import sys
sys.path.insert(0, sys.argv[1])
import npy
v = [1.0] * ($NR * 8 * 64)
v[70] = float("inf")
npy.save(sys.argv[1] + "/in/inputs.npy", "<f4", [$NR, 8, 64], v)
PY
expect 1 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --outputs="$tmp/out_inf"
expect_err "in/inputs.npy: parameter 'inputs' element [0, 1, 6] is Inf; pass --allow-nonfinite to run with non-finite inputs"
[[ ! -e "$tmp/out_inf" ]] || fail "a refused input created the output directory"
expect 0 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/in" --allow-nonfinite --nosummary
rm "$tmp/in/inputs.npy"

# Outputs that cannot be written are refused before anything runs, and a
# failure leaves no output file behind.
: >"$tmp/a_file"
expect 1 "$example" --platform=a2a3 --ranks=2 --outputs="$tmp/a_file/out"
expect_err "pto-run: --outputs=$tmp/a_file/out: '$tmp/a_file' is not a directory"
expect 1 "$example" --platform=a2a3 --ranks=2 --trace="$tmp/a_file/t.json"
expect_err "pto-run: --trace=$tmp/a_file/t.json: '$tmp/a_file' is not a directory"
expect 1 "$example" --platform=a2a3 --ranks=2 --stats-json="$tmp/no/such/dir/s.json"
expect_err "pto-run: --stats-json=$tmp/no/such/dir/s.json: '$tmp/no/such/dir' is not a directory"

# HOST parameters larger than a chip's GM: refused before any allocation.
sed 's/^        inputs: pl.Tensor\[\[NR, TOTAL, SIZE\], pl.FP32\],$/&\n        huge: pl.Tensor[[1048576, 1048576], pl.FP32],/' "$example" >"$tmp/huge.pto"
grep -q 'huge: pl.Tensor' "$tmp/huge.pto" || fail "the huge-param variant did not apply"
expect 1 "$tmp/huge.pto" --platform=a2a3 --ranks=2
expect_err "the HOST parameters need 4398046515200 bytes on every device (each of the 2 devices holds a full copy of every parameter) by 'huge', more than the"

# 3. A failing run: the program is written for 2 ranks, so on 4 the HOST
# orchestration views rows past its [NR, ...] params and a kernel faults.
expect 1 "$example" --platform=a2a3 --ranks=4 --outputs="$tmp/out4" --progress
# (chip 2 or 3, whichever overruns first: both read rows past their params)
grep -qE 'pto-run: run failed: chip [23]: code=110 AICORE_FAULT:' "$tmp/err" || fail "no fault: $(cat "$tmp/err")"
expect_err "pto-run: progress: stopped (error 110) at simulated"
expect_err "TLOAD: 1024 bytes at an address outside every GM allocation"
[[ ! -e "$tmp/out4" ]] || fail "a failed run wrote outputs"

# A HOST orchestration that fails before the simulation: a window larger
# than a chip's GM.
sed 's/data_buf = pld.alloc_window_buffer(TOTAL \* SIZE \* pl.FP32.get_byte())/data_buf = pld.alloc_window_buffer(TOTAL * SIZE * pl.FP32.get_byte() * 100000000)/' \
  "$example" >"$tmp/bigwin.pto"
grep -q '100000000' "$tmp/bigwin.pto" || fail "the big-window variant did not apply"
expect 1 "$tmp/bigwin.pto" --platform=a2a3 --ranks=2 --trace="$tmp/bigwin.json"
expect_err "pto-run: run failed: HOST orchestration failed: chip 0 GM: 204800000128 bytes for 'window comm_d0 r0' exceed the remaining"
[[ ! -e "$tmp/bigwin.json" ]] || fail "a run that never started wrote a trace"

# A race fails the run (exit 1, the race detector's report, no outputs):
# the InCore example in which both ranks put a row into row 0 of rank 0's
# window before the all_to_all_v, with nothing ordering the two puts (the
# collective's own accesses are bracketed by its barriers). --races=warn
# prints the report and runs on; --races=off does not look.
sed 's/^        data = pld.tensor.all_to_all_v(st_out, data, signal, cnt_out, recv, core_num=1)$/        junk_stage = pl.tile.create([1, SIZE], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)\n        pld.tensor.put(data, 0, st_out, junk_stage, [0, 0], [0, 0], [1, SIZE])\n        data = pld.tensor.all_to_all_v(st_out, data, signal, cnt_out, recv, core_num=1)/' \
  "$incore" >"$tmp/racy.pto"
grep -q 'pld.tensor.put(data, 0' "$tmp/racy.pto" || fail "the racy variant did not apply"
expect 1 "$tmp/racy.pto" --ranks=2 --outputs="$tmp/racy_out"
expect_err "pto-run: run failed: 1 GM race (unordered accesses, docs/simulator.md):"
expect_err "  race: write of 256 bytes at c0:window comm_d0 r0+0x0 by rank 0 AIV24 task 0 block 0 (kernel exchange) at "
expect_err "and write of 256 bytes at c0:window comm_d0 r0+0x0 by rank 1 AIV24 task 0 block 0 (kernel exchange) at "
[[ ! -e "$tmp/racy_out" ]] || fail "a racy run wrote outputs"
expect 0 "$tmp/racy.pto" --ranks=2 --races=warn --nosummary
expect_err "pto-run: warning: 1 GM race (--races=warn; docs/simulator.md):"
expect 0 "$tmp/racy.pto" --ranks=2 --races=off --nosummary
[[ ! -s "$tmp/err" ]] || fail "--races=off printed: $(cat "$tmp/err")"
expect 2 "$tmp/racy.pto" --ranks=2 --races=maybe
expect_err "pto-run: --races=maybe: fail, warn or off"
# The unchanged example is race-free under the default.
expect 0 "$incore" --ranks=2 --nosummary

# 4. Two devices writing one output element differently cannot be merged:
# every rank's pipeline writes row 0 of its own copy of `outputs`.
sed 's/outputs\[r\], stage/outputs[0], stage/' "$example" >"$tmp/conflict.pto"
grep -q 'outputs\[0\], stage' "$tmp/conflict.pto" || fail "the conflict variant did not apply"
# (read from standard input, FILE "-").
expect 1 - --platform=a2a3 --ranks=2 <"$tmp/conflict.pto"
expect_err "pto-run: output 'outputs' element [0, 0, 0]: device 0 wrote"
expect_err "and device 1 wrote"

# 5. Usage, program and internal errors. Usage errors exit with 2 and point
# at --help, which is generated from the flag definitions.
expect 0 --help
grep -qF 'usage: pto-run FILE [--platform=a2a3|a5] [--ranks=N] [flags]' "$tmp/out" || fail "help: $(cat "$tmp/out")"
for f in '--platform=NAME' '(default: a2a3)' '--ranks=N' '--entry=NAME' '--stats-json=FILE' '--progress' '--allow-nonfinite' '--nosummary turns it off' '--collective=KERNEL' '(default: __builtin_)'; do
  grep -qF -- "$f" "$tmp/out" || fail "help lacks '$f'"
done
expect 2 "$example" --platform=a2a3 --ranks=2 --no-such-flag
expect_err "pto-run: unknown flag '--no-such-flag'"
expect_err "(see pto-run --help)"
expect 2 "$example" --platform=a2a3 --ranks=two
expect_err "pto-run: --ranks=two: "
expect 2 "$example" "$example" --platform=a2a3 --ranks=2
expect_err "more than 1 input file"
expect 2 "$example" --platform=a2a3 --ranks=9
expect_err "pto-run: --ranks=9: platform 'a2a3' simulates 1..8 chips"
expect 2 "$example" --ranks=0
expect_err "pto-run: --ranks needs a positive number, not 0"
expect 2 "$example" --platform=b9 --ranks=2
expect 1 "$tmp/no_such.pto" --platform=a2a3 --ranks=2
expect_err "pto-run: cannot read '$tmp/no_such.pto': No such file or directory"
expect 2 "$example" --platform=a2a3 --ranks=2 --inputs="$tmp/no_such_dir"
expect_err "pto-run: --inputs=$tmp/no_such_dir: not a directory"
printf 'import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n    def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n        return y\n' \
  >"$tmp/bad.pto"
expect 1 "$tmp/bad.pto" --platform=a2a3 --ranks=2
expect_err "bad.pto:6:16: error: unknown name 'y'"
# The hw backend is linked only with --config=ascend (docs/hw.md).
expect 2 "$example" --platform=a2a3 --ranks=2 --backend=hw --kernel-dir="$tmp"
expect_err "pto-run: --backend=hw: this pto-run was built without the hw backend; on a machine with the CANN toolkit, source its set_env.sh and build with bazel build --config=ascend //tools:pto-run (docs/hw.md)"
expect 2 "$example" --platform=a2a3 --ranks=2 --backend=tpu
expect_err "pto-run: --backend=tpu: sim or hw"
expect 2 "$example" --platform=a2a3 --ranks=2 --cxx=/bin/false
expect_err "compiling the generated program failed (internal error; exit status 1)"
# BF16 parameters (docs/pto-run.md, "BF16"): the input as np.save writes an
# ml_dtypes.bfloat16 array ('<V2', raw bits), the output as '<u2' bits.
cat >"$tmp/bf16.pto" <<'PTO'
import pypto.language as pl

@pl.program
class Bf16Io:
    @pl.function
    def run(self, x: pl.Tensor[[16, 32], pl.BF16],
            y: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            tx = pl.load(x, [0, 0], [16, 32])
            f = pl.cast(tx, target_type=pl.FP32)
            g = pl.mul(f, 2.0)
            b = pl.cast(g, target_type=pl.BF16)
            y = pl.store(b, [0, 0], y)
        return y
PTO
mkdir -p "$tmp/bf16_in"
python3 - "$tmp/bf16_in/x.npy" <<'PY'
import struct, sys
header = "{'descr': '<V2', 'fortran_order': False, 'shape': (16, 32), }"
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
# BF16 bits: the upper half of the FP32 bits of (i % 64) * 0.5 - 16 (exact).
bits = [struct.unpack("<I", struct.pack("<f", (i % 64) * 0.5 - 16))[0] >> 16 for i in range(512)]
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<512H", *bits))
PY
expect 0 "$tmp/bf16.pto" --inputs="$tmp/bf16_in" --outputs="$tmp/bf16_out" --nosummary
python3 - "$tmp/bf16_out/y.npy" <<'PY' || fail "BF16 output"
import ast, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<H", b[8:10])[0]
h = ast.literal_eval(b[10:10 + n].decode())
assert h["descr"] == "<u2" and h["shape"] == (16, 32), h
got = struct.unpack("<512H", b[10 + n:])
for i, g in enumerate(got):
    want = struct.unpack("<I", struct.pack("<f", 2 * ((i % 64) * 0.5 - 16)))[0] >> 16
    assert g == want, (i, hex(g), hex(want))
PY
echo "ok"
