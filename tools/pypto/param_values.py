"""The value a test gives a name its program uses (extract_programs.py).

PyPTO's single-chip tests build most programs inside a method or a test
function, from locals such as `m, n = self._m, self._n`, where `self._m` was set
by `__init__` from a parameter with a default, or from a test function's
`@pytest.mark.parametrize` values. `Evaluator.value(name, scope)` follows such
a name to a value the language can spell: an int, float, bool, None, a
`pl.` / `pld.` name (a dtype, an enum) or a list / tuple of these. It takes a
parameter's default first, then the first `parametrize` case, and the first
element of a `for` over a literal list. Anything else (torch, a call of a
Python helper, I/O) raises `Unresolved` with the reason, and the program stays
skipped. Python 3 standard library only; nothing is executed.
"""
import ast
import operator
import os


class Unresolved(Exception):
    """The name has no value we can compute without running the test."""


class Ref:
    """An opaque dotted name (`pl.FP32`, `DataType.FP32`): equal by its text."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Ref) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Mod: operator.mod,
           ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_CALLS = {"int": int, "float": float, "bool": bool, "min": min, "max": max, "len": len,
          "list": list, "tuple": tuple, "abs": abs, "sum": sum}


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base + "." + node.attr if base else None
    return None


def spell(value):
    """The language's text of `value`, or None when it has none."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Ref):
        return value.name if value.name.split(".")[0] in ("pl", "pld") else None
    if isinstance(value, (list, tuple)):
        parts = [spell(v) for v in value]
        if any(p is None for p in parts):
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return "[" + ", ".join(parts) + "]"
    return None


class _FirstRow:
    """The first row of a parametrize table that is not a literal, item `index`."""

    def __init__(self, table, index):
        self.table, self.index = table, index


def parametrize_cases(decorators):
    """{argument: first case's value node} of `@pytest.mark.parametrize` decorators."""
    cases = {}
    for d in decorators:
        if not (isinstance(d, ast.Call) and (_dotted(d.func) or "").endswith("parametrize")):
            continue
        if len(d.args) < 2:
            continue
        names_node, values = d.args[0], d.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, (ast.List, ast.Tuple)):
            names = [e.value for e in names_node.elts if isinstance(e, ast.Constant)]
        else:
            continue
        if not isinstance(values, (ast.List, ast.Tuple)):
            # A table named elsewhere (`parametrize("shape", _SHAPES)`): its first
            # row, computed when the name is needed.
            for i, n in enumerate(names):
                cases[n] = _FirstRow(values, i if len(names) > 1 else None)
            continue
        if not values.elts:
            continue
        first = values.elts[0]
        if isinstance(first, ast.Call) and (_dotted(first.func) or "").endswith("param"):
            first = ast.Tuple(elts=list(first.args), ctx=ast.Load()) if len(names) > 1 else (
                first.args[0] if first.args else None)
        if first is None:
            continue
        if len(names) == 1:
            cases[names[0]] = first
        elif isinstance(first, (ast.Tuple, ast.List)) and len(first.elts) == len(names):
            for n, v in zip(names, first.elts):
                cases[n] = v
    return cases


