"""Op-level suite: for every operator of hylint.runtime's op table, the eager result (``nd.<op>``), the
graph result (``sym.<op>`` bound and evaluated) and a plain NumPy reference agree, over generated
shapes and values. Each reference is written here independently of the runtime's kernels."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hylint.runtime import ndarray as nd
from hylint.runtime import operator, ops
from hylint.runtime import symbol as sym

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True,  # reproducible in CI
                    suppress_health_check=[HealthCheck.too_slow])
F32 = np.float32


# ------------------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------------------
def shapes(min_dims=1, max_dims=3, min_side=1, max_side=4):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def floats(shape, lo=-3.0, hi=3.0):
    lo, hi = float(np.float32(lo)), float(np.float32(hi))  # bounds representable in float32
    return hnp.arrays(F32, shape, elements=st.floats(lo, hi, width=32, allow_nan=False))


class Case:
    """One op spec: ``draw(data) -> (arrays, attrs)`` and ``reference(*arrays, **attrs)``."""

    def __init__(self, draw, reference, rtol=1e-5, atol=1e-5, check="values"):
        self.draw, self.reference, self.rtol, self.atol, self.check = draw, reference, rtol, atol, check


def unary(lo=-3.0, hi=3.0):
    def draw(data):
        return [data.draw(floats(data.draw(shapes()), lo, hi))], {}
    return draw


def same_shape_pair(lo=-3.0, hi=3.0, rhs_lo=None, rhs_hi=None):
    def draw(data):
        shape = data.draw(shapes())
        return [data.draw(floats(shape, lo, hi)), data.draw(floats(shape, rhs_lo if rhs_lo is not None else lo,
                                                                   rhs_hi if rhs_hi is not None else hi))], {}
    return draw


def broadcast_pair(lo=-3.0, hi=3.0, rhs_lo=None, rhs_hi=None):
    def draw(data):
        shape = data.draw(shapes(min_dims=1, max_dims=3))
        other = tuple(1 if data.draw(st.booleans()) else d for d in shape)
        if data.draw(st.booleans()):
            other = other[data.draw(st.integers(0, len(other) - 1)):]  # rank may differ (left-padded)
        if data.draw(st.booleans()):
            shape, other = other, shape
        lhs = data.draw(floats(shape, lo, hi))
        rhs = data.draw(floats(other, rhs_lo if rhs_lo is not None else lo, rhs_hi if rhs_hi is not None else hi))
        return [lhs, rhs], {}
    return draw


def with_scalar(lo=-3.0, hi=3.0, s_lo=-3.0, s_hi=3.0):
    def draw(data):
        arr = data.draw(floats(data.draw(shapes()), lo, hi))
        scalar = data.draw(st.floats(s_lo, s_hi, allow_nan=False).map(lambda v: float(np.float32(round(v, 3)))))
        return [arr], {"scalar": scalar}
    return draw


def f64(fn):
    return lambda *arrays, **attrs: fn(*[a.astype(np.float64) for a in arrays], **attrs)


# ------------------------------------------------------------------------------------------------
# references
# ------------------------------------------------------------------------------------------------
def ref_round(a):
    return np.where(a >= 0, np.floor(a + 0.5), np.ceil(a - 0.5))


def ref_softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_erf(a):
    return np.vectorize(math.erf)(a) if a.size else a


UNARY_REFS = {
    "exp": (np.exp, -3, 3), "log": (np.log, 0.1, 5), "log2": (np.log2, 0.1, 5), "log10": (np.log10, 0.1, 5),
    "log1p": (np.log1p, -0.5, 5), "expm1": (np.expm1, -3, 3), "sqrt": (np.sqrt, 0, 5),
    "rsqrt": (lambda a: a ** -0.5, 0.1, 5), "cbrt": (lambda a: np.sign(a) * np.abs(a) ** (1 / 3), -5, 5),
    "square": (lambda a: a * a, -3, 3), "abs": (lambda a: np.where(a < 0, -a, a), -3, 3),
    "sign": (lambda a: (a > 0).astype(float) - (a < 0), -3, 3), "round": (ref_round, -3, 3),
    "rint": (lambda a: np.ceil(a - 0.5), -3, 3), "floor": (lambda a: a - np.mod(a, 1), -3, 3), "ceil": (lambda a: -np.floor(-a), -3, 3),
    "trunc": (lambda a: np.sign(a) * np.floor(np.abs(a)), -3, 3), "fix": (lambda a: np.sign(a) * np.floor(np.abs(a)), -3, 3),
    "negative": (lambda a: -a, -3, 3), "reciprocal": (lambda a: 1 / a, 0.1, 3), "sin": (np.sin, -3, 3),
    "cos": (np.cos, -3, 3), "tan": (np.tan, -1, 1), "arcsin": (np.arcsin, -0.99, 0.99),
    "arccos": (np.arccos, -0.99, 0.99), "arctan": (np.arctan, -3, 3), "sinh": (np.sinh, -3, 3),
    "cosh": (np.cosh, -3, 3), "tanh": (lambda a: (np.exp(2 * a) - 1) / (np.exp(2 * a) + 1), -3, 3),
    "arcsinh": (np.arcsinh, -3, 3), "arccosh": (np.arccosh, 1, 4), "arctanh": (np.arctanh, -0.9, 0.9),
    "relu": (lambda a: a * (a > 0), -3, 3), "sigmoid": (lambda a: np.exp(a) / (1 + np.exp(a)), -3, 3),
    "softsign": (lambda a: a / (1 + np.abs(a)), -3, 3), "erf": (ref_erf, -2, 2),
    "logical_not": (lambda a: (a == 0).astype(float), -1, 1), "degrees": (lambda a: a * 180 / np.pi, -3, 3),
    "radians": (lambda a: a * np.pi / 180, -3, 3),
    "identity": (lambda a: a, -3, 3), "stop_gradient": (lambda a: a, -3, 3), "make_loss": (lambda a: a, -3, 3),
    "zeros_like": (lambda a: 0 * a, -3, 3), "ones_like": (lambda a: 0 * a + 1, -3, 3),
}

BINARY_REFS = {
    "add": (np.add, None), "sub": (np.subtract, None), "mul": (np.multiply, None),
    "div": (np.divide, (0.5, 3.0)), "mod": (lambda a, b: a - np.floor(a / b) * b, (0.5, 3.0)),
    "power": (np.power, "pos"), "maximum": (np.maximum, None), "minimum": (np.minimum, None),
    "hypot": (lambda a, b: np.sqrt(a * a + b * b), None),
    "equal": (lambda a, b: (a == b) * 1.0, "int"), "not_equal": (lambda a, b: (a != b) * 1.0, "int"),
    "greater": (lambda a, b: (a > b) * 1.0, "int"), "greater_equal": (lambda a, b: (a >= b) * 1.0, "int"),
    "lesser": (lambda a, b: (a < b) * 1.0, "int"), "lesser_equal": (lambda a, b: (a <= b) * 1.0, "int"),
    "logical_and": (lambda a, b: ((a != 0) & (b != 0)) * 1.0, "int"),
    "logical_or": (lambda a, b: ((a != 0) | (b != 0)) * 1.0, "int"),
    "logical_xor": (lambda a, b: ((a != 0) ^ (b != 0)) * 1.0, "int"),
}


def _binary_draw(drawer, domain):
    if domain is None:
        return drawer()
    if domain == "pos":
        return drawer(0.1, 3.0, -2.0, 2.0)
    if domain == "int":  # small integers so that equality happens
        def draw(data):
            arrays, attrs = drawer(-2.0, 2.0)(data)
            return [np.round(a) for a in arrays], attrs
        return draw
    return drawer(-3.0, 3.0, *domain)


SCALAR_REFS = {
    "_plus_scalar": lambda a, s: a + s, "_minus_scalar": lambda a, s: a - s, "_rminus_scalar": lambda a, s: s - a,
    "_mul_scalar": lambda a, s: a * s, "_div_scalar": lambda a, s: a / s, "_rdiv_scalar": lambda a, s: s / a,
    "_mod_scalar": lambda a, s: a - np.floor(a / s) * s, "_rmod_scalar": lambda a, s: s - np.floor(s / a) * a,
    "_power_scalar": lambda a, s: a ** s, "_rpower_scalar": lambda a, s: s ** a,
    "_maximum_scalar": np.maximum, "_minimum_scalar": np.minimum, "_hypot_scalar": lambda a, s: np.sqrt(a * a + s * s),
    "_equal_scalar": lambda a, s: (a == s) * 1.0, "_not_equal_scalar": lambda a, s: (a != s) * 1.0,
    "_greater_scalar": lambda a, s: (a > s) * 1.0, "_greater_equal_scalar": lambda a, s: (a >= s) * 1.0,
    "_lesser_scalar": lambda a, s: (a < s) * 1.0, "_lesser_equal_scalar": lambda a, s: (a <= s) * 1.0,
    "_logical_and_scalar": lambda a, s: ((a != 0) & (s != 0)) * 1.0,
    "_logical_or_scalar": lambda a, s: ((a != 0) | (s != 0)) * 1.0,
    "_logical_xor_scalar": lambda a, s: ((a != 0) ^ (s != 0)) * 1.0,
}
SCALAR_DOMAINS = {"_div_scalar": (-3, 3, 0.5, 3), "_rdiv_scalar": (0.5, 3, -3, 3), "_mod_scalar": (-3, 3, 0.5, 3),
                  "_rmod_scalar": (0.5, 3, -3, 3), "_power_scalar": (0.1, 3, -2, 2), "_rpower_scalar": (-2, 2, 0.5, 3)}

CASES = {}
def quantized(lo, hi):
    """Values on a 0.25 grid, so that ties (x.5, 0) are drawn for the rounding family."""
    def draw(data):
        arrays, attrs = unary(lo, hi)(data)
        return [np.round(a * 4) / 4 for a in arrays], attrs
    return draw


ROUNDING = {"round", "rint", "floor", "ceil", "trunc", "fix", "sign", "abs", "relu", "logical_not"}
for _name, (_fn, _lo, _hi) in UNARY_REFS.items():
    CASES[_name] = Case((quantized if _name in ROUNDING else unary)(_lo, _hi), f64(_fn), rtol=2e-5, atol=2e-5)
for _key, (_fn, _domain) in BINARY_REFS.items():
    _ew = ops.OPS["broadcast_" + _key]
    CASES["broadcast_" + _key] = Case(_binary_draw(broadcast_pair, _domain), f64(_fn), rtol=2e-5, atol=2e-5)
    _elemwise_name = [n for n, o in ops.OPS.items() if o.infer_shape is ops.common._shape_same and o.inputs == ("lhs", "rhs")
                      and o.kernel.__closure__ and o.kernel.__closure__[0].cell_contents is ops.math._BINARY[_key]][0]
    CASES[ops.OPS[_elemwise_name].name] = Case(_binary_draw(same_shape_pair, _domain), f64(_fn), rtol=2e-5, atol=2e-5)
for _name, _fn in SCALAR_REFS.items():
    _lo, _hi, _slo, _shi = SCALAR_DOMAINS.get(_name, (-3, 3, -3, 3))
    CASES[_name] = Case(with_scalar(_lo, _hi, _slo, _shi), f64(lambda a, scalar, _fn=_fn: _fn(a, scalar)),
                        rtol=2e-5, atol=2e-5)


def case(name, **kw):
    def register(fn):
        CASES[name] = Case(fn, kw.pop("ref"), **kw)
        return fn
    return register


# --- reductions and sorting ---------------------------------------------------------------------
def draw_axis(data, ndim):
    choice = data.draw(st.sampled_from(["none", "int", "tuple"]))
    if choice == "none":
        return None
    if choice == "int":
        return data.draw(st.integers(-ndim, ndim - 1))
    return tuple(sorted(set(data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim)))))


def reduce_draw(lo=-3.0, hi=3.0):
    def draw(data):
        a = data.draw(floats(data.draw(shapes()), lo, hi))
        return [a], {"axis": draw_axis(data, a.ndim), "keepdims": data.draw(st.booleans())}
    return draw


def ref_reduce(fn):
    def ref(a, axis, keepdims):
        r = fn(a, axis=axis, keepdims=keepdims)
        return np.asarray(r).reshape(-1) if np.ndim(r) == 0 else r
    return f64(ref)


for _name, _fn in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("nansum", np.nansum)]:
    CASES[_name] = Case(reduce_draw(), ref_reduce(_fn), rtol=1e-4, atol=1e-4)
for _name, _fn in [("prod", np.prod), ("nanprod", np.nanprod)]:
    CASES[_name] = Case(reduce_draw(0.5, 1.5), ref_reduce(_fn), rtol=1e-4, atol=1e-4)
CASES["norm"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {}),
                     f64(lambda a: np.array([np.sqrt((a * a).sum())])), rtol=1e-4, atol=1e-4)


@case("argmax", ref=lambda a, axis: np.argmax(a, axis=axis).astype(F32))
def _argmax(data):
    a = data.draw(hnp.arrays(F32, data.draw(shapes(min_dims=2)), elements=st.sampled_from([-1.0, 0.5, 2.0, 3.5]),
                             unique=False))
    a = a + np.arange(a.size, dtype=F32).reshape(a.shape) * 1e-3  # no ties
    return [a], {"axis": data.draw(st.integers(0, a.ndim - 1))}


CASES["argmin"] = Case(_argmax, lambda a, axis: np.argmin(a, axis=axis).astype(F32))


def _distinct_draw(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    values = np.random.RandomState(data.draw(st.integers(0, 10 ** 6))).permutation(int(np.prod(shape)))
    return values.reshape(shape).astype(F32)


@case("sort", ref=lambda a, axis, is_ascend: np.sort(a, axis=axis) if is_ascend else -np.sort(-a, axis=axis))
def _sort(data):
    a = _distinct_draw(data)
    return [a], {"axis": data.draw(st.integers(-a.ndim, a.ndim - 1)), "is_ascend": data.draw(st.booleans())}


CASES["argsort"] = Case(_sort, lambda a, axis, is_ascend: np.argsort(a if is_ascend else -a, axis=axis).astype(F32))


@case("topk", ref=lambda a, axis, k, ret_typ: np.take(np.argsort(-a, axis=axis), np.arange(k), axis=axis).astype(F32))
def _topk(data):
    a = _distinct_draw(data)
    axis = data.draw(st.integers(0, a.ndim - 1))
    return [a], {"axis": axis, "k": data.draw(st.integers(1, a.shape[axis])), "ret_typ": "indices"}


# --- shape manipulation ---------------------------------------------------------------------
RESHAPE_EXAMPLES = [  # (input shape, shape codes, reverse, expected) from MXNet's Reshape documentation
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)), ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)), ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)), ((2, 3, 4), (-2,), False, (2, 3, 4)), ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)), ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)), ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)), ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)), ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)), ((3, 4, 5), (-1, 0), True, (12, 5)), ((3, 4, 5), (-4, 1, -1, 0, 0), False, (1, 3, 4, 5)),
    ((3, 4, 5), (0, 0, -4, -1, 5), False, (3, 4, 1, 5)),
]


@pytest.mark.parametrize("src, codes, reverse, expected", RESHAPE_EXAMPLES)
def test_reshape_codes_documented_examples(src, codes, reverse, expected):
    x = nd.array(np.arange(int(np.prod(src))).reshape(src))
    eager = nd.reshape(x, shape=codes, reverse=reverse)
    graph = sym.reshape(sym.var("a"), shape=codes, reverse=reverse)
    assert eager.shape == expected
    assert graph.infer_shape(a=src)[1] == [expected]
    np.testing.assert_array_equal(graph.eval(a=x)[0].asnumpy(), np.arange(int(np.prod(src))).reshape(expected))


#: Reshape's positional parameters are (shape, reverse, target_shape, keep_highest), the last two deprecated but
#: still parsed: a Symbol's ``x.reshape(0, 0, 2, -1)`` (and ``nd.reshape(x, 0, 0, 2, -1)``) binds -1 to
#: keep_highest and fails at parsing; NDArray's method takes the codes as varargs. (call, data shape,
#: output shape or (error type, message up to the attribute list)), measured on MXNet 1.9.1
RESHAPE_POSITIONAL = [
    ("method", (0, 0, 2, -1), {}, (2, 3, 2, 2)),
    ("sym_method", (0, 0, 2, -1), {}, ("MXNetError", "Invalid Parameter format for keep_highest expect boolean but "
                                               "value='-1', in operator Reshape")),
    ("sym_function", (0, 0, 2, -1), {}, ("MXNetError", "Invalid Parameter format for keep_highest expect boolean "
                                                 "but value='-1', in operator Reshape")),
    ("nd_function", (0, 0, 2, -1), {}, ("MXNetError", "Invalid Parameter format for keep_highest expect boolean but "
                                                "value='-1', in operator Reshape")),
    ("sym_method", (2, -1), {}, ("MXNetError", "Invalid Parameter format for reverse expect boolean but value='-1', "
                                         "in operator Reshape")),
    ("sym_method", (0, 0, 2), {}, (2,)),   # shape (0,); target_shape is read only without a shape
    ("sym_method", (0, 1, 2), {}, (4,)),   # reverse=1 copies the last dim
    ("sym_method", (0, 0, 1, 1, 1), {}, ("AttributeError", "'int' object has no attribute 'encode'")),  # name=1
    ("sym_function", (), {"target_shape": (0, 4)}, (6, 4)),
    ("nd_function", (), {"target_shape": (0, 4)}, (6, 4)),
    ("nd_function", (), {"target_shape": (2, 0), "keep_highest": True}, (2, 12)),
    ("nd_function", (), {"target_shape": (5, 0, 4), "keep_highest": True}, (2, 3, 4)),
    ("sym_function", (), {"target_shape": (0, 0)}, (0, 0)),  # two 0s: none inferred (eagerly, MXNet's engine fails later)
]


def _positional_reshape(namespace, how, args, kwargs):
    """What the call gives: the output shape, or (error type name, message up to the attribute list)."""
    try:
        if how == "method":
            return namespace.ones((2, 3, 4)).reshape(*args, **kwargs).shape
        if how == "nd_function":
            return namespace.reshape(namespace.ones((2, 3, 4)), *args, **kwargs).shape
        x = namespace.var("x")
        out = x.reshape(*args, **kwargs) if how == "sym_method" else namespace.reshape(x, *args, **kwargs)
        return tuple(out.infer_shape(x=(2, 3, 4))[1][0])
    except Exception as err:  # noqa: BLE001 - the error is the outcome compared
        text = str(err).strip().splitlines()[-1]
        text = text[len("MXNetError: "):] if text.startswith("MXNetError: ") else text
        return type(err).__name__, text.split("(name=")[0]


@pytest.mark.parametrize("how, args, kwargs, expected", RESHAPE_POSITIONAL)
def test_reshape_positional_parameters_as_measured_on_mxnet(how, args, kwargs, expected):
    assert _positional_reshape(nd if how in ("method", "nd_function") else sym, how, args, kwargs) == expected


@pytest.mark.mxnet
@pytest.mark.parametrize("how, args, kwargs, expected", RESHAPE_POSITIONAL)
def test_reshape_positional_parameters_equal_mxnet(how, args, kwargs, expected):
    real = _real_mxnet()
    space = real.nd if how in ("method", "nd_function") else real.sym
    assert _positional_reshape(space, how, args, kwargs) == expected


@case("Reshape", ref=lambda a, shape, reverse: a.reshape(tuple(int(np.prod(a.shape)) // -np.prod(shape) if d == -1 else d
                                                                for d in shape)))
def _reshape(data):
    a = data.draw(floats(data.draw(shapes())))
    dims = [d for d in range(1, a.size + 1) if a.size % d == 0]
    first = data.draw(st.sampled_from(dims))
    return [a], {"shape": (first, -1), "reverse": False}


CASES["reshape_like"] = Case(lambda data: (lambda a: ([a, data.draw(floats((a.size,)))], {}))(
    data.draw(floats(data.draw(shapes())))), lambda a, b: a.reshape(b.shape))
CASES["Flatten"] = Case(unary(), lambda a: a.reshape(a.shape[0], -1))


@case("transpose", ref=lambda a, axes: np.transpose(a, axes))
def _transpose(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"axes": tuple(data.draw(st.permutations(range(a.ndim))))}


@case("SwapAxis", ref=lambda a, dim1, dim2: np.swapaxes(a, dim1, dim2))
def _swap(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"dim1": data.draw(st.integers(0, a.ndim - 1)), "dim2": data.draw(st.integers(0, a.ndim - 1))}


@case("expand_dims", ref=lambda a, axis: np.expand_dims(a, axis))
def _expand(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"axis": data.draw(st.integers(-a.ndim - 1, a.ndim))}


@case("squeeze", ref=lambda a, axis: (lambda r: r.reshape(1) if r.ndim == 0 else r)(np.squeeze(a, axis)))
def _squeeze(data):
    shape = data.draw(shapes(max_dims=4, min_side=1, max_side=2))
    a = data.draw(floats(shape))
    ones = tuple(i for i, d in enumerate(shape) if d == 1)
    return [a], {"axis": ones if ones and data.draw(st.booleans()) else None}


def _list_of_same(data, n_min=1, n_max=3):
    shape = data.draw(shapes())
    return [data.draw(floats(shape)) for _ in range(data.draw(st.integers(n_min, n_max)))]


@case("Concat", ref=lambda *arrays, dim: np.concatenate(arrays, axis=dim))
def _concat(data):
    arrays = _list_of_same(data)
    return arrays, {"dim": data.draw(st.integers(0, arrays[0].ndim - 1))}


@case("stack", ref=lambda *arrays, axis: np.stack(arrays, axis=axis))
def _stack(data):
    arrays = _list_of_same(data)
    return arrays, {"axis": data.draw(st.integers(0, arrays[0].ndim))}


CASES["add_n"] = Case(lambda data: (_list_of_same(data), {}), lambda *arrays: sum(a.astype(np.float64) for a in arrays))


@case("SliceChannel", ref=lambda a, num_outputs, axis, squeeze_axis: [
    np.squeeze(p, axis) if squeeze_axis else p for p in np.array_split(a, num_outputs, axis=axis)])
def _split(data):
    shape = list(data.draw(shapes(min_dims=2)))
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = data.draw(st.integers(1, 3))
    squeeze = data.draw(st.booleans())
    shape[axis] = n if squeeze else n * data.draw(st.integers(1, 2))
    return [data.draw(floats(tuple(shape)))], {"num_outputs": n, "axis": axis, "squeeze_axis": squeeze}


@case("slice", ref=lambda a, begin, end, step: a[tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))])
def _slice(data):
    a = data.draw(floats(data.draw(shapes(min_side=2))))
    k = data.draw(st.integers(1, a.ndim))
    begin, end, step = [], [], []
    for d in a.shape[:k]:
        b = data.draw(st.integers(0, d - 1))
        begin.append(b)
        end.append(data.draw(st.integers(b + 1, d)))
        step.append(1)
    return [a], {"begin": tuple(begin), "end": tuple(end), "step": tuple(step)}


@case("slice_axis", ref=lambda a, axis, begin, end: np.take(a, range(begin, end), axis=axis))
def _slice_axis(data):
    a = data.draw(floats(data.draw(shapes())))
    axis = data.draw(st.integers(0, a.ndim - 1))
    b = data.draw(st.integers(0, a.shape[axis] - 1))
    return [a], {"axis": axis, "begin": b, "end": data.draw(st.integers(b + 1, a.shape[axis]))}


CASES["slice_like"] = Case(lambda data: (lambda a: ([a, data.draw(floats(tuple(max(1, d - 1) for d in a.shape)))], {}))(
    data.draw(floats(data.draw(shapes())))), lambda a, b: a[tuple(slice(0, d) for d in b.shape)])


@case("take", ref=lambda a, idx, axis: np.take(a, np.clip(idx.astype(int), 0, a.shape[axis] - 1), axis=axis))
def _take(data):
    a = data.draw(floats(data.draw(shapes())))
    axis = data.draw(st.integers(0, a.ndim - 1))
    idx = data.draw(hnp.arrays(F32, data.draw(shapes(max_dims=2)), elements=st.integers(-1, a.shape[axis]).map(float)))
    return [a, idx], {"axis": axis}


@case("pick", ref=lambda a, idx, axis: np.take_along_axis(a, np.expand_dims(idx.astype(int), axis), axis).squeeze(axis)
      if a.ndim > 1 else np.take_along_axis(a, idx.astype(int), 0))
def _pick(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2))))
    axis = data.draw(st.integers(0, a.ndim - 1))
    idx_shape = tuple(d for i, d in enumerate(a.shape) if i != axis)
    idx = data.draw(hnp.arrays(F32, idx_shape, elements=st.integers(0, a.shape[axis] - 1).map(float)))
    return [a, idx], {"axis": axis}


@case("where", ref=lambda c, x, y: np.where(c != 0, x, y))
def _where(data):
    shape = data.draw(shapes())
    cond = data.draw(hnp.arrays(F32, shape, elements=st.sampled_from([0.0, 1.0, -2.0])))
    return [cond, data.draw(floats(shape)), data.draw(floats(shape))], {}


CASES["clip"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {"a_min": -1.0, "a_max": 1.5}),
                     lambda a, a_min, a_max: np.minimum(np.maximum(a, a_min), a_max))


@case("tile", ref=lambda a, reps: np.tile(a, reps))
def _tile(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"reps": tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))}


@case("repeat", ref=lambda a, repeats, axis: np.repeat(a, repeats, axis=axis))
def _repeat(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"repeats": data.draw(st.integers(1, 3)), "axis": data.draw(st.one_of(st.none(), st.integers(0, a.ndim - 1)))}


@case("reverse", ref=lambda a, axis: a[tuple(slice(None, None, -1) if i in axis else slice(None) for i in range(a.ndim))])
def _reverse(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"axis": (data.draw(st.integers(0, a.ndim - 1)),)}


@case("broadcast_to", ref=lambda a, shape: a * np.ones(shape))
def _broadcast_to(data):
    shape = data.draw(shapes())
    src = tuple(1 if data.draw(st.booleans()) else d for d in shape)
    return [data.draw(floats(src))], {"shape": shape}


CASES["broadcast_like"] = Case(lambda data: (lambda shape: ([data.draw(floats(tuple(1 for _ in shape))),
                                                            data.draw(floats(shape))], {}))(data.draw(shapes())),
                               lambda a, b: a * np.ones(b.shape))


@case("broadcast_axis", ref=lambda a, axis, size: a * np.ones(tuple(size[axis.index(i)] if i in axis else d
                                                                       for i, d in enumerate(a.shape))))
def _broadcast_axis(data):
    shape = list(data.draw(shapes(min_dims=2)))
    axis = data.draw(st.integers(0, len(shape) - 1))
    shape[axis] = 1
    return [data.draw(floats(tuple(shape)))], {"axis": (axis,), "size": (data.draw(st.integers(1, 3)),)}


CASES["diag"] = Case(lambda data: ([data.draw(floats(data.draw(shapes(min_dims=1, max_dims=2))))], {}),
                     lambda a: np.diag(a))


@case("one_hot", ref=lambda idx, depth: (idx.astype(int)[..., None] == np.arange(depth)) * 1.0)
def _one_hot(data):
    depth = data.draw(st.integers(1, 4))
    return [data.draw(hnp.arrays(F32, data.draw(shapes(max_dims=2)), elements=st.integers(0, depth - 1).map(float)))], \
        {"depth": depth}


CASES["Cast"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {"dtype": "float64"}),
                     lambda a, dtype: a.astype(dtype))
CASES["shape_array"] = Case(unary(), lambda a: np.array(a.shape))


def _amp_multicast_draw(data):
    # float32 and int32: MXNet's CPU kernel (oneDNN) fails at run time on float16, float64 and int64
    # (tests/runtime/test_runtime_boxes.py checks the types and that failure)
    arrays = [data.draw(floats(data.draw(shapes()))).astype(data.draw(st.sampled_from([np.float32, np.int32])))
              for _ in range(data.draw(st.integers(1, 3)))]
    return arrays, {"num_outputs": len(arrays), "cast_narrow": data.draw(st.booleans())}


def ref_amp_multicast(*arrays, num_outputs, cast_narrow):
    return list(arrays)  # float32 stays float32 either way; int32 is never cast


CASES["amp_multicast"] = Case(_amp_multicast_draw, ref_amp_multicast)
CASES["size_array"] = Case(unary(), lambda a: np.array([a.size]))


def register_scaled_row_sum(mx_operator):
    """A Python custom operator, the sums along the last axis times a keyword argument, registered in
    ``mx_operator`` (the runtime's ``mxnet.operator``, or real MXNet's)."""
    class ScaledRowSum(mx_operator.CustomOp):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0].sum(axis=-1) * self.scale)

    class ScaledRowSumProp(mx_operator.CustomOpProp):
        def __init__(self, scale):
            super().__init__(need_top_grad=True)
            self.scale = float(scale)  # the call's keyword arguments arrive as strings

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0][:-1]], []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return ScaledRowSum(self.scale)

    mx_operator.register("hylint_test_scaled_row_sum")(ScaledRowSumProp)


register_scaled_row_sum(operator)


CASES["Custom"] = Case(lambda data: ([data.draw(floats(data.draw(shapes(min_dims=2))))],
                                     {"op_type": "hylint_test_scaled_row_sum", "scale": 2.5}),
                       lambda a, op_type, scale: a.astype(np.float64).sum(axis=-1) * scale)


@case("_contrib_arange_like", ref=lambda a, axis: np.arange(a.shape[axis], dtype=np.float64))
def _arange_like(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"axis": data.draw(st.integers(0, a.ndim - 1))}


@case("depth_to_space", ref=lambda a, block_size: np.concatenate([np.concatenate(
    [a[:, (i * block_size + j) * (a.shape[1] // block_size ** 2):(i * block_size + j + 1) * (a.shape[1] // block_size ** 2)]
     [:, :, :, None, :, None].repeat(1, 3) for j in range(block_size)], axis=5)
    for i in range(block_size)], axis=3).reshape(a.shape[0], a.shape[1] // block_size ** 2, a.shape[2] * block_size,
                                                 a.shape[3] * block_size))
def _d2s(data):
    b = data.draw(st.integers(1, 2))
    shape = (data.draw(st.integers(1, 2)), b * b * data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)),
             data.draw(st.integers(1, 3)))
    return [data.draw(floats(shape))], {"block_size": b}


@case("space_to_depth", ref=lambda a, block_size: np.concatenate(
    [a[:, :, i::block_size, j::block_size] for i in range(block_size) for j in range(block_size)], axis=1))
def _s2d(data):
    b = data.draw(st.integers(1, 2))
    shape = (1, data.draw(st.integers(1, 2)), b * data.draw(st.integers(1, 2)), b * data.draw(st.integers(1, 2)))
    return [data.draw(floats(shape))], {"block_size": b}


# --- creation ---------------------------------------------------------------------------------
CASES["_zeros"] = Case(lambda data: ([], {"shape": data.draw(shapes())}), lambda shape: np.zeros(shape))
CASES["_ones"] = Case(lambda data: ([], {"shape": data.draw(shapes())}), lambda shape: np.ones(shape))
CASES["_full"] = Case(lambda data: ([], {"shape": data.draw(shapes()), "value": 2.5}),
                      lambda shape, value: np.zeros(shape) + value)
CASES["_arange"] = Case(lambda data: ([], {"start": float(data.draw(st.integers(0, 3))),
                                           "stop": float(data.draw(st.integers(4, 9))), "step": 1.0}),
                        lambda start, stop, step: np.array([start + i * step for i in range(int(stop - start))]))
CASES["_eye"] = Case(lambda data: ([], {"N": data.draw(st.integers(1, 4))}), lambda N: np.identity(N))


def _bounds_check(lo, hi):
    def ref(*arrays, **attrs):
        return None  # checked by shape and range in the test
    ref.bounds = (lo, hi)
    return ref


CASES["_random_uniform"] = Case(lambda data: ([], {"shape": data.draw(shapes()), "low": -1.0, "high": 2.0}),
                                _bounds_check(-1.0, 2.0), check="bounds")
CASES["_random_normal"] = Case(lambda data: ([], {"shape": data.draw(shapes())}), _bounds_check(-10, 10), check="bounds")
CASES["_random_uniform_like"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {"low": 0.0, "high": 0.5}),
                                     _bounds_check(0.0, 0.5), check="bounds")
CASES["_random_normal_like"] = Case(unary(), _bounds_check(-10, 10), check="bounds")
CASES["_sample_multinomial"] = Case(
    lambda data: ([np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=F32)], {}), lambda p: np.array([1, 2]))
CASES["Dropout"] = Case(unary(), lambda a: a)  # inference mode: identity
CASES["_shuffle"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {}), lambda a: a, check="rows")


# --- layers -------------------------------------------------------------------------------------
@case("dot", ref=lambda a, b, transpose_a, transpose_b: (a.T if transpose_a else a) @ (b.T if transpose_b else b))
def _dot(data):
    m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    a = data.draw(floats((k, m) if ta else (m, k)))
    b = data.draw(floats((n, k) if tb else (k, n)))
    return [a, b], {"transpose_a": ta, "transpose_b": tb}


@case("batch_dot", ref=lambda a, b, transpose_a, transpose_b: np.einsum(
    "bij,bjk->bik", a.transpose(0, 2, 1) if transpose_a else a, b.transpose(0, 2, 1) if transpose_b else b))
def _batch_dot(data):
    bsz, m, k, n = (data.draw(st.integers(1, 3)) for _ in range(4))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    a = data.draw(floats((bsz, k, m) if ta else (bsz, m, k)))
    b = data.draw(floats((bsz, n, k) if tb else (bsz, k, n)))
    return [a, b], {"transpose_a": ta, "transpose_b": tb}


@case("FullyConnected", ref=lambda x, w, b, num_hidden, flatten: x.reshape(x.shape[0], -1) @ w.T + b)
def _fc(data):
    x = data.draw(floats(data.draw(shapes(min_dims=2))))
    n = data.draw(st.integers(1, 4))
    k = int(np.prod(x.shape[1:]))
    return [x, data.draw(floats((n, k))), data.draw(floats((n,)))], {"num_hidden": n, "flatten": True}


def ref_conv(x, w, b, kernel, stride, pad, num_filter):
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_sizes = [(xp.shape[2 + i] - kernel[i]) // stride[i] + 1 for i in range(len(kernel))]
    out = np.zeros((x.shape[0], num_filter) + tuple(out_sizes))
    for pos in np.ndindex(*out_sizes):
        window = xp[(slice(None), slice(None)) + tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, stride, kernel))]
        out[(slice(None), slice(None)) + pos] = np.tensordot(window, w, axes=(list(range(1, window.ndim)),
                                                                              list(range(1, w.ndim))))
    return out + b.reshape((1, -1) + (1,) * len(kernel))


@case("Convolution", ref=ref_conv, rtol=1e-4, atol=1e-4)
def _conv(data):
    nd_ = data.draw(st.integers(1, 2))
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(nd_))
    stride = tuple(data.draw(st.integers(1, 2)) for _ in range(nd_))
    pad = tuple(data.draw(st.integers(0, 1)) for _ in range(nd_))
    c, f = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    spatial = tuple(k + data.draw(st.integers(0, 3)) for k in kernel)
    x = data.draw(floats((data.draw(st.integers(1, 2)), c) + spatial))
    return [x, data.draw(floats((f, c) + kernel)), data.draw(floats((f,)))], \
        {"kernel": kernel, "stride": stride, "pad": pad, "num_filter": f}


def ref_pool(x, kernel, stride, pool_type):
    out_sizes = [(x.shape[2 + i] - kernel[i]) // stride[i] + 1 for i in range(len(kernel))]
    out = np.zeros(x.shape[:2] + tuple(out_sizes))
    for pos in np.ndindex(*out_sizes):
        window = x[(slice(None), slice(None)) + tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, stride, kernel))]
        flat = window.reshape(x.shape[0], x.shape[1], -1)
        out[(slice(None), slice(None)) + pos] = flat.max(-1) if pool_type == "max" else flat.mean(-1)
    return out


@case("Pooling", ref=ref_pool)
def _pool(data):
    nd_ = data.draw(st.integers(1, 2))
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(nd_))
    stride = tuple(data.draw(st.integers(1, 2)) for _ in range(nd_))
    spatial = tuple(k + data.draw(st.integers(0, 3)) for k in kernel)
    x = data.draw(floats((data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))) + spatial))
    return [x], {"kernel": kernel, "stride": stride, "pool_type": data.draw(st.sampled_from(["max", "avg"]))}


@case("BatchNorm", ref=lambda x, g, b, m, v, eps, fix_gamma: (x - m.reshape(1, -1, *[1] * (x.ndim - 2))) /
      np.sqrt(v.reshape(1, -1, *[1] * (x.ndim - 2)) + eps) * g.reshape(1, -1, *[1] * (x.ndim - 2)) +
      b.reshape(1, -1, *[1] * (x.ndim - 2)), rtol=1e-4, atol=1e-4)
def _bn(data):
    x = data.draw(floats(data.draw(shapes(min_dims=2))))
    c = x.shape[1]
    return [x, data.draw(floats((c,))), data.draw(floats((c,))), data.draw(floats((c,))),
            data.draw(floats((c,), 0.5, 2.0))], {"eps": 1e-3, "fix_gamma": False}


@case("LayerNorm", ref=lambda x, g, b, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
      * g + b, rtol=1e-4, atol=1e-4)
def _ln(data):
    x = data.draw(floats(data.draw(shapes())))
    c = x.shape[-1]
    return [x, data.draw(floats((c,))), data.draw(floats((c,)))], {"eps": 1e-5}


@case("InstanceNorm", ref=lambda x, g, b, eps: (x - x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)) / np.sqrt(
    x.var(axis=tuple(range(2, x.ndim)), keepdims=True) + eps) * g.reshape(1, -1, *[1] * (x.ndim - 2)) +
    b.reshape(1, -1, *[1] * (x.ndim - 2)), rtol=1e-4, atol=1e-4)
def _in(data):
    x = data.draw(floats(data.draw(shapes(min_dims=3))))
    c = x.shape[1]
    return [x, data.draw(floats((c,))), data.draw(floats((c,)))], {"eps": 1e-3}


@case("Embedding", ref=lambda idx, w, input_dim, output_dim: w[idx.astype(int)])
def _emb(data):
    vocab, dim = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 4))
    idx = data.draw(hnp.arrays(F32, data.draw(shapes(max_dims=2)), elements=st.integers(0, vocab - 1).map(float)))
    return [idx, data.draw(floats((vocab, dim)))], {"input_dim": vocab, "output_dim": dim}


ACTS = {"relu": lambda a: np.maximum(a, 0), "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "tanh": np.tanh,
        "softrelu": lambda a: np.log1p(np.exp(a)), "softsign": lambda a: a / (1 + np.abs(a))}


@case("Activation", ref=lambda a, act_type: ACTS[act_type](a), rtol=2e-5, atol=2e-5)
def _act(data):
    return [data.draw(floats(data.draw(shapes())))], {"act_type": data.draw(st.sampled_from(sorted(ACTS)))}


def _softmax_draw(data):
    a = data.draw(floats(data.draw(shapes())))
    return [a], {"axis": data.draw(st.integers(-a.ndim, a.ndim - 1))}


def _softmax_with_length(data):
    """Half of the draws give softmax integer lengths (``use_length``): a mask along the axis."""
    arrays, attrs = _softmax_draw(data)
    if not data.draw(st.booleans()):
        return arrays, attrs
    a = arrays[0]
    # MXNet 1.9.1 reads only -1 as a negative axis when a length is given (other ones fail, see
    # test_softmax_length_with_another_negative_axis_fails_as_in_mxnet)
    axis = data.draw(st.sampled_from([-1] + list(range(a.ndim))))
    attrs = dict(attrs, axis=axis)
    axis %= a.ndim
    rest = tuple(d for i, d in enumerate(a.shape) if i != axis)
    lengths = np.array(data.draw(st.lists(st.integers(0, a.shape[axis]), min_size=int(np.prod(rest)),
                                          max_size=int(np.prod(rest))))).reshape(rest or (1,)).astype(np.int32)
    return [a, lengths], dict(attrs, use_length=True)


def ref_softmax_length(a, *length, axis=-1, use_length=False):
    if not use_length:
        return ref_softmax(a, axis)
    out = np.zeros_like(a)
    axis %= a.ndim
    moved, target = np.moveaxis(a, axis, -1), np.moveaxis(out, axis, -1)
    for idx in np.ndindex(*moved.shape[:-1]):
        n = int(length[0].reshape(moved.shape[:-1])[idx])
        if n:
            target[idx][:n] = ref_softmax(moved[idx][:n])
    return out


CASES["softmax"] = Case(_softmax_with_length, f64(ref_softmax_length), rtol=1e-5, atol=1e-6)
CASES["log_softmax"] = Case(_softmax_draw, f64(lambda a, axis: np.log(ref_softmax(a, axis))), rtol=1e-4, atol=1e-5)
CASES["softmin"] = Case(_softmax_draw, f64(lambda a, axis: ref_softmax(-a, axis)), rtol=1e-5, atol=1e-6)
CASES["SoftmaxActivation"] = Case(lambda data: ([data.draw(floats(data.draw(shapes(min_dims=2, max_dims=2))))], {}),
                                  f64(lambda a: ref_softmax(a, -1)), rtol=1e-5, atol=1e-6)
def ref_rnn(x, params, h0, *cell, state_size, num_layers, mode, state_outputs):
    """One layer, one direction, written from the textbook equations (gates i, f, g, o / r, z, n)."""
    hsz, csz = state_size, x.shape[2]
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    n_w = gates * hsz * csz
    w_x = params[:n_w].reshape(gates * hsz, csz)
    w_h = params[n_w:n_w + gates * hsz * hsz].reshape(gates * hsz, hsz)
    b_x = params[n_w + gates * hsz * hsz:n_w + gates * hsz * hsz + gates * hsz]
    b_h = params[n_w + gates * hsz * hsz + gates * hsz:]
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    h, c, outs = h0[0], (cell[0][0] if cell else None), []
    for t in range(x.shape[0]):
        a, b = w_x @ x[t].T, w_h @ h.T
        a, b = a.T + b_x, b.T + b_h
        if mode == "lstm":
            i, f, g, o = (sigmoid(a[:, :hsz] + b[:, :hsz]), sigmoid(a[:, hsz:2 * hsz] + b[:, hsz:2 * hsz]),
                          np.tanh(a[:, 2 * hsz:3 * hsz] + b[:, 2 * hsz:3 * hsz]), sigmoid(a[:, 3 * hsz:] + b[:, 3 * hsz:]))
            c = f * c + i * g
            h = o * np.tanh(c)
        elif mode == "gru":
            r = sigmoid(a[:, :hsz] + b[:, :hsz])
            z = sigmoid(a[:, hsz:2 * hsz] + b[:, hsz:2 * hsz])
            n = np.tanh(a[:, 2 * hsz:] + r * b[:, 2 * hsz:])
            h = (1 - z) * n + z * h
        else:
            h = np.tanh(a + b) if mode == "rnn_tanh" else np.maximum(a + b, 0)
        outs.append(h)
    result = [np.stack(outs), h[None]]
    return result + [c[None]] if mode == "lstm" else result


@case("RNN", ref=f64(ref_rnn), rtol=1e-4, atol=1e-5)
def _rnn(data):
    mode = data.draw(st.sampled_from(["lstm", "gru", "rnn_tanh", "rnn_relu"]))
    t, n, c, h = (data.draw(st.integers(1, 3)) for _ in range(4))
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    size = gates * h * (c + h + 2)
    arrays = [data.draw(floats((t, n, c))), data.draw(floats((size,), -0.5, 0.5)), data.draw(floats((1, n, h)))]
    if mode == "lstm":
        arrays.append(data.draw(floats((1, n, h))))
    return arrays, {"state_size": h, "num_layers": 1, "mode": mode, "state_outputs": True}


def ref_deconv(x, w, b, kernel, stride, pad, num_filter, no_bias):
    """Transposed convolution as the adjoint of a direct convolution: scatter every input value."""
    nd_ = len(kernel)
    full = [(d - 1) * s + k for d, s, k in zip(x.shape[2:], stride, kernel)]
    out = np.zeros((x.shape[0], num_filter) + tuple(full))
    for pos in np.ndindex(*x.shape[2:]):
        for kk in np.ndindex(*kernel):
            target = tuple(p * s + k for p, s, k in zip(pos, stride, kk))
            out[(slice(None), slice(None)) + target] += x[(slice(None), slice(None)) + pos] @ w[(slice(None), slice(None)) + kk]
    out = out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))]
    return out + b.reshape((1, -1) + (1,) * nd_)


@case("Deconvolution", ref=ref_deconv, rtol=1e-4, atol=1e-4)
def _deconv(data):
    nd_ = data.draw(st.integers(1, 2))
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(nd_))
    stride = tuple(data.draw(st.integers(1, 2)) for _ in range(nd_))
    pad = tuple(data.draw(st.integers(0, (k - 1) // 2)) for k in kernel)
    c, f = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    x = data.draw(floats((data.draw(st.integers(1, 2)), c) + tuple(data.draw(st.integers(1, 3)) for _ in range(nd_))))
    return [x, data.draw(floats((c, f) + kernel)), data.draw(floats((f,)))], \
        {"kernel": kernel, "stride": stride, "pad": pad, "num_filter": f, "no_bias": False}


@case("Pad", ref=lambda a, mode, pad_width, constant_value: np.pad(
    a, [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(a.ndim)], mode="constant",
    constant_values=constant_value) if mode == "constant" else np.pad(
    a, [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(a.ndim)], mode=mode))
def _pad(data):
    shape = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))) + tuple(
        data.draw(st.integers(2, 4)) for _ in range(data.draw(st.integers(2, 3))))
    widths = (0, 0, 0, 0) + tuple(data.draw(st.integers(0, 1)) for _ in range(2 * (len(shape) - 2)))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect"]))
    return [data.draw(floats(shape))], {"mode": mode, "pad_width": widths, "constant_value": 1.5}


@case("UpSampling", ref=lambda a, scale, sample_type: a.repeat(scale, axis=2).repeat(scale, axis=3))
def _upsampling(data):
    return [data.draw(floats(data.draw(shapes(min_dims=4, max_dims=4, max_side=3))))], \
        {"scale": data.draw(st.integers(1, 3)), "sample_type": "nearest"}


@case("L2Normalization", ref=lambda a, mode: a / np.sqrt((a ** 2).sum(
    axis={"instance": tuple(range(1, a.ndim)), "channel": (1,), "spatial": tuple(range(2, a.ndim))}[mode],
    keepdims=True) + 1e-10), rtol=1e-4, atol=1e-5)
def _l2norm(data):
    mode = data.draw(st.sampled_from(["instance", "channel", "spatial"]))
    return [data.draw(floats(data.draw(shapes(min_dims=2 if mode == "instance" else 3, max_dims=4))))], {"mode": mode}


@case("SequenceMask", ref=lambda a, lengths, use_sequence_length, value, axis: np.stack(
    [np.stack([a[t, b] if t < lengths[b] else np.full(a.shape[2:], value) for b in range(a.shape[1])])
     for t in range(a.shape[0])]) if axis == 0 else np.stack(
    [np.stack([a[b, t] if t < lengths[b] else np.full(a.shape[2:], value) for t in range(a.shape[1])])
     for b in range(a.shape[0])]))
def _sequence_mask(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2, max_dims=3))))
    axis = data.draw(st.integers(0, 1))
    lengths = np.array([data.draw(st.integers(0, a.shape[axis])) for _ in range(a.shape[1 - axis])], dtype=F32)
    return [a, lengths], {"use_sequence_length": True, "value": -1.0, "axis": axis}


@case("gather_nd", ref=lambda a, idx: np.array([a[tuple(int(v) for v in idx[:, j])] for j in range(idx.shape[1])]))
def _gather_nd(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2))))
    m = data.draw(st.integers(1, a.ndim))
    n = data.draw(st.integers(1, 3))
    idx = np.array([[data.draw(st.integers(0, a.shape[i] - 1)) for _ in range(n)] for i in range(m)], dtype=F32)
    return [a, idx], {}


CASES["smooth_l1"] = Case(lambda data: ([data.draw(floats(data.draw(shapes())))], {"scalar": 1.5}),
                          lambda a, scalar: np.where(np.abs(a) < 1 / scalar ** 2, 0.5 * (scalar * a) ** 2,
                                                     np.abs(a) - 0.5 / scalar ** 2))


@case("softmax_cross_entropy", ref=f64(lambda a, label: np.array(
    [-sum(np.log(ref_softmax(a[i:i + 1])[0, int(label[i])]) for i in range(a.shape[0]))])), rtol=1e-4, atol=1e-4)
def _softmax_ce(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2, max_dims=2))))
    return [a, np.array([data.draw(st.integers(0, a.shape[1] - 1)) for _ in range(a.shape[0])], dtype=F32)], {}


CASES["_contrib_div_sqrt_dim"] = Case(unary(), lambda a: a / np.sqrt(a.shape[-1]))
CASES["SoftmaxOutput"] = Case(lambda data: (lambda a: ([a, np.zeros(a.shape[0], F32)], {}))(
    data.draw(floats(data.draw(shapes(min_dims=2, max_dims=2))))), f64(lambda a, label: ref_softmax(a, -1)),
    rtol=1e-5, atol=1e-6)
CASES["argmax_channel"] = Case(lambda data, _draw=_argmax: (_draw(data)[0], {}),
                               lambda a: np.argmax(a, axis=1).astype(F32))


@case("batch_take", ref=lambda a, idx: a[np.arange(a.shape[0]), idx.astype(int)])
def _batch_take(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2, max_dims=2))))
    return [a, np.array([data.draw(st.integers(0, a.shape[1] - 1)) for _ in range(a.shape[0])], dtype=np.int32)], {}


@case("_linalg_gemm2", ref=lambda a, b, transpose_a, transpose_b, alpha: alpha * np.einsum(
    "...ij,...jk->...ik", np.swapaxes(a, -1, -2) if transpose_a else a, np.swapaxes(b, -1, -2) if transpose_b else b),
    rtol=1e-4, atol=1e-5)
def _gemm2(data):
    batch = tuple(data.draw(st.integers(1, 2)) for _ in range(data.draw(st.integers(0, 2))))
    m, k, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    return [data.draw(floats(batch + ((k, m) if ta else (m, k)))), data.draw(floats(batch + ((n, k) if tb else (k, n))))], \
        {"transpose_a": ta, "transpose_b": tb, "alpha": 0.5}


@case("LeakyReLU", ref=lambda a, *gamma, act_type, slope: np.where(
    a > 0, a, a * (gamma[0].reshape((1, -1) + (1,) * (a.ndim - 2)) if gamma else slope)))
def _leaky(data):
    a = data.draw(floats(data.draw(shapes(min_dims=2))))
    if data.draw(st.booleans()):
        return [a, data.draw(floats((a.shape[1],), 0.0, 1.0))], {"act_type": "prelu", "slope": 0.25}
    return [a], {"act_type": "leaky", "slope": 0.1}


CASES["_cond_select"] = Case(
    lambda data: (lambda shape: ([np.array([data.draw(st.sampled_from([0.0, 1.0]))], dtype=F32),
                                  data.draw(floats(shape)), data.draw(floats(shape))], {"num_outputs": 1}))(
        data.draw(shapes())), lambda p, a, b, num_outputs: a if p[0] else b)


# --- the operators real model libraries need (hylint/runtime/ops_models.py) ---------------------------
CASES["_contrib_SyncBatchNorm"] = Case(
    lambda data: (lambda a: ([a] + [data.draw(floats((a.shape[1],), lo, 3.0)) for lo in (-3.0, -3.0, -3.0, 0.1)],
                             {"eps": 1e-3, "fix_gamma": data.draw(st.booleans()), "ndev": 1, "key": "k"}))(
        data.draw(floats(data.draw(shapes(min_dims=2, max_dims=4))))),
    lambda a, gamma, beta, mean, var, eps, fix_gamma, ndev, key: (
        (a - mean.reshape((1, -1) + (1,) * (a.ndim - 2))) / np.sqrt(var.reshape((1, -1) + (1,) * (a.ndim - 2)) + eps)
        * (np.ones_like(gamma) if fix_gamma else gamma).reshape((1, -1) + (1,) * (a.ndim - 2))
        + beta.reshape((1, -1) + (1,) * (a.ndim - 2))), rtol=1e-4, atol=1e-4)


def ref_adaptive_avg(a, output_size):
    oh, ow = (output_size * 2 if len(output_size) == 1 else output_size) if output_size else (1, 1)
    h, w = a.shape[2:]
    out = np.zeros(a.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = slice(int(math.floor(i * h / oh)), int(math.ceil((i + 1) * h / oh)))
            cols = slice(int(math.floor(j * w / ow)), int(math.ceil((j + 1) * w / ow)))
            out[:, :, i, j] = a[:, :, rows, cols].mean(axis=(2, 3))
    return out


@case("_contrib_AdaptiveAvgPooling2D", ref=f64(ref_adaptive_avg), rtol=1e-5, atol=1e-5)
def _adaptive_avg(data):
    a = data.draw(floats(data.draw(shapes(min_dims=4, max_dims=4, max_side=6))))
    return [a], {"output_size": data.draw(st.sampled_from([(), (1,), (2,), (2, 3), (3, 1)]))}


def ref_bilinear(a, *like, height=1, width=1, align_corners=True, mode="size", scale_height=None, scale_width=None):
    """Each output pixel interpolates the four source pixels around its source position, computed
    independently per axis (corner-aligned, or pixel-centre with clamping at 0)."""
    h, w = a.shape[2:]
    if mode == "like":
        oh, ow = like[0].shape[2:]
    elif scale_height is not None:
        oh, ow = int(h * scale_height), int(w * scale_width)
    else:
        oh, ow = height, width

    def source(i, n_in, n_out):
        if n_out == 1:  # MXNet's step is 0 for a single output pixel: it samples index 0 in both conventions
            return 0.0
        if align_corners:
            return i * (n_in - 1) / (n_out - 1)
        return max((i + 0.5) * n_in / n_out - 0.5, 0.0)
    out = np.zeros(a.shape[:2] + (oh, ow))
    for i in range(oh):
        y = source(i, h, oh)
        y0 = min(int(math.floor(y)), h - 1)
        y1, dy = min(y0 + 1, h - 1), y - y0
        for j in range(ow):
            x = source(j, w, ow)
            x0 = min(int(math.floor(x)), w - 1)
            x1, dx = min(x0 + 1, w - 1), x - x0
            out[:, :, i, j] = ((1 - dy) * ((1 - dx) * a[:, :, y0, x0] + dx * a[:, :, y0, x1])
                               + dy * ((1 - dx) * a[:, :, y1, x0] + dx * a[:, :, y1, x1]))
    return out


@case("_contrib_BilinearResize2D", ref=f64(ref_bilinear), rtol=1e-4, atol=1e-5)
def _bilinear(data):
    a = data.draw(floats(data.draw(shapes(min_dims=4, max_dims=4, max_side=5))))
    corners = data.draw(st.booleans())
    how = data.draw(st.sampled_from(["size", "scale", "like"]))
    if how == "like":
        like = data.draw(floats((1, 1, data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7)))))
        return [a, like], {"mode": "like", "align_corners": corners}
    if how == "scale":
        return [a], {"scale_height": data.draw(st.sampled_from([0.5, 1.0, 2.0])),
                     "scale_width": data.draw(st.sampled_from([1.0, 1.5, 3.0])), "align_corners": corners}
    return [a], {"height": data.draw(st.integers(1, 7)), "width": data.draw(st.integers(1, 7)),
                 "align_corners": corners}


#: (input shape, attributes, output) measured on MXNet 1.9.1 with ``arange`` input: a side resized to 1
#: samples index 0 whatever ``align_corners`` says (MXNet's step is 0 there); a scale that rounds a side
#: down to 0 gives an empty output
BILINEAR_MEASURED = [
    ((1, 1, 2, 2), {"height": 1, "width": 1, "align_corners": False}, [[0.0]]),
    ((1, 1, 4, 5), {"height": 1, "width": 1, "align_corners": False}, [[0.0]]),
    ((1, 1, 4, 5), {"height": 1, "width": 1, "align_corners": True}, [[0.0]]),
    ((1, 1, 3, 3), {"height": 2, "width": 1, "align_corners": False}, [[0.75], [5.25]]),
    ((1, 1, 4, 5), {"height": 1, "width": 3, "align_corners": False}, [[1 / 3, 2.0, 11 / 3]]),
    ((1, 1, 2, 2), {"height": 1, "width": 3, "align_corners": False}, [[0.0, 0.5, 1.0]]),
    ((1, 1, 4, 5), {"scale_height": 0.5, "scale_width": 0.5, "align_corners": False}, [[3.25, 5.75], [13.25, 15.75]]),
    ((1, 1, 1, 3), {"scale_height": 0.5, "scale_width": 0.5, "align_corners": False}, np.zeros((0, 1))),
]


def _bilinear_call(namespace, shape, attrs):
    return namespace.contrib.BilinearResize2D(namespace.array(np.arange(np.prod(shape)).reshape(shape)), **attrs)


@pytest.mark.parametrize("shape, attrs, expected", BILINEAR_MEASURED)
def test_bilinear_resize_edge_sizes_as_measured_on_mxnet(shape, attrs, expected):
    ours = _bilinear_call(nd, shape, attrs).asnumpy()
    np.testing.assert_allclose(ours, np.asarray(expected, dtype=np.float64).reshape((1, 1) + np.shape(expected)),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours, f64(ref_bilinear)(np.arange(np.prod(shape), dtype=F32).reshape(shape), **attrs),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.mxnet
@pytest.mark.parametrize("shape, attrs, expected", BILINEAR_MEASURED)
def test_bilinear_resize_edge_sizes_equal_mxnet(shape, attrs, expected):
    real = _real_mxnet()
    theirs = _bilinear_call(real.nd, shape, attrs).asnumpy()
    np.testing.assert_allclose(_bilinear_call(nd, shape, attrs).asnumpy(), theirs, rtol=1e-6, atol=1e-6)


#: sizes below 1 are refused by the parameter parser (dmlc's lower bound), as measured on MXNet 1.9.1
BILINEAR_REFUSED = [({"height": 0, "width": 3}, "height"), ({"height": 2, "width": 0, "align_corners": False}, "width"),
                    ({"height": -1, "width": 3, "scale_height": 2.0}, "height")]


@pytest.mark.parametrize("attrs, refused", BILINEAR_REFUSED)
def test_bilinear_resize_refuses_sizes_below_one(attrs, refused):
    from hylint.runtime import MXNetError
    with pytest.raises(MXNetError, match="value -?\\d+ for Parameter %s should be greater equal to 1\n%s: output "
                       % (refused, refused)):
        _bilinear_call(nd, (1, 1, 4, 4), attrs)
    with pytest.raises(MXNetError, match="should be greater equal to 1"):
        sym.contrib.BilinearResize2D(sym.var("x"), **attrs)


@pytest.mark.mxnet
@pytest.mark.parametrize("attrs, refused", BILINEAR_REFUSED)
def test_bilinear_resize_refuses_sizes_below_one_in_mxnet_too(attrs, refused):
    real = _real_mxnet()
    with pytest.raises(real.base.MXNetError) as theirs:
        _bilinear_call(real.nd, (1, 1, 4, 4), attrs)
    from hylint.runtime import MXNetError
    with pytest.raises(MXNetError) as ours:
        _bilinear_call(nd, (1, 1, 4, 4), attrs)
    # the attributes are listed in the order of MXNet's hash map: compared as a set
    (their_text, their_attrs), (our_text, our_attrs) = (text.split("(name=") for text in
                                                        (str(theirs.value).strip(), "MXNetError: " + str(ours.value)))
    assert their_text == our_text
    assert sorted(their_attrs.rstrip(")").split(", ")) == sorted(our_attrs.rstrip(")").split(", "))


#: Activation(relu) runs oneDNN's kernel on float32 of rank 1 to 5 in MXNet 1.9.1, which maps NaN to 0; its own
#: kernel (other dtypes and ranks, and the `relu` operator) keeps NaN, as measured
RELU_NAN = [((2,), "float32", 0.0), ((1, 2), "float32", 0.0), ((1, 1, 2), "float32", 0.0),
            ((1, 1, 1, 2), "float32", 0.0), ((1, 1, 1, 1, 2), "float32", 0.0),
            ((1, 1, 1, 1, 1, 2), "float32", np.nan), ((1, 2), "float64", np.nan), ((1, 1, 1, 2), "float16", np.nan)]


def _relu_of_nan(namespace, shape, dtype):
    x = namespace.array(np.full(shape, np.nan), dtype=dtype)
    return namespace.Activation(x, act_type="relu").asnumpy(), namespace.relu(x).asnumpy()


@pytest.mark.parametrize("shape, dtype, expected", RELU_NAN)
def test_activation_relu_of_nan_as_measured_on_mxnet(shape, dtype, expected):
    activation, relu = _relu_of_nan(nd, shape, dtype)
    np.testing.assert_array_equal(activation, np.full(shape, expected, dtype=dtype))
    assert np.isnan(relu).all()
    node = sym.Activation(sym.var("x"), act_type="relu")
    graph_out = node.bind(args={"x": nd.array(np.full(shape, np.nan), dtype=dtype)}).forward()[0].asnumpy()
    np.testing.assert_array_equal(graph_out, activation)


@pytest.mark.mxnet
@pytest.mark.parametrize("shape, dtype, expected", RELU_NAN)
def test_activation_relu_of_nan_equals_mxnet(shape, dtype, expected):
    real = _real_mxnet()
    for ours, theirs in zip(_relu_of_nan(nd, shape, dtype), _relu_of_nan(real.nd, shape, dtype)):
        np.testing.assert_array_equal(ours, theirs)


#: (data shape, axis): with a ``length`` input MXNet 1.9.1 reads only -1 as a negative axis; another one (or
#: an axis past the end) drops no dimension from the length's shape, and its index check fails
SOFTMAX_LENGTH_FAILS = [((2, 3, 4), -2), ((2, 3, 4), -3), ((2, 3), -2), ((2, 3, 4, 5), -2), ((2, 3, 4), 3)]


def _softmax_length_error(namespace, shape, axis):
    lengths = np.ones([d for i, d in enumerate(shape) if i != axis % len(shape)], dtype=np.int32)
    with pytest.raises(Exception) as caught:
        namespace.softmax(namespace.array(np.ones(shape, F32)), namespace.array(lengths, dtype=np.int32),
                          axis=axis, use_length=True).asnumpy()
    return caught.value


@pytest.mark.parametrize("shape, axis", SOFTMAX_LENGTH_FAILS)
def test_softmax_length_with_another_negative_axis_fails_as_in_mxnet(shape, axis):
    from hylint.runtime import MXNetError
    check = "Check failed: i >= 0 && i < ndim(): index = {0} must be in range [0, {0})".format(len(shape) - 1)
    error = _softmax_length_error(nd, shape, axis)
    assert isinstance(error, MXNetError) and str(error) == check
    node = sym.softmax(sym.var("x"), sym.var("n"), axis=axis, use_length=True, name="attention")
    with pytest.raises(MXNetError) as graph_error:
        node.infer_shape(x=shape)
    assert str(graph_error.value) == "Error in operator attention: " + check


@pytest.mark.mxnet
@pytest.mark.parametrize("shape, axis", SOFTMAX_LENGTH_FAILS)
def test_softmax_length_with_another_negative_axis_fails_in_mxnet_too(shape, axis):
    real = _real_mxnet()
    theirs = str(_softmax_length_error(real.nd, shape, axis)).strip().splitlines()[-1]
    assert theirs == "MXNetError: " + str(_softmax_length_error(nd, shape, axis))


def ref_lrn(a, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    out = np.zeros_like(a)
    for c in range(a.shape[1]):
        lo, hi = max(0, c - nsize // 2), min(a.shape[1], c + nsize // 2 + 1)
        out[:, c] = a[:, c] / (knorm + alpha / nsize * (a[:, lo:hi] ** 2).sum(axis=1)) ** beta
    return out


@case("LRN", ref=f64(ref_lrn), rtol=1e-5, atol=1e-5)
def _lrn(data):
    a = data.draw(floats(data.draw(shapes(min_dims=4, max_dims=4)), -10.0, 10.0))
    return [a], {"nsize": data.draw(st.sampled_from([1, 3, 5])), "alpha": 0.01, "beta": 0.75, "knorm": 1.0}


def ref_group_norm(a, gamma, beta, num_groups, eps):
    g = a.reshape(a.shape[0], num_groups, -1)
    norm = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)).reshape(a.shape)
    per_channel = a.shape[1] // num_groups
    expand = (1, -1) + (1,) * (a.ndim - 2)
    return norm * np.repeat(gamma, per_channel).reshape(expand) + np.repeat(beta, per_channel).reshape(expand)


@case("GroupNorm", ref=f64(ref_group_norm), rtol=1e-4, atol=1e-4)
def _group_norm(data):
    groups = data.draw(st.integers(1, 3))
    shape = (data.draw(st.integers(1, 2)), groups * data.draw(st.integers(1, 2))) + tuple(
        data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(1, 2))))
    return [data.draw(floats(shape)), data.draw(floats((groups,))), data.draw(floats((groups,)))], \
        {"num_groups": groups, "eps": 1e-5}


@case("_ravel_multi_index", ref=lambda idx, shape: np.ravel_multi_index(tuple(idx.astype(int)), shape).astype(F32))
def _ravel(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    n = data.draw(st.integers(1, 4))
    return [np.array([[data.draw(st.integers(0, d - 1)) for _ in range(n)] for d in shape], dtype=F32)], \
        {"shape": shape}


def _qkv(data):
    heads, d = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    t, b = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 2))
    return data.draw(floats((t, b, heads * 3 * d))), heads


def ref_split_qkv(qkv, heads):
    """(T, B, heads*3*D) interleaved per head as [q | k | v] -> q, k, v as (B*heads, T, D)."""
    t, b, width = qkv.shape
    d = width // (3 * heads)
    per_head = qkv.reshape(t, b, heads, 3, d)
    return [np.ascontiguousarray(per_head[:, :, :, j].transpose(1, 2, 0, 3)).reshape(b * heads, t, d)
            for j in range(3)]


@case("_contrib_interleaved_matmul_selfatt_qk", ref=f64(lambda qkv, heads: (lambda q, k, v: np.einsum(
    "ntd,nsd->nts", q, k) / np.sqrt(q.shape[-1]))(*ref_split_qkv(qkv, heads))), rtol=1e-5, atol=1e-5)
def _selfatt_qk(data):
    qkv, heads = _qkv(data)
    return [qkv], {"heads": heads}


def ref_valatt(qkv, att, heads):
    v = ref_split_qkv(qkv, heads)[2]
    t, b = qkv.shape[:2]
    out = np.einsum("nts,nsd->ntd", att, v)
    return out.reshape(b, heads, t, -1).transpose(2, 0, 1, 3).reshape(t, b, -1)


@case("_contrib_interleaved_matmul_selfatt_valatt", ref=f64(ref_valatt), rtol=1e-5, atol=1e-5)
def _selfatt_valatt(data):
    qkv, heads = _qkv(data)
    t, b = qkv.shape[:2]
    return [qkv, data.draw(floats((b * heads, t, t), 0.0, 1.0))], {"heads": heads}


@case("_image_to_tensor", ref=lambda a: np.moveaxis(a, -1, -3) / 255.0)
def _to_tensor(data):
    shape = data.draw(shapes(min_dims=3, max_dims=4))
    return [data.draw(hnp.arrays(np.uint8, shape))], {}


@case("_image_normalize", ref=f64(lambda a, mean, std: (a - np.array(mean).reshape(-1, 1, 1)[:a.shape[-3]])
                                   / np.array(std).reshape(-1, 1, 1)[:a.shape[-3]]), rtol=1e-5, atol=1e-5)
def _normalize(data):
    shape = (data.draw(st.integers(1, 2)),) * data.draw(st.integers(0, 1)) + (3,) + tuple(
        data.draw(st.integers(1, 3)) for _ in range(2))
    return [data.draw(floats(shape))], {"mean": (0.5, 0.25, -1.0), "std": (2.0, 0.5, 1.0)}


# --- detection boxes and deformable convolution (ops_models.py): plain-loop references -------------
CASES["_random_randint"] = Case(lambda data: ([], {"shape": data.draw(shapes()), "low": -2, "high": 5}),
                                _bounds_check(-2, 4), check="bounds")


def _corner_box(box, box_format):
    if box_format == "corner":
        return list(box)
    x, y, w, h = box
    return [x - w / 2, y - h / 2, x + w / 2, y + h / 2]


def _iou(a, b):
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def ref_box_iou(lhs, rhs, format="corner"):
    out = np.zeros(lhs.shape[:-1] + rhs.shape[:-1])
    for i in np.ndindex(*lhs.shape[:-1]):
        for j in np.ndindex(*rhs.shape[:-1]):
            out[i + j] = _iou(_corner_box(lhs[i], format), _corner_box(rhs[j], format))
    return out


def ref_box_nms(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1, id_index=-1,
                background_id=-1, force_suppress=False, in_format="corner", out_format="corner"):
    out = np.full(data.shape, -1.0)
    for b in np.ndindex(*data.shape[:-2]):
        rows = data[b]
        # MXNet compares the float32 score with valid_thresh as a float32 (measured on MXNet 1.9.1: a score of
        # 0.3 with valid_thresh=0.3 is dropped, where float32(0.3) > 0.3 in float64 would keep it)
        order = [i for i in range(len(rows)) if np.float32(rows[i][score_index]) > np.float32(valid_thresh)
                 and not (id_index >= 0 and background_id >= 0 and rows[i][id_index] == background_id)]
        order.sort(key=lambda i: -rows[i][score_index])  # Python's sort is stable
        order = order[:topk] if topk > 0 else order
        kept = []
        for i in order:
            box = _corner_box(rows[i][coord_start:coord_start + 4], in_format)
            if all(not ((force_suppress or id_index < 0 or rows[i][id_index] == rows[k][id_index])
                        and _iou(_corner_box(rows[k][coord_start:coord_start + 4], in_format), box) > overlap_thresh)
                   for k in kept):
                kept.append(i)
        for place, i in enumerate(kept):
            out[b][place] = rows[i]
            if in_format != out_format:
                x0, y0, x1, y1 = _corner_box(rows[i][coord_start:coord_start + 4], in_format)
                out[b][place][coord_start:coord_start + 4] = [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0]
    return out


@case("_contrib_box_iou", ref=f64(ref_box_iou))
def _box_iou(data):
    lhs = data.draw(floats((data.draw(st.integers(1, 3)), 4), 0.0, 2.0))
    rhs = data.draw(floats((data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)), 4), 0.0, 2.0))
    return [lhs, rhs], {"format": data.draw(st.sampled_from(["corner", "center"]))}


def _centres(boxes):
    return ((boxes[..., 0] + boxes[..., 2]) / 2, (boxes[..., 1] + boxes[..., 3]) / 2,
            boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1])


def ref_box_decode(data, anchors, std0=1.0, std1=1.0, std2=1.0, std3=1.0, clip=-1.0, format="center"):
    ax, ay, aw, ah = _centres(anchors) if format == "corner" else (anchors[..., k] for k in range(4))
    dw, dh = data[..., 2] * std2, data[..., 3] * std3
    if clip > 0:
        dw, dh = np.minimum(dw, clip), np.minimum(dh, clip)
    x, y = data[..., 0] * std0 * aw + ax, data[..., 1] * std1 * ah + ay
    w, h = np.exp(dw) * aw / 2, np.exp(dh) * ah / 2
    return np.stack([x - w, y - h, x + w, y + h], axis=-1)


def ref_box_encode(samples, matches, anchors, refs, means, stds):
    matched = np.take_along_axis(refs, np.maximum(matches, 0).astype(np.int64)[..., None], axis=1)
    (rx, ry, rw, rh), (ax, ay, aw, ah) = _centres(matched), _centres(anchors)
    targets = (np.stack([(rx - ax) / aw, (ry - ay) / ah, np.log(rw / aw), np.log(rh / ah)], -1) - means) / stds
    valid = (samples > 0.5)[..., None]
    return [np.where(valid, targets, 0.0), np.repeat(valid, 4, axis=-1) * 1.0]


def _boxes(data, shape):
    corners = data.draw(floats(shape[:-1] + (2,), 0.0, 2.0))
    return np.concatenate([corners, corners + data.draw(floats(shape[:-1] + (2,), 0.1, 1.0))], -1)


@case("_contrib_box_decode", ref=f64(ref_box_decode))
def _box_decode(data):
    n = data.draw(st.integers(1, 5))
    attrs = {"format": data.draw(st.sampled_from(["corner", "center"])), "clip": data.draw(st.sampled_from([-1.0, 0.5])),
             "std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2}
    return [data.draw(floats((2, n, 4))), _boxes(data, (1, n, 4))], attrs


@case("_contrib_box_encode", ref=f64(ref_box_encode))
def _box_encode(data):
    n, m = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3))
    samples = data.draw(hnp.arrays(F32, (2, n), elements=st.sampled_from([-1.0, 0.0, 1.0])))
    matches = np.where(samples > 0.5, data.draw(hnp.arrays(F32, (2, n), elements=st.integers(0, m - 1).map(float))), -1.0)
    means, stds = np.array([0.1, -0.2, 0.3, 0.0], F32), np.array([0.1, 0.1, 0.2, 0.2], F32)
    return [samples, matches.astype(F32), _boxes(data, (2, n, 4)), _boxes(data, (2, m, 4)), means, stds], {}


@case("_contrib_box_nms", ref=f64(ref_box_nms))
def _box_nms(data):
    n = data.draw(st.integers(1, 6))
    records = np.zeros((2, n, 6), dtype=np.float32)
    records[..., 0] = data.draw(hnp.arrays(F32, (2, n), elements=st.sampled_from([0.0, 1.0, 2.0])))
    records[..., 1] = data.draw(floats((2, n), 0.0, 1.0))
    corners = data.draw(floats((2, n, 2), 0.0, 1.0))
    sides = data.draw(floats((2, n, 2), 0.1, 0.6))
    records[..., 2:4], records[..., 4:6] = corners, corners + sides
    attrs = {"overlap_thresh": data.draw(st.sampled_from([0.1, 0.3, 0.5])), "id_index": data.draw(st.sampled_from([-1, 0])),
             "force_suppress": data.draw(st.booleans()), "topk": data.draw(st.sampled_from([-1, 2])),
             "valid_thresh": data.draw(st.sampled_from([0.0, 0.3])),
             "out_format": data.draw(st.sampled_from(["corner", "center"]))}
    return [records], attrs


def _sample(plane, h, w, modulated):
    """One bilinear sample of ``plane`` (H, W) at (h, w), as MXNet's deformable im2col kernels take it."""
    height, width = plane.shape
    if modulated:
        if not (h > -1 and w > -1 and h < height and w < width):
            return 0.0
    else:
        if not (h >= 0 and w >= 0 and h < height and w < width):
            return 0.0
        h = float(height - 1) if np.floor(h) >= height - 1 else h
        w = float(width - 1) if np.floor(w) >= width - 1 else w
    h0, w0 = int(np.floor(h)), int(np.floor(w))
    total = 0.0
    for r, c, weight in ((h0, w0, (1 - (h - h0)) * (1 - (w - w0))), (h0, w0 + 1, (1 - (h - h0)) * (w - w0)),
                         (h0 + 1, w0, (h - h0) * (1 - (w - w0))), (h0 + 1, w0 + 1, (h - h0) * (w - w0))):
        if 0 <= r < height and 0 <= c < width:
            total += weight * plane[r, c]
    return total


