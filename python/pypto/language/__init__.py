"""pypto.language (``pl``): the names PyPTO's programs use at Python level.

A ``@pl.program`` class or ``@pl.jit`` function is not run as Python: its
source, with the module constants it uses, goes to our front end
(docs/language.md). Operators (``pl.load``, ``pl.add``, ...) therefore exist
here only as names; what they mean is the compiler's operator registry."""
from ._types import DataType, DynVar, Enum, EnumMember, LanguageOp, TypeForm
from ._decorators import Program, JitFunction, function, inline, jit, program

_PREFIX = "pl"

FunctionType = Enum(_PREFIX, "FunctionType")
Level = Enum(_PREFIX, "Level")
Role = Enum(_PREFIX, "Role")
ReduceOp = Enum(_PREFIX, "ReduceOp")
MemorySpace = Enum(_PREFIX, "MemorySpace")
Mem = MemorySpace
TensorLayout = Enum(_PREFIX, "TensorLayout")
TileLayout = Enum(_PREFIX, "TileLayout")
PadValue = Enum(_PREFIX, "PadValue")
PipeType = Enum(_PREFIX, "PipeType")

Tensor = TypeForm("pl.Tensor")
Tile = TypeForm("pl.Tile")
Scalar = TypeForm("pl.Scalar")
Out = TypeForm("pl.Out")
InOut = TypeForm("pl.InOut")
Tuple = TypeForm("pl.Tuple")
Array = TypeForm("pl.Array")
IntLike = TypeForm("pl.IntLike")


def dynamic(name):
    return DynVar(name)


def __getattr__(name):
    # Data types by the compiler's names (pl.FP32, pl.INT8, pl.BF16, ...), then
    # any other name as an operator of the language.
    if name.startswith("__"):
        raise AttributeError(name)
    if name.isupper() or name[:2] in ("FP", "BF", "HF"):
        try:
            return DataType(name)
        except AttributeError:
            pass
    return LanguageOp(f"pl.{name}")
