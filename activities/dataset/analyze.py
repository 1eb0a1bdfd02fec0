"""Static analysis of candidate PAU methods, with Python's `ast` only: nothing here executes the code.

Batch mode: one JSON object per line on stdin, one JSON object per line on stdout, in the same order, so
thousands of records cost one process. Input fields:

  key          echoed back
  code         the method's source
  entry_point  the function to call (optional: found from the tests, or the one root function)
  inputs       how to find known-good argument lists, one of
                 {"kind": "humaneval", "test": "<source of check(candidate)>"}
                 {"kind": "asserts", "asserts": ["assert f(1) == 2", ...]}          (MBPP)
                 {"kind": "call_args", "args": ["[1, 2], 3", ...]}                  (CruxEval)
                 {"kind": "examples", "input": "<the instruction's input field>"}  (CodeAlpaca)

Output fields: key, ok, reason (a short rule name when not ok), detail, entry_point, signature, code (the
source with module-level statements that would run at import removed), docstring, imports, inputs
(Python-literal argument TEXT, e.g. "[1, 2, 3], 4" or "'abc', k=2"), dropped_inputs ({reason: count}),
exact_hash and near_hash (see docs/datasets.md, "Duplicates"), stripped (how many statements were removed),
and for input generation (domain/inputs/generator.ts): params (name, kind, annotation, default literal text),
hints (how the body uses each parameter: `str`, `list`, `dict`, `set`, `int`, `float`, `seq`, `elem-int`,
`elem-str`, `matrix`) and literals (short int and str constants in the entry point's body).

Run as `python -I analyze.py` with an empty environment; the caller also applies a timeout.
"""

import ast
import copy
import hashlib
import json
import resource
import sys

MAX_CODE = 100_000
MAX_ARG_TEXT = 4_000
MAX_INPUTS = 64

# Modules whose use makes a method impure: I/O, randomness, time, processes, the network.
BANNED_MODULES = {
    "io": "uses-io",
    "os": "uses-io",
    "pathlib": "uses-io",
    "shutil": "uses-io",
    "glob": "uses-io",
    "fileinput": "uses-io",
    "tempfile": "uses-io",
    "sqlite3": "uses-io",
    "csv": "uses-io",
    "socket": "uses-io",
    "subprocess": "uses-io",
    "urllib": "uses-io",
    "http": "uses-io",
    "ftplib": "uses-io",
    "smtplib": "uses-io",
    "asyncio": "uses-io",
    "threading": "uses-io",
    "multiprocessing": "uses-io",
    "signal": "uses-io",
    "ctypes": "uses-io",
    "webbrowser": "uses-io",
    "tkinter": "uses-io",
    "logging": "uses-io",
    "getpass": "uses-input",
    "random": "uses-randomness",
    "secrets": "uses-randomness",
    "uuid": "uses-randomness",
    "time": "uses-time",
    "calendar": None,
    "datetime": None,
    "importlib": "uses-dynamic-code",
}
BANNED_CALLS = {
    "open": "uses-io",
    "input": "uses-input",
    "exec": "uses-dynamic-code",
    "eval": "uses-dynamic-code",
    "compile": "uses-dynamic-code",
    "__import__": "uses-dynamic-code",
    "breakpoint": "uses-io",
    "exit": "uses-io",
    "quit": "uses-io",
    "globals": "uses-dynamic-code",
    "vars": "uses-dynamic-code",
}
BANNED_ATTRS = {
    "now": "uses-time",
    "today": "uses-time",
    "utcnow": "uses-time",
    "stdin": "uses-input",
    "stdout": "uses-io",
    "stderr": "uses-io",
    "argv": "uses-io",
}
STDLIB = set(sys.stdlib_module_names)


class Reject(Exception):
    def __init__(self, reason, detail=""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def parse(code, what):
    if len(code) > MAX_CODE:
        raise Reject("too-large", f"{what} is {len(code)} characters")
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError) as e:
        raise Reject(
            "parse-error", f"{what}: {type(e).__name__}: {getattr(e, 'msg', str(e))} (line {getattr(e, 'lineno', '?')})"
        ) from e
    except (RecursionError, MemoryError) as e:
        raise Reject("parse-error", f"{what}: {type(e).__name__}") from e


def is_literal(node):
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


