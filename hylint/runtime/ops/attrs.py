"""Operator attributes: MXNet passes every attribute as a string, parsed here exactly as MXNet parses it."""
import ast

import numpy as np

from ..base import MXNetError


# ----------------------------------------------------------------------------------------------
# attribute parsing (MXNet passes every attribute as a string)
# ----------------------------------------------------------------------------------------------
_DTYPES = ("float16", "float32", "float64", "uint8", "int8", "int32", "int64", "bool")


#: attribute text -> its parsed value, for immutable values (ints, floats, strings, tuples of them). Every
#: eager call parses its attributes again (``kernel="(3, 3)"``); ``ast.literal_eval`` compiles each one,
#: which cost about as much as a small layer's arithmetic.
_LITERALS = {}
_IMMUTABLE = (int, float, str, bool, type(None))
_NOT_A_LITERAL = object()
_PLAIN = (str, int, bool, float)  # stringify's common case: str() of the value


def _literal(s):
    value = _LITERALS.get(s, _LITERALS)
    if value is _NOT_A_LITERAL:  # remembered as not a literal: the same error as the first time
        raise ValueError("not a Python literal: %r" % s)
    if value is not _LITERALS:
        return value
    try:
        value = ast.literal_eval(s.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = _NOT_A_LITERAL  # a text like "NCHW": remembered too, the callers turn it into their error
    immutable = isinstance(value, _IMMUTABLE) or (isinstance(value, tuple) and all(isinstance(v, _IMMUTABLE)
                                                                                   for v in value))
    if (immutable or value is _NOT_A_LITERAL) and len(_LITERALS) < 4096:  # bounded: a loop may make new texts
        _LITERALS[s] = value
    if value is _NOT_A_LITERAL:
        raise ValueError("not a Python literal: %r" % s)
    return value


def _parse_int(s):
    v = _literal(s)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError
    return v


def _parse_float(s):
    if s.strip() == "None":
        return None
    v = float(s.strip())  # 'True' / 'abc' raise ValueError, like dmlc's double parser
    return v


def _parse_bool(s):
    t = s.strip()
    if t in ("1", "True", "true"):
        return True
    if t in ("0", "False", "false"):
        return False
    raise ValueError


def _parse_shape(s):
    v = _literal(s) if s.strip() not in ("", "None") else ()
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in v):
        return tuple(v)
    raise ValueError


def _parse_opt_tuple(s):
    """Tuple whose entries may be None (slice begin/end/step)."""
    v = _literal(s)
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, (tuple, list)) and all(d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in v):
        return tuple(v)
    raise ValueError


def _parse_axis(s):
    """Reduction axis: None, an int or a tuple of ints."""
    if s.strip() in ("None", "()"):
        return None
    return _parse_shape(s)


def _parse_opt_int(s):
    if s.strip() == "None":
        return None
    return _parse_int(s)


def _parse_dtype(s):
    t = s.strip()
    if t in ("None",):
        return None
    if t in _DTYPES:
        return t
    raise ValueError


def _parse_str(s):
    return s


def _parse_any(s):
    try:
        return _literal(s)
    except (ValueError, SyntaxError):
        return s


_KINDS = {
    "int": (_parse_int, "int"),
    "float": (_parse_float, "double"),
    "bool": (_parse_bool, "boolean"),
    "shape": (_parse_shape, "Shape(tuple)"),
    "opt_tuple": (_parse_opt_tuple, "tuple of <int or None>"),
    "axis": (_parse_axis, "Shape or None"),
    "opt_int": (_parse_opt_int, "int or None"),
    "dtype": (_parse_dtype, "{None, 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'}"),
    "str": (_parse_str, "string"),
    "any": (_parse_any, "value"),
}

_REQUIRED = object()


class P:
    """One typed operator attribute."""

    __slots__ = ("name", "kind", "default", "minimum", "doc")

    def __init__(self, name, kind, default=_REQUIRED, minimum=None, doc=""):
        self.name, self.kind, self.default = name, kind, default
        # dmlc's `set_lower_bound`: a smaller value is refused with the parameter's own description
        self.minimum, self.doc = minimum, doc


