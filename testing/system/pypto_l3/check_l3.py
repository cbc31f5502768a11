#!/usr/bin/env python3
"""Golden check of the PyPTO-style L3 programs run by pto-run.

The inputs are pto-run's deterministic pattern (docs/pto-run.md, "Inputs"):
FP32 element i of a parameter is ((i * 31 + 7) % 1021) * 0.25 - 64, the same
content on every device. Each program's outputs are computed here from that
pattern and compared exactly (every value involved is exact in FP32).

usage: check_l3.py PROGRAM OUTPUT_DIR   (PROGRAM: rank_slice | inline_kernel)
"""
import ast
import struct
import sys


def pattern(n):
    return [((i * 31 + 7) % 1021) * 0.25 - 64 for i in range(n)]


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    hlen_size = 2 if major == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    start = 8 + hlen_size
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError(f"{path}: want C-order <f4, got {header}")
    count = 1
    for d in header["shape"]:
        count *= d
    body = data[start + hlen:]
    return header["shape"], list(struct.unpack(f"<{count}f", body[:4 * count]))


def expect(path, shape, want):
    got_shape, got = read_npy_f32(path)
    if tuple(got_shape) != tuple(shape):
        print(f"{path}: shape {got_shape}, want {shape}")
        return False
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print(f"{path}: element {i} is {g}, want {w}")
            return False
    print(f"{path}: {len(want)} elements match")
    return True


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    program, out = argv
    if program == "rank_slice":
        shape = (2, 8, 32)
        x = pattern(2 * 8 * 32)
        return 0 if expect(f"{out}/y.npy", shape, [v + 1.0 for v in x]) else 1
    if program == "inline_kernel":
        shape = (2, 4, 64)
        n = 2 * 4 * 64
        a, b = pattern(n), pattern(n)
        ok = expect(f"{out}/sum_out.npy", shape, [p + q for p, q in zip(a, b)])
        rows, cols = 4, 64
        diff = []
        for r in range(2):
            for row in range(rows):
                for c in range(cols):
                    i = (r * rows + row) * cols + c
                    j = (r * rows + rows - 1 - row) * cols + c
                    diff.append(a[i] - b[j])
        ok &= expect(f"{out}/diff_out.npy", shape, diff)
        return 0 if ok else 1
    print(f"unknown program {program}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