# ---------------------------------------------------------------- module shape

KEEP_TOP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def keep_statement(stmt):
    """Top-level statements that define things; anything that would do work at import is dropped."""
    if isinstance(stmt, KEEP_TOP):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and is_literal(stmt.value):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return all(isinstance(t, ast.Name) for t in targets)
    return False


def strip_module(code, tree):
    """The source lines of kept top-level statements (comments inside them survive); count of dropped ones."""
    lines = code.split("\n")
    keep = []
    dropped = 0
    for i, stmt in enumerate(tree.body):
        if i == 0 and is_docstring(stmt):
            dropped += 1
            continue
        if not keep_statement(stmt):
            dropped += 1
            continue
        start = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        keep.append("\n".join(lines[start - 1 : stmt.end_lineno]))
    return "\n".join(keep).rstrip() + "\n", dropped


def top_functions(tree):
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def called_names(node):
    return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


def root_functions(tree):
    """Top-level functions that no other top-level function or class calls."""
    funcs = top_functions(tree)
    called = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            called |= {n for n in called_names(stmt) if n != getattr(stmt, "name", None)}
    return [name for name in funcs if name not in called]


def signature_of(fn):
    args = ast.unparse(fn.args)
    ret = f" -> {ast.unparse(fn.returns)}" if fn.returns is not None else ""
    return f"def {fn.name}({args}){ret}:"


def imports_of(tree):
    mods = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mods |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                mods.add("." * n.level + (n.module or ""))
            elif n.module:
                mods.add(n.module.split(".")[0])
    return sorted(mods)


def impurity(tree):
    """The first rule the code breaks (I/O, input, randomness, time, dynamic code), or None."""
    for mod in imports_of(tree):
        if mod.startswith("."):
            return "non-stdlib-import", f"relative import {mod}"
        if mod not in STDLIB:
            return "non-stdlib-import", f"imports {mod}"
        if BANNED_MODULES.get(mod):
            return BANNED_MODULES[mod], f"imports {mod}"
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in BANNED_CALLS:
            return BANNED_CALLS[n.func.id], f"calls {n.func.id}()"
        if isinstance(n, ast.Attribute) and n.attr in BANNED_ATTRS:
            base = ast.unparse(n.value)
            if n.attr in ("now", "today", "utcnow") or base == "sys":
                return BANNED_ATTRS[n.attr], f"uses {base}.{n.attr}"
        if isinstance(n, ast.Global):
            return "stateful", f"declares global {', '.join(n.names)}"
    return None


# ---------------------------------------------------------------- duplicates


class _Strip(ast.NodeTransformer):
    """Removes docstrings (comments are already gone once parsed)."""

    def _body(self, node):
        self.generic_visit(node)
        if node.body and is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Module = _body


class _Rename(ast.NodeTransformer):
    """Renames every name the code binds (functions, classes, parameters, variables, import aliases) to
    v0, v1, ... in order of first appearance; builtins, module names and attributes keep their names."""

    def __init__(self, bound):
        self.bound = bound
        self.map = {}

    def _n(self, name):
        if name not in self.bound:
            return name
        if name not in self.map:
            self.map[name] = f"v{len(self.map)}"
        return self.map[name]

    def visit_FunctionDef(self, node):
        node.name = self._n(node.name)
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        node.name = self._n(node.name)
        return self.generic_visit(node)

    def visit_arg(self, node):
        node.arg = self._n(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node):
        node.id = self._n(node.id)
        return node


def bound_names(tree):
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, ast.alias) and n.asname:
            names.add(n.asname)
    return names


def code_hashes(tree):
    stripped = _Strip().visit(copy.deepcopy(tree))
    exact = ast.unparse(stripped)
    renamed = _Rename(bound_names(stripped)).visit(stripped)
    near = ast.unparse(ast.fix_missing_locations(renamed))
    # Type annotations are dropped by the rename; `from typing import ...` lines would then differ only by
    # noise, so imports are left out of the near form.
    near = "\n".join(line for line in near.split("\n") if not line.startswith(("import ", "from ")))

    def h(s):
        return hashlib.sha256(s.encode()).hexdigest()

    return h(exact), h(near)


# ---------------------------------------------------------------- known inputs


