"""THE operator table of the runtime: every operator is defined once, here.

An :class:`Op` holds
  * ``kernel(inputs, attrs)``: the NumPy computation (``inputs`` are numpy arrays, ``attrs`` parsed values),
  * ``infer_shape(in_shapes, attrs)``: the shape rule *and* the checks MXNet performs (raising
    :class:`ShapeCheck` with MXNet's message), able to fill in unknown (``None``) input shapes where
    MXNet can (used for deferred parameter initialisation),
  * ``infer_type``: the dtype rule,
  * its argument list: tensor inputs (``inputs``) and typed attributes (``params``), parsed from strings
    exactly as MXNet parses them (so ``x.reshape(0, -1)`` fails the way MXNet fails).

``ndarray.py`` and ``symbol.py`` generate the ``nd.<op>`` (eager) and ``sym.<op>`` (graph node)
functions from :data:`OPS`; :data:`WRAPPERS` holds the few hand-written Python functions whose
behaviour differs between the two namespaces in MXNet (``maximum`` broadcasts only in ``nd``, ...).
Nothing here imports NDArray or Symbol.
"""
import ast
import math
from collections import OrderedDict

import numpy as np

from ..facts.operators import ND_BINARY_FUNCTIONS  # facts are shared with the linter, not part of it

from .base import MXNetError, shape_str
from . import kernels, rng

__all__ = ["Op", "OPS", "WRAPPERS", "ShapeCheck", "InferFailed", "parse_attrs", "lookup"]


# ----------------------------------------------------------------------------------------------
# errors raised by shape / type rules
# ----------------------------------------------------------------------------------------------
class ShapeCheck(Exception):
    """A failed MXNet ``CHECK``; the message may contain ``{node}`` (the node name, empty eagerly).

    ``eager`` is the text MXNet prints instead when the operator runs eagerly (a few differ)."""

    def __init__(self, message, eager=None):
        super().__init__(message)
        self.eager = eager


class UnwrappedCheck(ShapeCheck):
    """A CHECK MXNet raises outside its per-operator error wrapper (no "Error in operator" prefix, and the
    cached graph is not left half-inferred: the next call fails the same way)."""


class InferFailed(Exception):
    """MXNet's shape function returned false without a CHECK message."""


def _assign(shapes, i, target, node_kind="shape"):
    """MXNet's SHAPE_ASSIGN: unify input ``i`` with ``target`` or raise the 'Incompatible attr' check."""
    cur = shapes[i]
    if cur is None:
        shapes[i] = tuple(target)
        return
    if target is None:
        return
    if len(cur) == len(target) and all(a == b or a == 0 or b == 0 for a, b in zip(cur, target)):
        shapes[i] = _merge(cur, target)
        return
    raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at %d-th input: "
                     "expected %s, got %s" % (i, shape_str(target), shape_str(cur)))


def _assign_param(shapes, i, target, paren=True, message=None):
    """SHAPE_ASSIGN_CHECK on a parameter input: ``Shape inconsistent, Provided = [2,4], inferred shape=(3,3)``."""
    cur = shapes[i]
    if cur is None or (len(cur) == len(target) and all(a == b or a == 0 or b == 0 for a, b in zip(cur, target))):
        shapes[i] = tuple(target) if cur is None else _merge(cur, target)
        return
    if message:
        raise ShapeCheck(message % shape_str(cur))
    shown = "(" + ",".join(str(d) for d in target) + ")" if paren else shape_str(target)
    raise ShapeCheck("Shape inconsistent, Provided = %s, inferred shape=%s" % (shape_str(cur), shown))


def _merge(a, b):
    """Two compatible shapes, ``0`` (unknown) dims filled from the other."""
    return tuple(y if x == 0 else x for x, y in zip(a, b))


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


def _literal(s):
    try:
        return _LITERALS[s]
    except KeyError:
        pass
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

    __slots__ = ("name", "kind", "default")

    def __init__(self, name, kind, default=_REQUIRED):
        self.name, self.kind, self.default = name, kind, default


def stringify(value):
    """How MXNet turns a Python attribute value into the string handed to the C++ parser."""
    if isinstance(value, type) or isinstance(value, np.dtype):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def parse_attrs(op, attr_strs):
    """Parse string attributes of ``op`` into Python values (defaults filled in)."""
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
        elif p.default is _REQUIRED:
            raise MXNetError("Required parameter %s of %s is not presented, in operator %s(name=\"\")"
                             % (p.name, "string" if isinstance(p.kind, tuple) else _KINDS[p.kind][1], op.name))
        else:
            parsed[p.name] = p.default
    return parsed


# ----------------------------------------------------------------------------------------------
# the Op record
# ----------------------------------------------------------------------------------------------
def _same_type(in_types, attrs):
    """All tensor inputs share one dtype (MXNet's ElemwiseType); outputs get it too."""
    known = next((t for t in in_types if t is not None), None)
    if known is None:
        return in_types, None
    out = list(in_types)
    for i, t in enumerate(in_types):
        if t is None:
            out[i] = known
        elif t != known:
            raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at %d-th "
                             "input: expected %s, got %s" % (i, known, t))
    return out, known


def _first_type(in_types, attrs):
    return in_types, in_types[0]


def _attr_type(default="float32"):
    def rule(in_types, attrs):
        return in_types, attrs.get("dtype") or default
    return rule


def _fixed_type(dtype):
    def rule(in_types, attrs):
        return in_types, dtype
    return rule


class Op:
    """One operator: kernel + shape rule + dtype rule + argument spec."""

    def __init__(self, name, kernel, infer_shape, inputs=("data",), params=(), infer_type=_same_type,
                 variadic=False, num_outputs=1, aux=(), aliases=(), hint=None, namespaces=("nd", "sym"),
                 optional_inputs=(), needs_input=True):
        self.name = name
        self.kernel = kernel
        self.infer_shape = infer_shape
        self.inputs = tuple(inputs)
        self.params = tuple(params)
        self.param_map = {p.name: p for p in self.params}
        self.infer_type = infer_type
        self.variadic = variadic
        self._num_outputs = num_outputs
        self.aux = tuple(aux)  # names of inputs that are auxiliary states (BatchNorm running stats)
        self.aliases = tuple(aliases)
        self.hint = hint or name.lower()
        self.namespaces = tuple(namespaces)
        self.optional_inputs = set(optional_inputs)
        self.needs_input = needs_input

    def num_outputs(self, attrs):
        n = self._num_outputs
        return n(attrs) if callable(n) else n

    def __repr__(self):
        return "<Op %s>" % self.name


OPS = OrderedDict()


def register(op):
    OPS[op.name] = op
    for alias in op.aliases:
        OPS[alias] = op
    return op


def lookup(name):
    return OPS[name]


# ----------------------------------------------------------------------------------------------
# shape rules
# ----------------------------------------------------------------------------------------------
def _shape_same(in_shapes, attrs):
    """Elementwise: all inputs identical (MXNet ElemwiseShape); checks against input 0 first."""
    shapes = list(in_shapes)
    ref = next((s for s in shapes if s is not None), None)
    if ref is None:
        return shapes, [None]
    for i in range(len(shapes)):
        _assign(shapes, i, ref)
        ref = _merge(ref, shapes[i]) if len(shapes[i]) == len(ref) else ref
    for i in range(len(shapes)):
        _assign(shapes, i, ref)
    return shapes, [ref]


def _broadcast_shapes(a, b):
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for l, r in zip(pa, pb):
        if l != r and l != 1 and r != 1:
            raise ShapeCheck("Check failed: l == 1 || r == 1: operands could not be broadcast together with "
                             "shapes %s %s" % (shape_str(a), shape_str(b)))
        out.append(max(l, r) if l != 1 else r)
    return tuple(out)


def _shape_broadcast(in_shapes, attrs):
    return list(in_shapes), [_broadcast_shapes(in_shapes[0], in_shapes[1])]


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        if a >= ndim:
            raise ShapeCheck("Check failed: axes[axes.ndim()-1] < ishape.ndim() (%d vs. %d) : Reduction axis %d Exceeds "
                             "input dimensions %s" % (a, ndim, a, "{shape}"))
        if a < -ndim:
            raise ShapeCheck("Check failed: axes[0] >= 0 (%d vs. 0) : Reduction axis [%d] Exceeds input dimensions %s"
                             % (a + ndim, a, "{shape}"))
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def _reduce_axes(shape, attrs):
    axes = _norm_axes(attrs.get("axis"), len(shape))
    if attrs.get("exclude"):
        axes = tuple(i for i in range(len(shape)) if i not in axes)
    return axes


def _shape_reduce(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    try:
        axes = _reduce_axes(s, attrs)
    except ShapeCheck as e:
        raise ShapeCheck(str(e).replace("{shape}", shape_str(s)))
    if attrs.get("keepdims"):
        out = tuple(1 if i in axes else d for i, d in enumerate(s))
    else:
        out = tuple(d for i, d in enumerate(s) if i not in axes) or (1,)
    return list(in_shapes), [out]


def _unary_shape_fn(fn):
    """Shape rule for single-input ops whose output shape only depends on the input shape."""
    def rule(in_shapes, attrs):
        s = in_shapes[0]
        return list(in_shapes), [None if s is None else tuple(fn(tuple(s), attrs))]
    return rule


# ----------------------------------------------------------------------------------------------
# kernels helpers
# ----------------------------------------------------------------------------------------------
def _at_least_1d(a):
    a = np.asarray(a)
    return a.reshape((1,)) if a.ndim == 0 else a


def _true_div(a, b):
    if np.issubdtype(np.result_type(a, b), np.integer):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b))
    return np.true_divide(a, b)