class Evaluator:
    """Computes values of names in the scopes of one source file (see the module doc)."""

    MAX_DEPTH = 60

    def __init__(self, root=None, path=None, module_scope=None, scope_factory=None,
                 module_tree_body=None):
        self.module_tree_body = module_tree_body
        self.root = root
        self.path = path
        self.module_scope = module_scope
        self.scope_factory = scope_factory  # builds a Scope of a body (extract_programs.Scope)
        self.depth = 0
        self.active = set()
        self.modules = {}

    # ---- names ---------------------------------------------------------------
    def value(self, name, scope):
        key = (id(scope), name)
        if key in self.active:
            raise Unresolved(f"'{name}' is defined in terms of itself")
        self.active.add(key)
        self.depth += 1
        try:
            if self.depth > self.MAX_DEPTH:
                raise Unresolved("too deep")
            return self._lookup(name, scope)
        finally:
            self.depth -= 1
            self.active.discard(key)

    def _lookup(self, name, scope):
        while scope is not None:
            if name in scope.consts:
                stmt = scope.consts[name]
                return self.expr(stmt.value, scope)
            if name in scope.tuple_consts:
                stmt, index = scope.tuple_consts[name]
                return self._element(stmt.value, index, scope)
            if name in scope.for_vars:
                seq = self.expr(scope.for_vars[name], scope.parent or scope)
                if not isinstance(seq, (list, tuple)) or not seq:
                    raise Unresolved(f"loop variable '{name}' runs over no literal sequence")
                return seq[0]
            if name in scope.params:
                return self._param(name, scope)
            if name in scope.imports:
                return self._imported(name, scope.imports[name], scope)
            scope = scope.parent
        raise Unresolved(f"'{name}' is not defined in the file")

    def _element(self, value_node, index, scope):
        if isinstance(value_node, (ast.Tuple, ast.List)) and len(value_node.elts) > index and not any(
                isinstance(e, ast.Starred) for e in value_node.elts):
            return self.expr(value_node.elts[index], scope)
        seq = self.expr(value_node, scope)
        if not isinstance(seq, (list, tuple)) or len(seq) <= index:
            raise Unresolved("an unpacking of a value that is not a sequence")
        return seq[index]

    def _param(self, name, scope):
        func = scope.func
        args = func.args
        positional = args.posonlyargs + args.args
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                            args.defaults))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            if d is not None:
                defaults[a.arg] = d
        if name in defaults:
            return self.expr(defaults[name], scope.parent)
        cases = parametrize_cases(func.decorator_list)
        if name not in cases and scope.cls is not None:
            cases = parametrize_cases(scope.cls.decorator_list)
        if name in cases:
            case = cases[name]
            if isinstance(case, _FirstRow):
                rows = self.expr(case.table, scope.parent)
                if not isinstance(rows, (list, tuple)) or not rows:
                    raise Unresolved(f"the parametrize table of '{name}' is not a sequence")
                row = rows[0]
                if case.index is None:
                    return row
                if not isinstance(row, (list, tuple)) or len(row) <= case.index:
                    raise Unresolved(f"the parametrize rows of '{name}' are not tuples")
                return row[case.index]
            return self.expr(case, scope.parent)
        found = self._from_call_site(name, scope)
        if found is not None:
            return found[0]
        raise Unresolved(f"parameter '{name}' has no default, parametrize case or call "
                         "with a computable argument")

    def _call_sites(self):
        """(call, scope of the caller) of every call in the file."""
        if getattr(self, "_calls", None) is None:
            self._calls = []

            def visit(body, scope, cls):
                for stmt in body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        inner = self.scope_factory(stmt.body, scope, func=stmt, cls=cls)
                        for d in stmt.decorator_list:
                            self._calls += [(c, scope) for c in ast.walk(d) if isinstance(c, ast.Call)]
                        visit(stmt.body, inner, cls)
                    elif isinstance(stmt, ast.ClassDef):
                        visit(stmt.body, scope, stmt)
                    else:
                        for c in ast.walk(stmt):
                            if isinstance(c, ast.For):
                                self._table_loop_calls(c, scope)
                            if isinstance(c, ast.Call):
                                self._calls.append((c, scope))
                                self._dict_table_calls(c, scope)
                            elif isinstance(c, (ast.Tuple, ast.List)):
                                # A test table `(fn, (arg, ...))`, called later as fn(*args).
                                for f, a in zip(c.elts, c.elts[1:]):
                                    if isinstance(f, ast.Name) and isinstance(a, (ast.Tuple, ast.List)):
                                        self._calls.append((ast.Call(func=f, args=list(a.elts),
                                                                     keywords=[]), scope))

            visit(self.module_tree_body, self.module_scope, None)
        return self._calls

    def _dict_table_calls(self, call, scope):
        """`MODES[args.mode](a, b, out)` over a dict literal of the file
        `MODES = {"x": f, ...}`: the call of each function the dict holds."""
        if not (isinstance(call.func, ast.Subscript) and isinstance(call.func.value, ast.Name)):
            return
        kind, stmt, _ = scope.lookup(call.func.value.id)
        table = stmt.value if kind == "const" else None
        if not isinstance(table, ast.Dict):
            return
        for fn in table.values:
            if isinstance(fn, ast.Name):
                self._calls.append((ast.Call(func=fn, args=call.args, keywords=call.keywords),
                                    scope))

    def _table_loop_calls(self, loop, scope):
        """`for fn, k in ((f, 128), (g, 32)): ... fn(a, b)`: each row's calls of
        its function, in a scope where the row's other names have its values."""
        target, rows = loop.target, loop.iter
        # `for name, fn in MODES.items():` / `for fn in MODES.values():` over a
        # dict literal of the file: its (key, value) rows.
        if (isinstance(rows, ast.Call) and isinstance(rows.func, ast.Attribute) and
                rows.func.attr in ("items", "values") and isinstance(rows.func.value, ast.Name)):
            kind, stmt, _ = scope.lookup(rows.func.value.id)
            table = stmt.value if kind == "const" else None
            if not isinstance(table, ast.Dict) or None in table.keys:
                return
            if rows.func.attr == "values":
                target = ast.Tuple(elts=[target])
                rows = ast.List(elts=[ast.Tuple(elts=[v]) for v in table.values])
            else:
                rows = ast.List(elts=[ast.Tuple(elts=[k, v])
                                      for k, v in zip(table.keys, table.values)])
        if not isinstance(target, ast.Tuple) or not isinstance(rows, (ast.Tuple, ast.List)):
            return
        names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
        for row in rows.elts:
            if not isinstance(row, (ast.Tuple, ast.List)) or len(row.elts) != len(names):
                continue
            binds = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=v)
                     for n, v in zip(names, row.elts) if n is not None]
            row_scope = self.scope_factory(binds + list(loop.body), scope)
            for j, n in enumerate(names):
                if n is None or not isinstance(row.elts[j], ast.Name):
                    continue
                for c in ast.walk(loop):
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == n:
                        self._calls.append((ast.Call(func=row.elts[j], args=c.args,
                                                     keywords=c.keywords), row_scope))

    def _from_call_site(self, name, scope):
        """(value,) of parameter `name` in the first call of its function whose
        argument computes, or None."""
        func = scope.func
        if getattr(self, "module_tree_body", None) is None:
            return None
        callee = func.name
        is_init = callee == "__init__" and scope.cls is not None
        if is_init:
            callee = scope.cls.name
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        for call, caller in self._call_sites():
            target = _dotted(call.func) or ""
            if target.split(".")[-1] != callee:
                continue
            arg = None
            for kw in call.keywords:
                if kw.arg == name:
                    arg = kw.value
            if arg is None and name in params:
                i = params.index(name)
                if i < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:i + 1]):
                    arg = call.args[i]
            if arg is None:
                continue
            try:
                return (self.expr(arg, caller),)
            except Unresolved:
                continue
        return None

    def _imported(self, name, module, scope):
        """A constant imported from a file of the checkout (`from .config import BATCH`)."""
        if self.root is None or self.scope_factory is None:
            raise Unresolved(f"'{name}' is imported")
        module_name, _, level = module if isinstance(module, tuple) else (module, None, 0)
        candidate = module_file(self.root, self.path, module_name, level)
        if candidate is None:
            raise Unresolved(f"'{name}' is imported from {module_name or '.'} outside the checkout")
        other = self.modules.get(candidate)
        if other is None:
            try:
                tree = ast.parse(open(candidate, encoding="utf-8").read())
            except (SyntaxError, OSError):
                raise Unresolved(f"'{name}': {candidate} does not parse")
            other = Evaluator(self.root, candidate, None, self.scope_factory, tree.body)
            other.module_scope = self.scope_factory(tree.body, None)
            self.modules[candidate] = other
        original = scope.import_names.get(name, name)
        other.depth = self.depth
        return other.value(original, other.module_scope)

    # ---- self.<attr> ---------------------------------------------------------
    def attribute_of_self(self, attr, scope):
        cls = None
        s = scope
        while s is not None and cls is None:
            cls = s.cls
            s = s.parent
        seen = set()
        while cls is not None and cls.name not in seen:
            seen.add(cls.name)
            for stmt in cls.body:  # a class attribute
                if isinstance(stmt, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                    return self.expr(stmt.value, self.module_scope)
            for stmt in cls.body:
                if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                    init_scope = self.scope_factory(stmt.body, self.module_scope, func=stmt, cls=cls)
                    found = self._self_assignment(stmt.body, attr, init_scope)
                    if found is not None:
                        return found[0]
            cls = self._base(cls)
        raise Unresolved(f"'self.{attr}' is not set in __init__")

    def _self_assignment(self, body, attr, scope):
        for stmt in reversed(body):
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if _dotted(t) == "self." + attr:
                    return (self.expr(stmt.value, scope),)
                if isinstance(t, (ast.Tuple, ast.List)):
                    for i, e in enumerate(t.elts):
                        if _dotted(e) == "self." + attr:
                            return (self._element(stmt.value, i, scope),)
        return None

    def _base(self, cls):
        for b in cls.bases:
            name = _dotted(b)
            if name and self.module_scope is not None:
                node = self.module_scope.funcs.get(name)
                if isinstance(node, ast.ClassDef):
                    return node
        return None

    # ---- expressions ---------------------------------------------------------
    def expr(self, node, scope):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float, bool, str)) or node.value is None:
                return node.value
            raise Unresolved("a constant of an unknown kind")
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            return self.value(node.id, scope)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return self.attribute_of_self(node.attr, scope)
            name = _dotted(node)
            if name is None:
                raise Unresolved("an attribute of an expression")
            return Ref(name)  # pl.FP32, or an enum of the test (DataType.FP32): opaque
        if isinstance(node, (ast.Tuple, ast.List)):
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    items.extend(self.expr(e.value, scope))
                else:
                    items.append(self.expr(e, scope))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unresolved("a dict with ** entries")
            return {self.expr(k, scope): self.expr(v, scope) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return self._apply(_BINOPS[type(node.op)], self.expr(node.left, scope),
                               self.expr(node.right, scope))
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, scope)
            op = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                  ast.Invert: operator.invert}[type(node.op)]
            return self._apply(op, v)
        if isinstance(node, ast.BoolOp):
            result = None
            for i, v in enumerate(node.values):
                result = self.expr(v, scope)
                if isinstance(node.op, ast.Or) and result:
                    return result
                if isinstance(node.op, ast.And) and not result:
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = self.expr(node.left, scope)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.expr(right_node, scope)
                if not self._apply(_CMPOPS[type(op)], left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.expr(node.test, scope) else node.orelse, scope)
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, scope)
            if isinstance(node.slice, ast.Slice):
                parts = [self.expr(p, scope) if p is not None else None
                         for p in (node.slice.lower, node.slice.upper, node.slice.step)]
                return self._apply(lambda b: b[slice(*parts)], base)
            return self._apply(operator.getitem, base, self.expr(node.slice, scope))
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in _CALLS and not node.keywords:
                args = [self.expr(a, scope) for a in node.args]
                return self._apply(_CALLS[name], *args)
            if name and name.endswith(".get_byte") and not node.args:
                return Ref(name + "()")
            raise Unresolved(f"a call of {name or 'an expression'}")
        raise Unresolved(f"a Python {type(node).__name__.lower()}")

    @staticmethod
    def _apply(fn, *args):
        if any(isinstance(a, Ref) for a in args):
            if fn in (operator.eq, operator.ne, operator.getitem) or fn is _CMPOPS[ast.In]:
                pass
            else:
                raise Unresolved("arithmetic on a name")
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001  (a Python error of the test's own expression)
            raise Unresolved(f"the expression raises {type(e).__name__}")



# torch dtypes by the name PyPTO's dtypes go by (pto-opt --bind).
_TORCH_DTYPES = {"float32": "FP32", "float": "FP32", "float16": "FP16", "half": "FP16",
                 "bfloat16": "BF16", "int32": "INT32", "int": "INT32", "int16": "INT16",
                 "int8": "INT8", "uint8": "UINT8", "int64": "INT64", "long": "INT64",
                 "bool": "BOOL", "float64": "FP64", "double": "FP64"}
_TORCH_MAKERS = ("randn", "rand", "zeros", "ones", "empty", "full", "randint")
_TORCH_COPIES = ("clone", "contiguous", "share_memory_")
# PyPTO's JIT entry points that specialize a function to their tensors, as a
# call does: `f.lower(a, b)`, `f.compile(a, b)`.
_JIT_ENTRY_METHODS = ("lower", "compile")


def _named_tensor(ev, name, scope, depth):
    """(shape, dtype) of the torch tensor `name` is assigned in `scope` or above,
    also through `a, c = make_inputs()` of a helper that returns its tensors."""
    s = scope
    while s is not None and depth <= 8:
        stmt = s.consts.get(name)
        if stmt is not None:
            return _torch_tensor(ev, stmt.value, s, depth + 1)
        if name in s.tuple_consts:
            stmt, index = s.tuple_consts[name]
            return _returned_tensor(ev, stmt.value, index, s, depth + 1)
        s = s.parent
    return None


def _returned_tensor(ev, value, index, scope, depth):
    """Element `index` of what a call of a helper in the file returns, as a tensor."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name) or value.args:
        return None
    helper = ev.module_scope.funcs.get(value.func.id) if ev.module_scope else None
    if not isinstance(helper, ast.FunctionDef):
        return None
    returns = [r for r in ast.walk(helper) if isinstance(r, ast.Return) and r.value is not None]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple):
        return None
    elts = returns[0].value.elts
    if index >= len(elts) or not isinstance(elts[index], ast.Name):
        return None
    inner = ev.scope_factory(helper.body, ev.module_scope, func=helper)
    return _named_tensor(ev, elts[index].id, inner, depth + 1)


# Tensor methods that cast (`(torch.randn(m, k) * 0.05).bfloat16()`).
_TORCH_CASTS = {"bfloat16": "BF16", "half": "FP16", "float": "FP32", "int": "INT32",
                "double": "FP64", "long": "INT64", "short": "INT16", "char": "INT8",
                "byte": "UINT8"}


def _torch_tensor(ev, node, scope, depth=0):
    """(shape, dtype) of `torch.<maker>(...)` or `torch.<maker>_like(t)`, or None;
    also of such a tensor scaled by a number (`t * 0.05`) or cast (`t.half()`)."""
    if isinstance(node, ast.BinOp) and depth <= 8 and isinstance(node.right, ast.Constant):
        return _torch_tensor(ev, node.left, scope, depth + 1)
    if not isinstance(node, ast.Call) or depth > 8:
        return None
    if (isinstance(node.func, ast.Attribute) and node.func.attr in _TORCH_CASTS and
            not node.args and not isinstance(node.func.value, ast.Name)):
        made = _torch_tensor(ev, node.func.value, scope, depth + 1)
        return (made[0], _TORCH_CASTS[node.func.attr]) if made is not None else None
    name = _dotted(node.func) or ""
    # A copy of a tensor (`sample.clone()`, `torch.zeros(...).share_memory_()`)
    # has its shape and dtype.
    if isinstance(node.func, ast.Attribute) and node.func.attr in _TORCH_COPIES and not node.args:
        if isinstance(node.func.value, ast.Name):
            return _named_tensor(ev, node.func.value.id, scope, depth + 1)
        return _torch_tensor(ev, node.func.value, scope, depth + 1)
    # torch.tensor([a, b, c], dtype=...): a 1-D tensor of the list's length.
    if name == "torch.tensor" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
        if not node.args[0].elts or any(isinstance(e, (ast.List, ast.Tuple))
                                        for e in node.args[0].elts):
            return None
        node = ast.Call(func=ast.Attribute(value=ast.Name(id="torch"), attr="empty"),
                        args=[ast.Constant(len(node.args[0].elts))], keywords=node.keywords)
        name = "torch.empty"
    if name.startswith("torch.") and name.endswith("_like") and node.args and isinstance(
            node.args[0], ast.Name) and name[6:-5] in _TORCH_MAKERS:
        like = _named_tensor(ev, node.args[0].id, scope, depth)
        if like is None:
            return None
        for kw in node.keywords:
            if kw.arg == "dtype":
                dt = _dotted(kw.value) or ""
                if not dt.startswith("torch.") or dt[6:] not in _TORCH_DTYPES:
                    return None
                like = (like[0], _TORCH_DTYPES[dt[6:]])
        return like
    if not name.startswith("torch.") or name.split(".")[-1] not in _TORCH_MAKERS:
        return None
    args = list(node.args)
    if name.endswith("randint"):  # randint(low, high, size) or randint(high, size)
        args = args[-1:]
    try:
        if name.endswith(".full"):
            shape = ev.expr(args[0], scope)
        elif len(args) == 1:
            shape = ev.expr(args[0], scope)
            shape = shape if isinstance(shape, (list, tuple)) else [shape]
        else:
            shape = [ev.expr(a, scope) for a in args]
        for kw in node.keywords:
            if kw.arg == "size":
                shape = ev.expr(kw.value, scope)
    except (Unresolved, IndexError):
        return None
    if not shape or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        return None
    dtype = "INT64" if name.endswith("randint") else "FP32"
    for kw in node.keywords:
        if kw.arg == "dtype":
            dt = _dotted(kw.value) or ""
            if not dt.startswith("torch.") or dt[6:] not in _TORCH_DTYPES:
                return None
            dtype = _TORCH_DTYPES[dt[6:]]
    return list(shape), dtype


def module_file(root, path, module_name, level):
    """The file of the checkout `from <module_name> import ...` (`level` dots)
    in `path` reads, as Python's import resolves it; None outside the checkout."""
    if level:
        base = os.path.dirname(path)
        for _ in range(level - 1):
            base = os.path.dirname(base)
    else:
        base = root
    rel = module_name.replace(".", os.sep) if module_name else ""
    for candidate in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return _aliased_module(os.path.join(base, rel))


def _aliased_module(path):
    """The file a package registers under another name: a package __init__.py
    that maps names to its modules in a dict literal and puts them in
    sys.modules (PyPTO's examples/models: "vector_dag" -> 02_vector_dag.py)."""
    package, name = os.path.split(path)
    init = os.path.join(package, "__init__.py")
    if not name or not os.path.isfile(init):
        return None
    try:
        src = open(init, encoding="utf-8").read()
        tree = ast.parse(src)
    except (SyntaxError, OSError):
        return None
    if "sys.modules" not in src:
        return None
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Dict):
            continue
        for k, v in zip(stmt.value.keys, stmt.value.values):
            if (isinstance(k, ast.Constant) and k.value == name and isinstance(v, ast.Constant)
                    and isinstance(v.value, str)):
                candidate = os.path.join(package, v.value + ".py")
                if os.path.isfile(candidate):
                    return candidate
    return None


