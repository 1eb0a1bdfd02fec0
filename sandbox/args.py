"""Parse a call's arguments from Python-literal text, without evaluating anything.

Two shapes are accepted:
  - a list of strings, each ONE argument: ["[3, 1, 2]", "key='a'"] (a string may be `name=literal`);
  - one string holding the whole argument list, as an agent writes it: "[3, 1, 2], key='a'".
The text is parsed as the argument list of a call expression with `ast`, and each argument node is turned
into a value by `ast.literal_eval` (literals, containers, unary minus, complex sums, set()). Names,
calls, attribute access, comprehensions, *args and **kwargs are rejected.
This runs inside the call's sandboxed child, so even a parser blow-up (deep nesting, huge numbers) is
contained by the call's limits.
"""

import ast


class BadArguments(Exception):
    """The argument text is not a list of Python literals."""


def _call_node(text):
    try:
        tree = ast.parse(f"f({text}\n)", mode="eval")
    except SyntaxError as e:
        raise BadArguments(f"cannot parse arguments {text[:200]!r}: {e.msg}") from None
    node = tree.body
    if not isinstance(node, ast.Call):
        raise BadArguments(f"cannot parse arguments {text[:200]!r}")
    return node


def _literal(node, text):
    if isinstance(node, ast.Starred):
        raise BadArguments("*args is not allowed; write the arguments out")
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        seg = ast.get_source_segment(f"f({text}\n)", node) or text
        raise BadArguments(f"not a Python literal: {seg[:200]!r} ({type(e).__name__})") from None


def _from_call(node, text, args, kwargs):
    for a in node.args:
        args.append(_literal(a, text))
    for kw in node.keywords:
        if kw.arg is None:
            raise BadArguments("**kwargs is not allowed; write the keyword arguments out")
        if kw.arg in kwargs:
            raise BadArguments(f"keyword argument {kw.arg!r} given twice")
        kwargs[kw.arg] = _literal(kw.value, text)


def parse_call(spec):
    """(args, kwargs) from a string or a list of strings; raises BadArguments."""
    args, kwargs = [], {}
    if isinstance(spec, str):
        if spec.strip():
            _from_call(_call_node(spec), spec, args, kwargs)
        return args, kwargs
    if not isinstance(spec, list) or not all(isinstance(s, str) for s in spec):
        raise BadArguments("a call is a string or a list of strings")
    for i, text in enumerate(spec):
        node = _call_node(text)
        if len(node.args) + len(node.keywords) != 1:
            raise BadArguments(f"argument {i} must hold exactly one argument, got {text[:200]!r}")
        if node.args and kwargs:
            raise BadArguments("positional argument follows keyword argument")
        _from_call(node, text, args, kwargs)
    return args, kwargs