def ref_deformable(*arrays, kernel, num_filter, pad=(0, 0), num_deformable_group=1, no_bias=False, modulated=False,
                   **_):
    data, offset = arrays[0], arrays[1]
    mask, weight = (arrays[2], arrays[3]) if modulated else (None, arrays[2])
    n, c, _, _ = data.shape
    kh, kw = kernel
    ho, wo = offset.shape[2:]
    group_channels = c // num_deformable_group
    out = np.zeros((n, num_filter, ho, wo))
    for b, f, y, x in np.ndindex(n, num_filter, ho, wo):
        for ch, i, j in np.ndindex(c, kh, kw):
            g, tap = ch // group_channels, i * kw + j
            h = y - pad[0] + i + offset[b, g * 2 * kh * kw + 2 * tap, y, x]
            w = x - pad[1] + j + offset[b, g * 2 * kh * kw + 2 * tap + 1, y, x]
            value = _sample(data[b, ch], h, w, modulated)
            if modulated:
                value *= mask[b, g * kh * kw + tap, y, x]
            out[b, f, y, x] += weight[f, ch, i, j] * value
        if not no_bias:
            out[b, f, y, x] += arrays[-1][f]
    return out


def _deformable_case(modulated):
    def draw(data):
        c, dg = data.draw(st.sampled_from([(2, 1), (2, 2), (3, 1)]))
        k, pad = data.draw(st.sampled_from([(1, 0), (2, 0), (2, 1)]))
        height, width = data.draw(st.integers(2, 4)), data.draw(st.integers(2, 4))
        ho, wo = height + 2 * pad - k + 1, width + 2 * pad - k + 1
        nf = 2
        arrays = [data.draw(floats((1, c, height, width))), data.draw(floats((1, 2 * k * k * dg, ho, wo), -2.5, 2.5))]
        if modulated:
            arrays.append(data.draw(floats((1, k * k * dg, ho, wo), 0.0, 2.0)))
        arrays += [data.draw(floats((nf, c, k, k))), data.draw(floats((nf,)))]
        return arrays, {"kernel": (k, k), "pad": (pad, pad), "num_filter": nf, "num_deformable_group": dg}
    return draw