def _spread(call, scope):
    """The arguments of `f(*args)` where `args` is a list literal of the scope,
    or `f(*[d[n] for n in names])` over a literal list of names (each `d["q"]`)."""
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Starred):
        return call.args
    value = call.args[0].value
    if isinstance(value, ast.Name):
        kind, stmt, _ = scope.lookup(value.id)
        if kind == "const" and isinstance(stmt.value, (ast.List, ast.Tuple)):
            return list(stmt.value.elts)
    if (isinstance(value, ast.ListComp) and len(value.generators) == 1 and
            isinstance(value.elt, ast.Subscript) and isinstance(value.elt.value, ast.Name) and
            isinstance(value.elt.slice, ast.Name) and
            isinstance(value.generators[0].target, ast.Name) and
            value.generators[0].target.id == value.elt.slice.id and not value.generators[0].ifs):
        names = value.generators[0].iter
        if isinstance(names, ast.Name):
            kind, stmt, _ = scope.lookup(names.id)
            names = stmt.value if kind == "const" else None
        if isinstance(names, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names.elts):
            return [ast.Subscript(value=value.elt.value, slice=e, ctx=ast.Load())
                    for e in names.elts]
    return call.args


def _dict_tensor(ev, name, key, scope, depth=0):
    """(shape, dtype) of entry `key` of the dict of torch tensors `name` is
    assigned in `scope` or above: a dict literal, a copy of another one
    (`{k: v.clone() for k, v in d.items()}`) or what a helper of the file
    returns (`d = make_tensors()`, its one `return {...}`)."""
    s = scope
    while s is not None and depth <= 8:
        stmt = s.consts.get(name)
        if stmt is not None:
            return _dict_value_tensor(ev, stmt.value, key, s, depth + 1)
        s = s.parent
    return None


