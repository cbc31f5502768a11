#!/usr/bin/env python3
"""Measures how many of PyPTO's programs our front end reads.

Given a PyPTO checkout, extracts every `@pl.program` class and `@pl.jit`
function (`@pl.jit`, `@pl.jit.host`, `@pl.jit.incore`, with the jit functions
they call) from the files the compatibility goal names (docs/language.md,
"Compatibility with PyPTO"), in two sets reported apart: the distributed set
and the single-chip set (`--set` picks one). With each program go the module-
and function-level constants it uses (`SIZE = 256`, `NR = pl.dynamic("NR")`)
and the values the test gives the names it uses (param_values.py: a
parameter's default, the first `pytest.mark.parametrize` case, a call's
argument, `self._m` set in `__init__`, a constant imported from the checkout),
written as `NAME = value`. A program that still depends on Python outside the
language (torch, helper functions, f-strings) is skipped with the reason. Each extract is written to
OUT_DIR/<file>__<name>.pto, then `pto-opt` reads it, prints it, and reads and
prints the print again: a program passes when both steps succeed and the
second print equals the first (a fixed point). A program written inside
`with pytest.raises(...)` is one PyPTO rejects: it passes when we reject it
too. Prints a table with the first
error of each failure, the top failure causes and the rate.

usage: extract_programs.py PYPTO_CHECKOUT [--out DIR] [--pto-opt PATH] [--min-rate R]
                           [--set distributed|single-chip|all]
Exit status: 0, or 1 if a set's rate is below --min-rate (default 0), 2 on bad use.
Python 3 standard library only. Nothing of PyPTO's is kept outside OUT_DIR.
"""
import argparse
import ast
import builtins
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import param_values as pv  # noqa: E402  (the sibling module: values of test parameters)

# The files of the compatibility goal, relative to the checkout: the
# distributed set (issue 10) and the single-chip set (issue 24, point 7).
SOURCE_SETS = {
    "distributed": [
        "tests/st/distributed/**/*.py",
        "tests/ut/ir/transforms/test_*comm*.py",
        "tests/ut/**/test_lower_host_tensor_collectives.py",
        "tests/ut/**/test_materialize_dist_tensor_ctx.py",
        "tests/ut/**/test_insert_comm_fence.py",
        "tests/ut/**/test_distributed_ops.py",
        "examples/distributed/**/*.py",
    ],
    "single-chip": [
        "tests/st/runtime/**/*.py",
        "tests/st/examples/**/*.py",
        "tests/st/codegen/**/*.py",
        "examples/**/*.py",
    ],
}
# A file of one set is not read again for a later one (examples/distributed).
SET_ORDER = ["distributed", "single-chip"]

REJECTED_TAG = " (PyPTO rejects it)"
# A jit function that only other jit functions call: part of their programs.
PART_OF_TAG = "compiled as part of "
# The first line of an extract whose @pl.jit parameters are bound at the call.
BIND_TAG = "# pto-opt --bind: "
HEADER = "import pypto.language as pl\nimport pypto.language.distributed as pld\n"
# Names a program may use without defining them: the language's modules and the
# Python builtins the language itself reads.
LANGUAGE_NAMES = {"pl", "pld", "self", "range", "len", "min", "max", "int", "float", "bool",
                  "tuple", "Tuple", "True", "False", "None"}
PYTHON_MODULES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "math": "math",
                  "os": "os", "sys": "sys", "pytest": "pytest", "random": "random"}


def source_files(root, which="distributed"):
    """The files of set `which`, each once; a file of an earlier set belongs to that set."""
    seen = set()
    for name in SET_ORDER:
        for pattern in SOURCE_SETS[name]:
            for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
                if path in seen or not os.path.isfile(path):
                    continue
                seen.add(path)
                if name == which:
                    yield path
        if name == which:
            return


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr if base else None
    if isinstance(node, ast.Call):
        return dotted(node.func)
    return None


def is_program(node):
    return isinstance(node, ast.ClassDef) and any(
        (dotted(d) or "") in ("pl.program", "program") for d in node.decorator_list)


def is_jit(node):
    return isinstance(node, ast.FunctionDef) and any(
        (dotted(d) or "").startswith(("pl.jit", "jit")) for d in node.decorator_list)


