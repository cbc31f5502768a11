"""pypto.language.distributed (``pld``): the distributed names at Python level."""
from .._types import Enum, LanguageOp, TypeForm

_PREFIX = "pld"

ReduceOp = Enum(_PREFIX, "ReduceOp")
NotifyOp = Enum(_PREFIX, "NotifyOp")
WaitCmp = Enum(_PREFIX, "WaitCmp")
AtomicType = Enum(_PREFIX, "AtomicType")

DistributedTensor = TypeForm("pld.DistributedTensor")
WindowBuffer = TypeForm("pld.WindowBuffer")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return LanguageOp(f"pld.{name}")