CASES["_contrib_DeformableConvolution"] = Case(_deformable_case(False), f64(ref_deformable), rtol=1e-4, atol=1e-4)
CASES["_contrib_ModulatedDeformableConvolution"] = Case(
    _deformable_case(True), f64(lambda *a, **kw: ref_deformable(*a, modulated=True, **kw)), rtol=1e-4, atol=1e-4)


# --- int8 quantization (values measured on MXNet 1.9.1: tests/runtime/test_runtime_quantized.py) -----------
def _quantize_draw(data):
    a = data.draw(floats(data.draw(shapes()), -4, 4))
    low, high = data.draw(st.sampled_from([(-2.0, 3.0), (0.0, 2.5), (-0.5, 0.25)]))
    return [a], {"out_type": data.draw(st.sampled_from(["int8", "uint8", "auto"])), "min_calib_range": low,
                 "max_calib_range": high}


def ref_quantize(a, out_type, min_calib_range, max_calib_range):
    unsigned = out_type == "uint8" or (out_type == "auto" and min_calib_range >= 0)
    steps, low, high = (255.5, 0, 255) if unsigned else (127.5, -128, 127)
    real = np.float32(max(abs(min_calib_range), abs(max_calib_range)))
    q = np.clip(np.rint(a * (np.float32(steps) / real)), low, high)
    limits = (min_calib_range, max_calib_range) if unsigned else (-float(real), float(real))
    return [q, np.array([limits[0]]), np.array([limits[1]])]


