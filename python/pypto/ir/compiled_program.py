"""PyPTO's single-program name; here every compiled program is a
DistributedCompiledProgram (a single chip is one device id)."""
from .distributed_compiled_program import DistributedCompiledProgram as CompiledProgram

__all__ = ["CompiledProgram"]
