"""The Python-level objects of the language: data types, enums, dynamic
dimensions and the typing objects of annotations. Programs are never run as
Python; these exist so decorators, annotations and module constants evaluate,
and so a constant can be written back as language text for the front end."""
from .. import _native


class DataType:
    """A data type (``pl.FP32``); the names and sizes are the compiler's."""

    _cache = {}

    def __new__(cls, name):
        if name in cls._cache:
            return cls._cache[name]
        nbytes = _native.ext.dtype_bytes(name)
        if nbytes < 0:
            raise AttributeError(f"pl.{name} is not a data type")
        self = super().__new__(cls)
        self._name = name
        self._bytes = nbytes
        cls._cache[name] = self
        return self

    @property
    def name(self):
        return self._name

    def get_byte(self):
        return self._bytes

    def get_bit(self):
        return self._bytes * 8

    def pto_text(self):
        return f"pl.{self._name}"

    def __repr__(self):
        return self.pto_text()


class EnumMember:
    def __init__(self, prefix, enum, member):
        self.prefix, self.enum, self.name = prefix, enum, member

    def pto_text(self):
        return f"{self.prefix}.{self.enum}.{self.name}"

    def __repr__(self):
        return self.pto_text()

    def __eq__(self, other):
        return isinstance(other, EnumMember) and (self.enum, self.name) == (other.enum, other.name)

    def __hash__(self):
        return hash((self.enum, self.name))


class Enum:
    """``pl.FunctionType``, ``pld.ReduceOp``, ...: members the compiler knows."""

    def __init__(self, prefix, name):
        self._prefix, self._name = prefix, name
        self._members = {}

    def __getattr__(self, member):
        if member.startswith("_"):
            raise AttributeError(member)
        if member not in self._members:
            if not _native.ext.enum_member(self._name, member):
                raise AttributeError(f"{self._prefix}.{self._name} has no member '{member}'")
            self._members[member] = EnumMember(self._prefix, self._name, member)
        return self._members[member]

    def __repr__(self):
        return f"{self._prefix}.{self._name}"


class DynVar:
    """``pl.dynamic("N")``: a dimension bound when the program is compiled for a
    call (from the rank count and the call's argument shapes)."""

    def __init__(self, name):
        self.name = name

    def pto_text(self):
        return f"pl.dynamic({self.name!r})"

    def __repr__(self):
        return self.pto_text()

    # Annotations such as pl.Tensor[[NR, NR * SIZE], ...] evaluate in Python;
    # what the expression means is read from the source by the front end.
    def _expr(self, op, other, swap=False):
        return DimExpr(f"({other!r} {op} {self!r})" if swap else f"({self!r} {op} {other!r})")

    def __add__(self, o): return self._expr("+", o)
    def __radd__(self, o): return self._expr("+", o, True)
    def __sub__(self, o): return self._expr("-", o)
    def __rsub__(self, o): return self._expr("-", o, True)
    def __mul__(self, o): return self._expr("*", o)
    def __rmul__(self, o): return self._expr("*", o, True)
    def __floordiv__(self, o): return self._expr("//", o)
    def __rfloordiv__(self, o): return self._expr("//", o, True)
    def __mod__(self, o): return self._expr("%", o)
    def __rmod__(self, o): return self._expr("%", o, True)


class DimExpr(DynVar):
    """An expression of dynamic dimensions in an annotation (never rendered
    as a constant: the front end reads it from the source)."""

    def __init__(self, text):
        super().__init__(text)

    def pto_text(self):
        return None

    def __repr__(self):
        return self.name


class TypeForm:
    """``pl.Tensor``, ``pl.Out``, ...: subscriptable so annotations evaluate."""

    def __init__(self, path, args=None):
        self._path, self._args = path, args

    def __getitem__(self, args):
        return TypeForm(self._path, args)

    def __call__(self, *args, **kwargs):
        return TypeForm(self._path, (args, kwargs))

    def __repr__(self):
        return self._path if self._args is None else f"{self._path}[{self._args!r}]"


class LanguageOp:
    """An operator of the language (``pl.load``): it has meaning only inside a
    program, which our front end reads; calling it from Python is an error."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return LanguageOp(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self._path} is an operator of the PTO language: it runs inside a "
                        "@pl.program or @pl.jit function, not as Python (docs/python.md)")

    def __repr__(self):
        return self._path
