# A program calling an imported module-level @pl.function by name: the kernel
# and its file's constants join the extract.
import pypto.language as pl

from examples.aliased.kern import N, add_one


@pl.program
class UsesAliased:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N], pl.FP32], y: pl.Out[pl.Tensor[[N], pl.FP32]]) -> pl.Tensor[[N], pl.FP32]:
        y = add_one(x, y)
        return y
