# A synthetic PyPTO-like test file (ours) for extract_programs_test.sh.
import pypto.language as pl
import torch

ROWS = 8
COLS = ROWS * 2
SCALE = torch.tensor([2.0])


def helper(x):
    return x


@pl.program
class Passes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
          out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [ROWS, COLS])
        u = pl.add(t, 1.0)
        out = pl.store(u, [0, 0], out)
        return out


@pl.program
class UsesTorch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS], pl.FP32]) -> pl.Tensor[[ROWS], pl.FP32]:
        y = pl.mul(x, SCALE)
        return y


@pl.program
class CallsHelper:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS], pl.FP32]) -> pl.Tensor[[ROWS], pl.FP32]:
        return helper(x)


@pl.program
class UnknownOperator:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS], pl.FP32]) -> pl.Tensor[[ROWS], pl.FP32]:
        y = pl.tile.bogus(x)
        return y


def test_parametrized(n_cols):
    @pl.program
    class UsesParameter:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[ROWS, n_cols], pl.FP32]) -> pl.Tensor[[ROWS, n_cols], pl.FP32]:
            return x

    @pl.program
    class UsesFString:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[ROWS], pl.FP32]) -> pl.Tensor[[ROWS], pl.FP32]:
            name = f"{ROWS}"
            return x
