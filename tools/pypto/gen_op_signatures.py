#!/usr/bin/env python3
"""Regenerates compiler/ops/pypto_signatures.inc from a PyPTO checkout.

The table records, for every operator of PyPTO's `pl.*` / `pld.*` surface, its
parameter names, order, defaults and kinds (expression operand or compile-time
attribute), the promoted short names (`pl.load`, `pld.window`) and the unified
dispatchers (`pl.add` -> pl.tile.add / pl.tile.adds / pl.tensor.add). A
parameter is an attribute when PyPTO's C++ registration declares it with
`set_attr`; everything else is an operand. The result rule of each operator is
our own (compiler/ops/generic_deducer.cc); it is chosen here by name.

The collectives are left out: their signatures are derived from their
CollectiveDefs (compiler/ops/collective_def.cc, CollectiveSignatureText), so the
operators that file names (`"pld.tensor.<name>"`) are skipped.

usage: gen_op_signatures.py PYPTO_CHECKOUT > compiler/ops/pypto_signatures.inc
Python 3 standard library only.
"""
import ast
import glob
import os
import re
import sys

ENUMS = {"MemorySpace", "TensorLayout", "TileLayout", "PadValue", "AtomicType", "ReduceOp",
         "NotifyOp", "WaitCmp", "PipeType"}
MODULES = [("op/tile_ops.py", "pl.tile"), ("op/tensor_ops.py", "pl.tensor"),
           ("op/system_ops.py", "pl.system"), ("op/array_ops.py", "pl.array"),
           ("op/prefetch_ops.py", "pl.prefetch"), ("distributed/op/system_ops.py", "pld.system"),
           ("distributed/op/tensor_ops.py", "pld.tensor"), ("distributed/op/tile_ops.py", "pld.tile")]


def cpp_registrations(root):
    regs = {}
    for f in glob.glob(os.path.join(root, "src/ir/op/**/*.cpp"), recursive=True):
        src = open(f, encoding="utf-8").read()
        for m in re.finditer(r'REGISTER_OP\("([^"]+)"\)(.*?);\s*\n', src, re.S):
            attrs = dict((b, a) for a, b in re.findall(r'\.set_attr<([^>]*)>\("([^"]+)"', m.group(2)))
            regs[m.group(1)] = attrs
    return regs


def parts(annotation):
    text = ast.unparse(annotation) if annotation is not None else ""
    out = []
    for p in re.split(r"\s*\|\s*(?![^\[]*\])", text):
        out.append(p.strip())
    return [p for p in out if p]


def expr_kinds(ps):
    kinds = []
    for p in ps:
        if p in ("None", "object", "Span") or (p in ("Expr", "_ir_core.Expr") and len(ps) > 1):
            continue
        if p.startswith(("Sequence", "list", "tuple")):
            k = "Shape"
        elif p in ("DistributedTensor",):
            k = "Window"
        elif "Tensor" in p:
            k = "Tensor"
        elif p == "_SplitOperandT":
            k = "Tile|Tensor"
        elif p in ("Tile", "T"):
            k = "Tile"
        elif p in ("Scalar", "IntLike", "int", "float", "BoolLike", "_ir_core.ConstInt", "bool"):
            k = "Scalar"
        elif p in ("Ptr", "PtrType"):
            k = "Ptr"
        elif p == "CommCtx":
            k = "CommCtx"
        else:
            k = "Any"
        if k not in kinds:
            kinds.append(k)
    if "Any" in kinds or not kinds:
        return "Any"
    return "|".join(kinds)


def attr_kinds(ps, cpp_type):
    kinds = []
    for p in ps:
        if p in ("None", "Span"):
            continue
        k = {"DataType": "dtype", "int": "int", "bool": "bool", "float": "float", "str": "str"}.get(p)
        if p in ENUMS:
            k = p
        if k is None:
            k = {"DataType": "dtype", "int": "int", "bool": "bool", "double": "float",
                 "std::string": "str"}.get(cpp_type, "any")
        if k not in kinds:
            kinds.append(k)
    return "|".join(kinds) if kinds else "any"


def default_text(node):
    if node is None:
        return None
    text = ast.unparse(node)
    if text in ("_ALLREDUCE_SIGNAL_MISSING",):
        return "None"
    if "." in text and text.split(".")[0] in ENUMS | {"DataType"}:
        return text.split(".", 1)[1]
    return text.replace("'", '"')