CASES["_contrib_quantize_v2"] = Case(_quantize_draw, ref_quantize, rtol=0, atol=0)


def _int8_draw(data, shape=None):
    dtype = data.draw(st.sampled_from([np.int8, np.uint8]))
    lo, hi = (-128, 127) if dtype == np.int8 else (0, 255)
    shape = shape or data.draw(shapes())
    return hnp.arrays(dtype, shape, elements=st.integers(lo, hi)), dtype


def _dequantize_draw(data):
    strategy, _ = _int8_draw(data)
    return [data.draw(strategy), np.array([-1.5], F32), np.array([2.25], F32)], {}


CASES["_contrib_dequantize"] = Case(
    _dequantize_draw, lambda q, low, high: q.astype(F32) * (np.float32(2.25) / np.float32(
        127.5 if q.dtype == np.int8 else 255.5)), rtol=0, atol=0)


def _quantized_pooling_draw(data):
    strategy, _ = _int8_draw(data, shape=(1, 2, data.draw(st.integers(2, 5)), data.draw(st.integers(2, 5))))
    return [data.draw(strategy), np.array([-1.0], F32), np.array([1.0], F32)], {
        "kernel": (2, 2), "pool_type": data.draw(st.sampled_from(["max", "avg"]))}


def ref_quantized_pooling(q, low, high, kernel, pool_type):
    windows = np.lib.stride_tricks.sliding_window_view(q.astype(np.float64), kernel, axis=(2, 3))
    pooled = windows.max(axis=(-2, -1)) if pool_type == "max" else np.rint(windows.mean(axis=(-2, -1)))
    return [pooled, low, high]