def is_pl_function(node):
    """A module-level `@pl.function` def: PyPTO's external function, which a
    program's methods call by name and which joins the program."""
    return isinstance(node, ast.FunctionDef) and any(
        (dotted(d) or "") == "pl.function" for d in node.decorator_list)


def bound_names(node):
    """Names bound anywhere inside `node` (params, targets, loop and with vars)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
        if isinstance(n, ast.arguments):
            for a in n.posonlyargs + n.args + n.kwonlyargs:
                names.add(a.arg)
            for a in (n.vararg, n.kwarg):
                if a is not None:
                    names.add(a.arg)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
    return names


def free_names(node):
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - bound_names(node)


def flat(body):
    """The statements of `body` and of its blocks, not of nested definitions."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.With, ast.If, ast.For, ast.While, ast.Try)):
            for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])):
                yield from flat(block)
            for h in getattr(stmt, "handlers", []):
                yield from flat(h.body)


class Scope:
    """The bindings of one scope: simple assignments (`NAME = expr`), unpackings
    (`A, B = x, y`), `for` variables, a function's parameters, definitions and
    imports; `func` / `cls` are the function and the class it is a method of."""

    def __init__(self, body, parent=None, func=None, cls=None):
        self.parent = parent
        self.func = func
        self.cls = cls
        self.consts = {}
        self.tuple_consts = {}
        self.for_vars = {}
        self.funcs = {}
        self.imports = {}
        self.import_names = {}
        self.params = set()
        if func is not None:
            a = func.args
            self.params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} - {"self"}
        for stmt in flat(body):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name):
                self.consts[stmt.targets[0].id] = stmt
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], (ast.Tuple, ast.List)):
                for i, e in enumerate(stmt.targets[0].elts):
                    if isinstance(e, ast.Name):
                        self.tuple_consts[e.id] = (stmt, i)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
                self.consts[stmt.target.id] = stmt
            elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                self.funcs[stmt.name] = stmt
            elif isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
                self.for_vars.setdefault(stmt.target.id, stmt.iter)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    local = alias.asname or alias.name.split(".")[0]
                    if isinstance(stmt, ast.ImportFrom):
                        self.imports[local] = (stmt.module or "", alias.name, stmt.level)
                        self.import_names[local] = alias.name
                    else:
                        self.imports[local] = (alias.name, None, 0)

    def lookup(self, name):
        scope = self
        while scope is not None:
            for table, kind in ((scope.consts, "const"), (scope.funcs, "def"),
                                (scope.imports, "import")):
                if name in table:
                    return kind, table[name], scope
            if name in scope.tuple_consts or name in scope.for_vars or name in scope.params:
                return "value", None, scope
            scope = scope.parent
        return None, None, None


def language_expr(node):
    """Why `node` (a constant's value) is not a language constant, or None."""
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr):
            return "an f-string"
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
                          ast.Dict)):
            return "a Python " + type(n).__name__.lower()
        if isinstance(n, ast.Call):
            name = dotted(n.func) or ""
            if not (name.startswith(("pl.", "pld.")) or name.endswith(".get_byte") or
                    name in ("int", "float", "min", "max", "len")):
                return f"a call of {name or 'an expression'}"
        if isinstance(n, ast.Attribute):
            root = dotted(n)
            if root and root.split(".")[0] not in ("pl", "pld") and not root.endswith("get_byte"):
                head = root.split(".")[0]
                if head in PYTHON_MODULES:
                    return "uses " + PYTHON_MODULES[head]
    return None


def python_only(node):
    """A constant's value Python computes but the language does not read
    (`8 if size == 1 else 1`, `shape[1]`, `min(a, b)`): the extract carries its value."""
    return any(isinstance(n, (ast.IfExp, ast.Subscript, ast.Compare, ast.BoolOp)) or (
        isinstance(n, ast.Call) and dotted(n.func) in ("min", "max", "int", "len", "abs"))
               for n in ast.walk(node))


def uses_self(node):
    return any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(node))


class Module:
    """A source file as the extraction reads it: its text, scope and evaluator."""

    def __init__(self, root, path, src=None):
        self.path = path
        self.src = src if src is not None else open(path, encoding="utf-8").read()
        self.tree = ast.parse(self.src)
        self.scope = Scope(self.tree.body)
        self.evaluator = pv.Evaluator(root, path, self.scope, Scope, self.tree.body)


