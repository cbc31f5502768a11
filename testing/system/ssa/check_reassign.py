#!/usr/bin/env python3
"""Golden check of reassign.pto run by pto-run: y = 9 * x on every rank.

The input is pto-run's deterministic pattern (docs/pto-run.md, "Inputs"):
FP32 element i of a parameter is ((i * 31 + 7) % 1021) * 0.25 - 64, the same
content on every device. Every value involved is exact in FP32, so the
comparison is exact. A program that read the values from before the blocks
would give y = x (the old front end's silent error), which this check rejects.

usage: check_reassign.py OUTPUT_DIR
"""
import ast
import struct
import sys

SHAPE = (2, 8, 32)


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    hlen_size = 2 if data[6] == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    start = 8 + hlen_size
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError(f"{path}: want C-order <f4, got {header}")
    count = 1
    for d in header["shape"]:
        count *= d
    return tuple(header["shape"]), struct.unpack(f"<{count}f", data[start + hlen:][:4 * count])


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    shape, got = read_npy_f32(f"{argv[0]}/y.npy")
    if shape != SHAPE:
        print(f"y.npy: shape {shape}, want {SHAPE}")
        return 1
    n = SHAPE[0] * SHAPE[1] * SHAPE[2]
    x = [((i * 31 + 7) % 1021) * 0.25 - 64 for i in range(n)]
    for i, (g, v) in enumerate(zip(got, x)):
        if g != 9 * v:
            print(f"y.npy: element {i} is {g}, want {9 * v} (9 * x; x = {v})")
            return 1
    print(f"y.npy: {n} elements are 9 * x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