def result_rule(full, ret):
    short = full.rsplit(".", 1)[1]
    if ret in ("Call", "") or ret is None:
        return "none"
    if short == "gather" and "tuple" in ret:
        return "gather"  # a tensor (index and mask forms) or a pair (compare form)
    if full.startswith("pl.tile.") and short in ("cmp", "cmps"):
        return "predicate"  # a packed UINT8 mask, one bit per element
    if full.startswith("pl.tile.") and short in ("sel", "sels"):
        return "arg1"  # the selected source's type, not the mask's
    if short in ("aiv_shard", "aic_gather"):
        return "shard" if short == "aiv_shard" else "unshard"  # halve / double the split axis
    if short == "reinterpret_view":
        return "reinterpret"  # the same bytes as another dtype
    if short == "gather_mask":
        return "gather"  # the mask form: 1 of 2 or of 4 columns
    if "tuple" in ret:
        return "pair"
    if ret in ("Scalar",):
        return "scalar_index" if ("idx" in short or "num" in short or "count" in short or
                                  short == "dim" or short.startswith(("reserve", "import",
                                                                      "task"))) else "scalar"
    if ret in ("Ptr", "PtrType"):
        return "ptr"
    if re.match(r"(row|col)_arg(max|min)$", short):
        return short[:3] + "_index"
    if re.match(r"(row|col)_(sum|max|min|prod)$", short):
        return short[:3]
    if short.startswith(("matmul", "batch_matmul", "gemv")):
        return "acc" if "acc" in short else "matmul"
    if short in ("create", "create_tile", "create_tensor", "create_l1", "full", "ci", "arange",
                 "tri", "random", "alloc"):
        return "make"
    if short == "cast":
        return "cast"
    if short == "transpose":
        return "transpose"
    if short in ("reshape", "slice", "fillpad_expand", "extract", "view"):
        return "reshape"
    if short == "load" or short == "remote_load":
        return "load"
    if short in ("store", "mscatter", "assemble", "write", "gather_row"):
        return "arg0" if short != "store" and short != "mscatter" else "arg2"
    if ret in ("Tile", "Tensor", "_TensorT", "DistributedTensor", "_SplitOperandT", "T", "Array"):
        return "same"
    return "unknown"