def _mod(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mod(a, b)


def _power(a, b):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(a, b)


# binary math: name -> numpy function taking two arrays
_BINARY = OrderedDict([
    ("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", _true_div), ("mod", _mod),
    ("power", _power), ("maximum", np.maximum), ("minimum", np.minimum), ("hypot", np.hypot),
    ("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
    ("greater_equal", np.greater_equal), ("lesser", np.less), ("lesser_equal", np.less_equal),
    ("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor),
])


def _binary_kernel(fn):
    def kernel(inputs, attrs):
        a, b = inputs
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _at_least_1d(np.asarray(fn(a, b)).astype(a.dtype, copy=False))
    return kernel


# elementwise (same shape) versions, as Symbol operators and F.elemwise_* use them
_ELEMWISE_NAMES = {"add": ("elemwise_add", "_plus", ("_Plus", "_add")),
                   "sub": ("elemwise_sub", "_minus", ("_Minus", "_sub")),
                   "mul": ("elemwise_mul", "_mul", ("_Mul",)),
                   "div": ("elemwise_div", "_div", ("_Div",)),
                   "mod": ("_mod", "_mod", ("_Mod",)),
                   "power": ("_power", "_power", ("_Power",)),
                   "maximum": ("_maximum", "_maximum", ("_Maximum",)),
                   "minimum": ("_minimum", "_minimum", ("_Minimum",)),
                   "hypot": ("_hypot", "_hypot", ("_Hypot",)),
                   "equal": ("_equal", "_equal", ()), "not_equal": ("_not_equal", "_not_equal", ()),
                   "greater": ("_greater", "_greater", ()), "greater_equal": ("_greater_equal", "_greater_equal", ()),
                   "lesser": ("_lesser", "_lesser", ()), "lesser_equal": ("_lesser_equal", "_lesser_equal", ()),
                   "logical_and": ("_logical_and", "_logical_and", ()),
                   "logical_or": ("_logical_or", "_logical_or", ()),
                   "logical_xor": ("_logical_xor", "_logical_xor", ())}

for _key, _fn in _BINARY.items():
    _name, _hint, _aliases = _ELEMWISE_NAMES[_key]
    register(Op(_name, _binary_kernel(_fn), _shape_same, inputs=("lhs", "rhs"), hint=_hint,
                aliases=_aliases + ((_hint,) if _hint != _name else ())))
    register(Op("broadcast_" + _key, _binary_kernel(_fn), _shape_broadcast, inputs=("lhs", "rhs")))
OPS["broadcast_plus"] = OPS["broadcast_add"]
OPS["broadcast_minus"] = OPS["broadcast_sub"]


def _scalar_kernel(fn, reverse=False):
    def kernel(inputs, attrs):
        a = inputs[0]
        s = np.asarray(attrs["scalar"]).astype(a.dtype) if np.issubdtype(a.dtype, np.integer) else attrs["scalar"]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r = fn(s, a) if reverse else fn(a, s)
        return _at_least_1d(np.asarray(r).astype(a.dtype, copy=False))
    return kernel


_shape_unary = _unary_shape_fn(lambda s, attrs: s)

# scalar ops: (op name, hint used by Symbol's operators, function, reversed)
_SCALAR = [("_plus_scalar", "_plusscalar", np.add, False), ("_minus_scalar", "_minusscalar", np.subtract, False),
           ("_rminus_scalar", "_rminusscalar", np.subtract, True), ("_mul_scalar", "_mulscalar", np.multiply, False),
           ("_div_scalar", "_divscalar", _true_div, False), ("_rdiv_scalar", "_rdivscalar", _true_div, True),
           ("_mod_scalar", "_modscalar", _mod, False), ("_rmod_scalar", "_rmodscalar", _mod, True),
           ("_power_scalar", "_powerscalar", _power, False), ("_rpower_scalar", "_rpowerscalar", _power, True),
           ("_maximum_scalar", "_maximumscalar", np.maximum, False),
           ("_minimum_scalar", "_minimumscalar", np.minimum, False),
           ("_hypot_scalar", "_hypotscalar", np.hypot, False),
           ("_equal_scalar", "_equal_scalar", np.equal, False), ("_not_equal_scalar", "_not_equal_scalar", np.not_equal, False),
           ("_greater_scalar", "_greater_scalar", np.greater, False),
           ("_greater_equal_scalar", "_greater_equal_scalar", np.greater_equal, False),
           ("_lesser_scalar", "_lesser_scalar", np.less, False),
           ("_lesser_equal_scalar", "_lesser_equal_scalar", np.less_equal, False),
           ("_logical_and_scalar", "_logical_and_scalar", np.logical_and, False),
           ("_logical_or_scalar", "_logical_or_scalar", np.logical_or, False),
           ("_logical_xor_scalar", "_logical_xor_scalar", np.logical_xor, False)]
for _name, _hint, _fn, _rev in _SCALAR:
    register(Op(_name, _scalar_kernel(_fn, _rev), _shape_unary, params=(P("scalar", "float"),), hint=_hint,
                infer_type=_first_type))


# ----------------------------------------------------------------------------------------------
# unary math
# ----------------------------------------------------------------------------------------------
def _rsqrt(a):
    return 1.0 / np.sqrt(a)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def _relu(a):
    return np.maximum(a, 0)


def _softsign(a):
    return a / (1 + np.abs(a))


def _softrelu(a):
    return np.logaddexp(0, a)


def _rint(a):
    """MXNet's rint: halves go down (``rint(2.5) == 2``, ``rint(-2.5) == -3``), unlike numpy's half-to-even."""
    low = np.floor(a)
    return np.where(a - low <= 0.5, low, np.ceil(a))


def _round_half_away(a):
    return np.sign(a) * np.floor(np.abs(a) + 0.5)


def _erf(a):
    return np.vectorize(math.erf, otypes=[np.float64])(a) if np.size(a) else a


_UNARY = OrderedDict([
    ("exp", np.exp), ("log", np.log), ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p),
    ("expm1", np.expm1), ("sqrt", np.sqrt), ("rsqrt", _rsqrt), ("cbrt", np.cbrt), ("square", np.square),
    ("abs", np.abs), ("sign", np.sign), ("round", _round_half_away), ("rint", _rint), ("floor", np.floor),
    ("ceil", np.ceil), ("trunc", np.trunc), ("fix", np.fix), ("negative", np.negative),
    ("reciprocal", np.reciprocal), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("arcsin", np.arcsin),
    ("arccos", np.arccos), ("arctan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh), ("tanh", np.tanh),
    ("arcsinh", np.arcsinh), ("arccosh", np.arccosh), ("arctanh", np.arctanh), ("relu", _relu),
    ("sigmoid", _sigmoid), ("softsign", _softsign), ("erf", _erf), ("logical_not", np.logical_not),
    ("degrees", np.degrees), ("radians", np.radians),
])


def _unary_kernel(fn):
    def kernel(inputs, attrs):
        a = inputs[0]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _at_least_1d(np.asarray(fn(a)).astype(a.dtype, copy=False))
    return kernel


for _name, _fn in _UNARY.items():
    register(Op(_name, _unary_kernel(_fn), _shape_unary))


def _identity_kernel(inputs, attrs):
    return inputs[0].copy()


register(Op("identity", _identity_kernel, _shape_unary, aliases=("_copy",), hint="identity"))
register(Op("stop_gradient", _identity_kernel, _shape_unary, aliases=("BlockGrad",)))
register(Op("make_loss", _identity_kernel, _shape_unary, aliases=("MakeLoss",)))

_ACTS = {"relu": _relu, "sigmoid": _sigmoid, "tanh": np.tanh, "softrelu": _softrelu, "softsign": _softsign}


def _activation_kernel(inputs, attrs):
    a = inputs[0]
    act = attrs["act_type"]
    if act not in _ACTS:
        raise MXNetError("Invalid Input: '%s', valid values are: {'relu', 'sigmoid', 'softrelu', 'softsign', "
                         "'tanh'}, in operator Activation(name=\"\", act_type=\"%s\")" % (act, act))
    with np.errstate(over="ignore"):
        return _ACTS[act](a).astype(a.dtype, copy=False)


register(Op("Activation", _activation_kernel, _shape_unary,
            params=(P("act_type", ("relu", "sigmoid", "softrelu", "softsign", "tanh")),)))


def _leaky_relu_kernel(inputs, attrs):
    a = inputs[0]
    act, slope = attrs["act_type"], attrs["slope"]
    if act == "prelu":
        gamma = inputs[1]
        shape = [1] * a.ndim
        if a.ndim > 1:
            shape[1] = gamma.size
        g = gamma.reshape(shape) if gamma.size > 1 else gamma.reshape(-1)[0]
        return np.where(a > 0, a, a * g).astype(a.dtype)
    if act == "leaky":
        return np.where(a > 0, a, a * slope).astype(a.dtype)
    if act == "elu":
        return np.where(a > 0, a, slope * np.expm1(a)).astype(a.dtype)
    if act == "selu":
        alpha, lam = 1.6732632423543772, 1.0507009873554805
        return (lam * np.where(a > 0, a, alpha * np.expm1(a))).astype(a.dtype)
    if act == "gelu":
        return (0.5 * a * (1 + _erf(a / np.sqrt(2)))).astype(a.dtype)
    raise MXNetError("Invalid Input: '%s' for act_type of LeakyReLU" % act)


register(Op("LeakyReLU", _leaky_relu_kernel, _shape_unary, inputs=("data", "gamma"), optional_inputs=("gamma",),
            params=(P("act_type", ("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), "leaky"), P("slope", "float", 0.25), P("lower_bound", "float", 0.125),
                    P("upper_bound", "float", 0.334))))


def _softmax_np(a, axis, temperature=1.0):
    z = a.astype(np.float64) / temperature
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _softmax_kernel(inputs, attrs):
    a = inputs[0]
    axis = _softmax_axis(a, attrs)
    if attrs["use_length"] and len(inputs) > 1:
        return _masked_softmax(a, inputs[1], axis, attrs["temperature"] or 1.0)
    return _softmax_np(a, axis, attrs["temperature"] or 1.0).astype(a.dtype)


def _masked_softmax(a, length, axis, temperature):
    """softmax over the first ``length`` entries along ``axis``; the rest (all, for a length of 0) are 0."""
    if length.dtype.kind not in "iu":
        raise MXNetError("This operation only support integer types, not %s" % length.dtype.name)
    axis %= a.ndim
    positions = np.arange(a.shape[axis]).reshape([-1 if i == axis else 1 for i in range(a.ndim)])
    keep = positions < np.expand_dims(length.reshape(a.shape[:axis] + a.shape[axis + 1:]), axis)
    z = np.where(keep, a.astype(np.float64) / temperature, -np.inf)
    top = np.max(z, axis=axis, keepdims=True)
    e = np.where(keep, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = e.sum(axis=axis, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0).astype(a.dtype)


def _log_softmax_kernel(inputs, attrs):
    a = inputs[0]
    _softmax_axis(a, attrs)
    z = a.astype(np.float64) / (attrs["temperature"] or 1.0)
    z = z - z.max(axis=attrs["axis"], keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=attrs["axis"], keepdims=True))).astype(a.dtype)


def _softmin_kernel(inputs, attrs):
    a = inputs[0]
    return _softmax_np(-a, _softmax_axis(a, attrs), attrs["temperature"] or 1.0).astype(a.dtype)


_SOFTMAX_PARAMS = (P("axis", "int", -1), P("temperature", "float", None), P("dtype", "dtype", None),
                   P("use_length", "bool", False))


def _softmax_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if len(shapes) > 1 and data is not None:  # softmax's ``length``: the data shape without the axis
        axis = attrs["axis"] % len(data) if -len(data) <= attrs["axis"] < len(data) else len(data) - 1
        expected = tuple(d for i, d in enumerate(data) if i != axis) or (1,)  # legacy shapes are never 0-d
        if shapes[1] is not None and tuple(shapes[1]) != expected:
            raise ShapeCheck("Shape inconsistent, Provided = %s, inferred shape=%s"
                             % (shape_str(shapes[1]), shape_str(expected)))
        shapes[1] = expected
    return shapes, [data]  # MXNet checks the axis only when the kernel runs


def _softmax_axis(a, attrs):
    axis = attrs["axis"]
    if not -a.ndim <= axis < a.ndim:
        raise MXNetError("Check failed: axis < ndim && axis >= -ndim: axis %d exceeds the input dimension of %d"
                         % (axis, a.ndim))
    return axis


register(Op("softmax", _softmax_kernel, _softmax_shape, inputs=("data", "length"), optional_inputs=("length",),
            infer_type=_first_type, params=_SOFTMAX_PARAMS))
register(Op("log_softmax", _log_softmax_kernel, _softmax_shape, params=_SOFTMAX_PARAMS))
register(Op("softmin", _softmin_kernel, _softmax_shape, params=_SOFTMAX_PARAMS))


def _softmax_activation_kernel(inputs, attrs):
    a = inputs[0]
    axis = 1 if attrs["mode"] == "channel" else -1
    if attrs["mode"] != "channel":
        flat = a.reshape(a.shape[0], -1)
        return _softmax_np(flat, -1).reshape(a.shape).astype(a.dtype)
    return _softmax_np(a, axis).astype(a.dtype)


register(Op("SoftmaxActivation", _softmax_activation_kernel, _shape_unary, params=(P("mode", ("channel", "instance", "spatial"), "instance"),)))


def _clip_kernel(inputs, attrs):
    a = inputs[0]
    return np.clip(a, attrs["a_min"], attrs["a_max"]).astype(a.dtype)


register(Op("clip", _clip_kernel, _shape_unary, params=(P("a_min", "float"), P("a_max", "float"))))


# ----------------------------------------------------------------------------------------------
# reductions and sorting
# ----------------------------------------------------------------------------------------------
def _reduce_kernel(fn):
    def kernel(inputs, attrs):
        a = inputs[0]
        axes = _reduce_axes(a.shape, attrs)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = fn(a, axis=axes, keepdims=bool(attrs.get("keepdims")))
        return _at_least_1d(np.asarray(r).astype(a.dtype, copy=False))
    return kernel


_REDUCE_PARAMS = (P("axis", "axis", None), P("keepdims", "bool", False), P("exclude", "bool", False))
for _name, _fn in [("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("max", np.max), ("min", np.min),
                   ("nansum", np.nansum), ("nanprod", np.nanprod)]:
    register(Op(_name, _reduce_kernel(_fn), _shape_reduce, params=_REDUCE_PARAMS,
                aliases=("sum_axis",) if _name == "sum" else ()))


def _norm_kernel(inputs, attrs):
    a = inputs[0]
    axes = _reduce_axes(a.shape, attrs)
    keep = bool(attrs["keepdims"])
    if attrs["ord"] == 1:
        r = np.sum(np.abs(a), axis=axes, keepdims=keep)
    else:
        r = np.sqrt(np.sum(np.square(a.astype(np.float64)), axis=axes, keepdims=keep))
    return _at_least_1d(np.asarray(r).astype(a.dtype))


register(Op("norm", _norm_kernel, _shape_reduce,
            params=(P("ord", "int", 2), P("axis", "axis", None), P("keepdims", "bool", False),
                    P("out_dtype", "dtype", None))))


def _arg_reduce_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    axis = attrs["axis"]
    if axis is None:
        return list(in_shapes), [(1,)]
    axis %= len(s)
    if attrs["keepdims"]:
        return list(in_shapes), [tuple(1 if i == axis else d for i, d in enumerate(s))]
    return list(in_shapes), [tuple(d for i, d in enumerate(s) if i != axis) or (1,)]


def _arg_kernel(fn):
    def kernel(inputs, attrs):
        a = inputs[0]
        axis = attrs["axis"]
        if axis is None:
            return np.array([fn(a.reshape(-1))], dtype=np.float32)
        r = fn(a, axis=axis)
        if attrs["keepdims"]:
            r = np.expand_dims(r, axis)
        return _at_least_1d(r.astype(np.float32))
    return kernel


for _name, _fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
    register(Op(_name, _arg_kernel(_fn), _arg_reduce_shape, params=(P("axis", "opt_int", None), P("keepdims", "bool", False)),
                infer_type=_fixed_type("float32")))


def _sorted(a, attrs):
    axis = attrs["axis"]
    if axis is None:
        a = a.reshape(-1)
        axis = -1
    return a, axis


def _sort_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    r = np.sort(a, axis=axis, kind="stable")
    return r if attrs["is_ascend"] else np.flip(r, axis=axis)


def _argsort_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    idx = np.argsort(a if attrs["is_ascend"] else -a, axis=axis, kind="stable")
    return idx.astype(attrs["dtype"] or "float32")


def _sort_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    return list(in_shapes), [s if attrs["axis"] is not None else (int(np.prod(s)),)]


register(Op("sort", _sort_kernel, _sort_shape, params=(P("axis", "opt_int", -1), P("is_ascend", "bool", True)),
            infer_type=_first_type))
register(Op("argsort", _argsort_kernel, _sort_shape,
            params=(P("axis", "opt_int", -1), P("is_ascend", "bool", True), P("dtype", "dtype", "float32")),
            infer_type=_attr_type("float32")))


def _topk_outputs(attrs):
    return 2 if attrs["ret_typ"] == "both" else 1


def _topk_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None] * _topk_outputs(attrs)
    axis = attrs["axis"]
    if axis is None:
        s, axis = (int(np.prod(s)),), 0
    axis %= len(s)
    k = attrs["k"] if attrs["k"] > 0 else s[axis]
    if attrs["ret_typ"] == "mask":
        return list(in_shapes), [tuple(s)]
    out = tuple(k if i == axis else d for i, d in enumerate(s))
    return list(in_shapes), [out] * _topk_outputs(attrs)


def _topk_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    axis %= a.ndim
    k = attrs["k"] if attrs["k"] > 0 else a.shape[axis]
    order = np.argsort(a if attrs["is_ascend"] else -a, axis=axis, kind="stable")
    if 8 * k <= a.shape[axis]:  # MXNet's CPU kernel then partially sorts: equal values come out in its order
        from .ops_models import partial_sort_order
        rows = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
        picked = np.stack([partial_sort_order(row, k, attrs["is_ascend"]) for row in rows]) if len(rows) else rows
        order = np.moveaxis(picked.reshape(np.moveaxis(a, axis, -1).shape[:-1] + (k,)), -1, axis)
    idx = np.take(order, np.arange(k), axis=axis)
    values = np.take_along_axis(a, idx, axis=axis)
    idx = idx.astype(attrs["dtype"] or "float32")
    typ = attrs["ret_typ"]
    if typ == "value":
        return values
    if typ == "indices":
        return idx
    if typ == "mask":
        mask = np.zeros_like(a)
        np.put_along_axis(mask, order.take(np.arange(k), axis=axis), 1, axis=axis)
        return mask
    return values, idx


def _topk_type(in_types, attrs):
    if attrs["ret_typ"] == "both":
        return in_types, [in_types[0], attrs["dtype"] or "float32"]
    if attrs["ret_typ"] == "indices":
        return in_types, attrs["dtype"] or "float32"
    return in_types, in_types[0]


register(Op("topk", _topk_kernel, _topk_shape, num_outputs=_topk_outputs, infer_type=_topk_type,
            params=(P("axis", "opt_int", -1), P("k", "int", 1), P("ret_typ", ("both", "indices", "mask", "value"), "indices"),
                    P("is_ascend", "bool", False), P("dtype", "dtype", "float32"))))


# ----------------------------------------------------------------------------------------------
# shape manipulation
# ----------------------------------------------------------------------------------------------
def reshape_target(src, spec, reverse=False):
    """MXNet's legacy reshape codes 0 / -1 / -2 / -3 / -4 (optionally applied right-to-left)."""
    src = list(src)
    spec = list(spec)
    if reverse:  # MXNet simply reverses both lists, runs the same algorithm, reverses the result
        src, spec = src[::-1], spec[::-1]
    out, i, j, infer_at = [], 0, 0, None
    while i < len(spec):
        code = spec[i]
        if code > 0:
            out.append(code)
            j += 1
        elif code == 0:
            if j >= len(src):
                raise ShapeCheck("Check failed: src_idx < dshape.ndim()")
            out.append(src[j])
            j += 1
        elif code == -1:
            if infer_at is not None:
                raise ShapeCheck("Check failed: inf_idx < 0 (%d vs. 0) : One and only one dim can be inferred" % infer_at)
            infer_at = len(out)
            out.append(1)
            j += 1
        elif code == -2:
            out.extend(src[j:])
            j = len(src)
        elif code == -3:
            if j + 1 >= len(src):
                raise ShapeCheck("Check failed: src_idx < dshape.ndim() - 1")
            out.append(src[j] * src[j + 1])
            j += 2
        elif code == -4:
            if j >= len(src) or i + 2 >= len(spec):
                raise ShapeCheck("Check failed: i + 2 < params.shape.ndim()")
            d0, d1 = spec[i + 1], spec[i + 2]
            if d0 == -1:
                d0 = src[j] // d1
            if d1 == -1:
                d1 = src[j] // d0
            if d0 * d1 != src[j]:
                raise ShapeCheck("Check failed: d1 * d2 == dshape[src_idx] (%d vs. %d) : Split dims %d, %d do not "
                                 "divide original dim %d" % (d0 * d1, src[j], d0, d1, src[j]))
            out.extend([d0, d1])
            i += 2
            j += 1
        else:
            raise ShapeCheck("Check failed: Invalid special code %d in reshape" % code)
        i += 1
    total = int(np.prod(src)) if src else 1
    if infer_at is not None:
        # MXNet 1.9 infers -1 by integer division and never checks the total size: (7, -1) of 6 elements is (7, 0)
        rest = int(np.prod([d for k, d in enumerate(out) if k != infer_at])) if len(out) > 1 else 1
        if rest == 0:
            raise ShapeCheck("Check failed: oshape.Size() != 0: Cannot infer the -1 dim of a reshape to a "
                             "zero-size shape %s" % shape_str(out))
        out[infer_at] = total // rest
    if reverse:
        out = out[::-1]
    return tuple(out)


def _reshape_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    return list(in_shapes), [reshape_target(s, attrs["shape"], attrs["reverse"])]


def _reshape_kernel(inputs, attrs):
    a = inputs[0]
    target = reshape_target(a.shape, attrs["shape"], attrs["reverse"])
    if int(np.prod(target)) == a.size:
        return a.reshape(target)
    # the operator copies min(sizes) elements; MXNet leaves the rest uninitialised (zeros here)
    out = np.zeros(int(np.prod(target)), dtype=a.dtype)
    n = min(out.size, a.size)
    out[:n] = a.reshape(-1)[:n]
    return out.reshape(target)


register(Op("Reshape", _reshape_kernel, _reshape_shape, aliases=("reshape",), hint="reshape",
            params=(P("shape", "shape", ()), P("reverse", "bool", False))))


def _span(ndim, begin, end):
    """``[begin, end)`` of ``ndim`` axes as MXNet's reshape_like reads it: None for the whole, negatives wrap."""
    begin = 0 if begin is None else begin + ndim if begin < 0 else begin
    end = ndim if end is None else end + ndim if end < 0 else end
    return begin, end


def _reshape_like_target(a, b, attrs):
    """lhs's axes [lhs_begin, lhs_end) replaced by rhs's axes [rhs_begin, rhs_end) (default: all of them)."""
    lb, le = _span(len(a), attrs.get("lhs_begin"), attrs.get("lhs_end"))
    rb, re_ = _span(len(b), attrs.get("rhs_begin"), attrs.get("rhs_end"))
    return tuple(a[:lb]) + tuple(b[rb:re_]) + tuple(a[le:])


def _reshape_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    target = _reshape_like_target(a, b, attrs)
    if int(np.prod(a)) != int(np.prod(target)):
        raise ShapeCheck("Check failed: (*in_attrs)[0].Size() == oshape.Size() (%d vs. %d) : Cannot reshape lhs with "
                         "shape %sto new shape %s because they have different size."
                         % (np.prod(a), np.prod(target), shape_str(a), shape_str(target)))
    return list(in_shapes), [target]


register(Op("reshape_like", lambda ins, at: ins[0].reshape(_reshape_like_target(ins[0].shape, ins[1].shape, at)),
            _reshape_like_shape, inputs=("lhs", "rhs"), infer_type=_first_type,
            params=(P("lhs_begin", "opt_int", None), P("lhs_end", "opt_int", None),
                    P("rhs_begin", "opt_int", None), P("rhs_end", "opt_int", None))))


def _flatten(s, attrs):
    return (s[0], int(np.prod(s[1:]))) if len(s) > 1 else (s[0], 1)


register(Op("Flatten", lambda ins, at: ins[0].reshape(_flatten(ins[0].shape, at)), _unary_shape_fn(_flatten),
            aliases=("flatten",), hint="flatten"))


def _transpose_axes(s, attrs):
    axes = attrs["axes"]
    if not axes:
        return tuple(reversed(range(len(s))))
    if len(axes) != len(s):
        # MXNet walks the data dims and indexes ``axes`` out of range first
        raise UnwrappedCheck("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)"
                         % (len(axes), len(axes)))
    for a in axes:
        if not 0 <= a < len(s):
            raise ShapeCheck("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)" % (a, len(s)))
    return tuple(axes)


register(Op("transpose", lambda ins, at: np.ascontiguousarray(np.transpose(ins[0], _transpose_axes(ins[0].shape, at))),
            _unary_shape_fn(lambda s, at: tuple(s[a] for a in _transpose_axes(s, at))),
            params=(P("axes", "shape", ()),)))


def _swap(s, attrs):
    s = list(s)
    d1, d2 = attrs["dim1"], attrs["dim2"]
    s[d1], s[d2] = s[d2], s[d1]
    return tuple(s)


register(Op("SwapAxis", lambda ins, at: np.ascontiguousarray(np.swapaxes(ins[0], at["dim1"], at["dim2"])),
            _unary_shape_fn(_swap), aliases=("swapaxes",), hint="swapaxes",
            params=(P("dim1", "int", 0), P("dim2", "int", 0))))


def _expand(s, attrs):
    axis = attrs["axis"]
    n = len(s) + 1
    if not -n <= axis < n:
        raise ShapeCheck("Check failed: axis >= 0 && axis <= indim: axis must be in the range [-%d, %d] (%d provided)"
                         % (len(s), len(s), axis))
    axis %= n
    return s[:axis] + (1,) + s[axis:]


register(Op("expand_dims", lambda ins, at: ins[0].reshape(_expand(ins[0].shape, at)), _unary_shape_fn(_expand),
            params=(P("axis", "int"),)))


def _squeeze(s, attrs):
    axis = attrs["axis"]
    if axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = [a % len(s) for a in axis]
        for a in axes:
            if s[a] != 1:
                raise ShapeCheck("Check failed: dshape[axes[i]] == 1 (%d vs. 1) : cannot select an axis to squeeze "
                                 "out which has size=%d not equal to one" % (s[a], s[a]))
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return out or (1,)


register(Op("squeeze", lambda ins, at: ins[0].reshape(_squeeze(ins[0].shape, at)), _unary_shape_fn(_squeeze),
            params=(P("axis", "axis", None),)))


def _concat_shape(in_shapes, attrs):
    dim = attrs["dim"]
    known = [s for s in in_shapes if s is not None]
    if not known:
        return list(in_shapes), [None]
    ndim = len(known[0])
    axis = dim % ndim
    total = 0
    for i, s in enumerate(in_shapes):
        if s is None:
            return list(in_shapes), [None]
        if len(s) != ndim or any(a != b for k, (a, b) in enumerate(zip(s, known[0])) if k != axis):
            raise ShapeCheck("Check failed: shape_assign(&(*in_shape)[i], dshape): Incompatible input shape: expected "
                             "%s, got %s" % (shape_str(tuple(-1 if k == axis else d for k, d in enumerate(known[0]))),
                                             shape_str(s)))
        total += s[axis]
    out = tuple(total if k == axis else d for k, d in enumerate(known[0]))
    return list(in_shapes), [out]


register(Op("Concat", lambda ins, at: np.concatenate(ins, axis=at["dim"]), _concat_shape, variadic=True,
            aliases=("concat",), hint="concat", params=(P("dim", "int", 1), P("num_args", "int", 0))))


def _stack_shape(in_shapes, attrs):
    # MXNet infers the output from the first input and only notices a mismatch when the kernel runs
    shapes = list(in_shapes)
    ref = next((s for s in shapes if s is not None), None)
    if ref is None:
        return shapes, [None]
    axis = attrs["axis"] % (len(ref) + 1)
    return shapes, [ref[:axis] + (len(shapes),) + ref[axis:]]


def _stack_kernel(inputs, attrs):
    for a in inputs[1:]:
        if a.shape != inputs[0].shape:
            raise MXNetError("TBlob.get_with_shape: Check failed: this->shape_.Size() == static_cast<size_t>(shape.Size()) "
                             "(%d vs. %d) : new and old shape do not match total elements" % (a.size, inputs[0].size))
    return np.stack(inputs, axis=attrs["axis"])


register(Op("stack", _stack_kernel, _stack_shape, variadic=True,
            params=(P("axis", "int", 0), P("num_args", "int", 0))))


def _add_n_kernel(inputs, attrs):
    out = inputs[0].copy()
    for a in inputs[1:]:
        out = out + a
    return out.astype(inputs[0].dtype)


register(Op("add_n", _add_n_kernel, _shape_same, variadic=True, aliases=("ElementWiseSum",),
            params=(P("num_args", "int", 0),)))


def _split_outputs(attrs):
    return attrs["num_outputs"]


def _split_shape(in_shapes, attrs):
    s = in_shapes[0]
    n = attrs["num_outputs"]
    if s is None:
        return list(in_shapes), [None] * n
    axis = attrs["axis"] % len(s)
    if s[axis] % n:
        raise ShapeCheck("Check failed: dshape[real_axis] %% param_.num_outputs == 0U (%d vs. 0) : You are trying to split "
                         "the %d-th axis of input tensor with shape %s into num_outputs=%d evenly sized chunks, but "
                         "this is not possible because %d is not a multiple of %d"
                         % (s[axis] % n, axis, shape_str(s), n, s[axis], n))
    part = tuple(s[axis] // n if k == axis else d for k, d in enumerate(s))
    if attrs["squeeze_axis"]:
        if part[axis] != 1:
            raise ShapeCheck("Check failed: dshape[real_axis] == num_outputs: If squeeze axis is True, the size of "
                             "the sliced axis must be the same as num_outputs.")
        part = part[:axis] + part[axis + 1:] or (1,)
    return list(in_shapes), [part] * n


def _split_kernel(inputs, attrs):
    a = inputs[0]
    axis = attrs["axis"] % a.ndim
    parts = np.split(a, attrs["num_outputs"], axis=axis)
    if attrs["squeeze_axis"]:
        parts = [_at_least_1d(np.squeeze(p, axis=axis)) for p in parts]
    return tuple(np.ascontiguousarray(p) for p in parts)


register(Op("SliceChannel", _split_kernel, _split_shape, num_outputs=_split_outputs, aliases=("split",), hint="split",
            params=(P("num_outputs", "int"), P("axis", "int", 1), P("squeeze_axis", "bool", False))))


def _slice_bounds(shape, attrs):
    begin, end = attrs["begin"], attrs["end"]
    step = attrs["step"] or ()
    if len(begin) != len(end):
        raise ShapeCheck("Check failed: param.begin.ndim() == param.end.ndim() (%d vs. %d)" % (len(begin), len(end)))
    if len(begin) > len(shape):
        raise ShapeCheck("Check failed: param_begin.ndim() <= dshape.ndim() (%d vs. %d) : Slicing axis exceeds data "
                         "dimensions" % (len(begin), len(shape)))
    slices = []
    for i in range(len(shape)):
        if i < len(begin):
            st = step[i] if i < len(step) and step[i] is not None else 1
            slices.append(slice(begin[i], end[i], st))
        else:
            slices.append(slice(None))
    return tuple(slices)


def _slice_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    sl = _slice_bounds(s, attrs)
    out = tuple(len(range(*k.indices(d))) for k, d in zip(sl, s))
    if any(d == 0 for d in out):
        raise ShapeCheck("Check failed: b < e (slice result is empty): slice %s of shape %s" % (sl, shape_str(s)))
    return list(in_shapes), [out]


register(Op("slice", lambda ins, at: np.ascontiguousarray(ins[0][_slice_bounds(ins[0].shape, at)]), _slice_shape,
            aliases=("crop",),
            params=(P("begin", "opt_tuple"), P("end", "opt_tuple"), P("step", "opt_tuple", ()))))


def _slice_axis_bounds(shape, attrs):
    axis = attrs["axis"]
    if not -len(shape) <= axis < len(shape):
        transformed = axis + len(shape) if axis < 0 else axis
        raise ShapeCheck("Check failed: *axis < ishape.ndim() && *axis >= 0: Transformed axis must be smaller than the "
                         "source ndim and larger than zero! Recieved axis=%d, src_ndim=%d, transformed axis=%d"
                         % (axis, len(shape), transformed))
    axis %= len(shape)
    d = shape[axis]
    begin, end = attrs["begin"], attrs["end"]
    b = begin + d if begin < 0 else begin
    e = d if end is None else (end + d if end < 0 else end)
    if not (0 <= b < e <= d):
        raise ShapeCheck("Check failed: (*begin < *end): Invalid begin, end, get begin=%d, end=%d" % (b, e))
    return axis, b, e


def _slice_axis_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    axis, b, e = _slice_axis_bounds(s, attrs)
    return list(in_shapes), [tuple(e - b if k == axis else d for k, d in enumerate(s))]


def _slice_axis_kernel(inputs, attrs):
    a = inputs[0]
    axis, b, e = _slice_axis_bounds(a.shape, attrs)
    return np.ascontiguousarray(np.take(a, np.arange(b, e), axis=axis))


register(Op("slice_axis", _slice_axis_kernel, _slice_axis_shape,
            params=(P("axis", "int"), P("begin", "int"), P("end", "opt_int"))))


def _slice_like_axes(shape, attrs):
    axes = attrs["axes"]
    return range(len(shape)) if not axes else [a % len(shape) for a in axes]


def _slice_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    out = list(a)
    for k in _slice_like_axes(a, attrs):
        if k < len(b):
            out[k] = min(a[k], b[k])
    return list(in_shapes), [tuple(out)]


def _slice_like_kernel(inputs, attrs):
    a, b = inputs
    sl = [slice(None)] * a.ndim
    for k in _slice_like_axes(a.shape, attrs):
        if k < b.ndim:
            sl[k] = slice(0, b.shape[k])
    return np.ascontiguousarray(a[tuple(sl)])


register(Op("slice_like", _slice_like_kernel, _slice_like_shape, inputs=("data", "shape_like"),
            params=(P("axes", "shape", ()),), infer_type=_first_type))


def _take_shape(in_shapes, attrs):
    a, idx = in_shapes
    if a is None or idx is None:
        return list(in_shapes), [None]
    if not -len(a) <= attrs["axis"] < len(a):
        raise ShapeCheck("Check failed: param.axis >= -1 * arrshape.ndim() && param.axis < arrshape.ndim(): Axis should "
                         "be in the range of [-r, r-1] where r is the rank of input tensor")
    axis = attrs["axis"] % len(a)
    return list(in_shapes), [tuple(a[:axis]) + tuple(idx) + tuple(a[axis + 1:])]


def _take_kernel(inputs, attrs):
    a, idx = inputs
    axis = attrs["axis"] % a.ndim
    i = idx.astype(np.int64)
    if attrs["mode"] == "wrap":
        i = np.mod(i, a.shape[axis])
    else:
        i = np.clip(i, 0, a.shape[axis] - 1)
    return np.take(a, i, axis=axis)


register(Op("take", _take_kernel, _take_shape, inputs=("a", "indices"), infer_type=_first_type,
            params=(P("axis", "int", 0), P("mode", ("clip", "raise", "wrap"), "clip"))))


def _pick_shape(in_shapes, attrs):
    a, idx = in_shapes
    if a is None:
        return list(in_shapes), [None]
    axis = -1 if attrs["axis"] is None else attrs["axis"]
    axis %= len(a)
    out = tuple(1 if (k == axis) else d for k, d in enumerate(a)) if attrs["keepdims"] else \
        tuple(d for k, d in enumerate(a) if k != axis) or (1,)
    shapes = list(in_shapes)
    want = tuple(d for k, d in enumerate(a) if k != axis) or (1,)
    if shapes[1] is None:
        shapes[1] = want
    elif int(np.prod(shapes[1])) != int(np.prod(want)):
        # MXNet shows the index shape it expected, in the rank the given index has
        shown = tuple(1 if k == axis else d for k, d in enumerate(a)) if len(shapes[1]) == len(a) else want
        raise ShapeCheck("Shape inconsistent, Provided = %s, inferred shape=%s" % (shape_str(shapes[1]), shape_str(shown)))
    return shapes, [out]


def _pick_kernel(inputs, attrs):
    a, idx = inputs
    axis = (-1 if attrs["axis"] is None else attrs["axis"]) % a.ndim
    i = idx.astype(np.int64).reshape(tuple(d for k, d in enumerate(a.shape) if k != axis))
    if attrs["mode"] == "wrap":
        i = np.mod(i, a.shape[axis])
    else:
        i = np.clip(i, 0, a.shape[axis] - 1)
    r = np.take_along_axis(a, np.expand_dims(i, axis), axis=axis)
    return _at_least_1d(r if attrs["keepdims"] else np.squeeze(r, axis=axis))


register(Op("pick", _pick_kernel, _pick_shape, inputs=("data", "index"), infer_type=_first_type,
            params=(P("axis", "opt_int", -1), P("keepdims", "bool", False), P("mode", ("clip", "wrap"), "clip"))))


def _where_shape_eager(in_shapes, attrs):
    c, x, y = in_shapes
    shapes = list(in_shapes)
    if x is not None and y is not None and x != y:
        raise InferFailed()
    if c is not None and x is not None:
        if c != x and not (len(c) == 1 and c[0] == x[0]):
            raise InferFailed()
    return shapes, [x if x is not None else y]


def _where_shape(in_shapes, attrs):
    # MXNet's symbolic path accepts a condition of the same size but another shape (measured: cf_where_bcast);
    # eager MXNet refuses it. The executor passes ``eager`` to choose.
    c, x, y = in_shapes
    if attrs.get("__eager__", True):
        return _where_shape_eager(in_shapes, attrs)
    shapes = list(in_shapes)
    if x is not None and y is not None and x != y:
        raise InferFailed()
    return shapes, [x if x is not None else y]


def _where_kernel(inputs, attrs):
    c, x, y = inputs
    if c.shape != x.shape:
        if c.ndim == 1 and c.shape[0] == x.shape[0]:
            c = c.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            c = np.broadcast_to(c, x.shape) if np.broadcast_shapes(c.shape, x.shape) == x.shape else c
    return np.where(c != 0, x, y).astype(x.dtype)


def _where_type(in_types, attrs):
    out = list(in_types)
    if in_types[1] is not None and in_types[2] is not None and in_types[1] != in_types[2]:
        raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at 2-th input: "
                         "expected %s, got %s" % (in_types[1], in_types[2]))
    return out, in_types[1] or in_types[2]


register(Op("where", _where_kernel, _where_shape, inputs=("condition", "x", "y"), infer_type=_where_type))


def _tile_shape(s, attrs):
    reps = attrs["reps"]
    if any(r <= 0 for r in reps):
        raise InferFailed()
    n = max(len(s), len(reps))
    s2 = (1,) * (n - len(s)) + tuple(s)
    r2 = (1,) * (n - len(reps)) + tuple(reps)
    return tuple(a * b for a, b in zip(s2, r2))


register(Op("tile", lambda ins, at: np.tile(ins[0], at["reps"]), _unary_shape_fn(_tile_shape),
            params=(P("reps", "shape"),)))


def _repeat_shape(s, attrs):
    axis = attrs["axis"]
    if axis is None:
        return (int(np.prod(s)) * attrs["repeats"],)
    axis %= len(s)
    return tuple(d * attrs["repeats"] if k == axis else d for k, d in enumerate(s))


register(Op("repeat", lambda ins, at: np.repeat(ins[0], at["repeats"], axis=at["axis"]), _unary_shape_fn(_repeat_shape),
            params=(P("repeats", "int"), P("axis", "opt_int", None))))


def _reverse_kernel(inputs, attrs):
    return np.ascontiguousarray(np.flip(inputs[0], axis=attrs["axis"]))


register(Op("reverse", _reverse_kernel, _shape_unary, aliases=("flip",), params=(P("axis", "shape"),)))


def _broadcast_to_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    target = attrs["shape"]
    if len(s) != len(target):
        raise ShapeCheck("Check failed: ishape.ndim() == param.shape.ndim() (%d vs. %d) : Operand of shape %s cannot "
                         "be broadcasted to %s" % (len(s), len(target), shape_str(s), shape_str(target)))
    out = []
    for a, t in zip(s, target):
        t = a if t == 0 else t
        if a != t and a != 1:
            raise ShapeCheck("Check failed: ishape[i] == oshape[i] || ishape[i] == 1: Array cannot be broadcasted "
                             "from %s to %s" % (shape_str(s), shape_str(target)))
        out.append(t)
    return list(in_shapes), [tuple(out)]


register(Op("broadcast_to", lambda ins, at: np.ascontiguousarray(np.broadcast_to(
    ins[0], _broadcast_to_shape([ins[0].shape], at)[1][0])), _broadcast_to_shape, params=(P("shape", "shape"),)))


def _broadcast_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    if len(a) != len(b):
        raise ShapeCheck("Check failed: lhs_shape.ndim() == rhs_shape.ndim() (%d vs. %d) : Operand of shape %s cannot "
                         "be broadcasted to %s" % (len(a), len(b), shape_str(a), shape_str(b)))
    for x, y in zip(a, b):
        if x != y and x != 1:
            raise ShapeCheck("Check failed: lhs_shape[i] == rhs_shape[i] || lhs_shape[i] == 1: Array cannot be "
                             "broadcasted from %s to %s" % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(b)]


register(Op("broadcast_like", lambda ins, at: np.ascontiguousarray(np.broadcast_to(ins[0], ins[1].shape)),
            _broadcast_like_shape, inputs=("lhs", "rhs"), infer_type=_first_type,
            params=(P("lhs_axes", "any", None), P("rhs_axes", "any", None))))


def _broadcast_axis_shape(s, attrs):
    out = list(s)
    for a, n in zip(attrs["axis"], attrs["size"]):
        if out[a] != 1:
            raise ShapeCheck("Check failed: dst_shape[axis] == 1U: Cannot broadcast axis %d of size %d" % (a, out[a]))
        out[a] = n
    return tuple(out)


register(Op("broadcast_axis", lambda ins, at: np.ascontiguousarray(np.broadcast_to(
    ins[0], _broadcast_axis_shape(ins[0].shape, at))), _unary_shape_fn(_broadcast_axis_shape),
    aliases=("broadcast_axes",), params=(P("axis", "shape", ()), P("size", "shape", ()))))


def _diag_kernel(inputs, attrs):
    a = inputs[0]
    return _at_least_1d(np.ascontiguousarray(np.diag(a, attrs["k"]) if a.ndim <= 2 else
                                             np.diagonal(a, attrs["k"], attrs["axis1"], attrs["axis2"])))


def _diag_shape(s, attrs):
    k = attrs["k"]
    if len(s) == 1:
        n = s[0] + abs(k)
        return (n, n)
    return np.diagonal(np.empty(s, dtype=np.int8), k, attrs["axis1"], attrs["axis2"]).shape or (1,)


register(Op("diag", _diag_kernel, _unary_shape_fn(_diag_shape),
            params=(P("k", "int", 0), P("axis1", "int", 0), P("axis2", "int", 1))))


def _depth_space_shape(to_space):
    def rule(in_shapes, attrs):
        s = in_shapes[0]
        if s is None:
            return list(in_shapes), [None]
        name = "Depth To Space" if to_space else "Space To Depth"
        if len(s) != 4:
            raise ShapeCheck("Check failed: in_attrs->at(0).ndim() == 4 (%d vs. 4) : Operation %s requires exactly "
                             "4D tensor" % (len(s), name))
        b = attrs["block_size"]
        n, c, h, w = s
        if to_space:
            if c % (b * b):
                raise ShapeCheck("Check failed: in_shape[1] % (block * block) == 0 : Cannot perform Depth To Space "
                                 "operation on the specified tensor. Dimension:1(depth dimension) should be a "
                                 "multiple of 'block^2'")
            return list(in_shapes), [(n, c // (b * b), h * b, w * b)]
        if h % b or w % b:
            raise ShapeCheck("Check failed: in_shape[2] % block == 0 : Cannot perform Space To Depth operation on "
                             "the specified tensor.")
        return list(in_shapes), [(n, c * b * b, h // b, w // b)]
    return rule


def _depth_to_space_kernel(inputs, attrs):
    x = inputs[0]
    b = attrs["block_size"]
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return np.ascontiguousarray(y.reshape(n, c // (b * b), h * b, w * b))


def _space_to_depth_kernel(inputs, attrs):
    x = inputs[0]
    b = attrs["block_size"]
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return np.ascontiguousarray(y.reshape(n, c * b * b, h // b, w // b))


register(Op("depth_to_space", _depth_to_space_kernel, _depth_space_shape(True), params=(P("block_size", "int"),)))
register(Op("space_to_depth", _space_to_depth_kernel, _depth_space_shape(False), params=(P("block_size", "int"),)))


def _one_hot_kernel(inputs, attrs):
    idx = inputs[0].astype(np.int64)
    depth = attrs["depth"]
    out = np.full(idx.shape + (depth,), attrs["off_value"], dtype=attrs["dtype"])
    if depth == 0:
        return out
    valid = (idx >= 0) & (idx < depth)
    pos = np.where(valid, idx, 0)
    np.put_along_axis(out, pos[..., None], np.where(valid, attrs["on_value"], attrs["off_value"])[..., None]
                      .astype(attrs["dtype"]), axis=-1)
    return out


register(Op("one_hot", _one_hot_kernel, _unary_shape_fn(lambda s, at: tuple(s) + (at["depth"],)),
            inputs=("indices",), infer_type=_attr_type("float32"),
            params=(P("depth", "int"), P("on_value", "float", 1.0), P("off_value", "float", 0.0),
                    P("dtype", "dtype", "float32"))))


def _cast_kernel(inputs, attrs):
    return inputs[0].astype(attrs["dtype"])


register(Op("Cast", _cast_kernel, _shape_unary, aliases=("cast",), hint="cast",
            params=(P("dtype", "dtype"),), infer_type=_attr_type()))


def _shape_array_kernel(inputs, attrs):
    return np.array(inputs[0].shape, dtype=np.int64)


register(Op("shape_array", _shape_array_kernel, _unary_shape_fn(lambda s, at: (len(s),)),
            infer_type=_fixed_type("int64")))
register(Op("size_array", lambda ins, at: np.array([ins[0].size], dtype=np.int64), _unary_shape_fn(lambda s, at: (1,)),
            infer_type=_fixed_type("int64")))


def _like_kernel(value):
    def kernel(inputs, attrs):
        return np.full(inputs[0].shape, value, dtype=inputs[0].dtype)
    return kernel


register(Op("zeros_like", _like_kernel(0), _shape_unary, infer_type=_first_type))
register(Op("ones_like", _like_kernel(1), _shape_unary, infer_type=_first_type))


def _arange_like_kernel(inputs, attrs):
    a = inputs[0]
    n = a.size if attrs["axis"] is None else a.shape[attrs["axis"]]
    return (attrs["start"] + attrs["step"] * np.arange(n)).astype(a.dtype)


register(Op("_contrib_arange_like", _arange_like_kernel,
            _unary_shape_fn(lambda s, at: (int(np.prod(s)),) if at["axis"] is None else (s[at["axis"]],)),
            aliases=("contrib.arange_like",), hint="arange_like", infer_type=_first_type,
            params=(P("start", "float", 0.0), P("step", "float", 1.0), P("repeat", "int", 1),
                    P("axis", "opt_int", None))))


# ----------------------------------------------------------------------------------------------
# creation (no tensor input)
# ----------------------------------------------------------------------------------------------
def _creation_shape(in_shapes, attrs):
    shape = attrs["shape"]
    if not shape or any(d <= 0 for d in shape):
        if attrs.get("__eager__", True):
            raise InferFailed()
        return list(in_shapes), [tuple(shape)] if shape else [None]
    return list(in_shapes), [tuple(shape)]


def _target_shape(attrs):
    """The creation shape; inside a graph, ``0`` dims come from shape inference (``__out_shapes__``)."""
    inferred = attrs.get("__out_shapes__")
    return tuple(inferred[0]) if inferred and inferred[0] is not None else tuple(attrs["shape"])


def _fill_kernel(value_of):
    def kernel(inputs, attrs):
        return np.full(_target_shape(attrs), value_of(attrs), dtype=attrs["dtype"] or "float32")
    return kernel


_CREATE_PARAMS = (P("shape", "shape", ()), P("ctx", "str", ""), P("dtype", "dtype", "float32"))
register(Op("_zeros", _fill_kernel(lambda at: 0), _creation_shape, inputs=(), params=_CREATE_PARAMS,
            infer_type=_attr_type(), aliases=("zeros",), hint="_zeros", needs_input=False))
register(Op("_ones", _fill_kernel(lambda at: 1), _creation_shape, inputs=(), params=_CREATE_PARAMS,
            infer_type=_attr_type(), aliases=("ones",), hint="_ones", needs_input=False))
register(Op("_full", _fill_kernel(lambda at: at["value"]), _creation_shape, inputs=(),
            params=_CREATE_PARAMS + (P("value", "float"),), infer_type=_attr_type(), aliases=("full",), hint="_full",
            needs_input=False))


def _arange_values(attrs):
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if stop is None:
        start, stop = 0.0, start
    vals = np.arange(start, stop, step, dtype=np.float64)
    return np.repeat(vals, attrs["repeat"])


register(Op("_arange", lambda ins, at: _arange_values(at).astype(at["dtype"] or "float32"),
            lambda ins, at: (list(ins), [(len(_arange_values(at)),)]), inputs=(), hint="_arange",
            params=(P("start", "float"), P("stop", "any", None), P("step", "float", 1.0), P("repeat", "int", 1),
                    P("infer_range", "bool", False), P("ctx", "str", ""), P("dtype", "dtype", "float32")),
            infer_type=_attr_type(), aliases=("arange",), needs_input=False))


def _eye_kernel(inputs, attrs):
    return np.eye(attrs["N"], attrs["M"] or None, attrs["k"], dtype=attrs["dtype"] or "float32")


register(Op("_eye", _eye_kernel, lambda ins, at: (list(ins), [(at["N"], at["M"] or at["N"])]), inputs=(), hint="_eye",
            params=(P("N", "int"), P("M", "int", 0), P("k", "int", 0), P("ctx", "str", ""),
                    P("dtype", "dtype", "float32")), infer_type=_attr_type(), aliases=("eye",), needs_input=False))


# ----------------------------------------------------------------------------------------------
# random (the runtime's own generator, seeded by mx.random.seed)
# ----------------------------------------------------------------------------------------------
def _rand_kernel(draw):
    def kernel(inputs, attrs):
        return draw(rng.generator(), attrs, _target_shape(attrs)).astype(attrs["dtype"] or "float32")
    return kernel


def _rand_like_kernel(draw):
    def kernel(inputs, attrs):
        return draw(rng.generator(), attrs, inputs[0].shape).astype(inputs[0].dtype)
    return kernel


_UNIFORM = lambda g, at, shape: g.uniform(at["low"], at["high"], size=shape)  # noqa: E731
_NORMAL = lambda g, at, shape: g.normal(at["loc"], at["scale"], size=shape)  # noqa: E731
_RSHAPE = (P("shape", "shape", ()), P("ctx", "str", ""), P("dtype", "dtype", "float32"))
register(Op("_random_uniform", _rand_kernel(_UNIFORM), _creation_shape, inputs=(), hint="_random_uniform",
            params=(P("low", "float", 0.0), P("high", "float", 1.0)) + _RSHAPE, infer_type=_attr_type(),
            aliases=("random_uniform", "uniform", "random.uniform"), needs_input=False))
register(Op("_random_normal", _rand_kernel(_NORMAL), _creation_shape, inputs=(), hint="_random_normal",
            params=(P("loc", "float", 0.0), P("scale", "float", 1.0)) + _RSHAPE, infer_type=_attr_type(),
            aliases=("random_normal", "normal", "random.normal"), needs_input=False))
register(Op("_random_uniform_like", _rand_like_kernel(_UNIFORM), _shape_unary, hint="_random_uniform_like",
            params=(P("low", "float", 0.0), P("high", "float", 1.0)), aliases=("random.uniform_like",),
            infer_type=_first_type))
register(Op("_random_normal_like", _rand_like_kernel(_NORMAL), _shape_unary, hint="_random_normal_like",
            params=(P("loc", "float", 0.0), P("scale", "float", 1.0)), aliases=("random.normal_like",),
            infer_type=_first_type))


def _multinomial_outputs(attrs):
    return 2 if attrs["get_prob"] else 1


def _multinomial_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None] * _multinomial_outputs(attrs)
    extra = attrs["shape"] or ()
    out = tuple(s[:-1]) + tuple(extra) or (1,)
    return list(in_shapes), [out] * _multinomial_outputs(attrs)


def _multinomial_kernel(inputs, attrs):
    p = inputs[0].astype(np.float64)
    extra = tuple(attrs["shape"] or ())
    g = rng.generator()
    flat = p.reshape(-1, p.shape[-1])
    n = int(np.prod(extra)) if extra else 1
    draws = np.stack([g.choice(flat.shape[1], size=n, p=row / row.sum()) for row in flat])
    out_shape = tuple(p.shape[:-1]) + extra or (1,)
    samples = draws.reshape(out_shape).astype(attrs["dtype"])
    if attrs["get_prob"]:
        probs = np.log(np.take_along_axis(flat, draws, axis=1)).reshape(out_shape).astype(inputs[0].dtype)
        return samples, probs
    return samples


def _multinomial_type(in_types, attrs):
    if attrs["get_prob"]:
        return in_types, [attrs["dtype"], in_types[0]]
    return in_types, attrs["dtype"]


register(Op("_sample_multinomial", _multinomial_kernel, _multinomial_shape, num_outputs=_multinomial_outputs,
            hint="_sample_multinomial", infer_type=_multinomial_type,
            params=(P("shape", "shape", ()), P("get_prob", "bool", False), P("dtype", "dtype", "int32"))))


def _dropout_kernel(inputs, attrs):
    from . import autograd  # runtime state only; no cycle at import time
    a = inputs[0]
    p = attrs["p"]
    if not (autograd.is_training() or attrs["mode"] == "always") or p == 0:
        return a.copy()
    keep = (rng.generator().uniform(size=a.shape) >= p).astype(a.dtype)
    return (a * keep / (1.0 - p)).astype(a.dtype)


register(Op("Dropout", _dropout_kernel, _shape_unary,
            params=(P("p", "float", 0.5), P("mode", ("always", "training"), "training"), P("axes", "shape", ()),
                    P("cudnn_off", "any", None))))


# ----------------------------------------------------------------------------------------------
# linear algebra and layers
# ----------------------------------------------------------------------------------------------
def _dot_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if ta:
        a_k, a_rest = a[0], tuple(a[1:])
        a_rest = tuple(reversed(a_rest)) if len(a) > 2 else a_rest
    else:
        a_k, a_rest = a[-1], tuple(a[:-1])
    if tb:
        b_k, b_rest = b[-1], tuple(b[:-1])
    else:
        b_k, b_rest = b[0], tuple(b[1:])
    if a_k != b_k:
        raise ShapeCheck("Check failed: L[!Ta].Size() == R[Tb].Size() (%d vs. %d) : dot shape error: %s X %s"
                         % (a_k, b_k, shape_str(a), shape_str(b)))
    return list(in_shapes), [(a_rest + b_rest) or (1,)]


def _dot_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = a.T
    if attrs["transpose_b"]:
        b = np.moveaxis(b, -1, 0) if b.ndim > 2 else b.T
    if a.ndim == 1 and b.ndim == 1:
        return np.array([np.dot(a, b)], dtype=inputs[0].dtype)
    return np.tensordot(a, b, axes=([a.ndim - 1], [0])).astype(inputs[0].dtype)


register(Op("dot", _dot_kernel, _dot_shape, inputs=("lhs", "rhs"),
            params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                    P("forward_stype", "any", None))))


def _batch_dot_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    if len(a) < 3 or len(a) != len(b):
        raise ShapeCheck("batch_dot currently only support N-D*N-D array (N >= 3)%s v.s. %s"
                         % (shape_str(a), shape_str(b)))
    m, k1 = (a[-1], a[-2]) if attrs["transpose_a"] else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if attrs["transpose_b"] else (b[-2], b[-1])
    if tuple(a[:-2]) != tuple(b[:-2]) or k1 != k2:
        raise ShapeCheck("Check failed: lshape[0] == rshape[0] && L[!Ta] == R[Tb]: batch_dot shape error: %s X %s"
                         % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(a[:-2]) + (m, n)]


def _batch_dot_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b).astype(inputs[0].dtype)


register(Op("batch_dot", _batch_dot_kernel, _batch_dot_shape, inputs=("lhs", "rhs"),
            params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                    P("forward_stype", "any", None))))


def _fc_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    n = attrs["num_hidden"]
    if data is None:
        return shapes, [None]
    in_units = int(np.prod(data[1:])) if attrs["flatten"] else data[-1]
    _assign_param(shapes, 1, (n, in_units))
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (n,), message="Unexpected shape for bias %s")
    out = (data[0], n) if attrs["flatten"] else tuple(data[:-1]) + (n,)
    return shapes, [out]


def _fc_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    x2 = x.reshape(x.shape[0], -1) if attrs["flatten"] else x
    y = np.matmul(x2, w.T)
    if not attrs["no_bias"]:
        bias = inputs[2]
        if bias.dtype == y.dtype:
            y += bias  # in place: no second output-sized array
        else:
            y = y + bias
    return y.astype(x.dtype, copy=False)


register(Op("FullyConnected", _fc_kernel, _fc_shape, inputs=("data", "weight", "bias"), optional_inputs=("bias",),
            params=(P("num_hidden", "int"), P("no_bias", "bool", False), P("flatten", "bool", True))))


def _conv_geometry(attrs, nd):
    def tup(name, default):
        v = attrs.get(name) or ()
        return tuple(v) if v else (default,) * nd
    return tup("stride", 1), tup("dilate", 1), tup("pad", 0)


def _conv_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    kernel = tuple(attrs["kernel"])
    nd = len(kernel)
    if data is None:
        return shapes, [None]
    if len(data) != nd + 2:
        raise ShapeCheck("Check failed: dshp.ndim() == %dU (%d vs. %d) : Input data should be %dD in batch-num_filter-%s"
                         % (nd + 2, len(data), nd + 2, nd + 2, {1: "x", 2: "y-x", 3: "depth-y-x"}.get(nd, "x")))
    stride, dilate, pad = _conv_geometry(attrs, nd)
    g = attrs["num_group"]
    nf = attrs["num_filter"]
    if data[1] % g:
        raise ShapeCheck("Check failed: dshape[1] % param_.num_group == 0U: input num_filter must divide group size")
    _assign_param(shapes, 1, (nf, data[1] // g) + kernel)
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (nf,))
    spatial = []
    for d, k, s, dl, p in zip(data[2:], kernel, stride, dilate, pad):
        ek = dl * (k - 1) + 1
        if d + 2 * p < ek:
            raise ShapeCheck("Check failed: dilated_ksize <= AddPad(dshape[%d], param_.pad[%d]) : kernel size "
                             "exceed input" % (2, 0))
        spatial.append((d + 2 * p - ek) // s + 1)
    return shapes, [(data[0], nf) + tuple(spatial)]


def _conv_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    nd = len(attrs["kernel"])
    stride, dilate, pad = _conv_geometry(attrs, nd)
    # float32 BLAS as MXNet's CPU kernels (float64 stays float64; float16 and integers go through float32)
    work = np.float64 if x.dtype == np.float64 else np.float32
    y = kernels.convolution(x.astype(work, copy=False), w.astype(work, copy=False), stride, dilate, pad,
                            attrs["num_group"])
    if not attrs["no_bias"]:
        y += inputs[2].astype(work, copy=False).reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype, copy=False)


_CONV_PARAMS = (P("kernel", "shape"), P("stride", "shape", ()), P("dilate", "shape", ()), P("pad", "shape", ()),
                P("num_filter", "int"), P("num_group", "int", 1), P("workspace", "int", 1024),
                P("no_bias", "bool", False), P("cudnn_tune", "any", None), P("cudnn_off", "bool", False),
                P("layout", "any", None))
register(Op("Convolution", _conv_kernel, _conv_shape, inputs=("data", "weight", "bias"), optional_inputs=("bias",),
            params=_CONV_PARAMS))


def _pool_params(attrs, data_shape):
    nd = len(data_shape) - 2
    if attrs["global_pool"]:
        return tuple(data_shape[2:]), (1,) * nd, (0,) * nd
    kernel = tuple(attrs["kernel"])
    stride = tuple(attrs["stride"]) if attrs["stride"] else (1,) * nd
    pad = tuple(attrs["pad"]) if attrs["pad"] else (0,) * nd
    return kernel, stride, pad


def _pool_out(d, k, s, p, convention):
    if convention == "full":
        return int(math.ceil(float(d + 2 * p - k) / s)) + 1
    return (d + 2 * p - k) // s + 1


def _pool_shape(in_shapes, attrs):
    data = in_shapes[0]
    if data is None:
        return list(in_shapes), [None]
    if len(data) < 3:
        shapes_text = ("Input data should be  3D in (batch, channel, x) Or 4D in (batch, channel, y, x)  Or 5D in "
                       "(batch, channel, d, y, x)")
        raise ShapeCheck("Check failed: dshape.ndim() >= 3 (%d vs. 3) : Pooling: %s" % (len(data), shapes_text),
                         eager="Pooling: Check failed: dshape.ndim() >= 3 (%d vs. 3) : %s" % (len(data), shapes_text))
    kernel, stride, pad = _pool_params(attrs, data)
    if len(kernel) != len(data) - 2:
        raise ShapeCheck("Check failed: param.kernel.ndim() == dshape.ndim() - 2: kernel must match input rank")
    spatial = []
    for d, k, s, p in zip(data[2:], kernel, stride, pad):
        if k > d + 2 * p:
            raise ShapeCheck("Check failed: param.kernel[0] <= dshape[2] + 2 * param.pad[0] (%d vs. %d) : kernel size "
                             "(%d) exceeds input (%d padded to %d)" % (k, d + 2 * p, k, d, d + 2 * p))
        spatial.append(_pool_out(d, k, s, p, attrs["pooling_convention"]))
    return list(in_shapes), [tuple(data[:2]) + tuple(spatial)]


def _pool_kernel(inputs, attrs):
    x = inputs[0]
    kernel, stride, pad = _pool_params(attrs, x.shape)
    out_shape = _pool_shape([x.shape], attrs)[1][0]
    out_sizes = out_shape[2:]
    nd = len(kernel)
    ptype = attrs["pool_type"]
    # pad enough on the right for the 'full' convention
    extra = [max(0, (o - 1) * s + k - (d + 2 * p)) for o, s, k, d, p in zip(out_sizes, stride, kernel, x.shape[2:], pad)]
    padding = [(p, p + e) for p, e in zip(pad, extra)]
    work = x.dtype if x.dtype in (np.float32, np.float64) else np.float64
    xw = x.astype(work, copy=False)
    if any(p or e for p, e in padding):
        xw = np.pad(xw, [(0, 0), (0, 0)] + padding, constant_values=-np.inf if ptype == "max" else 0.0)
    windows = kernels.sliding_windows(xw, kernel, stride, (1,) * nd, out_sizes)

    def reduce(ufunc, values):
        # few large windows (global pooling): reduce the view's window axes; many small ones: one
        # elementwise ufunc per kernel offset over whole (N, C, *O) slices (reducing strided window axes is slow)
        if int(np.prod(kernel)) >= int(np.prod(out_sizes)):
            return ufunc.reduce(values.reshape(values.shape[:2] + (-1,) + tuple(out_sizes)), axis=2)
        offsets = iter(np.ndindex(*kernel))
        total = values[(slice(None), slice(None)) + next(offsets)].copy()
        for offset in offsets:
            ufunc(total, values[(slice(None), slice(None)) + offset], out=total)
        return total

    if ptype == "max":
        y = reduce(np.maximum, windows)
    elif ptype == "sum":
        y = reduce(np.add, windows)
    elif ptype == "avg":
        y = reduce(np.add, windows)
        if attrs["count_include_pad"]:  # the symmetric padding counts, the 'full' convention's extra does not
            counted = np.pad(np.ones(x.shape[2:]), [(p, p) for p in pad], constant_values=1)
            counted = np.pad(counted, [(0, e) for e in extra])
        else:
            counted = np.pad(np.ones(x.shape[2:]), padding)
        denom = kernels.sliding_windows(counted, kernel, stride, (1,) * nd, out_sizes, lead=0).sum(axis=tuple(range(nd)))
        y /= np.maximum(denom, 1).astype(work)
    elif ptype == "lp":
        pv = attrs["p_value"] or 2
        y = np.power(reduce(np.add, np.power(np.abs(windows), pv)), 1.0 / pv)
    else:
        raise MXNetError("Invalid Input: '%s', valid values are: {'avg', 'lp', 'max', 'sum'}" % ptype)
    return y.astype(x.dtype, copy=False)


register(Op("Pooling", _pool_kernel, _pool_shape,
            params=(P("kernel", "shape", ()), P("pool_type", ("avg", "lp", "max", "sum"), "max"), P("global_pool", "bool", False),
                    P("stride", "shape", ()), P("pad", "shape", ()), P("pooling_convention", ("full", "same", "valid"), "valid"),
                    P("count_include_pad", "bool", True), P("p_value", "int", 0), P("cudnn_off", "bool", False),
                    P("layout", "any", None))))


def _channel_param_shape(axis_attr, n_params, aux_count=0):
    def rule(in_shapes, attrs):
        shapes = list(in_shapes)
        data = shapes[0]
        if data is None:
            return shapes, [None] * 1
        c = data[attrs[axis_attr] % len(data)]
        for i in range(1, len(shapes)):
            _assign_param(shapes, i, (c,), paren=False)
        return shapes, [tuple(data)]
    return rule


def _batch_norm_kernel(inputs, attrs):
    x, gamma, beta, mean, var = inputs
    axis = attrs["axis"] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    if attrs["fix_gamma"]:
        gamma = np.ones_like(gamma)
    from . import autograd
    if autograd.is_training() and not attrs["use_global_stats"]:
        axes = tuple(i for i in range(x.ndim) if i != axis)
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
    # one scale and one shift per channel: two passes over x instead of four
    scale = gamma / np.sqrt(var + attrs["eps"])
    shift = beta - mean * scale
    work = np.float32 if x.dtype in (np.float16, np.float32) else np.float64  # float16 computes in float32
    y = x * scale.reshape(shape).astype(work, copy=False)
    y += shift.reshape(shape).astype(y.dtype, copy=False)
    return y.astype(x.dtype, copy=False)


register(Op("BatchNorm", _batch_norm_kernel, _channel_param_shape("axis", 4),
            inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
            params=(P("eps", "float", 1e-3), P("momentum", "float", 0.9), P("fix_gamma", "bool", True),
                    P("use_global_stats", "bool", False), P("output_mean_var", "bool", False),
                    P("axis", "int", 1), P("cudnn_off", "bool", False), P("min_calib_range", "any", None),
                    P("max_calib_range", "any", None))))


def _layer_norm_kernel(inputs, attrs):
    x, gamma, beta = inputs
    axis = attrs["axis"] % x.ndim
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axis, keepdims=True)
    var = xd.var(axis=axis, keepdims=True)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    y = (xd - mean) / np.sqrt(var + attrs["eps"]) * gamma.reshape(shape) + beta.reshape(shape)
    return y.astype(x.dtype)


register(Op("LayerNorm", _layer_norm_kernel, _channel_param_shape("axis", 2), inputs=("data", "gamma", "beta"),
            params=(P("axis", "int", -1), P("eps", "float", 1e-5), P("output_mean_var", "bool", False))))


def _instance_norm_kernel(inputs, attrs):
    x, gamma, beta = inputs
    axes = tuple(range(2, x.ndim))
    xd = x.astype(np.float64)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    y = (xd - xd.mean(axis=axes, keepdims=True)) / np.sqrt(xd.var(axis=axes, keepdims=True) + attrs["eps"])
    return (y * gamma.reshape(shape) + beta.reshape(shape)).astype(x.dtype)


def _instance_norm_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    if shapes[0] is None:
        return shapes, [None]
    for i in (1, 2):
        _assign(shapes, i, (shapes[0][1],))
    return shapes, [shapes[0]]


register(Op("InstanceNorm", _instance_norm_kernel, _instance_norm_shape, inputs=("data", "gamma", "beta"),
            params=(P("eps", "float", 1e-3),)))


def _embedding_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    _assign_param(shapes, 1, (attrs["input_dim"], attrs["output_dim"]))
    data = shapes[0]
    return shapes, [None if data is None else tuple(data) + (attrs["output_dim"],)]


def _embedding_kernel(inputs, attrs):
    idx, w = inputs
    i = np.clip(idx.astype(np.int64), 0, attrs["input_dim"] - 1)
    return w[i]


def _embedding_type(in_types, attrs):
    out = list(in_types)
    dtype = attrs["dtype"] or "float32"
    if out[1] is None:
        out[1] = dtype
    return out, out[1]


register(Op("Embedding", _embedding_kernel, _embedding_shape, inputs=("data", "weight"), infer_type=_embedding_type,
            params=(P("input_dim", "int"), P("output_dim", "int"), P("dtype", "dtype", "float32"),
                    P("sparse_grad", "bool", False))))


# ----------------------------------------------------------------------------------------------
# fused recurrent layers (MXNet's RNN operator: all weights, then all biases, packed in one vector)
# ----------------------------------------------------------------------------------------------
_RNN_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _rnn_layout(attrs, input_size):
    """[(layer, direction, i2h shape, h2h shape)] in MXNet's packing order."""
    g, h, dirs = _RNN_GATES[attrs["mode"]], attrs["state_size"], 2 if attrs["bidirectional"] else 1
    out, ni = [], input_size
    for layer in range(attrs["num_layers"]):
        for d in range(dirs):
            out.append((layer, d, (g * h, ni), (g * h, h)))
        ni = h * dirs
    return out


def _rnn_param_size(attrs, input_size):
    g, h = _RNN_GATES[attrs["mode"]], attrs["state_size"]
    return sum(int(np.prod(a)) + int(np.prod(b)) + 2 * g * h for _, _, a, b in _rnn_layout(attrs, input_size))


def _rnn_outputs(attrs):
    if not attrs["state_outputs"]:
        return 1
    return 3 if attrs["mode"] == "lstm" else 2


def _rnn_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    n_out = _rnn_outputs(attrs)
    if data is None:
        return shapes, [None] * n_out
    if len(data) != 3:
        raise ShapeCheck("Check failed: dshape.ndim() == 3U (%d vs. 3) : Input data should be rank-3 tensor of dim "
                         "[sequence length, batch size, input size]" % len(data))
    t, n, c = data
    dirs = 2 if attrs["bidirectional"] else 1
    state = (attrs["num_layers"] * dirs, n, attrs["state_size"])
    _assign(shapes, 1, (_rnn_param_size(attrs, c),))
    for i in range(2, len(shapes)):
        _assign(shapes, i, state)
    outs = [(t, n, dirs * attrs["state_size"])] + [state] * (n_out - 1)
    return shapes, outs


def _rnn_cell_step(mode, x_proj, h, c, w_h, b_h):
    hidden = h @ w_h.T + b_h
    if mode == "lstm":
        i, f, g, o = np.split(x_proj + hidden, 4, axis=-1)
        sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
        c = sig(f) * c + sig(i) * np.tanh(g)
        return sig(o) * np.tanh(c), c
    if mode == "gru":
        xr, xz, xn = np.split(x_proj, 3, axis=-1)
        hr, hz, hn = np.split(hidden, 3, axis=-1)
        r = 1.0 / (1.0 + np.exp(-(xr + hr)))
        z = 1.0 / (1.0 + np.exp(-(xz + hz)))
        cand = np.tanh(xn + r * hn)
        return (1 - z) * cand + z * h, c
    act = np.tanh if mode == "rnn_tanh" else (lambda v: np.maximum(v, 0))
    return act(x_proj + hidden), c


def _rnn_kernel(inputs, attrs):
    data, params = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    h0 = inputs[2].astype(np.float64)
    c0 = inputs[3].astype(np.float64) if attrs["mode"] == "lstm" else np.zeros_like(h0)
    layout = _rnn_layout(attrs, data.shape[2])
    dirs = 2 if attrs["bidirectional"] else 1
    weights, pos = {}, 0
    for layer, d, i2h, h2h in layout:
        for key, shape in (("i2h", i2h), ("h2h", h2h)):
            size = int(np.prod(shape))
            weights[(layer, d, key)] = params[pos:pos + size].reshape(shape)
            pos += size
    for layer, d, i2h, _ in layout:
        for key in ("i2h", "h2h"):
            weights[(layer, d, key + "_b")] = params[pos:pos + i2h[0]]
            pos += i2h[0]
    x = data
    h_out, c_out = [], []
    for layer in range(attrs["num_layers"]):
        outs = []
        for d in range(dirs):
            idx = layer * dirs + d
            h, c = h0[idx], c0[idx]
            seq = x if d == 0 else x[::-1]
            proj = seq @ weights[(layer, d, "i2h")].T + weights[(layer, d, "i2h_b")]
            steps = []
            for t in range(seq.shape[0]):
                h, c = _rnn_cell_step(attrs["mode"], proj[t], h, c, weights[(layer, d, "h2h")],
                                      weights[(layer, d, "h2h_b")])
                steps.append(h)
            out = np.stack(steps)
            outs.append(out if d == 0 else out[::-1])
            h_out.append(h)
            c_out.append(c)
        x = np.concatenate(outs, axis=-1)
    dtype = inputs[0].dtype
    results = [x.astype(dtype)]
    if attrs["state_outputs"]:
        results.append(np.stack(h_out).astype(dtype))
        if attrs["mode"] == "lstm":
            results.append(np.stack(c_out).astype(dtype))
    return tuple(results) if len(results) > 1 else results[0]


register(Op("RNN", _rnn_kernel, _rnn_shape, inputs=("data", "parameters", "state", "state_cell"),
            optional_inputs=("state_cell",), num_outputs=_rnn_outputs,
            params=(P("state_size", "int"), P("num_layers", "int"), P("bidirectional", "bool", False),
                    P("mode", ("gru", "lstm", "rnn_relu", "rnn_tanh")), P("p", "float", 0.0), P("state_outputs", "bool", False),
                    P("projection_size", "any", None), P("lstm_state_clip_min", "any", None),
                    P("lstm_state_clip_max", "any", None), P("lstm_state_clip_nan", "bool", False),
                    P("use_sequence_length", "bool", False))))

# ----------------------------------------------------------------------------------------------
# more layers' operators: transposed convolution, padding, upsampling, normalisation, masking
# ----------------------------------------------------------------------------------------------
def _deconv_geometry(attrs, nd):
    def tup(name, default):
        v = attrs.get(name) or ()
        return tuple(v) if v else (default,) * nd
    return tup("stride", 1), tup("dilate", 1), tup("pad", 0), tup("adj", 0)


def _deconv_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    kernel = tuple(attrs["kernel"])
    nd = len(kernel)
    if data is None:
        return shapes, [None]
    if len(data) != nd + 2:
        raise ShapeCheck("Check failed: dshape.ndim() == %d (%d vs. %d) : Input data should be %dD in batch-num_filter-"
                         "spatial" % (nd + 2, len(data), nd + 2, nd + 2))
    stride, dilate, pad, adj = _deconv_geometry(attrs, nd)
    g, nf = attrs["num_group"], attrs["num_filter"]
    _assign_param(shapes, 1, (data[1], nf // g) + kernel)
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (nf,))
    spatial = tuple((d - 1) * s - 2 * p + dl * (k - 1) + 1 + a
                    for d, k, s, dl, p, a in zip(data[2:], kernel, stride, dilate, pad, adj))
    return shapes, [(data[0], nf) + spatial]


def _deconv_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    nd = len(attrs["kernel"])
    stride, dilate, pad, adj = _deconv_geometry(attrs, nd)
    work = np.float64 if x.dtype == np.float64 else np.float32  # as Convolution
    y = kernels.transposed_convolution(x.astype(work, copy=False), w.astype(work, copy=False), stride, dilate, pad,
                                       adj, attrs["num_group"])
    if not attrs["no_bias"]:
        y = y + inputs[2].astype(work, copy=False).reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype, copy=False)


register(Op("Deconvolution", _deconv_kernel, _deconv_shape, inputs=("data", "weight", "bias"),
            optional_inputs=("bias",),
            params=(P("kernel", "shape"), P("stride", "shape", ()), P("dilate", "shape", ()), P("pad", "shape", ()),
                    P("adj", "shape", ()), P("target_shape", "shape", ()), P("num_filter", "int"),
                    P("num_group", "int", 1), P("workspace", "int", 512), P("no_bias", "bool", True),
                    P("cudnn_tune", "any", None), P("cudnn_off", "bool", False), P("layout", "any", None))))


def _pad_widths(shape, attrs):
    widths = attrs["pad_width"]
    if len(shape) not in (4, 5):
        raise ShapeCheck("Check failed: dshape.ndim() == 4 || dshape.ndim() == 5: Current implementation only supports "
                         "4-D or 5-D input.")
    if len(widths) != 2 * len(shape):
        raise ShapeCheck("Check failed: pad.ndim() == 2 * dshape.ndim(): Input shape vs. pad_width mismatch.")
    if any(widths[:4]):
        raise ShapeCheck("Check failed: Current implementation expects padding on the first two axes to be zero.")
    return [(widths[2 * i], widths[2 * i + 1]) for i in range(len(shape))]


def _pad_kernel(inputs, attrs):
    a = inputs[0]
    widths = _pad_widths(a.shape, attrs)
    mode = attrs["mode"]
    if mode == "constant":
        return np.pad(a, widths, mode="constant", constant_values=attrs["constant_value"])
    return np.pad(a, widths, mode={"edge": "edge", "reflect": "reflect"}[mode])


register(Op("Pad", _pad_kernel, _unary_shape_fn(lambda s, at: tuple(d + a + b for d, (a, b) in zip(s, _pad_widths(s, at)))),
            aliases=("pad",), hint="pad",
            params=(P("mode", ("constant", "edge", "reflect"), "constant"), P("pad_width", "shape"), P("constant_value", "float", 0.0))))


def _upsampling_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if attrs["sample_type"] != "nearest" or len(in_shapes) != 1:
        raise ShapeCheck("hylint.runtime implements UpSampling for one input with sample_type='nearest' only")
    k = attrs["scale"]
    return list(in_shapes), [tuple(s[:2]) + tuple(d * k for d in s[2:])]


def _upsampling_kernel(inputs, attrs):
    a = inputs[0]
    for axis in range(2, a.ndim):
        a = np.repeat(a, attrs["scale"], axis=axis)
    return a


register(Op("UpSampling", _upsampling_kernel, _upsampling_shape, variadic=True,
            params=(P("scale", "int"), P("num_filter", "int", 0), P("sample_type", "str"),
                    P("multi_input_mode", "str", "concat"), P("num_args", "int", 1), P("workspace", "int", 512))))


def _l2norm_axes(ndim, mode):
    if mode == "instance":
        return tuple(range(1, ndim))
    if mode == "channel":
        return (1,)
    if mode == "spatial":
        return tuple(range(2, ndim))
    raise MXNetError("Invalid Input: '%s', valid values are: {'channel', 'instance', 'spatial'}" % mode)


def _l2norm_kernel(inputs, attrs):
    a = inputs[0]
    axes = _l2norm_axes(a.ndim, attrs["mode"])
    norm = np.sqrt(np.sum(np.square(a.astype(np.float64)), axis=axes, keepdims=True) + attrs["eps"])
    return (a / norm).astype(a.dtype)


def _l2norm_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is not None and attrs["mode"] in ("channel", "spatial") and len(s) < 3:
        raise ShapeCheck("Check failed: dshape.ndim() >= 3 (%d vs. 3) : At lease 3 dimensions required in %s mode"
                         % (len(s), attrs["mode"]))
    return list(in_shapes), [s]


register(Op("L2Normalization", _l2norm_kernel, _l2norm_shape, params=(P("eps", "float", 1e-10),
                                                                     P("mode", ("channel", "instance", "spatial"), "instance"))))


def _sequence_mask_kernel(inputs, attrs):
    a = inputs[0].copy()
    if not attrs["use_sequence_length"]:
        return a
    lengths = inputs[1].astype(np.int64)
    axis = attrs["axis"]
    batch_axis = 1 - axis
    steps = np.arange(a.shape[axis])
    mask = steps[:, None] >= lengths[None, :] if axis == 0 else lengths[:, None] <= steps[None, :]
    mask = mask.reshape(mask.shape + (1,) * (a.ndim - 2))
    del batch_axis
    return np.where(mask, np.asarray(attrs["value"], dtype=a.dtype), a)


def _sequence_mask_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if data is not None and attrs["use_sequence_length"] and len(shapes) > 1:
        _assign(shapes, 1, (data[1 - attrs["axis"]],))
    return shapes, [data]


register(Op("SequenceMask", _sequence_mask_kernel, _sequence_mask_shape, inputs=("data", "sequence_length"),
            optional_inputs=("sequence_length",), infer_type=_first_type,
            params=(P("use_sequence_length", "bool", False), P("value", "float", 0.0), P("axis", "int", 0))))


def _gather_nd_shape(in_shapes, attrs):
    data, idx = in_shapes
    if data is None or idx is None:
        return list(in_shapes), [None]
    m = idx[0]
    if m > len(data):
        raise ShapeCheck("Check failed: ishape[0] <= dshape.ndim() (%d vs. %d) : Number of indices exceeds data "
                         "dimension" % (m, len(data)))
    return list(in_shapes), [tuple(idx[1:]) + tuple(data[m:]) or (1,)]


def _gather_nd_kernel(inputs, attrs):
    data, idx = inputs
    idx = idx.astype(np.int64)
    return _at_least_1d(data[tuple(idx[i] for i in range(idx.shape[0]))])


register(Op("gather_nd", _gather_nd_kernel, _gather_nd_shape, inputs=("data", "indices"), infer_type=_first_type))


def _smooth_l1_kernel(inputs, attrs):
    a = inputs[0]
    sigma2 = attrs["scalar"] ** 2
    absolute = np.abs(a)
    return np.where(absolute < 1.0 / sigma2, 0.5 * sigma2 * a * a, absolute - 0.5 / sigma2).astype(a.dtype)


register(Op("smooth_l1", _smooth_l1_kernel, _shape_unary, params=(P("scalar", "float"),), infer_type=_first_type))


def _softmax_ce_kernel(inputs, attrs):
    data, label = inputs
    logp = np.log(_softmax_np(data, -1))
    picked = logp[np.arange(data.shape[0]), label.astype(np.int64)]
    return np.array([-picked.sum()], dtype=data.dtype)


register(Op("softmax_cross_entropy", _softmax_ce_kernel, lambda ins, at: (list(ins), [(1,)]), inputs=("data", "label"),
            infer_type=_first_type))


def _div_sqrt_dim_kernel(inputs, attrs):
    a = inputs[0]
    return (a / np.sqrt(a.shape[-1])).astype(a.dtype)


register(Op("_contrib_div_sqrt_dim", _div_sqrt_dim_kernel, _shape_unary, aliases=("contrib.div_sqrt_dim",),
            hint="div_sqrt_dim"))


def _softmax_output_kernel(inputs, attrs):
    a = inputs[0]
    if attrs["multi_output"]:
        return _softmax_np(a, 1).astype(a.dtype)
    if attrs["preserve_shape"]:
        return _softmax_np(a, -1).astype(a.dtype)
    return _softmax_np(a.reshape(a.shape[0], -1), -1).reshape(a.shape).astype(a.dtype)


def _softmax_output_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if data is not None and len(shapes) > 1 and shapes[1] is None:
        shapes[1] = (data[0],) if not attrs["multi_output"] else (data[0],) + tuple(data[2:])
    return shapes, [data]


register(Op("SoftmaxOutput", _softmax_output_kernel, _softmax_output_shape, inputs=("data", "label"),
            aliases=("Softmax",), infer_type=_first_type,
            params=(P("grad_scale", "float", 1.0), P("ignore_label", "float", -1.0), P("multi_output", "bool", False),
                    P("use_ignore", "bool", False), P("preserve_shape", "bool", False),
                    P("normalization", "str", "null"), P("out_grad", "bool", False), P("smooth_alpha", "float", 0.0))))


register(Op("argmax_channel", lambda ins, at: _at_least_1d(np.argmax(ins[0], axis=1).astype(np.float32)),
            _unary_shape_fn(lambda s, at: tuple(d for i, d in enumerate(s) if i != 1) or (1,)),
            infer_type=_fixed_type("float32")))


def _batch_take_shape(in_shapes, attrs):
    a, idx = in_shapes
    return list(in_shapes), [None if a is None else (a[0],)]


def _batch_take_type(in_types, attrs):
    if in_types[1] is not None and in_types[1] != "int32":
        raise ShapeCheck("Type inconsistent, Provided = %s, inferred type = int32" % in_types[1])
    return in_types, in_types[0]


register(Op("batch_take", lambda ins, at: ins[0][np.arange(ins[0].shape[0]),
                                               np.clip(ins[1].astype(np.int64), 0, ins[0].shape[1] - 1)],
            _batch_take_shape, inputs=("a", "indices"), infer_type=_batch_take_type))


def _gemm2_operands(a_shape, b_shape, attrs):
    m, k = (a_shape[-1], a_shape[-2]) if attrs["transpose_a"] else (a_shape[-2], a_shape[-1])
    k2, n = (b_shape[-1], b_shape[-2]) if attrs["transpose_b"] else (b_shape[-2], b_shape[-1])
    return m, k, k2, n


def _gemm2_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    m, k, k2, n = _gemm2_operands(a, b, attrs)
    if k != k2 or tuple(a[:-2]) != tuple(b[:-2]):
        raise ShapeCheck("Check failed: Incompatible matrix dimensions in linalg_gemm2: %s x %s"
                         % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(a[:-2]) + (m, n)]


def _gemm2_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    return (attrs["alpha"] * np.matmul(a.astype(np.float64), b)).astype(inputs[0].dtype)


register(Op("_linalg_gemm2", _gemm2_kernel, _gemm2_shape, inputs=("A", "B"), aliases=("linalg_gemm2", "linalg.gemm2"),
            hint="linalg_gemm2", params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                                         P("alpha", "float", 1.0), P("axis", "int", -2))))


def _select_kernel(inputs, attrs):
    """``contrib.cond`` lowered to a select: both branches are computed, the predicate picks one."""
    pred, *branches = inputs
    half = len(branches) // 2
    chosen = branches[:half] if float(np.asarray(pred).reshape(-1)[0]) != 0 else branches[half:]
    return tuple(a.copy() for a in chosen) if half > 1 else chosen[0].copy()


def _select_shape(in_shapes, attrs):
    branches = in_shapes[1:]
    half = len(branches) // 2
    return list(in_shapes), list(branches[:half])


def _select_type(in_types, attrs):
    branches = in_types[1:]
    half = len(branches) // 2
    outs = list(branches[:half])
    return in_types, outs if half > 1 else outs[0]


register(Op("_cond_select", _select_kernel, _select_shape, variadic=True, infer_type=_select_type, hint="_cond",
            num_outputs=lambda at: at["num_outputs"], params=(P("num_outputs", "int", 1), P("num_args", "int", 0)),
            namespaces=()))


# ----------------------------------------------------------------------------------------------
# control flow with subgraphs (symbolic contrib.foreach / contrib.while_loop). The node attribute
# ``__subgraph__`` holds the traced body: its heads, its placeholder variable names and the "boundary"
# entries (values from the enclosing graph), which are appended to the node's inputs.
# ----------------------------------------------------------------------------------------------
def _subgraph_values(g, inputs, n_loop):
    loop, bound = list(inputs[:n_loop]), inputs[n_loop:]
    given = {(id(n), k): v for (n, k), v in zip(g["boundary"], bound)}
    return loop, given


def _run_subgraph(heads, names, values, given):
    from . import executor  # the evaluator depends on this table, not the other way round
    return executor.evaluate(heads, dict(zip(names, values)), given=given)


def _infer_subgraph(heads, names, in_shapes, in_types, g, n_loop):
    from . import executor
    given_shapes = {(id(n), k): s for (n, k), s in zip(g["boundary"], in_shapes[n_loop:])}
    given_types = {(id(n), k): t for (n, k), t in zip(g["boundary"], in_types[n_loop:])}
    shapes, types, _, _ = executor.infer(heads, dict(zip(names, in_shapes[:n_loop])),
                                         dict(zip(names, in_types[:n_loop])), given_shapes=given_shapes,
                                         given_types=given_types)
    return [shapes.get((id(n), k)) for n, k in heads], [types.get((id(n), k)) for n, k in heads]


def _step_shape(shape):
    return tuple(shape[1:]) or (1,)


def _foreach_kernel(inputs, attrs):
    g = attrs["__subgraph__"]
    n_data, n_state = g["n_data"], g["n_state"]
    loop, given = _subgraph_values(g, inputs, n_data + n_state)
    data, states = loop[:n_data], loop[n_data:]
    steps = []
    for t in range(data[0].shape[0]):
        slices = [_at_least_1d(d[t]) for d in data]
        res = _run_subgraph(g["heads"], g["names"], slices + states, given)
        steps.append(res[:g["n_out"]])
        states = res[g["n_out"]:]
    outs = [np.stack([step[i] for step in steps]) for i in range(g["n_out"])]
    return tuple(outs + list(states))


def _foreach_infer(in_shapes, in_types, attrs):
    g = attrs["__subgraph__"]
    n_data, n_state = g["n_data"], g["n_state"]
    if any(s is None for s in in_shapes):
        return None, None
    step_in = [_step_shape(s) for s in in_shapes[:n_data]] + list(in_shapes[n_data:])
    shapes, types = _infer_subgraph(g["heads"], g["names"], step_in, list(in_types), g, n_data + n_state)
    length = in_shapes[0][0]
    out_shapes = [None if s is None else (length,) + tuple(s) for s in shapes[:g["n_out"]]] + shapes[g["n_out"]:]
    return out_shapes, types


def _while_loop_kernel(inputs, attrs):
    g = attrs["__subgraph__"]
    loop, given = _subgraph_values(g, inputs, g["n_vars"])
    steps = []
    for _ in range(g["max_iterations"]):
        if not float(np.asarray(_run_subgraph(g["cond"], g["names"], loop, given)[0]).reshape(-1)[0]):
            break
        res = _run_subgraph(g["heads"], g["names"], loop, given)
        steps.append(res[:g["n_out"]])
        loop = res[g["n_out"]:]
    outs = []
    for i, shape in enumerate(g.get("step_shapes") or []):
        rows = [step[i] for step in steps]
        template = rows[0] if rows else np.zeros(shape, dtype=np.float32)
        pad = [np.zeros_like(template)] * (g["max_iterations"] - len(rows))  # MXNet leaves these uninitialised
        outs.append(np.stack(rows + pad))
    return tuple(outs + list(loop))


def _while_loop_infer(in_shapes, in_types, attrs):
    g = attrs["__subgraph__"]
    if any(s is None for s in in_shapes):
        return None, None
    shapes, types = _infer_subgraph(g["heads"], g["names"], list(in_shapes), list(in_types), g, g["n_vars"])
    g["step_shapes"] = shapes[:g["n_out"]]
    out = [None if s is None else (g["max_iterations"],) + tuple(s) for s in shapes[:g["n_out"]]]
    return out + list(in_shapes[:g["n_vars"]]), types[:g["n_out"]] + list(in_types[:g["n_vars"]])


def _subgraph_shape(infer):
    def rule(in_shapes, attrs):
        out, _ = infer(in_shapes, [None] * len(in_shapes), attrs)
        return list(in_shapes), out if out is not None else [None] * attrs["num_outputs"]
    return rule


def _subgraph_type(infer):
    def rule(in_types, attrs):
        shapes = attrs.get("__in_shapes__")
        if shapes is None:
            return in_types, [in_types[0]] * attrs["num_outputs"]
        _, types = infer(shapes, in_types, attrs)
        return in_types, types
    return rule


for _name, _kernel, _infer in [("_foreach", _foreach_kernel, _foreach_infer),
                               ("_while_loop", _while_loop_kernel, _while_loop_infer)]:
    register(Op(_name, _kernel, _subgraph_shape(_infer), variadic=True, infer_type=_subgraph_type(_infer), hint=_name,
                num_outputs=lambda at: at["num_outputs"], params=(P("num_outputs", "int", 1), P("num_args", "int", 0)),
                namespaces=()))
SUBGRAPH_OPS = ("_foreach", "_while_loop")


# ----------------------------------------------------------------------------------------------
# namespace layout: which public names each namespace exposes
# ----------------------------------------------------------------------------------------------
#: names hidden from both namespaces (internal ops reached through operators / wrappers)
_INTERNAL_PREFIX = "_"


def public_names():
    """Top-level op names shared by ``nd`` and ``sym`` (each op once, under every public alias)."""
    names = {}
    for name, op in OPS.items():
        if name.startswith(_INTERNAL_PREFIX) or "." in name or not op.namespaces:
            continue
        names[name] = op
    for creation in ("zeros", "ones", "full", "arange", "eye"):
        names.pop(creation, None)  # hand-written wrappers in both namespaces (see WRAPPERS)
    for nd_only_wrappers in ("maximum", "minimum", "power"):
        names.pop(nd_only_wrappers, None)
    return names


def prefixed_names(group):
    """``{name: op}`` for the ops MXNet registers as ``_<group>_<name>`` and shows as ``nd.<group>.<name>``
    (``_contrib_SyncBatchNorm`` is ``nd.contrib.SyncBatchNorm``, ``_image_to_tensor`` ``nd.image.to_tensor``)."""
    prefix = "_%s_" % group
    return {name[len(prefix):]: op for name, op in OPS.items() if name.startswith(prefix)}


# ----------------------------------------------------------------------------------------------
# Python wrapper functions whose behaviour differs between nd and sym (written once, parametrised
# by the namespace's invoke function). ``ns`` gives: ns.kind ('nd'|'sym'), ns.invoke(op_name, args,
# kwargs, hint=None), ns.is_tensor(x).
# ----------------------------------------------------------------------------------------------
_NUMERIC = (float, int, np.generic)


def _nd_binary(ns, name, broadcast_op, scalar_op, rscalar_op, pyfn):
    """MXNet's eager wrappers (``nd.maximum``, ``nd.add``, ...): numbers become scalar ops, two tensors broadcast,
    anything else on the right is a TypeError (a Symbol on the left reaches the op's type assertion)."""
    def wrapper(lhs, rhs):
        if isinstance(lhs, _NUMERIC):
            if isinstance(rhs, _NUMERIC):
                return pyfn(lhs, rhs)
            return ns.invoke(rscalar_op or scalar_op, (rhs,), {"scalar": float(lhs)})
        if isinstance(rhs, _NUMERIC):
            return ns.invoke(scalar_op, (lhs,), {"scalar": float(rhs)})
        if ns.is_tensor(rhs):
            return ns.invoke(broadcast_op, (lhs, rhs), {})
        raise TypeError("type %s not supported" % str(type(rhs)))
    wrapper.__name__ = name
    return wrapper


def _sym_binary(ns, name, elementwise_op, scalar_op, rscalar_op, pyfn):
    """MXNet's graph wrappers (``sym.maximum``, ``sym.power``, ...): two Symbols use the elementwise (same-shape)
    operator, a Symbol and a number the scalar operator."""
    import numbers

    def wrapper(left, right):
        lt, rt = ns.is_tensor(left), ns.is_tensor(right)
        if lt and rt:
            return ns.invoke(elementwise_op, (left, right), {})
        if lt and isinstance(right, numbers.Number):
            return ns.invoke(scalar_op, (left,), {"scalar": right})
        if rt and isinstance(left, numbers.Number):
            return ns.invoke(rscalar_op or scalar_op, (right,), {"scalar": left})
        if isinstance(left, numbers.Number) and isinstance(right, numbers.Number):
            return pyfn(left, right)
        raise TypeError("types (%s, %s) not supported" % (str(type(left)), str(type(right))))
    wrapper.__name__ = name
    return wrapper


def _tensor_or_scalar(ns, name, elementwise_op, scalar_op, broadcast_op, rscalar_op=None, pyfn=None):
    if ns.kind == "nd":
        return _nd_binary(ns, name, broadcast_op, scalar_op, rscalar_op, pyfn)
    return _sym_binary(ns, name, elementwise_op, scalar_op, rscalar_op, pyfn)


def _creation(ns, op_name, positional):
    def wrapper(*args, **kwargs):
        if len(args) > len(positional):
            raise TypeError("%s() takes at most %d positional arguments" % (op_name, len(positional)))
        kwargs = dict(kwargs)
        kwargs.update(zip(positional, args))
        if op_name in ("_arange",) and ns.kind == "nd":
            kwargs.setdefault("dtype", "float32")
        ctx = kwargs.pop("ctx", None)
        del ctx  # single CPU context
        return ns.invoke(op_name, (), kwargs)
    wrapper.__name__ = op_name.strip("_")
    return wrapper


def build_wrappers(ns):
    """The hand-written functions of namespace ``ns`` (``nd`` or ``sym``), as a name -> callable dict."""
    w = {}
    w["maximum"] = _tensor_or_scalar(ns, "maximum", "_maximum", "_maximum_scalar", "broadcast_maximum", pyfn=max)
    w["minimum"] = _tensor_or_scalar(ns, "minimum", "_minimum", "_minimum_scalar", "broadcast_minimum", pyfn=min)
    w["power"] = _tensor_or_scalar(ns, "power", "_power", "_power_scalar", "broadcast_power", "_rpower_scalar",
                                   pyfn=pow)
    w["zeros"] = _creation(ns, "_zeros", ("shape",))
    w["ones"] = _creation(ns, "_ones", ("shape",))
    w["full"] = _creation(ns, "_full", ("shape", "val"))
    w["arange"] = _creation(ns, "_arange", ("start", "stop", "step", "repeat", "infer_range"))
    w["eye"] = _creation(ns, "_eye", ("N", "M", "k"))
    full = w["full"]

    def full_wrapper(shape, val=None, **kwargs):
        if "val" in kwargs:
            val = kwargs.pop("val")
        return full(shape, value=val, **kwargs)
    full_wrapper.__name__ = "full"
    w["full"] = full_wrapper
    if ns.kind == "sym":
        w["pow"] = w["power"]
        w["hypot"] = _tensor_or_scalar(ns, "hypot", "_hypot", "_hypot_scalar", "broadcast_hypot", pyfn=math.hypot)
    else:
        for name, key, sop, rsop in ND_BINARY_FUNCTIONS:
            w[name] = _nd_binary(ns, name, "broadcast_" + key, sop, rsop,
                                 lambda a, b, fn=_BINARY[key]: fn(a, b).item() if hasattr(fn(a, b), "item") else fn(a, b))
    return w


WRAPPERS = build_wrappers


# ----------------------------------------------------------------------------------------------
# argument binding, shared by both namespaces
# ----------------------------------------------------------------------------------------------
#: positional slots after an op's own parameters (MXNet's generated signatures differ per namespace)
TRAILING_POSITIONAL = {"nd": ("out", "name"), "sym": ("name", "attr", "out")}


class BoundCall:
    """An op call with its tensor inputs separated from its (string) attributes."""

    __slots__ = ("op", "inputs", "input_names", "attr_strs", "name", "out", "attr")

    def __init__(self, op, inputs, input_names, attr_strs, name, out, attr):
        self.op, self.inputs, self.input_names = op, inputs, input_names
        self.attr_strs, self.name, self.out, self.attr = attr_strs, name, out, attr


def bind_call(op, args, kwargs, kind, is_tensor, describe_tensor_error):
    """Split ``args``/``kwargs`` of an op call into tensor inputs and attribute strings.

    ``describe_tensor_error(arg_name, value)`` returns the AssertionError message for a non-tensor
    input (MXNet's wrappers assert the input types)."""
    kwargs = dict(kwargs)
    extra = {}
    for key in ("name", "attr", "out"):
        extra[key] = kwargs.pop(key, None)
    if "ctx" in kwargs and "ctx" not in op.param_map:
        kwargs.pop("ctx")
    trailing = TRAILING_POSITIONAL[kind]
    inputs, input_names = [], []
    if op.variadic:
        for value in args:
            if not is_tensor(value):
                raise AssertionError(describe_tensor_error(None, value))
        inputs = list(args)
        input_names = ["arg%d" % i for i in range(len(args))]
        if "num_args" in op.param_map:
            kwargs["num_args"] = len(args)
        for key in list(kwargs):
            if key in ("data", "args"):
                raise TypeError("%s() got an unexpected keyword argument %r" % (op.name, key))
    else:
        slots = list(op.inputs) + [p.name for p in op.params] + list(trailing)
        if len(args) > len(slots):
            raise TypeError("%s() takes at most %d positional arguments (%d given)" % (op.name, len(slots), len(args)))
        for slot, value in zip(slots, args):
            if slot in kwargs or (slot in extra and extra[slot] is not None):
                raise TypeError("%s() got multiple values for argument %r" % (op.name, slot))
            if slot in extra:
                extra[slot] = value
            else:
                kwargs[slot] = value
        for in_name in op.inputs:
            value = kwargs.pop(in_name, None)
            if value is None:
                inputs.append(None)
                input_names.append(in_name)
                continue
            if not is_tensor(value):
                raise AssertionError(describe_tensor_error(in_name, value))
            inputs.append(value)
            input_names.append(in_name)
    attr_strs = OrderedDict((k, stringify(v)) for k, v in kwargs.items())
    return BoundCall(op, inputs, input_names, attr_strs, extra["name"], extra["out"], extra["attr"])


def skip_optional_input(op, name, attrs):
    """Optional inputs an op does not take: ``bias`` with ``no_bias=True``, RNN's ``state_cell`` unless LSTM."""
    if name not in op.optional_inputs:
        return False
    if name == "bias":
        return bool(attrs.get("no_bias"))
    if name == "state_cell":
        return attrs.get("mode") != "lstm"
    if name == "gamma" and op.name == "LeakyReLU":
        return attrs.get("act_type") != "prelu"
    if name == "sequence_length":
        return not attrs.get("use_sequence_length")
    if name == "like":  # BilinearResize2D takes its second input only in mode 'like'
        return attrs.get("mode") != "like"
    if name == "length":  # softmax's lengths are an input only with use_length
        return not attrs.get("use_length")
    return False


def present_inputs(bound, attrs):
    """Drop optional inputs the op does not use (``bias`` with ``no_bias=True``)."""
    pairs = [(n, v) for n, v in zip(bound.input_names, bound.inputs)
             if not skip_optional_input(bound.op, n, attrs)]
    return [n for n, _ in pairs], [v for _, v in pairs]


def run_infer(op, in_shapes, in_types, attrs):
    """Shape and dtype inference for one node; raises ShapeCheck / InferFailed."""
    shapes, out_shapes = op.infer_shape(list(in_shapes), attrs)
    if op.name in SUBGRAPH_OPS:
        attrs = dict(attrs, __in_shapes__=list(shapes))
    types, out_types = op.infer_type(list(in_types), attrs)
    n = op.num_outputs(attrs)
    if not isinstance(out_types, (list, tuple)):
        out_types = [out_types] * n
    return shapes, list(out_shapes), list(types), list(out_types)

from . import ops_models  # noqa: E402,F401  (registers the model libraries' operators into OPS)
