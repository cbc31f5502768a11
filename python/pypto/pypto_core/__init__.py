"""``pypto.pypto_core``: the names of PyPTO's core module that test modules
import for their signatures (``passes.MemoryPlanner``). Our toolchain has one
memory planner in its default pipeline; the choice is accepted and not acted
on (docs/python.md)."""
from . import passes

__all__ = ["passes"]
