#!/usr/bin/env python3
"""Joins the shards of a collective_sweep (sweep.bzl) into one table.

Bazel writes one test.xml per shard (bazel-testlogs/<package>/<name>/
shard_<i>_of_<n>/test.xml, or test.xml without sharding); every case holds
its row as properties. This reads them all and prints one Markdown table,
sorted by collective, platform, ranks and bytes. A case that failed is
listed as FAILED, and a shard without a test.xml is an error (exit 1).

  python3 testing/sweeps/merge_sweep.py bazel-testlogs/testing/sweeps/a2a_sweep
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

COLUMNS = ["collective", "platform", "ranks", "bytes", "sim_us", "algbw_GBps", "busbw_GBps"]


def shard_files(test_dir):
    shards = sorted(glob.glob(os.path.join(test_dir, "shard_*_of_*")))
    if not shards:
        return [os.path.join(test_dir, "test.xml")]
    total = int(shards[0].rsplit("_of_", 1)[1])
    if len(shards) != total:
        raise ValueError(f"{test_dir}: {len(shards)} of {total} shard directories")
    return [os.path.join(s, "test.xml") for s in shards]


def rows(path):
    if not os.path.exists(path):
        raise ValueError(f"{path}: missing (did the shard run?)")
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("result") == "suppressed" or case.get("status") == "notrun":
            continue
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        # gtest also writes RecordProperty values as testcase attributes.
        for k in COLUMNS:
            if k not in props and case.get(k) is not None:
                props[k] = case.get(k)
        failed = case.find("failure") is not None
        if "collective" not in props:
            continue
        props["status"] = "FAILED" if failed else "ok"
        out.append(props)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    table = []
    try:
        for d in argv[1:]:
            for f in shard_files(d):
                table.extend(rows(f))
    except ValueError as e:
        print(f"merge_sweep: {e}", file=sys.stderr)
        return 1
    table.sort(key=lambda r: (r["collective"], r["platform"], int(r["ranks"]), int(r["bytes"])))
    print("| " + " | ".join(COLUMNS + ["status"]) + " |")
    print("|" + " --- |" * (len(COLUMNS) + 1))
    for r in table:
        cells = []
        for k in COLUMNS:
            v = r.get(k, "")
            if k in ("sim_us", "algbw_GBps", "busbw_GBps") and v:
                v = f"{float(v):.2f}"
            cells.append(v)
        print("| " + " | ".join(cells + [r["status"]]) + " |")
    return 1 if any(r["status"] != "ok" for r in table) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
