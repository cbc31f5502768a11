"""``@pl.program``, ``@pl.function`` and ``@pl.jit``: each records where its
source is; pypto/_source.py turns it, with the constants it uses, into the
text our front end reads."""
import collections
import inspect
import sys


def _scope(frame):
    """The names a program's constants resolve in: the decorating function's
    locals as they are now (a builder's parameters), then the module's globals
    as they are when the program is compiled."""
    if frame.f_locals is frame.f_globals:  # decorated at module level
        return frame.f_globals
    return collections.ChainMap(dict(frame.f_locals), frame.f_globals)


class Program:
    """A ``@pl.program`` class, as our front end will read it."""

    def __init__(self, cls, frame):
        self.name = cls.__name__
        self.cls = cls
        self.filename = inspect.getsourcefile(cls) or "<unknown>"
        # The decorator's line tells the class apart from others of its name.
        self.decorator_line = frame.f_lineno
        self.scope = _scope(frame)

    def __repr__(self):
        return f"<pl.program {self.name} from {self.filename}>"


def program(cls=None, **kwargs):
    """``@pl.program`` (with or without arguments)."""
    del kwargs
    frame = sys._getframe(1)

    def wrap(c):
        return Program(c, frame)

    return wrap(cls) if cls is not None else wrap


def function(fn=None, **kwargs):
    """``@pl.function(type=..., level=..., role=...)``: read by the front end from
    the program's source; at Python level the method is kept as it is."""
    del kwargs
    if fn is not None and callable(fn):
        return fn
    return lambda f: f


inline = function


class JitFunction:
    """A ``@pl.jit`` function: compiled for the shapes of a call and run."""

    def __init__(self, fn, kind, frame):
        self.fn = fn
        self.kind = kind  # "", "host", "incore"
        self.name = fn.__name__
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        self.scope = _scope(frame)
        # PyPTO names the compiled specialisations `_cache` (its tests clear it).
        self._cache = {}

    def compile(self, *args, config=None):
        from ..runtime import runner  # noqa: PLC0415
        return runner.compile_jit(self, args, config)

    def __call__(self, *args, config=None, **kwargs):
        if kwargs:
            raise TypeError(f"{self.name}: keyword arguments {sorted(kwargs)} are not supported; "
                            "pass tensors positionally")
        from ..runtime import runner  # noqa: PLC0415
        return runner.compile_jit(self, args, config)(*args)

    def __repr__(self):
        return f"<pl.jit{'.' + self.kind if self.kind else ''} {self.name}>"


class _Jit:
    """``pl.jit``, ``pl.jit.host`` and ``pl.jit.incore``."""

    def _make(self, kind, fn, frame):
        if fn is not None and callable(fn):
            return JitFunction(fn, kind, frame)
        return lambda f: JitFunction(f, kind, frame)

    def __call__(self, fn=None, **kwargs):
        return self._make("", fn, sys._getframe(1))

    def host(self, fn=None, **kwargs):
        return self._make("host", fn, sys._getframe(1))

    def incore(self, fn=None, **kwargs):
        return self._make("incore", fn, sys._getframe(1))


jit = _Jit()
