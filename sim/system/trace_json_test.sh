#!/bin/bash
# The trace is valid Chrome JSON with one named track per pipe, DMA engine
# and link, and complete events only on declared tracks.
set -euo pipefail
demo="$1"
out="${TEST_TMPDIR:-/tmp}"
"$demo" 2 64 8 "$out/trace.json" "$out/stats.txt"
python3 - "$out/trace.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
xs = [e for e in ev if e["ph"] == "X"]
assert xs, "no slices"
for e in xs:
    assert (e["pid"], e["tid"]) in names, e
    assert e["dur"] >= 0, e
track_names = set(names.values())
for want in ["AIV core 24", "AIV core 24 MTE2", "AIV core 24 MTE3", "AIV core 24 SCALAR",
             "HCCS link c0->c1", "HCCS link c1->c0", "AICPU scheduler 0",
             "AICPU orchestrator"]:
    assert want in track_names, (want, sorted(track_names)[:20])
# msprof-style names, and no track is drawn empty (no AIC core runs here).
used = {names[(e["pid"], e["tid"])] for e in xs}
assert used == track_names, sorted(track_names - used)[:10]
assert not any(n.startswith("AIC ") for n in track_names), sorted(track_names)[:10]
# Every slice carries args; core and link slices name their task and kernel.
for e in xs:
    assert e.get("args"), e
    n = names[(e["pid"], e["tid"])]
    if n.startswith("AIV core") or n.startswith("HCCS link"):
        assert {"task", "kernel"} <= set(e["args"]), e
    if "MTE" in n or n.startswith("HCCS"):
        assert "bytes" in e["args"] and "peer" in e["args"], e
# Perfetto needs properly nested slices per track: ours never overlap.
by_track = {}
for e in xs:
    by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["dur"]))
for k, v in by_track.items():
    v.sort()
    for (a, da), (b, _) in zip(v, v[1:]):
        assert a + da <= b + 1e-6, (names[k], a, da, b)
print("ok", len(xs), "slices")
PY
grep -q 'name: "link c0->c1"' "$out/stats.txt"