CASES["_contrib_quantized_pooling"] = Case(_quantized_pooling_draw, ref_quantized_pooling, rtol=0, atol=0)


# ------------------------------------------------------------------------------------------------
# the tests
# ------------------------------------------------------------------------------------------------
UNIQUE_OPS = sorted({op.name for op in ops.OPS.values()})
# fused operators exist only in loaded graphs (they read their JSON subgraph): tests/runtime/test_runtime_quantized.py
LOADED_ONLY = [name for name in UNIQUE_OPS if ops.OPS[name].reads_subgraphs is not None]
GENERIC_OPS = [name for name in UNIQUE_OPS if name not in ops.SUBGRAPH_OPS and name not in LOADED_ONLY]


def test_every_op_in_the_table_has_an_op_level_case():
    assert sorted(set(UNIQUE_OPS) - set(CASES) - set(ops.SUBGRAPH_OPS) - set(LOADED_ONLY)) == []


def eager(op, arrays, attrs):
    return nd._invoke(op, tuple(nd.array(a, dtype=a.dtype) for a in arrays), attrs)


def graph(op, arrays, attrs):
    variables = [sym.var("in%d" % i) for i in range(len(arrays))]
    node = sym._invoke(op, tuple(variables), attrs)
    feed = {"in%d" % i: nd.array(a, dtype=a.dtype) for i, a in enumerate(arrays)}
    aux = node.list_auxiliary_states()  # BatchNorm's running statistics are bound as auxiliary states
    executor = node.bind(args={k: v for k, v in feed.items() if k not in aux}, aux_states={k: feed[k] for k in aux})
    return executor.forward()


