#!/usr/bin/env python3
"""Checks the outputs of mixed.pto (or pipeline.pto, split.pto) run by pto-run.

The inputs are pto-run's deterministic pattern (docs/pto-run.md, "Inputs"):
float element i of a parameter is ((i * 31 + 7) % 1021) * 0.25 - 64. The
expected values are computed here in double from that pattern; the matmul
accumulates in FP32 on the cube, so the comparison allows FP32 rounding.

usage: check_mixed.py mixed|pipeline|split OUTPUT_DIR
"""
import ast
import struct
import sys


def pattern(rows, cols):
    return [[((((r * cols + k) * 31 + 7) % 1021) * 0.25 - 64) for k in range(cols)]
            for r in range(rows)]


def read_npy_f32(path, shape):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    hlen_size = 2 if data[6] == 1 else 4
    hlen = int.from_bytes(data[8:8 + hlen_size], "little")
    start = 8 + hlen_size
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or tuple(header["shape"]) != shape:
        raise ValueError(f"{path}: want <f4 {shape}, got {header}")
    n = shape[0] * shape[1]
    flat = struct.unpack(f"<{n}f", data[start + hlen:start + hlen + 4 * n])
    return [list(flat[r * shape[1]:(r + 1) * shape[1]]) for r in range(shape[0])]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def check(name, got, want):
    bad = 0
    for i, (gr, wr) in enumerate(zip(got, want)):
        for j, (g, w) in enumerate(zip(gr, wr)):
            if abs(g - w) > 1e-5 * max(1.0, abs(w)):
                if bad < 5:
                    print(f"{name}[{i}][{j}] = {g}, want {w}")
                bad += 1
    if bad:
        print(f"{name}: {bad} wrong elements")
    return bad == 0


def main():
    which, out = sys.argv[1], sys.argv[2]
    ok = True
    if which == "mixed":
        prod = matmul(pattern(16, 32), pattern(32, 64))
        want_c = [[max(v, 0.0) * 0.5 for v in row] for row in prod]
        ok &= check("c", read_npy_f32(f"{out}/c.npy", (16, 64)), want_c)
        x = [[v * 0.25 for v in row] for row in pattern(16, 16)]
        ok &= check("y", read_npy_f32(f"{out}/y.npy", (16, 32)), matmul(x, pattern(16, 32)))
        want_d = [[max(v, 0.0) for v in row] for row in matmul(pattern(64, 32), pattern(32, 32))]
        ok &= check("d", read_npy_f32(f"{out}/d.npy", (64, 32)), want_d)
    elif which == "split":
        prod = matmul(pattern(16, 32), pattern(32, 32))
        want = [[2.0 * v + (1.0 if r >= 8 else 0.0) for v in row] for r, row in enumerate(prod)]
        ok &= check("out", read_npy_f32(f"{out}/out.npy", (16, 32)), want)
        ok &= check("pv_out", read_npy_f32(f"{out}/pv_out.npy", (16, 32)),
                    matmul(want, pattern(32, 32)))
        want_lr = [[2.0 * v + (1.0 if c >= 16 else 0.0) for c, v in enumerate(row)] for row in prod]
        ok &= check("lr_out", read_npy_f32(f"{out}/lr_out.npy", (16, 32)), want_lr)
        ok &= check("lr_pv_out", read_npy_f32(f"{out}/lr_pv_out.npy", (16, 32)),
                    matmul(want_lr, pattern(32, 32)))
        ok &= check("mm_ud", read_npy_f32(f"{out}/mm_ud.npy", (16, 32)),
                    [[2.0 * v for v in row] for row in prod])
        want_mm = [[v + (1.0 if c >= 16 else 0.0) for c, v in enumerate(row)] for row in prod]
        ok &= check("mm_lr", read_npy_f32(f"{out}/mm_lr.npy", (16, 32)), want_mm)
    else:
        x = pattern(64, 32)
        want = [[2.0 * v + 1.0 for v in row] for row in x]
        ok &= check("y", read_npy_f32(f"{out}/y.npy", (64, 32)), want)
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
