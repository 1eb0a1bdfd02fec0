# Calibration candidates for one method, built from its Python AST (parsed, never executed here): small
# mutants of the original (operator swap, constant change, off-by-one, swapped branch), the constant
# functions (each returns one output the original gave) and the identity function (returns its first
# argument). Runs INSIDE the sandbox as an ordinary method: `calibration_candidates(source, entry,
# constant_reprs)` returns a JSON string: [{"kind", "site", "source"}, ...]. Each mutant differs from
# the original at exactly one site; at most MAX_PER_KIND sites per kind (the first and the last, which
# are most often in different branches; more when asked: evenly spaced, the first and the last among them).
# `critic_hypotheses` (the execution critic's alternatives, domain/training/execCritic.ts) first runs the
# method's module, as any call of it would, and raises MethodDoesNotImport when that fails.
import ast
import copy
import json

MAX_PER_KIND = 2

OP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


def _docstrings(tree):
    """Constant nodes that are docstrings (changing them changes nothing observable)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.add(id(first.value))
    return out


def _sites(tree):
    """(kind, node, how) for every mutable site, in source order."""
    docs = _docstrings(tree)
    in_index = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            in_index.update(id(a) for a in node.args)
        if isinstance(node, ast.Slice):
            in_index.update(id(x) for x in (node.lower, node.upper) if x is not None)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            in_index.add(id(node.slice))
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in OP_SWAP:
            sites.append(("operator swap", node, "op"))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in OP_SWAP:
            sites.append(("operator swap", node, "cmp"))
        elif isinstance(node, ast.BoolOp) and type(node.op) in OP_SWAP:
            sites.append(("operator swap", node, "op"))
        if isinstance(node, ast.Constant) and id(node) not in docs and id(node) not in in_index:
            v = node.value
            if (
                isinstance(v, bool)
                or (isinstance(v, (int, float)) and not isinstance(v, bool))
                or (isinstance(v, str) and v != "")
            ):
                sites.append(("constant change", node, "const"))
        if id(node) in in_index:
            sites.append(("off-by-one", node, "plus1"))
        if isinstance(node, (ast.If, ast.IfExp)):
            sites.append(("swapped branch", node, "branch"))
    sites.sort(key=lambda s: (getattr(s[1], "lineno", 0), getattr(s[1], "col_offset", 0)))
    return sites


def _mutate(node, how):
    if how == "op":
        node.op = OP_SWAP[type(node.op)]()
    elif how == "cmp":
        node.ops[0] = OP_SWAP[type(node.ops[0])]()
    elif how == "const":
        v = node.value
        if isinstance(v, bool):
            node.value = not v
        elif isinstance(v, (int, float)):
            node.value = v + 1
        else:
            node.value = v + "x"
    elif how == "branch":
        if isinstance(node, ast.IfExp) or node.orelse:
            node.body, node.orelse = node.orelse, node.body
        else:
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)


class _PlusOne(ast.NodeTransformer):
    def __init__(self, target):
        self.target = target

    def generic_visit(self, node):
        super().generic_visit(node)
        return node

    def visit(self, node):
        if node is self.target:
            return ast.BinOp(left=node, op=ast.Add(), right=ast.Constant(1))
        return super().visit(node)


def _mutant(tree, index, how):
    clone = copy.deepcopy(tree)
    target = _sites(clone)[index][1]
    if how == "plus1":
        clone = _PlusOne(target).visit(clone)
    else:
        _mutate(target, how)
    return ast.unparse(ast.fix_missing_locations(clone))


def _picks(found, max_per_kind):
    """At most max_per_kind of the sites, evenly spaced, the first and the last among them."""
    if len(found) <= max_per_kind:
        return found
    if max_per_kind == 1:
        return [found[0]]
    step = (len(found) - 1) / (max_per_kind - 1)
    return [found[round(i * step)] for i in range(max_per_kind)]


def calibration_candidates(source, entry, constant_reprs=(), max_per_kind=MAX_PER_KIND):
    tree = ast.parse(source)
    original = ast.unparse(tree)
    out = []
    sites = _sites(tree)
    by_kind = {}
    for i, (kind, node, how) in enumerate(sites):
        by_kind.setdefault(kind, []).append((i, node, how))
    for kind in ("operator swap", "constant change", "off-by-one", "swapped branch"):
        found = by_kind.get(kind, [])
        for i, node, how in _picks(found, max_per_kind):
            try:
                src = _mutant(tree, i, how)
                compile(src, "<mutant>", "exec")
            except Exception:
                continue
            if src != original:
                out.append({"kind": kind, "site": f"line {getattr(node, 'lineno', 0)}", "source": src})
    for r in constant_reprs:
        try:
            ast.literal_eval(r)
        except Exception:
            continue
        out.append({"kind": "constant", "site": r[:80], "source": f"def {entry}(*args, **kwargs):\n    return {r}\n"})
    out.append(
        {
            "kind": "identity",
            "site": "first argument",
            "source": f"def {entry}(*args, **kwargs):\n    return args[0] if args else next(iter(kwargs.values()), None)\n",
        }
    )
    return json.dumps(out)


class MethodDoesNotImport(Exception):
    """The method's module raised, or it defines no callable entry: no call of it can be compared with anything."""


def critic_hypotheses(source, entry, constant_reprs=(), max_per_kind=MAX_PER_KIND):
    """The execution critic's alternatives to the method: its calibration candidates, after checking that its
    module runs and defines the entry (a module that raises would make every call, of the method and of each
    mutant alike, the same exception)."""
    namespace = {"__name__": "__pau_method__"}
    try:
        exec(compile(source, "<pau-method>", "exec"), namespace)
    except BaseException as e:
        raise MethodDoesNotImport(f"{type(e).__name__}: {e}") from None
    if not callable(namespace.get(entry)):
        raise MethodDoesNotImport(f"the code defines no callable {entry!r}")
    return calibration_candidates(source, entry, constant_reprs, max_per_kind)
