"""Elementwise math: binary, scalar and unary operators, activations, softmax, clip."""
import math
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, shape_str
from .table import OPS, Op, ShapeCheck, _first_type, register
from .attrs import P
from .common import _at_least_1d, _mod, _power, _shape_broadcast, _shape_same, _shape_unary, _true_div, cpu_flags


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
# oneDNN's exp, as its AVX2 eltwise injector computes it in MXNet 1.9.1's bundled oneDNN: x = n ln2 + r,
# exp(r) by a degree-5 polynomial (fused multiply-adds), times 2 * 2^(n-1); 0 below ln(FLT_MIN)
def _f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


_ONEDNN_LOG2E, _ONEDNN_LN2 = _f32(0x3fb8aa3b), _f32(0x3f317218)
_ONEDNN_LN_FLT_MAX, _ONEDNN_LN_FLT_MIN = _f32(0x42b17218), _f32(0xc2aeac50)
_ONEDNN_EXP_POLYNOMIAL = tuple(_f32(bits) for bits in (0x3c07cfce, 0x3d2b9d0d, 0x3e2aad40, 0x3efffee3, 0x3f7ffffb,
                                                       0x3f800000))  # x^5 .. x^0
#: oneDNN's vector width in float32 lanes: its softmax sums the axis lane by lane, 8 partial sums with AVX2,
#: 16 with AVX-512 (oneDNN's avx512_core; both measured bit for bit on MXNet; a CPU's flags read on Linux)
_ONEDNN_LANES = 16 if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags() else 8


def _fused_multiply_add(a, b, c):
    """float32 ``a * b + c`` rounded once (the float32 product is exact in float64)."""
    return (a.astype(np.float64) * np.float64(b) + np.float64(c)).astype(np.float32)


def _onednn_exp(x):
    one = np.float32(1)
    below = x < _ONEDNN_LN_FLT_MIN
    x = np.maximum(np.minimum(x, _ONEDNN_LN_FLT_MAX), _ONEDNN_LN_FLT_MIN)
    n = np.floor(x * _ONEDNN_LOG2E + np.float32(0.5))
    r = _fused_multiply_add(n, -_ONEDNN_LN2, x)
    half_scale = ((n - one).astype(np.int32) + 127) << 23  # 2^(n-1) as float32 bits: 2^n may overflow
    half_scale = np.where(below, 0, half_scale).astype(np.int32).view(np.float32)
    y = np.full(x.shape, _ONEDNN_EXP_POLYNOMIAL[0], dtype=np.float32)
    for coefficient in _ONEDNN_EXP_POLYNOMIAL[1:]:
        y = _fused_multiply_add(y, r, coefficient)
    return y * half_scale * np.float32(2)


def _onednn_sigmoid(a):
    """float32 sigmoid as oneDNN's logistic computes it (MXNet's ``Activation`` for float32 of rank 1-5):
    e = exp(-|x|) by oneDNN's exp, y = e / (e + 1), 1 - y for x > 0."""
    e = _onednn_exp(-np.abs(a))
    y = e / (e + np.float32(1))
    return np.where(a > 0, np.float32(1) - y, y)


def _c_float64(fn, c_fn):
    """``fn`` on float64 as C's libm computes it (MXNet's float64 kernels call it): numpy's own float64 loops
    are its SIMD ones on an AVX-512 CPU, a unit in the last place away from libm's on about a quarter of the
    values (measured: exp on 24% of 100,000 normal values with numpy 1.23, 4.7% with numpy 2.4); the finite,
    nonzero results are recomputed by ``c_fn`` (Python's math module: the same libm), one call per value."""
    def c_values(a):
        out = fn(a)
        if out.dtype == np.float64:
            redo = np.isfinite(out) & (out != 0)
            if redo.any():
                out = np.array(out)
                out[redo] = [c_fn(v) for v in a[redo].tolist()]
        return out
    return c_values


_c_exp = _c_float64(np.exp, math.exp)
_c_log = _c_float64(np.log, math.log)

#: glibc's expf (x86-64, the one MXNet's float kernels call): exp(x) = 2^(k/32) * 2^(r/32) with k = round(x * 32 /
#: ln 2), 2^(k/32) from a table of 32 doubles (2^(i/32), the exponent bits of i/32 taken out), a cubic in r, all
#: in double, rounded to float once; the cut-offs where it returns inf and 0
_EXPF_N = 32
_EXPF_TABLE = np.array([int(np.float64(2.0 ** (i / _EXPF_N)).view(np.uint64)) - (i << 47) for i in range(_EXPF_N)],
                       dtype=np.uint64)
