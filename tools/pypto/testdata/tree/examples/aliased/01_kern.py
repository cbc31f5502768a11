# A module-level @pl.function kernel (PyPTO's external function), imported by
# another file through the package's alias.
import pypto.language as pl

N = 16


@pl.function(type=pl.FunctionType.InCore)
def add_one(x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]) -> pl.Tensor[[N], pl.FP32]:
    t = pl.load(x, [0], [N])
    u = pl.add(t, 1.0)
    y = pl.store(u, [0], y)
    return y