def signature_of(fn, ns, regs, skip_first_self=False):
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    cname = ns.split(".", 1)[1] + "." + fn.name if ns.startswith("pl.") else ns + "." + fn.name
    attrs = regs.get(cname, {})
    out = []
    kw_only_started = False
    items = [(p, d, False) for p, d in zip(pos, defaults)]
    items += [(p, d, True) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    for p, d, kw in items:
        ps = parts(p.annotation)
        if p.arg == "span" or ps == ["Span", "None"]:
            continue
        if kw and not kw_only_started:
            out.append("*")
            kw_only_started = True
        base = [x for x in ps if x != "None"]
        is_attr = (p.arg in attrs or any(x in ENUMS | {"DataType"} for x in base) or
                   (not attrs and "str" in base))
        if p.arg in attrs and any(x.startswith(("Sequence", "list")) for x in base) and "Tensor" not in str(ps):
            is_attr = False
        kind = attr_kinds(ps, attrs.get(p.arg, "")) if is_attr else expr_kinds(ps)
        text = f"{p.arg}: {'' if is_attr else '@'}{kind}"
        dt = default_text(d)
        if dt is not None:
            text += f" = {dt}"
        out.append(text)
    if a.vararg:
        out.append("*" + a.vararg.arg)
    return ", ".join(out)


def reexported_defs(root, tree):
    """The functions a language module re-exports from PyPTO's IR builders
    (`from pypto.ir.op.system_ops import aic_initialize_pipe, ...`): they are
    operators of the module's namespace although they are defined there."""
    out = []
    for n in tree.body:
        if not (isinstance(n, ast.ImportFrom) and (n.module or "").startswith("pypto.ir.op.")):
            continue
        path = os.path.join(root, "python", *n.module.split(".")) + ".py"
        if not os.path.isfile(path):
            continue
        wanted = {a.name for a in n.names if a.name[0].islower() and a.asname is None}
        src = ast.parse(open(path, encoding="utf-8").read())
        out += [d for d in src.body if isinstance(d, ast.FunctionDef) and d.name in wanted]
    return out


def collective_ops():
    """The public collectives our CollectiveDefs name."""
    here = os.path.dirname(os.path.abspath(__file__))
    src = open(os.path.join(here, "../../compiler/ops/collective_def.cc"), encoding="utf-8").read()
    return set(re.findall(r'"(pld\.tensor\.[a-z_0-9]+)"', src))


def main():
    root = sys.argv[1]
    collectives = collective_ops()
    lang = os.path.join(root, "python/pypto/language")
    regs = cpp_registrations(root)
    rows = []
    for mod, ns in MODULES:
        tree = ast.parse(open(os.path.join(lang, mod), encoding="utf-8").read())
        seen = set()
        for n in tree.body + reexported_defs(root, tree):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and len(n.targets) == 1:
                rows.append(("alias", f"{ns}.{n.targets[0].id}", f"{ns}.{n.value.id}", ""))
            if not isinstance(n, ast.FunctionDef) or n.name.startswith("_") or n.name in seen:
                continue
            if any(isinstance(d, ast.Name) and d.id == "overload" for d in n.decorator_list):
                continue
            seen.add(n.name)
            if f"{ns}.{n.name}" in collectives:
                continue
            ret = ast.unparse(n.returns) if n.returns else ""
            rows.append(("op", f"{ns}.{n.name}", signature_of(n, ns, regs), result_rule(f"{ns}.{n.name}", ret)))
    # Unified dispatchers: their own parameter names, and the targets they call.
    for mod, prefix in [("op/unified_ops.py", "pl"), ("distributed/op/unified_ops.py", "pld")]:
        tree = ast.parse(open(os.path.join(lang, mod), encoding="utf-8").read())
        for n in tree.body:
            if not isinstance(n, ast.FunctionDef) or n.name.startswith("_"):
                continue
            if any(isinstance(d, ast.Name) and d.id == "overload" for d in n.decorator_list):
                continue
            targets = []
            for c in ast.walk(n):
                if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                        isinstance(c.func.value, ast.Name) and c.func.value.id in ("_tile", "_tensor")):
                    t = ("pld." if prefix == "pld" else "pl.") + c.func.value.id[1:] + "." + c.func.attr
                    if t not in targets:
                        targets.append(t)
            scalar = "scalar" if "_to_scalar_expr" in ast.unparse(n) else ""
            rows.append(("unified", f"{prefix}.{n.name}", signature_of(n, prefix + ".tile", {}),
                         " ".join(targets) + (" " + scalar if scalar else "")))
    # Promoted short names: `from .op.tile_ops import load` -> pl.load = pl.tile.load.
    for init, prefix, src_map in [
            ("__init__.py", "pl", {".op.tile_ops": "pl.tile", ".op.tensor_ops": "pl.tensor",
                                   ".op.system_ops": "pl.system"}),
            ("distributed/op/unified_ops.py", "pld", {".tensor_ops": "pld.tensor",
                                                       ".tile_ops": "pld.tile",
                                                       ".system_ops": "pld.system"})]:
        tree = ast.parse(open(os.path.join(lang, init), encoding="utf-8").read())
        for n in tree.body:
            if isinstance(n, ast.ImportFrom) and n.level and ("." * n.level + (n.module or "")) in src_map:
                ns = src_map["." * n.level + (n.module or "")]
                for alias in n.names:
                    if alias.name[0].isupper():
                        continue
                    rows.append(("alias", f"{prefix}.{alias.asname or alias.name}", f"{ns}.{alias.name}", ""))
    # Resolve alias chains (pl.create_tensor -> pl.tensor.create_tensor -> pl.tensor.create).
    alias = {name: sig for kind, name, sig, _ in rows if kind == "alias"}
    rows = [(k, n, alias.get(s, s) if k == "alias" else s, r) for k, n, s, r in rows]
    print("// Generated by tools/pypto/gen_op_signatures.py from PyPTO's python/pypto/language;")
    print("// do not edit by hand (our own divergences live in op_signatures.cc).")
    print("// {kind, name, signature or alias target, result rule or dispatch targets}")
    for kind, name, sig, rule in rows:
        print(f'{{"{kind}", "{name}", "{sig.replace(chr(34), chr(92) + chr(34))}", "{rule}"}},')


if __name__ == "__main__":
    main()