def as_list(out):
    return [o.asnumpy() for o in (out if isinstance(out, list) else [out])]


@pytest.mark.parametrize("name", GENERIC_OPS)
@SETTINGS
@given(data=st.data())
def test_op_eager_equals_graph_equals_numpy(name, data):
    spec = CASES[name]
    arrays, attrs = spec.draw(data)
    op = ops.OPS[name]
    seed = data.draw(st.integers(0, 1000))
    from hylint.runtime import rng
    rng.seed(seed)
    eager_out = as_list(eager(op, arrays, attrs))
    rng.seed(seed)
    graph_out = as_list(graph(op, arrays, attrs))
    assert len(eager_out) == len(graph_out)
    for e, g in zip(eager_out, graph_out):
        assert e.shape == g.shape and e.dtype == g.dtype
        np.testing.assert_array_equal(e, g)
    if spec.check == "rows":  # a random permutation of the input's rows
        (out,), (given,) = eager_out, arrays
        assert sorted(map(tuple, out.reshape(len(out), -1).tolist())) == \
            sorted(map(tuple, given.reshape(len(given), -1).tolist()))
        return
    if spec.check == "bounds":
        lo, hi = spec.reference.bounds
        assert all(((o >= lo) & (o <= hi)).all() for o in eager_out)
        return
    expected = spec.reference(*arrays, **attrs)
    expected = expected if isinstance(expected, list) else [expected]
    assert len(expected) == len(eager_out)
    for e, ref in zip(eager_out, expected):
        ref = np.asarray(ref)
        ref = ref.reshape((1,)) if ref.ndim == 0 else ref
        assert e.shape == ref.shape, (e.shape, ref.shape)
        np.testing.assert_allclose(e.astype(np.float64), ref.astype(np.float64), rtol=spec.rtol, atol=spec.atol)


