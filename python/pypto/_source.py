"""The text our front end reads for a ``@pl.program`` or ``@pl.jit`` function.

The source comes from the file (the class or function found by its line), the
module constants it uses are written back as language text (``SIZE = 256``,
``NR = pl.dynamic("NR")``, ``DTYPE = pl.FP16``), and every piece keeps its
line in the Python file, so a diagnostic's FILE:LINE is the Python file's (the
column is shifted by the indentation of a class nested in a function)."""
import ast
import builtins
import hashlib
import os
import types

from . import _native
from .language._types import DataType, DynVar, EnumMember

HEADER = ["import pypto.language as pl", "import pypto.language.distributed as pld"]
# Names the language itself reads.
LANGUAGE_NAMES = {"pl", "pld", "self", "range", "len", "min", "max", "int", "float", "bool",
                  "tuple", "Tuple", "True", "False", "None"}


class SourceError(_native.CompileError):
    pass


def _bound(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
        if isinstance(n, ast.arguments):
            for a in n.posonlyargs + n.args + n.kwonlyargs:
                names.add(a.arg)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
    return names


def _free(node):
    used = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            used.setdefault(n.id, n.lineno)
    bound = _bound(node)
    return {k: v for k, v in used.items() if k not in bound}


def _render(value):
    """The language text of a constant, or None."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (DataType, DynVar, EnumMember)):
        return value.pto_text()
    if isinstance(value, (tuple, list)):
        parts = [_render(v) for v in value]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(parts) == 1 else ''})"
    return None


_trees = {}


def _tree(filename):
    if filename not in _trees:
        with open(filename, encoding="utf-8") as f:
            text = f.read()
        _trees[filename] = (text.splitlines(), ast.parse(text, filename))
    return _trees[filename]


def _find(filename, kind, name, line):
    """The def of `name` whose decorators or body hold `line` (else the first)."""
    lines, tree = _tree(filename)
    found = []
    for n in ast.walk(tree):
        if isinstance(n, kind) and n.name == name:
            first = min([d.lineno for d in n.decorator_list] + [n.lineno])
            found.append((first, n))
    if not found:
        raise SourceError(f"{filename}: cannot find the source of '{name}'")
    for first, n in found:
        if first <= line <= n.end_lineno:
            return first, n
    return min(found, key=lambda fn: abs(fn[0] - line))


def _segment(filename, first, node, replace=()):
    """The source lines of `node` from line `first`, dedented; `replace` holds
    (node, text) pairs of single-line nodes whose source becomes text."""
    lines, _ = _tree(filename)
    seg = list(lines[first - 1:node.end_lineno])
    for n, text in sorted(replace, key=lambda r: (r[0].lineno, -r[0].col_offset)):
        i = n.lineno - first
        line = seg[i]
        seg[i] = line[:n.col_offset] + text + line[n.end_col_offset:]
    indent = min(len(l) - len(l.lstrip()) for l in seg if l.strip())
    return [l[indent:] for l in seg]


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _bare_tensor(annotation):
    """The `pl.Tensor` node of `x: pl.Tensor` / `pl.Out[pl.Tensor]` /
    `pl.InOut[pl.Tensor]`: a parameter whose shape a jit call supplies."""
    if _dotted(annotation) == "pl.Tensor":
        return annotation
    if (isinstance(annotation, ast.Subscript) and
            _dotted(annotation.value) in ("pl.Out", "pl.InOut") and
            _dotted(annotation.slice) == "pl.Tensor"):
        return annotation.slice
    return None


def _tensor_text(shape, dtype):
    return f"pl.Tensor[[{', '.join(str(d) for d in shape)}], pl.{dtype}]"


def _jit_specialisation(filename, node, known):
    """(replacements, types of the parameters) for jit function `node` whose
    parameters have the (shape, dtype) of `known` (by position)."""
    replace, types = [], {}
    for i, a in enumerate(node.args.args):
        t = known.get(i)
        if t is not None:
            types[a.arg] = t
        bare = _bare_tensor(a.annotation) if a.annotation is not None else None
        if bare is None:
            continue
        if t is None:
            raise SourceError(f"{filename}:{a.lineno}: error: parameter '{a.arg}' of "
                              f"{node.name} is an unannotated pl.Tensor "
                              "whose shape the call does not give (annotate it "
                              "pl.Tensor[[...], dtype])")
        if bare.lineno != bare.end_lineno:
            raise SourceError(f"{filename}:{a.lineno}: error: the annotation of '{a.arg}' "
                              "spans lines")
        replace.append((bare, _tensor_text(*t)))
    return replace, types


def _arg_type(arg, types):
    """The (shape, dtype) a call argument has: a parameter, or one row of it."""
    if isinstance(arg, ast.Name):
        return types.get(arg.id)
    if (isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name) and
            arg.value.id in types and not isinstance(arg.slice, (ast.Slice, ast.Tuple))):
        shape, dtype = types[arg.value.id]
        return (shape[1:], dtype) if len(shape) > 1 else None
    return None


class _Builder:
    def __init__(self, filename):
        self.filename = filename
        self.consts = {}  # name -> text
        self.pieces = []  # (first line, lines)
        self.seen = set()

    def add(self, first, node, scope, programs, known=None):
        replace, param_types = (_jit_specialisation(self.filename, node, known) if known is not None
                                else ([], {}))
        self.pieces.append((first, _segment(self.filename, first, node, replace)))
        # What this jit function passes to the jit functions it calls.
        passed = {}
        if known is not None:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    args = {i: _arg_type(a, param_types) for i, a in enumerate(call.args)}
                    passed.setdefault(call.func.id, {i: t for i, t in args.items() if t})
        for name, line in sorted(_free(node).items()):
            if name in LANGUAGE_NAMES or name in self.consts or name in programs:
                continue
            where = f"{self.filename}:{line}"
            if name in scope:
                value = scope[name]
            elif hasattr(builtins, name):
                continue
            else:
                raise SourceError(f"{where}: error: '{name}' is not defined")
            from .language._decorators import JitFunction, Program  # noqa: PLC0415
            if isinstance(value, types.ModuleType):
                if value.__name__.startswith("pypto.language"):
                    continue
                raise SourceError(f"{where}: error: the program uses the Python module "
                                  f"'{value.__name__}' ('{name}'), which the language does not have")
            if isinstance(value, JitFunction):
                if value.name in self.seen:
                    continue
                self.seen.add(value.name)
                programs.add(name)
                if value.filename != self.filename:
                    raise SourceError(f"{where}: error: '{name}' is a @pl.jit function of another "
                                      f"file ({value.filename}); one file per program is supported")
                f, n = _find(value.filename, ast.FunctionDef, value.name, value.fn.__code__.co_firstlineno)
                self.add(f, n, value.scope, programs,
                         passed.get(name, {}) if known is not None else None)
                continue
            if isinstance(value, Program):
                raise SourceError(f"{where}: error: the program refers to another program '{name}'")
            text = _render(value)
            if text is None:
                raise SourceError(f"{where}: error: '{name}' is a Python {type(value).__name__}, "
                                  "not a constant the language can take (int, float, bool, str, "
                                  "data type, enum member, pl.dynamic)")
            self.consts[name] = text

    def text(self):
        head = HEADER + [f"{k} = {v}" for k, v in self.consts.items()]
        self.pieces.sort(key=lambda p: p[0])
        out = list(head)
        aligned = True
        for first, seg in self.pieces:
            if len(out) >= first:
                aligned = False
                break
            out += [""] * (first - 1 - len(out)) + seg
        if not aligned:  # the pieces do not fit at their lines: one after another
            out = list(head)
            for _, seg in self.pieces:
                out += [""] + seg
        return "\n".join(out) + "\n"


def program_text(prog):
    first, node = _find(prog.filename, ast.ClassDef, prog.name, prog.decorator_line)
    b = _Builder(prog.filename)
    b.add(first, node, prog.scope, {prog.name})
    return b.text()


def jit_text(jf, arg_types):
    """The text of jit function `jf` for a call whose tensors have
    `arg_types` ({position: (shape, dtype name)}): a parameter annotated
    with a bare ``pl.Tensor`` takes its argument's shape and dtype, and so
    does a parameter of a jit function it calls with that tensor (or a row
    of it, ``x[r]``)."""
    first, node = _find(jf.filename, ast.FunctionDef, jf.name, jf.fn.__code__.co_firstlineno)
    b = _Builder(jf.filename)
    b.seen.add(jf.name)
    b.add(first, node, jf.scope, {jf.name}, arg_types)
    return b.text()


def write_source(text, filename):
    """The text as a file the front end reads, named after the Python file
    (diagnostics name it; pypto maps it back to `filename`)."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    d = os.path.join(_native.cache_dir(), "src", digest)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, os.path.basename(filename) or "program.py")
    if not os.path.exists(path):
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


class Source:
    """A program as our front end reads it: its text, the file holding the
    text, and the Python file its lines are from."""

    def __init__(self, name, filename, text):
        self.name, self.filename, self.text = name, filename, text
        self.path = write_source(text, filename)

    @staticmethod
    def of(obj, arg_types=None):
        from .language._decorators import JitFunction, Program  # noqa: PLC0415
        if isinstance(obj, Program):
            return Source(obj.name, obj.filename, program_text(obj))
        if isinstance(obj, JitFunction):
            return Source(obj.name, obj.filename, jit_text(obj, arg_types or {}))
        raise TypeError(f"expected a @pl.program class or a @pl.jit function, got {obj!r}")

    def located(self, message):
        """A diagnostic of the text, naming the Python file instead."""
        return message.replace(self.path, self.filename)
