"""Typed, JSON-safe encoding of Python values (the sandbox's value contract), and its inverse.

Plain JSON is used where it is unambiguous; everything else is a one-key object naming its type:
  None -> null; bool -> true/false; str -> "..."; int -> 123 when |x| <= 2**53-1, else {"int": "<digits>"}
  float -> {"float": 1.5} or {"float": "nan" | "inf" | "-inf" | "-0.0"}
  bytes -> {"bytes": "<base64>"}; bytearray -> {"bytearray": "<base64>"}
  list -> [...]; tuple -> {"tuple": [...]}; set -> {"set": [...]}; frozenset -> {"frozenset": [...]}
  dict -> {"dict": [[key, value], ...]} in insertion order (keys may be any hashable value)
  complex -> {"complex": [re, im]} (each a float encoding)
  anything else, or a container that contains itself -> {"other": {"type": "<module.qualname>", "repr": "..."}}
Floats are always tagged so 1 and 1.0 stay different after JSON.parse in JavaScript. Set elements are
sorted by their canonical JSON so equal sets encode identically whatever the hash seed.
"""

import base64
import json
import math

MAX_SAFE_INT = 2**53 - 1


def _float(x):
    if math.isnan(x):
        return {"float": "nan"}
    if math.isinf(x):
        return {"float": "inf" if x > 0 else "-inf"}
    if x == 0.0 and math.copysign(1.0, x) < 0:
        return {"float": "-0.0"}
    return {"float": x}


def _type_name(v):
    t = type(v)
    mod = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", t.__name__)
    return name if mod in (None, "builtins", "__pau_method__") else f"{mod}.{name}"


def _safe_repr(v, limit=10_000):
    try:
        r = repr(v)
    except BaseException as e:  # a hostile __repr__ must not break encoding
        r = f"<unrepresentable {_type_name(v)}: {type(e).__name__}>"
    return r if len(r) <= limit else r[:limit] + "..."


def canonical(enc):
    """A string that is equal for equal encodings (used to order set elements)."""
    return json.dumps(enc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def encode(v, _active=None):
    """Encode `v`; `_active` holds ids of containers being encoded, to stop at cycles."""
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return v if -MAX_SAFE_INT <= v <= MAX_SAFE_INT else {"int": str(v)}
    if t is float:
        return _float(v)
    if t is bytes:
        return {"bytes": base64.b64encode(v).decode("ascii")}
    if t is bytearray:
        return {"bytearray": base64.b64encode(bytes(v)).decode("ascii")}
    if t is complex:
        return {"complex": [_float(v.real), _float(v.imag)]}
    if t in (list, tuple, set, frozenset, dict):
        if _active is None:
            _active = set()
        if id(v) in _active:
            return {"other": {"type": t.__name__, "repr": _safe_repr(v)}}
        _active.add(id(v))
        try:
            if t is list:
                return [encode(x, _active) for x in v]
            if t is tuple:
                return {"tuple": [encode(x, _active) for x in v]}
            if t is dict:
                return {"dict": [[encode(k, _active), encode(x, _active)] for k, x in v.items()]}
            items = sorted((encode(x, _active) for x in v), key=canonical)
            return {t.__name__: items}
        finally:
            _active.discard(id(v))
    # bool/int/float/str subclasses, NamedTuples, objects: repr plus type, never guessed.
    return {"other": {"type": _type_name(v), "repr": _safe_repr(v)}}


class Opaque:
    """Decoded stand-in for an {"other": ...} value: keeps its type name and repr."""

    __slots__ = ("repr", "type")

    def __init__(self, type_, repr_):
        self.type, self.repr = type_, repr_

    def __repr__(self):
        return self.repr

    def __eq__(self, other):
        return isinstance(other, Opaque) and (self.type, self.repr) == (other.type, other.repr)

    def __hash__(self):
        return hash((self.type, self.repr))


def _decode_float(x):
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}[x]
    return float(x)


def decode(enc):
    """The inverse of encode (opaque values come back as Opaque)."""
    if enc is None or isinstance(enc, (bool, str)):
        return enc
    if isinstance(enc, int):
        return enc
    if isinstance(enc, float):  # tolerated: a bare JSON float from a hand-written encoding
        return enc
    if isinstance(enc, list):
        return [decode(x) for x in enc]
    if isinstance(enc, dict) and len(enc) == 1:
        ((tag, body),) = enc.items()
        if tag == "int":
            return int(body)
        if tag == "float":
            return _decode_float(body)
        if tag == "bytes":
            return base64.b64decode(body)
        if tag == "bytearray":
            return bytearray(base64.b64decode(body))
        if tag == "complex":
            return complex(_decode_float(body[0]["float"]), _decode_float(body[1]["float"]))
        if tag == "tuple":
            return tuple(decode(x) for x in body)
        if tag == "set":
            return {decode(x) for x in body}
        if tag == "frozenset":
            return frozenset(decode(x) for x in body)
        if tag == "dict":
            return {decode(k): decode(x) for k, x in body}
        if tag == "other":
            return Opaque(body["type"], body["repr"])
    raise ValueError(f"not a value encoding: {enc!r:.200}")