def _dict_value_tensor(ev, value, key, scope, depth):
    if isinstance(value, ast.Dict):
        for k, v in zip(value.keys, value.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return _torch_tensor(ev, v, scope, depth)
        return None
    if (isinstance(value, ast.DictComp) and len(value.generators) == 1 and
            isinstance(value.generators[0].target, ast.Tuple) and
            len(value.generators[0].target.elts) == 2):
        gen = value.generators[0]
        it = gen.iter
        v_name = gen.target.elts[1]
        copy = value.value
        if (isinstance(copy, ast.Call) and isinstance(copy.func, ast.Attribute) and
                copy.func.attr in _TORCH_COPIES and not copy.args):
            copy = copy.func.value
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and
                it.func.attr == "items" and isinstance(it.func.value, ast.Name) and
                isinstance(v_name, ast.Name) and isinstance(copy, ast.Name) and
                copy.id == v_name.id):
            return _dict_tensor(ev, it.func.value.id, key, scope, depth + 1)
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args:
        helper = ev.module_scope.funcs.get(value.func.id) if ev.module_scope else None
        if not isinstance(helper, ast.FunctionDef):
            return None
        returns = [r for r in ast.walk(helper) if isinstance(r, ast.Return) and r.value is not None]
        if len(returns) != 1:
            return None
        inner = ev.scope_factory(helper.body, ev.module_scope, func=helper)
        return _dict_value_tensor(ev, returns[0].value, key, inner, depth + 1)
    return None


def call_bindings(ev, func_name, params, calls):
    """{param: '[d0,...]:DTYPE'} from the first call of `func_name` in `calls`
    ((call, scope) pairs) whose arguments are torch tensors built in the file."""
    for call, scope in calls:
        callee = (_dotted(call.func) or "").split(".")
        if callee[-1] in _JIT_ENTRY_METHODS and len(callee) >= 2:
            callee = callee[:-1]
        if callee[-1] != func_name:
            continue
        found = {}
        for i, arg in enumerate(_spread(call, scope)[:len(params)]):
            found[params[i]] = arg
        for kw in call.keywords:
            if kw.arg in params:
                found[kw.arg] = kw.value
        out = {}
        for p, arg in found.items():
            if isinstance(arg, ast.Name):
                made = _named_tensor(ev, arg.id, scope, 0)
            elif (isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name) and
                  isinstance(arg.slice, ast.Constant) and isinstance(arg.slice.value, str)):
                made = _dict_tensor(ev, arg.value.id, arg.slice.value, scope)
            else:
                made = _torch_tensor(ev, arg, scope)
            if made is not None:
                out[p] = "[" + ",".join(str(d) for d in made[0]) + "]:" + made[1]
        if out:
            return out
    return {}
