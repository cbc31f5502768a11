# Synthetic: a program inside a test function, with a function-level constant.
import pypto.language as pl
import pypto.language.distributed as pld
import pytest


def test_local_constant():
    N = 4

    @pl.program
    class Local:
        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(self):
            buf = pld.alloc_window_buffer(N * pl.INT32.get_byte())
            sig = pld.window(buf, [N], dtype=pl.INT32)
            sig = pld.tensor.barrier(sig)


def test_rejected():
    with pytest.raises(ValueError):

        @pl.program
        class Rejected:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
                y = pl.tile.bogus(x)
                return y