class Inputs:
    def __init__(self):
        self.texts = []
        self.dropped = {}

    def drop(self, reason):
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def add_call(self, call, env=None):
        env = env or {}
        parts = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                return self.drop("starred-argument")
            parts.append(a)
        kws = []
        for kw in call.keywords:
            if kw.arg is None:
                return self.drop("starred-argument")
            kws.append((kw.arg, kw.value))
        texts = []
        for node in parts + [v for _, v in kws]:
            if isinstance(node, ast.Name) and node.id in env:
                node = env[node.id]
            if not is_literal(node):
                return self.drop("non-literal-argument")
            texts.append(ast.unparse(node))
        npos = len(parts)
        text = ", ".join(texts[:npos] + [f"{k}={t}" for (k, _), t in zip(kws, texts[npos:])])
        if len(text) > MAX_ARG_TEXT:
            return self.drop("argument-too-large")
        if text in self.texts:
            return self.drop("duplicate-input")
        if len(self.texts) >= MAX_INPUTS:
            return self.drop("too-many-inputs")
        self.texts.append(text)


def calls_to(tree, name):
    found = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
    ]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def literal_assignments(tree):
    env = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and is_literal(stmt.value)
        ):
            env[stmt.targets[0].id] = stmt.value
    return env


def entry_from_calls(trees, funcs):
    counts = {}
    for t in trees:
        for c in ast.walk(t):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in funcs:
                counts[c.func.id] = counts.get(c.func.id, 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else None


def find_inputs(spec, tree, funcs, entry):
    """(entry point, Inputs): argument lists known to be valid calls, from the source's own tests."""
    inputs = Inputs()
    kind = spec.get("kind")
    if kind == "humaneval":
        test = parse(spec.get("test", ""), "test")
        check = next((n for n in test.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
        if check is None:
            raise Reject("no-known-inputs", "test has no check(candidate)")
        for c in calls_to(check, "candidate"):
            inputs.add_call(c)
    elif kind == "asserts":
        trees = []
        for i, a in enumerate(spec.get("asserts", [])):
            try:
                trees.append(parse(a, f"test {i}"))
            except Reject:
                inputs.drop("test-parse-error")
        entry = entry or entry_from_calls(trees, funcs)
        if entry is None:
            raise Reject("no-entry-point", "the tests call no function the code defines")
        for t in trees:
            for c in calls_to(t, entry):
                inputs.add_call(c)
    elif kind == "call_args":
        for text in spec.get("args", []):
            try:
                t = ast.parse(f"f({text}\n)", mode="eval")
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                inputs.drop("input-parse-error")
                continue
            if isinstance(t.body, ast.Call):
                inputs.add_call(t.body)
            else:
                inputs.drop("input-parse-error")
    elif kind == "examples":
        env = literal_assignments(tree)
        input_tree = None
        try:
            input_tree = ast.parse(spec.get("input") or "")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        if input_tree is not None:
            env = {**literal_assignments(input_tree), **env}
        if entry is None:
            roots = root_functions(tree)
            if len(roots) == 1:
                entry = roots[0]
        if entry is None:
            return None, inputs
        # Example calls the response itself makes at module level (before they were stripped).
        for stmt in tree.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for c in calls_to(stmt, entry):
                    inputs.add_call(c, env)
        # The instruction's input field: literal assignments to exactly the parameters, or one literal.
        fn = funcs.get(entry)
        if input_tree is not None and fn is not None:
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            body = input_tree.body
            if params and all(p in env for p in params) and set(literal_assignments(input_tree)) & set(params):
                inputs.add_call(ast.Call(func=ast.Name(entry), args=[ast.Name(p) for p in params], keywords=[]), env)
            elif len(params) == 1 and len(body) == 1 and isinstance(body[0], ast.Expr) and is_literal(body[0].value):
                inputs.add_call(ast.Call(func=ast.Name(entry), args=[body[0].value], keywords=[]))
    else:
        raise Reject("no-known-inputs", f"unknown input kind {kind!r}")
    return entry, inputs


# ---------------------------------------------------------------- what the signature and body say about inputs

STR_METHODS = {
    "split",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "startswith",
    "endswith",
    "isdigit",
    "isalpha",
    "isalnum",
    "isupper",
    "islower",
    "isspace",
    "find",
    "rfind",
    "capitalize",
    "title",
    "swapcase",
    "format",
    "encode",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "splitlines",
    "casefold",
    "isnumeric",
    "isdecimal",
}
LIST_METHODS = {"append", "extend", "pop", "sort", "insert", "remove", "reverse"}
DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "update"}
SET_METHODS = {
    "add",
    "union",
    "intersection",
    "difference",
    "issubset",
    "issuperset",
    "discard",
    "symmetric_difference",
}
SEQ_FUNCS = {"len", "sorted", "reversed", "enumerate", "set", "list", "tuple", "zip", "any", "all"}
NUM_ELEM_FUNCS = {"sum", "max", "min"}


def param_infos(fn):
    a = fn.args
    out = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)

    def lit(node):
        return ast.unparse(node) if node is not None and is_literal(node) else None

    def ann(node):
        return ast.unparse(node) if node is not None else None

    for p, d in zip(pos, defaults):
        out.append(
            {
                "name": p.arg,
                "kind": "positional",
                "annotation": ann(p.annotation),
                "default": lit(d) if d is not None else None,
                "has_default": d is not None,
            }
        )
    if a.vararg:
        out.append({"name": a.vararg.arg, "kind": "varargs", "annotation": None, "default": None, "has_default": True})
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(
            {
                "name": p.arg,
                "kind": "keyword",
                "annotation": ann(p.annotation),
                "default": lit(d) if d is not None else None,
                "has_default": d is not None,
            }
        )
    if a.kwarg:
        out.append({"name": a.kwarg.arg, "kind": "varkw", "annotation": None, "default": None, "has_default": True})
    # A default that is not a literal (e.g. `x=[] if ... else`) still makes the parameter optional.
    for p in out:
        if p.pop("has_default") and p["default"] is None and p["kind"] in ("positional", "keyword"):
            p["default"] = "..."
    return out


def param_hints(fn):
    """How the body uses each parameter, as coarse type tags (the generator's guide when no call is known)."""
    names = {p.arg for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    hints = {n: set() for n in names}

    def is_p(node):
        return isinstance(node, ast.Name) and node.id in names

    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and is_p(f.value):
                tag = (
                    "str"
                    if f.attr in STR_METHODS
                    else "list"
                    if f.attr in LIST_METHODS
                    else "dict"
                    if f.attr in DICT_METHODS
                    else "set"
                    if f.attr in SET_METHODS
                    else "seq"
                    if f.attr in ("count", "index")
                    else None
                )
                if tag:
                    hints[f.value.id].add(tag)
            if isinstance(f, ast.Attribute) and f.attr == "join":
                for arg in n.args:
                    if is_p(arg):
                        hints[arg.id] |= {"seq", "elem-str"}
            if isinstance(f, ast.Name):
                for arg in n.args:
                    if not is_p(arg):
                        continue
                    if f.id in SEQ_FUNCS:
                        hints[arg.id].add("seq")
                    elif f.id in NUM_ELEM_FUNCS and len(n.args) == 1:
                        hints[arg.id] |= {"seq", "elem-int"}
                    elif f.id in ("range", "bin", "hex", "oct", "chr"):
                        hints[arg.id].add("int")
                    elif f.id in ("ord",):
                        hints[arg.id].add("str")
                    elif f.id in ("abs", "round", "pow", "divmod"):
                        hints[arg.id].add("float" if f.id == "round" else "int")
        elif isinstance(n, ast.Subscript) and is_p(n.value):
            hints[n.value.id].add("seq")
            if (
                isinstance(n.value.ctx, ast.Load)
                and isinstance(n.slice, ast.Constant)
                and isinstance(n.slice.value, str)
            ):
                hints[n.value.id].add("dict")
            if isinstance(n.slice, ast.Tuple):
                hints[n.value.id].add("matrix")
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Subscript) and is_p(n.value.value):
            hints[n.value.value.id].add("matrix")
        elif isinstance(n, (ast.For, ast.comprehension)) and is_p(n.iter):
            hints[n.iter.id].add("seq")
        elif isinstance(n, ast.BinOp) and isinstance(
            n.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.Mult, ast.Add)
        ):
            for side, other in ((n.left, n.right), (n.right, n.left)):
                if is_p(side) and isinstance(other, ast.Constant):
                    if isinstance(other.value, str):
                        hints[side.id].add("str")
                    elif isinstance(other.value, float):
                        hints[side.id].add("float")
                    elif (
                        isinstance(other.value, int)
                        and not isinstance(other.value, bool)
                        and not isinstance(n.op, ast.Mult)
                    ):
                        hints[side.id].add("int")
        elif isinstance(n, ast.Compare):
            items = [n.left] + list(n.comparators)
            for x in items:
                if not is_p(x):
                    continue
                for y in items:
                    if (
                        isinstance(y, ast.Constant)
                        and isinstance(y.value, str)
                        and not any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops)
                    ):
                        hints[x.id].add("str")
                    elif (
                        isinstance(y, ast.Constant)
                        and isinstance(y.value, (int, float))
                        and not isinstance(y.value, bool)
                    ):
                        hints[x.id].add("float" if isinstance(y.value, float) else "int")
            if any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops):
                for c in n.comparators:
                    if is_p(c):
                        hints[c.id].add("seq")
    return {k: sorted(v) for k, v in hints.items() if v}


