# A synthetic PyPTO-like single-chip test (ours): programs built from the
# test's parameters, which extract_programs.py substitutes.
import pypto.language as pl
import pytest
import torch

_DT = {"fp32": pl.FP32}


class CaseBase:
    def __init__(self, m=16, n=32, dtype="fp32"):
        self._m, self._n = m, n
        self._dt = _DT[dtype]


class AddCase(CaseBase):
    def get_program(self):
        m, n, dt = self._m, self._n * 2, self._dt

        @pl.program
        class FromInit:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[m, n], dt],
                  out: pl.Out[pl.Tensor[[m, n], dt]]) -> pl.Tensor[[m, n], dt]:
                t = pl.load(x, [0, 0], [m, n])
                out = pl.store(t, [0, 0], out)
                return out

        return FromInit


@pytest.mark.parametrize("rows,cols", [(8, 64), pytest.param(4, 4, id="small")])
def test_parametrized(rows, cols):
    @pl.program
    class FromParametrize:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[rows, cols], pl.FP32]) -> pl.Tensor[[rows, cols], pl.FP32]:
            return x


def build(width):
    @pl.program
    class FromCallSite:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[width], pl.FP32]) -> pl.Tensor[[width], pl.FP32]:
            return x

    return FromCallSite


def test_build():
    build(width=128)


def test_unknown(fixture_value):
    @pl.program
    class FromFixture:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[fixture_value], pl.FP32]) -> pl.Tensor[[fixture_value], pl.FP32]:
            return x


@pl.jit.inline
def bare_inner(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 32])
        pl.store(pl.add(t, t), [0, 0], y)
    return y


@pl.jit
def bare_add(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    tmp = pl.create_tensor([16, 32], dtype=pl.FP16)
    tmp = bare_inner(a, tmp)
    c = bare_inner(tmp, c)
    return c


def test_bare_add():
    a = torch.randn(16, 32, dtype=torch.float16)
    bare_add(a, torch.zeros((16, 32), dtype=torch.float16))


@pl.jit
def table_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [8, 64])
        pl.store(t, [0, 0], c)
    return c


def test_table():
    for fn, n in ((table_copy, 64),):
        a = torch.randn(8, n, dtype=torch.float32)
        fn(a, torch.zeros(8, n))


@pl.jit
def helper_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [4, 64])
        pl.store(t, [0, 0], c)
    return c


def _inputs():
    a = torch.randn(4, 64, dtype=torch.int32)
    c = torch.zeros_like(a)
    return a, c


def test_helper():
    a, c = _inputs()
    helper_copy(a, c)


_SHAPES = [(16, 8), (32, 32)]


@pytest.mark.parametrize("shape", _SHAPES)
def test_named_table(shape):
    r, c = shape

    @pl.program
    class FromNamedTable:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[r, c], pl.FP32]) -> pl.Tensor[[r, c], pl.FP32]:
            return x


@pl.jit
def compiled_copy(a: pl.Tensor, cfg: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [8, 64])
        pl.store(t, [0, 0], c)
    return c


def test_compiled_copy():
    # PyPTO's JIT specializes at .compile(...) / .lower(...) as at a call; a
    # copy of a tensor (clone, share_memory_) has its shape and dtype, and
    # torch.tensor([...]) is 1-D.
    sample = torch.zeros((8, 64), dtype=torch.float32).share_memory_()
    cfg = torch.tensor([1, 48, 64], dtype=torch.int64)
    compiled_copy.compile(sample, cfg, sample.clone())


@pl.jit
def mode_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [4, 32])
        pl.store(t, [0, 0], c)
    return c


_MODES = {"copy": mode_copy}


def test_modes():
    # A loop over a dict of jit functions calls each one.
    x = torch.zeros(4, 32, dtype=torch.float16)
    for name, kernel in _MODES.items():
        kernel(x, torch.zeros_like(x))


@pl.jit
def cast_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [4, 32]), [0, 0], c)
    return c


def test_cast_copy():
    # A scaled and cast tensor has the maker's shape and the cast's dtype.
    a = (torch.randn(4, 32) * 0.5).half()
    cast_copy(a, torch.zeros(4, 32, dtype=torch.float16))


@pl.jit
def dict_copy(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [2, 16])
        pl.store(t, [0, 0], c)
    return c


def _named_inputs():
    return {"a": torch.randn(2, 16, dtype=torch.float16), "c": torch.zeros(2, 16, dtype=torch.float16)}


def test_dict_spread():
    base = _named_inputs()
    tensors = {k: v.clone() for k, v in base.items()}
    order = ["a", "c"]
    dict_copy.lower(*[tensors[n] for n in order])
