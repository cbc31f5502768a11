"""pypto.backend: PyPTO's backend types, for the signatures that name them.
Programs here always compile through our code generator for the platform
given to ``ir.compile`` and run on our simulator."""
import enum


class BackendType(enum.Enum):
    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


__all__ = ["BackendType"]
