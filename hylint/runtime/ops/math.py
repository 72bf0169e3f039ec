"""Elementwise math: binary, scalar and unary operators, activations, softmax, clip."""
import math
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, shape_str
from .table import OPS, Op, ShapeCheck, _first_type, register
from .attrs import P
from .common import _at_least_1d, _mod, _power, _shape_broadcast, _shape_same, _shape_unary, _true_div


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
    if act == "relu" and a.dtype == np.float32 and 1 <= a.ndim <= 5:
        # MXNet runs oneDNN's relu there (`x > 0 ? x : 0`), which maps NaN to 0; its own kernel, for other
        # dtypes and ranks (and the `relu` operator everywhere), keeps NaN
        return np.fmax(a, np.float32(0))
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


def _length_shape(data, axis):
    """The shape softmax's ``length`` must have, built as MXNet 1.9.1 builds it: only -1 is read as the
    last axis, so another negative (or too large) axis drops no dimension, and writing one dimension too
    many fails MXNet's index check (``softmax(x, length, axis=-2, use_length=True)`` fails in MXNet)."""
    size = max(len(data) - 1, 1)
    axis = len(data) - 1 if axis == -1 else axis
    kept = [d for i, d in enumerate(data) if i != axis]
    if len(kept) > size:
        raise ShapeCheck("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)" % (size, size))
    return tuple(kept) + (1,) * (size - len(kept))


def _softmax_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if len(shapes) > 1 and data is not None:  # softmax's ``length``: the data shape without the axis
        expected = _length_shape(data, attrs["axis"])
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