_EXPF_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _EXPF_N
_EXPF_SHIFT = float.fromhex("0x1.8p+52")  # adding it rounds a double below 2^51 to a whole number
_EXPF_CUBIC = (float.fromhex("0x1.c6af84b912394p-5") / _EXPF_N ** 3, float.fromhex("0x1.ebfce50fac4f3p-3") / _EXPF_N ** 2,
               float.fromhex("0x1.62e42ff0c52d6p-1") / _EXPF_N)
_EXPF_OVERFLOW, _EXPF_UNDERFLOW = np.float32(float.fromhex("0x1.62e42ep6")), np.float32(float.fromhex("-0x1.9fe368p6"))


def _glibc_expf(x):
    """float32 exp as glibc's expf, bit for bit (measured on 300,015 values against MXNet's ``exp``, the
    overflow and underflow ranges, infinities and NaN included; rounding float64 exp differed on 145)."""
    with np.errstate(over="ignore", invalid="ignore"):  # outside glibc's cut-offs the values are replaced
        z = x.astype(np.float64)
        z *= _EXPF_INVLN2N
        kd = z + _EXPF_SHIFT
        k = kd.view(np.uint64)  # k = round(x * 32 / ln 2) in its low bits
        scale = _EXPF_TABLE[k & np.uint64(_EXPF_N - 1)]
        scale += k << np.uint64(47)
        kd -= _EXPF_SHIFT
        z -= kd  # r, in [-1/2, 1/2]
        c0, c1, c2 = _EXPF_CUBIC
        y = z * c0
        y += c1
        kd = np.multiply(z, z, out=kd)
        y *= kd
        z *= c2
        z += 1.0
        y += z
        y *= scale.view(np.float64)
        out = y.astype(np.float32)
        if not (np.abs(x) < 88).all():  # glibc's cut-offs; NaN stays NaN
            out[x > _EXPF_OVERFLOW] = np.inf
            out[x < _EXPF_UNDERFLOW] = 0
            out[np.isnan(x)] = np.nan
    return out