def _plain(value):
    """``value`` with numpy scalars inside tuples and lists made Python numbers, as numpy 1 prints them: numpy 2
    prints ``(np.int64(3),)`` for ``(3,)``, which no MXNet parser reads. Floats go through ``str`` (``0.1``, not
    ``0.10000000149011612`` for a float32), so the text is the same on numpy 1 and 2."""
    if isinstance(value, (tuple, list)):
        return (list if isinstance(value, list) else tuple)(_plain(v) for v in value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(str(value))
    return value


def stringify(value):
    """How MXNet turns a Python attribute value into the string handed to the C++ parser."""
    if type(value) in _PLAIN or (type(value) is tuple and all(type(v) is int for v in value)):
        return str(value)  # the common case, what the checks below end in for it
    if isinstance(value, type) or isinstance(value, np.dtype):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return str(value.item())
    if isinstance(value, (tuple, list)) and _holds_numpy_scalar(value):
        return str(_plain(value))
    return str(value)


def _holds_numpy_scalar(value):
    return any(isinstance(v, np.generic) or isinstance(v, (tuple, list)) and _holds_numpy_scalar(v) for v in value)


#: (op, attribute strings) -> parsed attributes: an eager call parses the same strings every time (a network's
#: layers call each operator with a few fixed attribute sets); immutable values only, at most PARSED_CACHE_SIZE
_PARSED = {}
PARSED_CACHE_SIZE = 4096


def parse_attrs(op, attr_strs):
    """Parse string attributes of ``op`` into Python values (defaults filled in); a fresh dict each call."""
    try:
        key = (op, tuple(attr_strs.items()))
        hit = _PARSED.get(key)
    except TypeError:  # an unhashable attribute value
        return _parse_attrs(op, attr_strs)
    if hit is not None:
        return dict(hit)
    parsed = _parse_attrs(op, attr_strs)
    if len(_PARSED) < PARSED_CACHE_SIZE and all(_immutable(v) for v in parsed.values()):
        _PARSED[key] = dict(parsed)
    return parsed


def _immutable(value):
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return isinstance(value, _IMMUTABLE)


def _parse_attrs(op, attr_strs):
    if op.keeps_attributes:
        return {k: v for k, v in attr_strs.items() if not (k.startswith("__") and k.endswith("__"))}
    parsed = {}
    for key in attr_strs:
        if key.startswith("__") and key.endswith("__"):
            continue  # MXNet keeps dunder attributes (``__layout__``) as plain node annotations
        if key not in op.param_map and not op.params:
            continue  # an op without a parameter struct keeps unknown attributes and ignores them, as in MXNet
        if key not in op.param_map:
            raise MXNetError("Cannot find argument '%s', Possible Arguments:\n----------------\n%s"
                             % (key, "\n".join("%s : %s" % (p.name, "{%s}" % ", ".join(sorted(p.kind))
                                                              if isinstance(p.kind, tuple) else _KINDS[p.kind][1])
                                                  for p in op.params)))
    for p in op.params:
        if p.name in attr_strs and isinstance(p.kind, tuple):  # an enumeration, validated like dmlc does
            text = attr_strs[p.name]
            if text not in p.kind:
                shown = ", ".join(['name=""'] + ['%s="%s"' % (k, v) for k, v in sorted(attr_strs.items())])
                raise MXNetError("Invalid Input: '%s', valid values are: {%s}, in operator %s(%s)"
                                 % (text, ", ".join("'%s'" % c for c in sorted(p.kind)), op.name, shown))
            parsed[p.name] = text
        elif p.name in attr_strs:
            text = attr_strs[p.name]
            parser, type_name = _KINDS[p.kind]
            try:
                parsed[p.name] = parser(text)
            except (ValueError, SyntaxError, TypeError):
                shown = ", ".join(['name=""'] + ['%s="%s"' % (k, v) for k, v in sorted(attr_strs.items())])
                raise MXNetError("Invalid Parameter format for %s expect %s but value='%s', in operator %s(%s)"
                                 % (p.name, type_name, text, op.name, shown))
            if p.minimum is not None and parsed[p.name] is not None and parsed[p.name] < p.minimum:
                shown = ", ".join(['name=""'] + ['%s="%s"' % (k, v) for k, v in sorted(attr_strs.items(), reverse=True)])
                raise MXNetError("value %s for Parameter %s should be greater equal to %s\n%s: %s, in operator %s(%s)"
                                 % (text, p.name, p.minimum, p.name, p.doc, op.name, shown))
        elif p.default is _REQUIRED:
            raise MXNetError("Required parameter %s of %s is not presented, in operator %s(name=\"\")"
                             % (p.name, "string" if isinstance(p.kind, tuple) else _KINDS[p.kind][1], op.name))
        else:
            parsed[p.name] = p.default
    return parsed
