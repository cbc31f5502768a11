"""pypto: PyPTO's public names over this project's C++ toolchain (docs/python.md).

Programs written with ``pypto.language`` are handed, as source text, to our
front end; ``pypto.ir.compile`` lowers them through our default pipeline for
a platform, and calling the result runs them on our SystemC multi-chip
simulator. This is our own package: it implements PyPTO's names and call
conventions, not PyPTO's code.
"""
import enum

from . import _native
from ._native import CompileError, RunError


class LogLevel(enum.IntEnum):
    """PyPTO's log levels; accepted and ignored (the toolchain logs errors only)."""

    DEBUG = 0
    INFO = 1
    WARN = 2
    ERROR = 3
    FATAL = 4
    EVENT = 5
    NONE = 6


from . import language  # noqa: E402
from . import ir  # noqa: E402
from . import runtime  # noqa: E402
from . import backend  # noqa: E402
from .language import DataType  # noqa: E402

__all__ = ["CompileError", "RunError", "LogLevel", "DataType", "language", "ir", "runtime",
           "backend"]