def imported_jit(root, stmt, name, modules):
    """(def, Module) of a jit function or module-level @pl.function that
    `from <module> import name` reads from a file of the checkout, as PyPTO's
    import would; else None."""
    module_name, original, level = stmt
    if original is None or root is None:
        return None
    path = pv.module_file(root, modules["__path__"], module_name, level)
    if path is None:
        return None
    if path not in modules:
        try:
            modules[path] = Module(root, path)
        except (SyntaxError, OSError):
            modules[path] = None
    other = modules[path]
    fn = other.scope.funcs.get(original) if other is not None else None
    usable = fn is not None and (is_jit(fn) or is_pl_function(fn))
    return (fn, other) if usable and fn.name == name else None


def collect(node, scope, program_names, evaluator, src=None, root=None, modules=None):
    """(constant statements in dependency order, computed constants as text,
    extra jit defs, skip reason). Constants and extra defs are (node, src)
    pairs: a jit function imported from another file of the checkout comes
    with that file's constants."""
    extra = []
    order = []
    computed = {}
    pending = [(node, scope, evaluator, src, 1)]
    visited_names = set()
    modules = modules if modules is not None else {}
    while pending:
        current, scope, evaluator, src, rank = pending.pop()
        for n in ast.walk(current):
            if isinstance(n, ast.JoinedStr):
                return None, None, None, "uses an f-string"
        for name in sorted(free_names(current)):
            if name in LANGUAGE_NAMES or (name, id(scope)) in visited_names or name in program_names:
                continue
            visited_names.add((name, id(scope)))
            kind, stmt, _ = scope.lookup(name)
            if kind == "import" and modules is not None:
                found = imported_jit(root, stmt, name, modules)
                if found is not None:
                    fn, other = found
                    extra.append((fn, other.src, 0))
                    pending.append((fn, other.scope, other.evaluator, other.src, 0))
                    continue
            if kind == "def":
                if is_jit(stmt) or (is_pl_function(stmt) and not is_jit(node)):
                    extra.append((stmt, src, rank))
                    pending.append((stmt, scope, evaluator, src, rank))
                    continue
                if isinstance(stmt, ast.ClassDef) and is_program(stmt):
                    return None, None, None, f"refers to another program '{name}'"
                return None, None, None, f"calls the Python helper '{name}'"
            if (kind == "const" and not uses_self(stmt.value) and not language_expr(stmt.value)
                    and not python_only(stmt.value)):
                order.append((stmt, src, rank))
                pending.append((stmt.value, scope, evaluator, src, rank))
                continue
            # A value the test computes: a parameter's default or parametrize case,
            # an unpacking, `self.x`, an imported constant, a Python table.
            try:
                text = pv.spell(evaluator.value(name, scope))
                why = None if text is not None else "a value the language cannot spell"
            except pv.Unresolved as e:
                text, why = None, str(e)
            if text is not None:
                computed[name] = f"{name} = {text}"
                continue
            if kind == "import":
                module = stmt[0].split(".")[0] if stmt[0] else ""
                if module in ("pypto",):
                    return None, None, None, (f"uses '{name}' imported from {stmt[0]} "
                                              "(outside pl / pld)")
                return None, None, None, f"uses {PYTHON_MODULES.get(module, module or '.')} ('{name}')"
            if kind == "const":
                return None, None, None, (f"constant '{name}' is "
                                          f"{language_expr(stmt.value) or 'not computable: ' + why}")
            if kind is None and hasattr(builtins, name):
                return None, None, None, f"uses the Python builtin '{name}'"
            return None, None, None, f"depends on the test parameter or local '{name}' ({why})"
    # Definitions before uses: an imported file's first, each in source order.
    key = lambda e: (e[2], e[0].lineno, e[0].col_offset)  # noqa: E731
    consts = [(c, text) for c, text, _ in sorted(order, key=key)]
    extra = [(e, text) for e, text, _ in sorted({id(e[0]): e for e in extra}.values(), key=key)]
    return consts, [computed[k] for k in sorted(computed)], extra, None


def segment(src, node):
    first = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
    lines = src.splitlines()[first - 1:node.end_lineno]
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return "\n".join(l[indent:] for l in lines)


