"""Errors reach Python as exceptions: a program our front end rejects raises
pypto.CompileError with the located diagnostic (this file, its line); a call
with the wrong tensors raises TypeError before anything runs."""
import numpy as np
import pytest
import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

W = 64
NR = pl.dynamic("NR")


def _helper():
    return 3


@pl.program
class BadKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[1, W], pl.FP32]]) -> pl.Tensor[[1, W], pl.FP32]:
        t = pl.load(x, [0, 0], [1, W], no_such_argument=1)  # BAD-KEYWORD
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def o(self, x: pl.Tensor[[1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[1, W], pl.FP32]]) -> pl.Tensor[[1, W], pl.FP32]:
        return self.k(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def h(self, x: pl.Tensor[[NR, 1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]) -> pl.Tensor[[NR, 1, W], pl.FP32]:
        for r in pl.range(pld.world_size()):
            self.o(x[r], y[r], device=r)
        return y


@pl.program
class UsesHelper:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def h(self, x: pl.Tensor[[NR, 1, W], pl.FP32]) -> pl.Tensor[[NR, 1, W], pl.FP32]:
        n = _helper()  # HELPER
        return x


@pl.program
class Copy:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[1, W], pl.FP32]]) -> pl.Tensor[[1, W], pl.FP32]:
        return pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def o(self, x: pl.Tensor[[1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[1, W], pl.FP32]]) -> pl.Tensor[[1, W], pl.FP32]:
        return self.k(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def h(self, x: pl.Tensor[[NR, 1, W], pl.FP32],
          y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]) -> pl.Tensor[[NR, 1, W], pl.FP32]:
        for r in pl.range(pld.world_size()):
            self.o(x[r], y[r], device=r)
        return y


def _line_of(marker):
    with open(__file__, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if marker in line and "_line_of" not in line:
                return i
    raise AssertionError(marker)


def _two_chips():
    return DistributedConfig(device_ids=[0, 1])


def test_rejected_program_raises_located_diagnostic(test_config):
    with pytest.raises(pypto.CompileError) as e:
        ir.compile(BadKeyword, platform=test_config.platform, distributed_config=_two_chips())
    text = str(e.value)
    assert f"{__file__}:{_line_of('# BAD-KEYWORD')}:" in text
    assert "error:" in text and "no_such_argument" in text


def test_python_helper_in_a_program_is_named(test_config):
    with pytest.raises(pypto.CompileError) as e:
        ir.compile(UsesHelper, platform=test_config.platform, distributed_config=_two_chips())
    assert f"{__file__}:{_line_of('# HELPER')}: error: '_helper' is a Python function" in str(e.value)


def test_unknown_platform_is_an_error():
    with pytest.raises(pypto.CompileError, match="no_such_platform"):
        ir.compile(Copy, platform="no_such_platform", distributed_config=_two_chips())


def test_wrong_dtype_is_a_type_error(test_config):
    compiled = ir.compile(Copy, platform=test_config.platform, distributed_config=_two_chips())
    x = np.zeros((2, 1, W), dtype=np.float64)
    with pytest.raises(TypeError, match="'x' is <f4 \\[2, 1, 64\\], the call passes <f8"):
        compiled(x, np.zeros((2, 1, W), dtype=np.float32))


def test_wrong_argument_count_is_a_type_error(test_config):
    compiled = ir.compile(Copy, platform=test_config.platform, distributed_config=_two_chips())
    with pytest.raises(TypeError, match="takes 2 tensors"):
        compiled(np.zeros((2, 1, W), dtype=np.float32))


def test_language_names_come_from_the_compiler():
    assert pl.FP16.get_byte() == 2 and pl.INT8.get_byte() == 1
    assert repr(pld.ReduceOp.Prod) == "pld.ReduceOp.Prod"
    with pytest.raises(AttributeError, match="ReduceOp has no member 'Average'"):
        pld.ReduceOp.Average  # noqa: B018
    with pytest.raises(AttributeError):
        pl.Level.NOT_A_LEVEL  # noqa: B018
    with pytest.raises(TypeError, match="operator of the PTO language"):
        pl.load(None, [0, 0], [1, 1])