#: glibc's logf: log(x) = log1p(z / c - 1) + log(c) + k ln 2 for x = 2^k z, c near the centre of one of 16
#: subintervals of z's range [0x3f330000, 2 * that) (1/c and log(c) tabulated in double), a cubic in r = z / c - 1
_LOGF_INVC = np.array([float.fromhex(v) for v in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([float.fromhex(v) for v in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2", "-0x1.b31d8a68224e9p-3",
    "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3", "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4",
    "-0x1.252f438e10c1ep-5", "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_CUBIC = tuple(float.fromhex(v) for v in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))


def _glibc_logf(x):
    """float32 log as glibc's logf, bit for bit (measured on 300,011 values against MXNet's ``log``,
    subnormals, 0, 1 and infinity included; rounding float64 log differed on 701)."""
    bits = x.view(np.uint32).astype(np.int64)
    subnormal = (bits > 0) & (bits < 0x00800000)
    if subnormal.any():  # scaled by 2^23 into the normal range, the exponent taken back
        bits[subnormal] = (x[subnormal] * np.float32(2.0 ** 23)).view(np.uint32).astype(np.int64) - (23 << 23)
    offset = bits - 0x3F330000
    index = (offset >> 19) & 15
    z = (bits - (offset & 0xFF800000)).astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * _LOGF_INVC[index] - 1.0
    c0, c1, c2 = _LOGF_CUBIC
    square = r * r
    y = (c0 * square + (c1 * r + c2)) * square + ((_LOGF_LOGC[index] + (offset >> 23) * _LOGF_LN2) + r)
    with np.errstate(invalid="ignore"):
        out = y.astype(np.float32)
        out[x == 1] = 0
        out[x == 0] = -np.inf
        out[(x < 0) | np.isnan(x)] = np.nan
        out[x == np.inf] = np.inf
    return out


def _libm_log(a):
    """log as MXNet's kernels compute it: glibc's logf for float32 (and float16, through float), libm's log
    for float64."""
    if a.dtype in (np.float32, np.float16):
        return _glibc_logf(np.asarray(a, dtype=np.float32).reshape(a.shape)).astype(a.dtype, copy=False)
    return _c_log(a) if a.dtype == np.float64 else np.log(a)


def _libm_exp(a):
    """exp as MXNet's kernels compute it: glibc's expf for float32 (and float16, through float), libm's exp
    for float64."""
    if a.dtype in (np.float32, np.float16):
        return _glibc_expf(np.asarray(a, dtype=np.float32).reshape(a.shape)).astype(a.dtype, copy=False)
    return _c_exp(a) if a.dtype == np.float64 else np.exp(a)


def _rsqrt(a):
    return 1.0 / np.sqrt(a)


def _sigmoid(a):
    """MXNet's own kernel: 1 / (1 + exp(-x)) in the input's precision, exp as libm's."""
    if a.dtype.kind != "f":
        return 1.0 / (1.0 + np.exp(-a))
    one = a.dtype.type(1)
    return one / (one + _libm_exp(-a))


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
    ("exp", _libm_exp), ("log", _libm_log), ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p),
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
    if act == "sigmoid" and a.dtype == np.float32 and 1 <= a.ndim <= 5:  # oneDNN's logistic there too
        return _onednn_sigmoid(a)
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
        if a.dtype == np.float32 and 1 <= a.ndim <= 5:  # oneDNN's elu: alpha * (exp(x) - 1) with its own exp
            return np.where(a > 0, a, np.float32(slope) * (_onednn_exp(np.minimum(a, 0)) - np.float32(1)))
        # MXNet's own kernel: slope * expm1 (C's expm1f: here expm1 in double, rounded)
        return np.where(a > 0, a, slope * np.expm1(a.astype(np.float64))).astype(a.dtype)
    if act == "selu":
        alpha, lam = 1.6732632423543772, 1.0507009873554805
        return (lam * np.where(a > 0, a, alpha * np.expm1(a))).astype(a.dtype)
    if act == "gelu":
        return _gelu(a)
    raise MXNetError("Invalid Input: '%s' for act_type of LeakyReLU" % act)


_GELU_ONE_OVER_SQRT_TWO, _GELU_ERF_P = _f32(0x3f3504f3), _f32(0x3ea7ba05)
_GELU_ERF_POLYNOMIAL = tuple(_f32(bits) for bits in (0x3f87dc22, 0xbfba00e3, 0x3fb5f0e3, 0xbe91a98e, 0x3e827906))


def _gelu(a):
    """``LeakyReLU(act_type="gelu")``: on float32 of rank 1 to 5 oneDNN's gelu_erf, exactly (Abramowitz and
    Stegun's erf: t = 1 / (p|x| + 1), a polynomial in t times oneDNN's exp(-x^2), fused multiply-adds); elsewhere
    MXNet's own kernel, float arithmetic around C's erff (here erf in double, rounded: libm's erff differs on
    rare values, as measured: 2 of 100)."""
    if a.dtype == np.float32 and 1 <= a.ndim <= 5:
        one = np.float32(1)
        x = a * _GELU_ONE_OVER_SQRT_TWO
        t = one / _fused_multiply_add(np.abs(x), _GELU_ERF_P, one)
        polynomial = np.full(a.shape, _GELU_ERF_POLYNOMIAL[0], dtype=np.float32)
        for coefficient in _GELU_ERF_POLYNOMIAL[1:]:
            polynomial = _fused_multiply_add(polynomial, t, coefficient)
        erf = _fused_multiply_add(-_onednn_exp(-(x * x)) * t, polynomial, one)
        erf = np.where(np.signbit(x), -erf, erf)
        half = x * _GELU_ONE_OVER_SQRT_TWO
        return _fused_multiply_add(erf, half, half)
    f = a.astype(np.float32)
    erf = _erf(f / np.float32(math.sqrt(2))).astype(np.float32)
    return (np.float32(0.5) * f * (np.float32(1) + erf)).astype(a.dtype)


register(Op("LeakyReLU", _leaky_relu_kernel, _shape_unary, inputs=("data", "gamma"), optional_inputs=("gamma",),
            params=(P("act_type", ("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), "leaky"), P("slope", "float", 0.25), P("lower_bound", "float", 0.125),
                    P("upper_bound", "float", 0.334))))


def _softmax_np(a, axis, temperature=1.0):
    """softmax in float64 (dtypes whose rounding by MXNet is not reproduced: float16)."""
    z = a.astype(np.float64) / temperature
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _onednn_softmax(a):
    """float32 softmax over the last axis as oneDNN's AVX2 kernel computes it (MXNet 1.9.1 runs it for
    float32 of rank 1-4 on the last axis without a temperature): the max, exp(x - max) by oneDNN's exp, 8
    (AVX2) or 16 (AVX-512) lane-wise running sums folded in halves, one reciprocal, one product per value
    (bit for bit on MXNet; tests/runtime/test_runtime_rounding.py)."""
    e = _onednn_exp(a - a.max(axis=-1, keepdims=True))
    width = a.shape[-1]
    padded = np.zeros(a.shape[:-1] + (-(-width // _ONEDNN_LANES) * _ONEDNN_LANES,), dtype=np.float32)
    padded[..., :width] = e
    lanes = np.add.accumulate(padded.reshape(a.shape[:-1] + (-1, _ONEDNN_LANES)), axis=-2,
                              dtype=np.float32)[..., -1, :]
    while lanes.shape[-1] > 1:  # folded in halves: (l, l + 8) with AVX-512, (l, l + 4), (l, l + 2), (l, l + 1)
        half = lanes.shape[-1] // 2
        lanes = lanes[..., :half] + lanes[..., half:]
    return e * (np.float32(1) / lanes[..., 0])[..., None]


def _own_softmax(a, axis, temperature=None, keep=None):
    """float32/float64 softmax as MXNet 1.9.1's own CPU kernel computes it, in the input's precision: the
    max, exp(x - max) (libm's: glibc's expf for float32), a running sum
    along the axis, one division per value. ``keep``: the positions inside softmax's ``length`` (the others
    are 0). Other dtypes (float16) in float64."""
    if a.dtype not in (np.float32, np.float64):
        return _own_softmax(a.astype(np.float64), axis, temperature, keep).astype(a.dtype)
    if not a.size:
        return a.copy()
    kind = a.dtype.type
    if keep is not None:
        a = np.where(keep, a, -np.inf).astype(a.dtype)
    with np.errstate(invalid="ignore"):  # a row with nothing kept: -inf - -inf
        z = a - a.max(axis=axis, keepdims=True)
    if temperature is not None:
        z = z / kind(temperature)
    with np.errstate(invalid="ignore"):
        e = _libm_exp(z)
    total = np.add.accumulate(e, axis=axis, dtype=a.dtype).take([-1], axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = e / total
    return out if keep is None else np.where(keep & (total > 0), out, kind(0))


def _mxnet_softmax(a, axis, temperature=None):
    """softmax along ``axis`` with MXNet 1.9.1's CPU rounding: oneDNN's kernel for float32 of rank 1-4 on
    the last axis without a temperature (even 1.0), MXNet's own kernel for the rest of float32 and float64
    (measured bit for bit)."""
    if a.dtype == np.float32 and a.size and temperature is None and a.ndim <= 4 and axis % a.ndim == a.ndim - 1:
        return _onednn_softmax(a)
    return _own_softmax(a, axis, temperature)


def _softmax_kernel(inputs, attrs):
    a = inputs[0]
    axis = _softmax_axis(a, attrs)
    if attrs["use_length"] and len(inputs) > 1:
        return _masked_softmax(a, inputs[1], axis, attrs["temperature"])
    return _mxnet_softmax(a, axis, attrs["temperature"])


def _masked_softmax(a, length, axis, temperature):
    """softmax over the first ``length`` entries along ``axis``; the rest (all, for a length of 0) are 0."""
    if length.dtype.kind not in "iu":
        raise MXNetError("This operation only support integer types, not %s" % length.dtype.name)
    axis %= a.ndim
    positions = np.arange(a.shape[axis]).reshape([-1 if i == axis else 1 for i in range(a.ndim)])
    keep = positions < np.expand_dims(length.reshape(a.shape[:axis] + a.shape[axis + 1:]), axis)
    return _own_softmax(a, axis, temperature, keep)


def _log_softmax_kernel(inputs, attrs):
    a = inputs[0]
    _softmax_axis(a, attrs)
    z = a.astype(np.float64) / (attrs["temperature"] or 1.0)
    z = z - z.max(axis=attrs["axis"], keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=attrs["axis"], keepdims=True))).astype(a.dtype)


def _softmin_kernel(inputs, attrs):
    a = inputs[0]  # MXNet's own kernel on -x, never oneDNN's
    return _own_softmax(-a, _softmax_axis(a, attrs), attrs["temperature"])


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
    a = inputs[0]  # MXNet's own kernel, never oneDNN's
    if attrs["mode"] != "channel":
        return _own_softmax(a.reshape(a.shape[0], -1), -1).reshape(a.shape)
    return _own_softmax(a, 1)


register(Op("SoftmaxActivation", _softmax_activation_kernel, _shape_unary, params=(P("mode", ("channel", "instance", "spatial"), "instance"),)))


def _clip_kernel(inputs, attrs):
    a = inputs[0]
    return np.clip(a, attrs["a_min"], attrs["a_max"]).astype(a.dtype)


register(Op("clip", _clip_kernel, _shape_unary, params=(P("a_min", "float"), P("a_max", "float"))))