def expects_error(with_stmt):
    """`with pytest.raises(...)`: PyPTO's test expects the program to be rejected."""
    return any((dotted(item.context_expr) or "").endswith("pytest.raises")
               for item in with_stmt.items)


def extracts(path, root):
    src = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, root)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        yield rel, "?", None, f"not Python: {e.msg}", False
        return
    module = Scope(tree.body)

    evaluator = pv.Evaluator(root, path, module, Scope, tree.body)
    modules = {"__path__": path}  # the files its imports read (imported_jit)

    def walk(body, scope, rejected, cls=None):
        for stmt in body:
            if is_program(stmt) or is_jit(stmt):
                yield stmt, scope, rejected
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(stmt.body, Scope(stmt.body, scope, func=stmt, cls=cls), rejected)
            elif isinstance(stmt, ast.ClassDef):
                yield from walk(stmt.body, scope, rejected, cls=stmt)
            elif isinstance(stmt, ast.With):
                yield from walk(stmt.body, scope, rejected or expects_error(stmt), cls)
            elif isinstance(stmt, (ast.If, ast.For, ast.Try)):
                yield from walk(stmt.body, scope, rejected, cls)

    callers = jit_callers(tree)
    for n in tree.body:
        if is_jit(n) and bare_tensor_params(n) and n.name not in callers and not any(
                isinstance(x, ast.Name) and x.id == n.name for x in ast.walk(tree)):
            # Not used in its file: a kernel of a package that another file
            # imports (`from .kernels.mlp import mlp_block`), compiled there.
            outside = importers(root, path, n.name)
            if outside:
                callers[n.name] = outside
    for node, scope, rejected in walk(tree.body, module, False):
        names = {node.name}
        if is_jit(node) and callers.get(node.name) and bare_tensor_params(node):
            # Only other jit functions call it and its shapes come from the call:
            # PyPTO's JIT compiles it only inside its callers, specialized there.
            yield rel, node.name, None, PART_OF_TAG + ", ".join(sorted(callers[node.name])), rejected
            continue
        consts, computed, extra, why = collect(node, scope, names, evaluator, src, root,
                                               modules)
        if why:
            yield rel, node.name, None, why, rejected
            continue
        parts = [HEADER]
        binds = jit_bindings(node, [e for e, _ in extra], evaluator, module)
        if binds:
            parts.insert(0, BIND_TAG + " ".join(binds))
        if computed:
            parts.append("\n".join(computed))
        parts += [segment(text, c) for c, text in consts]
        parts += [segment(text, e) for e, text in extra]
        parts.append(segment(src, node))
        yield rel, node.name, "\n\n".join(parts) + "\n", None, rejected


_IMPORTS = {}  # package directory -> [(file, ImportFrom)] of its files