@pytest.mark.parametrize("name", ["elemwise_add", "_plus", "broadcast_add"])
def test_inferred_shape_matches_eager_shape(name):
    a, b = np.ones((2, 3), F32), np.ones((2, 3), F32)
    out = sym._invoke(name, (sym.var("a"), sym.var("b")), {})
    assert out.infer_shape(a=a.shape, b=b.shape)[1] == [eager(name, [a, b], {}).shape]



# --- ROIAlign (ops/models.py): a plain loop over regions, bins and sample points ---------------------
def _roi_sample(plane, y, x):
    height, width = plane.shape
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    y1, x1 = (y0, x0)
    if y0 >= height - 1:
        y0 = y1 = height - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= width - 1:
        x0 = x1 = width - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1]
            + ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def ref_roi_align(data, rois, pooled_size, spatial_scale, sample_ratio=-1, position_sensitive=False, aligned=False):
    ph, pw = pooled_size
    channels = data.shape[1] // (ph * pw) if position_sensitive else data.shape[1]
    out = np.zeros((len(rois), channels, ph, pw))
    offset = 0.5 if aligned else 0.0
    for r, roi in enumerate(rois):
        x0, y0, x1, y1 = (v * spatial_scale - offset for v in roi[1:])
        roi_w, roi_h = (x1 - x0, y1 - y0) if aligned else (max(x1 - x0, 1.0), max(y1 - y0, 1.0))
        grid_h = sample_ratio if sample_ratio > 0 else int(np.ceil(roi_h / ph))
        grid_w = sample_ratio if sample_ratio > 0 else int(np.ceil(roi_w / pw))
        for c in range(channels):
            for i in range(ph):
                for j in range(pw):
                    plane = data[int(roi[0]), (c * ph + i) * pw + j if position_sensitive else c]
                    total = sum(_roi_sample(plane, y0 + i * roi_h / ph + (a + 0.5) * roi_h / ph / grid_h,
                                            x0 + j * roi_w / pw + (b + 0.5) * roi_w / pw / grid_w)
                                for a in range(grid_h) for b in range(grid_w))
                    out[r, c, i, j] = total / max(grid_h * grid_w, 1)
    return out