def body_literals(fn):
    ints, strs = set(), set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool):
                continue
            if isinstance(n.value, int) and abs(n.value) <= 1000:
                ints.add(n.value)
            elif (
                isinstance(n.value, str)
                and 0 < len(n.value) <= 20
                and n is not (fn.body[0].value if is_docstring(fn.body[0]) else None)
            ):
                strs.add(n.value)
    return {"ints": sorted(ints)[:16], "strs": sorted(strs)[:16]}


# ---------------------------------------------------------------- one record


def analyze(rec):
    code = rec.get("code")
    if not isinstance(code, str) or not code.strip():
        raise Reject("missing-code", "no code")
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    tree = parse(code, "code")
    funcs = top_functions(tree)
    if not funcs:
        raise Reject("no-entry-point", "no top-level function")
    entry = rec.get("entry_point") or None
    if entry is not None and entry not in funcs:
        raise Reject("no-entry-point", f"entry point {entry!r} is not a top-level function")
    entry, inputs = find_inputs(rec.get("inputs") or {}, tree, funcs, entry)
    if entry is None:
        roots = root_functions(tree)
        if len(roots) == 1:
            entry = roots[0]
    if entry is None:
        raise Reject("ambiguous-entry-point", f"{len(roots)} top-level functions nobody calls: {', '.join(roots[:5])}")
    fn = funcs[entry]
    if isinstance(fn, ast.AsyncFunctionDef):
        raise Reject("no-entry-point", "the entry point is async")
    clean, stripped = strip_module(code, tree)
    clean_tree = parse(clean, "stripped code")
    imp = impurity(clean_tree)
    out = {
        "entry_point": entry,
        "signature": signature_of(fn),
        "code": clean,
        "docstring": ast.get_docstring(fn, clean=True),
        "imports": imports_of(clean_tree),
        "inputs": inputs.texts,
        "dropped_inputs": inputs.dropped,
        "stripped": stripped,
        "params": param_infos(fn),
        "hints": param_hints(fn),
        "literals": body_literals(fn),
    }
    out["exact_hash"], out["near_hash"] = code_hashes(clean_tree)
    if imp is not None:
        raise _RejectWith(imp[0], imp[1], out)
    if not inputs.texts:
        why = ", ".join(f"{k} x{v}" for k, v in sorted(inputs.dropped.items())) or "the source gives none"
        raise _RejectWith("no-known-inputs", f"no literal argument list ({why})", out)
    return out


class _RejectWith(Reject):
    """A rejection found after the analysis succeeded: the partial result is still reported."""

    def __init__(self, reason, detail, partial):
        super().__init__(reason, detail)
        self.partial = partial


def main():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    sys.setrecursionlimit(3000)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            print(json.dumps({"key": None, "ok": False, "reason": "bad-request", "detail": str(e)}), flush=False)
            continue
        res = {"key": rec.get("key")}
        try:
            res.update(analyze(rec), ok=True, reason=None, detail="")
        except _RejectWith as r:
            res.update(r.partial, ok=False, reason=r.reason, detail=r.detail)
        except Reject as r:
            res.update(ok=False, reason=r.reason, detail=r.detail)
        except (RecursionError, MemoryError) as e:
            res.update(ok=False, reason="parse-error", detail=f"{type(e).__name__} while analysing")
        print(json.dumps(res))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