def importers(root, path, name):
    """The files of `path`'s package (the directories above it that hold an
    __init__.py) that import `name` from `path`, relative to the checkout."""
    top = os.path.dirname(path)
    while os.path.isfile(os.path.join(os.path.dirname(top), "__init__.py")):
        top = os.path.dirname(top)
    if not os.path.isfile(os.path.join(top, "__init__.py")):
        return set()
    if top not in _IMPORTS:
        _IMPORTS[top] = []
        for f in sorted(glob.glob(os.path.join(top, "**", "*.py"), recursive=True)):
            try:
                tree = ast.parse(open(f, encoding="utf-8").read())
            except (SyntaxError, OSError):
                continue
            _IMPORTS[top] += [(f, n) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    return {os.path.relpath(f, root) for f, n in _IMPORTS[top]
            if f != path and any(a.name == name for a in n.names)
            and pv.module_file(root, f, n.module or "", n.level) == path}


def jit_callers(tree):
    """{jit function: the jit functions calling it} for the module-level jit
    functions that only other jit functions call (never the test's Python).
    Such a function with bare pl.Tensor parameters is not a program of its
    own: it is measured inside its callers' extracts."""
    jit = {n.name: n for n in tree.body if is_jit(n)}
    called_by, called_outside = collections.defaultdict(set), set()

    def visit(node, within):
        for child in ast.iter_child_nodes(node):
            inner = within
            if isinstance(child, ast.FunctionDef) and child.name in jit and child in tree.body:
                inner = child.name
            if isinstance(child, ast.Call) and dotted(child.func) in jit:
                name = dotted(child.func)
                if within is None:
                    called_outside.add(name)
                elif within != name:
                    called_by[name].add(within)
            elif isinstance(child, ast.Name) and child.id in jit and within is None and not (
                    isinstance(node, ast.Call) and node.func is child):
                called_outside.add(child.id)  # passed around by the test (fn tables)
            visit(child, inner)

    visit(tree, None)
    return {n: c for n, c in called_by.items() if n not in called_outside}


def bare_tensor_params(func):
    """The parameters of `func` written `pl.Tensor` / `pl.Out[pl.Tensor]` (bound at the call)."""
    out = []
    for a in func.args.args:
        ann = a.annotation
        if isinstance(ann, ast.Subscript) and dotted(ann.value) in ("pl.Out", "pl.InOut"):
            ann = ann.slice
        if ann is not None and not isinstance(ann, ast.Subscript) and dotted(ann) == "pl.Tensor":
            out.append(a.arg)
    return out


def param_bindings(func, jit_funcs, evaluator, depth=0):
    """{param: '[d0,...]:DTYPE'} of `func`: from its call with torch tensors in
    the file, else from a jit function that calls it with its own bound
    parameters (as PyPTO's JIT specializes a callee to its caller's tensors)."""
    params = [a.arg for a in func.args.args]
    bound = pv.call_bindings(evaluator, func.name, params, evaluator._call_sites())
    if bound or depth > 3:
        return bound
    for caller in jit_funcs:
        if caller is func:
            continue
        for call in (c for c in ast.walk(caller) if isinstance(c, ast.Call)):
            if dotted(call.func) != func.name:
                continue
            outer = param_bindings(caller, jit_funcs, evaluator, depth + 1)
            for i, arg in enumerate(call.args[:len(params)]):
                if isinstance(arg, ast.Name) and arg.id in outer:
                    bound.setdefault(params[i], outer[arg.id])
        if bound:
            return bound
    return bound


def jit_bindings(node, extra, evaluator, module):
    """pto-opt --bind values of the bare pl.Tensor parameters of a @pl.jit
    program and of the jit functions it calls (param_bindings)."""
    jit_funcs = [f for f in module.funcs.values() if is_jit(f)]
    out = []
    for f in [node] + list(extra):
        if not is_jit(f) or not bare_tensor_params(f):
            continue
        bound = param_bindings(f, jit_funcs, evaluator)
        out += [f"{f.name}.{p}={bound[p]}" for p in bare_tensor_params(f) if p in bound]
    return sorted(set(out))


def extract_flags(path):
    """The pto-opt flags an extract's first line asks for (its bindings)."""
    with open(path, encoding="utf-8") as f:
        line = f.readline()
    if not line.startswith(BIND_TAG):
        return []
    return ["--bind=" + b for b in line[len(BIND_TAG):].split()]


def first_error(text):
    """The first error line of pto-opt's stderr (warnings come before it)."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if "error:" in line:
            return line
    return lines[0] if lines else "(no message)"


def run(pto_opt, path):
    """(ok, first error) of parse -> print -> re-parse -> print."""
    first = subprocess.run([pto_opt, path] + extract_flags(path), capture_output=True, text=True)
    if first.returncode != 0:
        return False, first_error(first.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".pto", delete=False) as f:
        f.write(first.stdout)
        printed = f.name
    try:
        second = subprocess.run([pto_opt, printed], capture_output=True, text=True)
    finally:
        os.unlink(printed)
    if second.returncode != 0:
        return False, "re-parse of the print: " + first_error(second.stderr)
    if second.stdout != first.stdout:
        return False, "print -> parse -> print is not a fixed point"
    return True, ""


def cause(error):
    """The error without its location and names, to group failures."""
    text = re.sub(r"^.*?:\d+:\d+:\s*", "", error)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:100]


def common_args(argv, description, tmp_prefix):
    """The command line both PyPTO scripts take; None after a usage error."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("checkout")
    ap.add_argument("--out", default=None, help="extract directory (default: a fresh temp dir)")
    ap.add_argument("--pto-opt", default="bazel-bin/tools/pto-opt")
    ap.add_argument("--min-rate", type=float, default=0.0,
                    help="exit 1 when a measured set's rate is below this fraction")
    ap.add_argument("--set", default="all", choices=SET_ORDER + ["all"],
                    help="which source set to measure (default: both, each reported)")
    args = ap.parse_args(argv)
    args.sets = SET_ORDER if args.set == "all" else [args.set]
    if not os.path.isdir(args.checkout):
        print(f"error: {args.checkout} is not a directory", file=sys.stderr)
        return None
    if not os.access(args.pto_opt, os.X_OK):
        print(f"error: {args.pto_opt} is not an executable (bazel build //tools:pto-opt)",
              file=sys.stderr)
        return None
    args.out = args.out or tempfile.mkdtemp(prefix=tmp_prefix)
    os.makedirs(args.out, exist_ok=True)
    return args


def measure_set(args, which, written):
    """Extracts and checks the programs of one source set: (rows, skipped, parts)."""
    rows, skipped, parts = [], [], []
    for path in source_files(args.checkout, which):
        for rel, name, text, why, rejected in extracts(path, args.checkout):
            label = f"{rel}::{name}"
            if why and why.startswith(PART_OF_TAG):
                parts.append((label, why))
                continue
            if why:
                skipped.append((label, why))
                continue
            stem = re.sub(r"[^A-Za-z0-9_]+", "_", os.path.splitext(rel)[0]).strip("_")
            file = os.path.join(args.out, f"{stem}__{name}.pto")
            n = 2
            while file in written:  # several programs of one name in one file
                file = os.path.join(args.out, f"{stem}__{name}_{n}.pto")
                n += 1
            written.add(file)
            with open(file, "w", encoding="utf-8") as f:
                f.write(text)
            ok, err = run(args.pto_opt, file)
            if rejected:
                # PyPTO rejects it (its test expects the error): so must we.
                label += REJECTED_TAG
                ok, err = (not ok, err if not ok else "accepted, but PyPTO rejects it")
                if ok:
                    err = "rejected: " + err
            rows.append((label, ok, os.path.basename(file) + ": " + err if not ok else err))
    return rows, skipped, parts


def main(argv):
    args = common_args(argv, __doc__.split("\n\n")[0], "pypto_extracts_")
    if args is None:
        return 2
    written = set()
    results = [(which, *measure_set(args, which, written)) for which in args.sets]
    all_rows = [r for _, rows, skipped, parts in results for r in rows + skipped + parts]
    width = max([len(r[0]) for r in all_rows] + [10])
    print(f"{'program':<{width}}  result  first error")
    for _, rows, skipped, parts in results:
        for label, ok, err in rows:
            print(f"{label:<{width}}  {'pass' if ok else 'FAIL'}    {err}")
        for label, why in skipped:
            print(f"{label:<{width}}  skip    {why}")
        for label, why in parts:
            print(f"{label:<{width}}  part    {why}")
    status = 0
    for which, rows, skipped, parts in results:
        passed = sum(1 for r in rows if r[1])
        counted = len(rows)
        rate = passed / counted if counted else 0.0
        found = counted + len(skipped)
        print(f"\n== {which} set ==")
        causes = collections.Counter(cause(err) for _, ok, err in rows if not ok)
        if causes:
            print("top failure causes:")
            for text, n in causes.most_common(10):
                print(f"  {n:4d}  {text}")
        reasons = collections.Counter(cause(why) for _, why in skipped)
        if reasons:
            print("skip reasons:")
            for text, n in reasons.most_common(10):
                print(f"  {n:4d}  {text}")
        print(f"found {found} programs; skipped (Python outside the language): {len(skipped)}"
              f" ({100.0 * len(skipped) / found if found else 0.0:.1f}%); "
              f"{len(parts)} more are jit functions with bare pl.Tensor parameters that only "
              f"other jit functions call (measured inside their callers)")
        expected = [r for r in rows if r[0].endswith(REJECTED_TAG)]
        print(f"of the programs PyPTO's tests expect to be rejected, we reject "
              f"{sum(1 for r in expected if r[1])} of {len(expected)} (counted below)")
        print(f"{which}: passed {passed} of {counted} programs: {100.0 * rate:.1f}%")
        if rate < args.min_rate:
            status = 1
    print(f"\nextracts in {args.out}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