@case("_contrib_ROIAlign", ref=f64(ref_roi_align), rtol=1e-4, atol=1e-5)
def _roi_align(data):
    ph, pw = data.draw(st.sampled_from([(1, 1), (2, 2), (3, 2)]))
    height, width = data.draw(st.integers(2, 7)), data.draw(st.integers(2, 7))
    features = data.draw(floats((2, 2 * ph * pw, height, width)))
    k = data.draw(st.integers(1, 3))
    corner = data.draw(floats((k, 2), -2.0, 8.0))
    size = data.draw(floats((k, 2), 0.25, 6.0))  # MXNet aborts the process on an empty aligned region
    batch = data.draw(hnp.arrays(F32, (k, 1), elements=st.sampled_from([0.0, 1.0])))
    rois = np.concatenate([batch, corner, corner + size], axis=1).astype(F32)
    return [features, rois], {"pooled_size": (ph, pw), "spatial_scale": data.draw(st.sampled_from([1.0, 0.5])),
                              "sample_ratio": data.draw(st.sampled_from([-1, 1, 2])),
                              "position_sensitive": data.draw(st.booleans()), "aligned": data.draw(st.booleans())}

# --- the subgraph operators (symbolic contrib.foreach / while_loop), against eager and NumPy ------
@SETTINGS
@given(data=st.data())
def test_foreach_graph_equals_eager_equals_numpy(data):
    x = data.draw(floats(data.draw(shapes(min_dims=2))))
    scale = data.draw(st.floats(-2, 2).map(lambda v: round(v, 2)))

    def body(row, state):
        return row * scale + state, state + 1

    init = np.zeros(x.shape[1:], F32)
    eager_out, eager_state = nd.contrib.foreach(body, nd.array(x), nd.array(init))
    graph_out, graph_state = sym.contrib.foreach(body, sym.var("x"), sym.var("s"))
    results = sym.Group([graph_out, graph_state]).eval(x=nd.array(x), s=nd.array(init))
    expected = np.stack([x[t] * scale + t for t in range(x.shape[0])])
    np.testing.assert_allclose(eager_out.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(results[0].asnumpy(), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(results[1].asnumpy(), eager_state.asnumpy())
    np.testing.assert_array_equal(eager_state.asnumpy(), np.full(x.shape[1:], x.shape[0], F32))


@SETTINGS
@given(data=st.data())
def test_while_loop_graph_equals_eager_equals_numpy(data):
    x = data.draw(floats(data.draw(shapes()), 0.5, 3.0))
    limit = float(data.draw(st.integers(1, 200)))
    max_iterations = data.draw(st.integers(1, 8))

    def cond(v, n):
        return v.sum() < limit

    def func(v, n):
        return [v * 1], [v * 2, n + 1]

    eager_steps, eager_vars = nd.contrib.while_loop(cond, func, [nd.array(x), nd.zeros((1,))], max_iterations)
    graph_steps, graph_vars = sym.contrib.while_loop(cond, func, [sym.var("v"), sym.var("n")], max_iterations)
    results = sym.Group(graph_steps + graph_vars).eval(v=nd.array(x), n=nd.zeros((1,)))
    v, n, steps = x.astype(np.float64), 0, []
    while n < max_iterations and v.sum() < limit:
        steps.append(v)
        v, n = v * 2, n + 1
    np.testing.assert_allclose(results[-2].asnumpy(), v, rtol=1e-6)
    np.testing.assert_allclose(eager_vars[0].asnumpy(), v, rtol=1e-6)
    assert results[-1].asnumpy().tolist() == [n] == eager_vars[1].asnumpy().tolist()
    assert results[0].shape == (max_iterations,) + x.shape
    if steps:
        np.testing.assert_allclose(results[0].asnumpy()[:len(steps)], np.stack(steps), rtol=1e-6)
        np.testing.assert_allclose(eager_steps[0].asnumpy()[:len(steps)], np.stack(steps), rtol=1e-6)


# --- the same generated calls against real MXNet's eager operators, where MXNet imports -------------
def _real_mxnet():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


def _mxnet_function(real, name):
    """MXNet's generated eager function for an op (exact name first, then its public spellings)."""
    short = name
    for group in ("_contrib_", "_image_"):
        short = short[len(group):] if short.startswith(group) else short
    for candidate in (name, short, name.lstrip("_")):
        for space in (real.nd._internal, real.nd, real.nd.contrib, real.nd.image):
            if hasattr(space, candidate):
                return getattr(space, candidate)
    return None


#: ops whose MXNet eager function differs in calling convention or is random
REGISTERED_IN_MXNET = []  # the Custom case's operator, registered in real MXNet once
NOT_COMPARED_WITH_MXNET = {"_random_uniform", "_random_normal", "_random_uniform_like", "_random_normal_like",
                           "_random_randint",
                           "_sample_multinomial", "_shuffle", "_cond_select", "RNN", "Dropout"}


@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("name", [n for n in GENERIC_OPS if n not in NOT_COMPARED_WITH_MXNET])
@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_op_equals_mxnet(name, data):
    real = _real_mxnet()
    function = _mxnet_function(real, name)
    assert function is not None, "MXNet has no eager operator named %s" % name
    arrays, attrs = CASES[name].draw(data)
    if name == "Custom" and not REGISTERED_IN_MXNET:
        register_scaled_row_sum(real.operator)
        REGISTERED_IN_MXNET.append(True)
    ours = as_list(eager(ops.OPS[name], arrays, attrs))
    theirs = function(*[real.nd.array(a, dtype=a.dtype) for a in arrays], **attrs)
    theirs = [t.asnumpy() for t in (theirs if isinstance(theirs, list) else [theirs])]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape, (a.shape, b.shape)
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-4, atol=1e-5)


#: broadcast_like with lhs_axes/rhs_axes, as measured on MXNet 1.9.1: only those axes of lhs take rhs's sizes
#: (lhs and rhs may differ in rank), and a size other than 1 that differs is refused
BROADCAST_LIKE_AXES = [((1, 3), (2, 4), (0,), (0,), (2, 3)), ((1, 3), (4, 5), (0,), (1,), (5, 3)),
                       ((1, 3), (4, 5), (0,), (-1,), (5, 3)), ((3, 1), (2, 4, 6), (1,), (2,), (3, 6)),
                       ((2, 3), (4, 5), (0,), (0,), "Input axis 0 at dimension 0 cannot be broadcasted to 4"),
                       ((1, 3), (4, 5), (0,), (0, 1), "Input_axis and other_axis size does not match")]


def _broadcast_like_axes(namespace, lhs, rhs, lhs_axes, rhs_axes):
    return namespace.broadcast_like(namespace.ones(lhs), namespace.ones(rhs), lhs_axes=lhs_axes, rhs_axes=rhs_axes)


@pytest.mark.parametrize("lhs, rhs, lhs_axes, rhs_axes, expected", BROADCAST_LIKE_AXES)
def test_broadcast_like_axes_as_measured_on_mxnet(lhs, rhs, lhs_axes, rhs_axes, expected):
    from hylint.runtime import MXNetError
    if isinstance(expected, str):
        with pytest.raises(MXNetError, match=expected):
            _broadcast_like_axes(nd, lhs, rhs, lhs_axes, rhs_axes)
    else:
        assert _broadcast_like_axes(nd, lhs, rhs, lhs_axes, rhs_axes).shape == expected


@pytest.mark.mxnet
@pytest.mark.parametrize("lhs, rhs, lhs_axes, rhs_axes, expected", BROADCAST_LIKE_AXES)
def test_broadcast_like_axes_equal_mxnet(lhs, rhs, lhs_axes, rhs_axes, expected):
    real = _real_mxnet()
    if isinstance(expected, str):
        with pytest.raises(real.base.MXNetError, match=expected):
            _broadcast_like_axes(real.nd, lhs, rhs, lhs_axes, rhs_axes).wait_to_read()
    else:
        assert _broadcast_like_axes(real.nd, lhs, rhs, lhs_axes, rhs_axes).shape == expected


@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4)])
def test_ndarray_T_as_measured_on_mxnet(shape):
    """MXNet 1.9.1's NDArray.T reverses every axis (a copy) and returns a 1-D array itself."""
    x = nd.array(np.arange(np.prod(shape), dtype=F32).reshape(shape))
    np.testing.assert_array_equal(x.T.asnumpy(), np.arange(np.prod(shape), dtype=F32).reshape(shape).T)
    assert (x.T is x) == (len(shape) == 1)


@pytest.mark.mxnet
@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4)])
def test_ndarray_T_equals_mxnet(shape):
    real = _real_mxnet()
    theirs = real.nd.array(np.arange(np.prod(shape), dtype=F32).reshape(shape))
    ours = nd.array(np.arange(np.prod(shape), dtype=F32).reshape(shape))
    np.testing.assert_array_equal(ours.T.asnumpy(), theirs.T.asnumpy())
    assert (ours.T is ours) == (theirs.T is theirs)
