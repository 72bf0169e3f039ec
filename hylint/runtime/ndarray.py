"""``mxnet.ndarray`` (``mx.nd``): the eager namespace and the legacy MXNet 1.x NDArray.

Semantics kept from MXNet 1.x: float32 by default, no 0-d arrays (``x[0]`` of a 1-D array has shape
(1,)), broadcasting arithmetic, in-place operators that write into the array (views alias), no
``__array__`` (numpy sees a nested sequence), hashable by identity.
Every operator function in this module is generated from :mod:`hylint.runtime.ops`.
"""
import sys
import types

import numpy as np

from ..facts import tensor_methods  # facts are shared with the linter, not part of it

from . import ops as _ops
from . import rng as _rng
from . import serialization as _serialization
from .base import MXNetError, numeric_types, mx_real_t
from .context import Context, cpu

__all__ = ["NDArray", "array", "empty", "waitall"]

_THIS = sys.modules[__name__]
PUBLIC_NAME = "mxnet.ndarray"


_DTYPE_NAMES = {}


def _np_dtype_name(dtype):
    # np.dtype(...).name is computed in Python on each access; every eager call asks it for every input
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):
        name = np.dtype(dtype).name
    try:
        _DTYPE_NAMES[dtype] = name
    except TypeError:  # an unhashable dtype spelling
        pass
    return name


def _wrap(data):
    arr = NDArray.__new__(NDArray)
    data = np.asarray(data)
    arr._data = data.reshape((1,)) if data.ndim == 0 else data
    arr._grad = None
    return arr


class NDArray:
    """An n-dimensional array on the CPU, backed by a numpy array."""

    __array_priority__ = 1000.0
    __slots__ = ("_data", "_grad", "__weakref__")

    def __init__(self, data):
        arr = np.asarray(data)
        self._data = arr.reshape((1,)) if arr.ndim == 0 else arr
        self._grad = None

    # --- attributes -------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self._data.shape)

    @property
    def dtype(self):
        return self._data.dtype.type

    @property
    def size(self):
        return int(self._data.size)

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def context(self):
        return cpu()

    ctx = context

    @property
    def stype(self):
        return "default"

    @property
    def writable(self):
        return True

    @property
    def grad(self):
        return self._grad

    @property
    def T(self):  # as MXNet 1.9.1's NDArray.T: every axis reversed (a copy); a 1-D array is returned itself
        if self.ndim < 2:
            return self
        return transpose(self)

    @property
    def handle(self):
        return id(self)

    # --- conversion -------------------------------------------------------------------------
    def asnumpy(self):
        return self._data.copy()

    def asscalar(self):
        if self.shape != (1,):
            raise ValueError("The current array is not a scalar")
        return self._data.reshape(-1)[0]

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self._data.dtype:
            return self
        return _invoke("Cast", (self,), {"dtype": dtype})

    def as_nd_ndarray(self):
        return self

    def as_in_context(self, context):
        return self

    def copyto(self, other):
        if isinstance(other, NDArray):
            if other is self:
                return self
            other._data[...] = self._data
            return other
        if isinstance(other, Context):
            return _wrap(self._data.copy())
        raise TypeError("copyto does not support type " + str(type(other)))

    def copy(self):
        return _wrap(self._data.copy())

    def detach(self):
        return _wrap(self._data)

    def tostype(self, stype):
        if stype != "default":
            raise ValueError("hylint.runtime supports only dense ('default') storage")
        return self

    def attach_grad(self, grad_req="write", stype=None):
        self._grad = _wrap(np.zeros_like(self._data))

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        raise MXNetError("Check failed: !AGInfo: :IsNone(*i): Cannot differentiate node because it is not in a "
                         "computational graph. You need to set is_recording to true or use autograd.record() to "
                         "save computational graphs for backward.")

    def wait_to_read(self):
        return None

    def to_dlpack_for_read(self):
        return self._data.__dlpack__()

    def to_dlpack_for_write(self):
        return self._data.__dlpack__()

    def wait_to_write(self):
        return None

    def __repr__(self):
        shape_info = "x".join(str(d) for d in self.shape)
        return "\n%s\n<NDArray %s @%s>" % (np.array2string(self._data), shape_info, self.context)

    def __str__(self):
        return self.__repr__()

    def __hash__(self):
        return id(self) >> 4

    def __bool__(self):
        if self.size == 1:
            return bool(self._data.reshape(-1)[0])
        if self.size == 0:
            return False
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __len__(self):
        return self.shape[0]

    def __getstate__(self):
        return {"data": self._data}

    def __setstate__(self, state):
        self._data = state["data"]
        self._grad = None

    # --- indexing ---------------------------------------------------------------------------
    @staticmethod
    def _index_key(key):
        def conv(k):
            if isinstance(k, NDArray):
                return k._data.astype(np.int64)  # a float 0/1 "mask" is used as integer indices
            if isinstance(k, np.ndarray) and k.dtype.kind == "f":
                return k.astype(np.int64)
            if isinstance(k, list):
                return np.asarray(k, dtype=np.int64)
            return k
        if isinstance(key, tuple):
            return tuple(conv(k) for k in key)
        return conv(key)

    def __getitem__(self, key):
        result = self._data[self._index_key(key)]
        if result.ndim == 0:
            result = result.reshape((1,))  # still a view for basic indexing
        return _wrap(result)

    def __setitem__(self, key, value):
        if isinstance(value, NDArray):
            value = value._data
        elif isinstance(value, np.ndarray):
            pass
        elif not isinstance(value, numeric_types):
            raise TypeError("NDArray does not support assignment with %s of type %s" % (value, type(value)))
        self._data[self._index_key(key)] = value

    # --- operators --------------------------------------------------------------------------
    @staticmethod
    def _scalar_value(value):
        return float(value)

    def _binary(self, other, op_name, scalar_op, rscalar=False):
        if isinstance(other, NDArray):
            args = (other, self) if rscalar else (self, other)
            return _invoke(op_name, args, {})
        if isinstance(other, numeric_types):
            return _invoke(scalar_op, (self,), {"scalar": float(other)})
        raise TypeError("type %s not supported" % str(type(other)))

    def __add__(self, other):
        return self._binary(other, "broadcast_add", "_plus_scalar")

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, "broadcast_sub", "_minus_scalar")

    def __rsub__(self, other):
        return self._binary(other, "broadcast_sub", "_rminus_scalar", rscalar=True)

    def __mul__(self, other):
        return self._binary(other, "broadcast_mul", "_mul_scalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, "broadcast_div", "_div_scalar")

    def __rtruediv__(self, other):
        return self._binary(other, "broadcast_div", "_rdiv_scalar", rscalar=True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, other):
        return self._binary(other, "broadcast_mod", "_mod_scalar")

    def __rmod__(self, other):
        return self._binary(other, "broadcast_mod", "_rmod_scalar", rscalar=True)

    def __pow__(self, other):
        return self._binary(other, "broadcast_power", "_power_scalar")

    def __rpow__(self, other):
        return self._binary(other, "broadcast_power", "_rpower_scalar", rscalar=True)

    def __neg__(self):
        return _invoke("_mul_scalar", (self,), {"scalar": -1.0})

    def __abs__(self):
        return _invoke("abs", (self,), {})

    def __eq__(self, other):
        return self._binary(other, "broadcast_equal", "_equal_scalar")

    def __ne__(self, other):
        return self._binary(other, "broadcast_not_equal", "_not_equal_scalar")

    def __gt__(self, other):
        return self._binary(other, "broadcast_greater", "_greater_scalar")

    def __ge__(self, other):
        return self._binary(other, "broadcast_greater_equal", "_greater_equal_scalar")

    def __lt__(self, other):
        return self._binary(other, "broadcast_lesser", "_lesser_scalar")

    def __le__(self, other):
        return self._binary(other, "broadcast_lesser_equal", "_lesser_equal_scalar")

    def _inplace(self, other, op_name, scalar_op):
        result = self._binary(other, op_name, scalar_op)
        if result.shape != self.shape:
            raise MXNetError("Check failed: shape_assign(&(*oshape)[0], out_shape): Incompatible output shape: "
                             "expected %s, got %s" % (list(result.shape), list(self.shape)))
        self._data[...] = result._data
        return self

    def __iadd__(self, other):
        return self._inplace(other, "broadcast_add", "_plus_scalar")

    def __isub__(self, other):
        return self._inplace(other, "broadcast_sub", "_minus_scalar")

    def __imul__(self, other):
        return self._inplace(other, "broadcast_mul", "_mul_scalar")

    def __itruediv__(self, other):
        return self._inplace(other, "broadcast_div", "_div_scalar")

    __idiv__ = __itruediv__

    def __imod__(self, other):
        return self._inplace(other, "broadcast_mod", "_mod_scalar")

    # --- methods with NDArray-specific Python behaviour ------------------------------------
    def reshape(self, *shape, **kwargs):
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        elif not shape:
            shape = kwargs.get("shape")
            assert shape, "Shape must be provided."
        if not all(k in ("shape", "reverse") for k in kwargs):
            raise TypeError("Got unknown keywords in reshape: {}. Accepted keyword arguments are 'shape' and "
                            "'reverse'.".format(", ".join(k for k in kwargs if k not in ("shape", "reverse"))))
        try:
            target = _ops.reshape_target(self.shape, tuple(shape), bool(kwargs.get("reverse", False)))
        except _ops.ShapeCheck as err:
            raise MXNetError(str(err).format(node=""))
        size, wanted = self.size, int(np.prod(target))
        if wanted > size:
            raise MXNetError("NDArray.Reshape: Check failed: shape_.Size() >= shape.Size() (%d vs. %d) : target shape "
                             "size is larger than the current shape" % (size, wanted))
        if wanted != size:  # the method checks what the operator does not
            raise ValueError("Cannot reshape array of size {} into shape {}".format(size, shape))
        return _wrap(self._data.reshape(target))  # a view, as in MXNet

    def broadcast_to(self, shape):
        cur = self.shape
        err = "operands could not be broadcast together with remapped shapes[original->remapped]: {} and " \
              "requested shape {}".format(cur, shape)
        if len(shape) < len(cur):
            raise ValueError(err)
        padded = (1,) * (len(shape) - len(cur)) + cur
        if any(c != 1 and c != s for c, s in zip(padded, shape)):
            raise ValueError(err)
        src = self.reshape(padded) if padded != cur else self
        return _invoke("broadcast_to", (src,), {"shape": tuple(shape)})

    def broadcast_like(self, other):
        return self.broadcast_to(other.shape)


def _describe_nd_error(arg_name, value):
    if arg_name is None:
        return "Positional arguments must have NDArray type, but got %s" % (value,)
    return "Argument %s must have NDArray type, but got %s" % (arg_name, value)


def _invoke(op_name, args, kwargs, hint=None):
    """Run one operator eagerly: bind, parse, check shapes/dtypes like MXNet, run the kernel."""
    op = _ops.OPS[op_name] if isinstance(op_name, str) else op_name
    bound = _ops.bind_call(op, args, kwargs, "nd", lambda v: isinstance(v, NDArray), _describe_nd_error)
    if bound.out is not None and not isinstance(bound.out, NDArray):
        len(bound.out)  # MXNet does this too: ``x.transpose(1, 0)`` binds 0 to ``out`` -> TypeError
    attrs = _ops.parse_attrs(op, bound.attr_strs)
    _, inputs = _ops.present_inputs(bound, attrs)
    for name, value in zip(bound.input_names, bound.inputs):
        if value is None and name not in op.optional_inputs:
            raise MXNetError("Required argument %s of %s is missing" % (name, op.name))
    attrs["__eager__"] = True
    try:
        _ops.run_infer(op, [v.shape for v in inputs], [_np_dtype_name(v._data.dtype) for v in inputs], attrs)
    except _ops.ShapeCheck as err:
        raise MXNetError((err.eager or str(err)).format(node=""))
    except _ops.InferFailed:
        raise MXNetError("Operator %s inferring shapes failed." % op.name)
    result = op.kernel([v._data for v in inputs], attrs)
    outs = [_wrap(r) for r in result] if isinstance(result, tuple) else [_wrap(result)]
    if bound.out is not None:
        targets = (bound.out,) if isinstance(bound.out, NDArray) else bound.out
        if len(targets) != len(outs):
            raise MXNetError("Expected %d outputs, got %d" % (len(outs), len(targets)))
        for target, value in zip(targets, outs):
            target._data[...] = value._data
        return bound.out
    return outs[0] if len(outs) == 1 else outs


class _Namespace:
    """What :func:`hylint.runtime.ops.build_wrappers` needs to know about this namespace."""

    kind = "nd"

    @staticmethod
    def invoke(op_name, args, kwargs):
        return _invoke(op_name, args, kwargs)

    @staticmethod
    def is_tensor(value):
        return isinstance(value, NDArray)


def _make_function(public_name, op):
    def function(*args, **kwargs):
        return _invoke(op, args, kwargs)
    function.__name__ = public_name
    function.__qualname__ = public_name
    function.__doc__ = "Eager ``%s`` (operator %s of hylint.runtime.ops)." % (public_name, op.name)
    return function


# --- generated operator functions ---------------------------------------------------------------
for _name, _op in _ops.public_names().items():
    setattr(_THIS, _name, _make_function(_name, _op))
for _name, _fn in _ops.WRAPPERS(_Namespace).items():
    setattr(_THIS, _name, _fn)


# --- NDArray-only helpers (missing from mx.sym in MXNet 1.9) ------------------------------------
def array(source_array, ctx=None, dtype=None):
    if isinstance(source_array, NDArray):
        dtype = source_array.dtype if dtype is None else dtype
        return _wrap(source_array._data.astype(dtype, copy=True))
    dtype = mx_real_t if dtype is None else dtype
    data = np.array(source_array, dtype=dtype)
    return _wrap(data)


def empty(shape, ctx=None, dtype=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _wrap(np.zeros(shape, dtype=dtype or mx_real_t))


def waitall():
    return None


def concatenate(arrays, axis=0, always_copy=True):
    return _invoke("Concat", tuple(arrays), {"dim": axis})


def moveaxis(tensor, source, destination):
    return _wrap(np.ascontiguousarray(np.moveaxis(tensor._data, source, destination)))


def onehot_encode(indices, out):
    depth = out.shape[1]
    out._data[...] = _invoke("one_hot", (indices,), {"depth": depth})._data
    return out


def from_numpy(ndarray, zero_copy=True):
    return _wrap(np.asarray(ndarray))


def save(fname, data):
    """``data``: dict name -> NDArray, a list of NDArrays, or one NDArray."""
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, (list, tuple)):
        _serialization.save(fname, [a.asnumpy() for a in data])
    else:
        _serialization.save(fname, {k: v.asnumpy() for k, v in data.items()})


def load(fname):
    loaded = _serialization.load(fname)
    if isinstance(loaded, list):
        return [array(a, dtype=a.dtype) for a in loaded]
    return {k: array(a, dtype=a.dtype) for k, a in loaded.items()}


from .base import unsupported as _unsupported  # noqa: E402


# --- sub-namespaces -----------------------------------------------------------------------------
def _submodule(short_name, members):
    module = types.ModuleType(PUBLIC_NAME + "." + short_name)
    for key, value in members.items():
        setattr(module, key, value)
    return module


_TYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6, "bool": 7}


def _sample(op_name, params, dtype, out, kwargs):
    """uniform/normal into ``out``: dtype None samples in ``out``'s type, which must be a float type; a dtype given
    must be ``out``'s (MXNet's type checks, after its parameter parsing)."""
    if dtype is not None:
        params["dtype"] = dtype
    if isinstance(out, NDArray):
        wanted = _ops.parse_attrs(_ops.OPS[op_name], {k: _ops.stringify(v) for k, v in params.items()})["dtype"]
        have = _np_dtype_name(out._data.dtype)
        flag = _TYPE_FLAGS.get(have, -1)
        if wanted == "None":
            if flag not in (0, 1, 2):
                raise MXNetError("Check failed: dtype_ok: Output type must be float16, float32, float64: dtype is "
                                 "%d vs 2 or 0 or 1" % flag)
            params["dtype"] = have
        elif wanted != have:
            raise MXNetError("Check failed: dtype_out == param.dtype (%d vs. %d) : Output type does not match "
                             "requested type: %d vs %d" % (flag, _TYPE_FLAGS[wanted], flag, _TYPE_FLAGS[wanted]))
    return _invoke(op_name, (), dict(kwargs, out=out, **params))


def _random_uniform(low=0, high=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_uniform", {"low": low, "high": high, "shape": shape}, dtype, out, kwargs)


def _random_normal(loc=0, scale=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_normal", {"loc": loc, "scale": scale, "shape": shape}, dtype, out, kwargs)


def _random_multinomial(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    return _invoke("_sample_multinomial", (data,), dict(kwargs, shape=shape, get_prob=get_prob, dtype=dtype, out=out))


def _random_randn(*shape, **kwargs):
    return _random_normal(shape=shape or (1,), **kwargs)


def _random_randint(low, high, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _invoke("_random_randint", (), dict(kwargs, low=low, high=high, shape=shape, dtype=dtype or "int32",
                                               out=out))


random = _submodule("random", {
    "uniform": _random_uniform, "normal": _random_normal, "randn": _random_randn,
    "multinomial": _random_multinomial, "randint": _random_randint,
    "uniform_like": _make_function("uniform_like", _ops.OPS["_random_uniform_like"]),
    "normal_like": _make_function("normal_like", _ops.OPS["_random_normal_like"]),
    "shuffle": _make_function("shuffle", _ops.OPS["_shuffle"]),
    "seed": _rng.seed,
})


def _contrib_cond(pred, then_func, else_func, name="cond"):
    """Eager ``contrib.cond``: runs only the branch the predicate picks."""
    return then_func() if bool(pred.asscalar()) else else_func()


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _contrib_while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    loop_vars = _as_list(loop_vars)
    steps = []
    for _ in range(max_iterations):
        if not bool(cond(*loop_vars).asscalar()):
            break
        step_out, loop_vars = func(*loop_vars)
        steps.append(_as_list(step_out))
        loop_vars = _as_list(loop_vars)
    outputs = []
    if steps and steps[0]:
        for k in range(len(steps[0])):
            rows = [s[k]._data for s in steps]
            pad = [np.zeros_like(rows[0])] * (max_iterations - len(rows))  # MXNet leaves these uninitialised
            outputs.append(_wrap(np.stack(rows + pad)))
    return outputs, loop_vars


def _contrib_foreach(body, data, init_states, name="foreach"):
    single = isinstance(data, NDArray)
    seqs = [data] if single else list(data)
    states = init_states
    outs = []
    for i in range(seqs[0].shape[0]):
        elems = seqs[0][i] if single else [s[i] for s in seqs]
        out, states = body(elems, states)
        outs.append(out)
    if isinstance(outs[0], NDArray):
        stacked = _wrap(np.stack([o._data for o in outs]))
    else:
        stacked = [_wrap(np.stack([o[k]._data for o in outs])) for k in range(len(outs[0]))]
    return stacked, states


def _isnan(data):
    return _wrap(np.isnan(data._data).astype(data._data.dtype))


def _isinf(data):
    return _wrap(np.isinf(data._data).astype(data._data.dtype))


def _isfinite(data):
    return _wrap(np.isfinite(data._data).astype(data._data.dtype))


linalg = _submodule("linalg", {"gemm2": _make_function("gemm2", _ops.OPS["_linalg_gemm2"])})

image = _submodule("image", {name: _make_function(name, op) for name, op in _ops.prefixed_names("image").items()})

contrib = _submodule("contrib", {
    **{name: _make_function(name, op) for name, op in _ops.prefixed_names("contrib").items()},
    "cond": _contrib_cond, "while_loop": _contrib_while_loop, "foreach": _contrib_foreach,
    "isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite,
    # optimiser update kernels: importable (libraries define optimisers at import time), unsupported when run
    **{name: _unsupported("mxnet.ndarray.contrib.%s (training)" % name)
       for name in ("adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update")},
})


def __getattr__(name):
    raise AttributeError("module %r has no attribute %r" % (PUBLIC_NAME, name))


# --- fluent methods: x.sum(...), x.relu(), ... forward to the namespace functions -------------
# the ones whose NDArray and Symbol behaviour differs have methods of their own (above; symbol.py)
FLUENT_METHODS = tuple(sorted(tensor_methods.FLUENT_METHODS - {"reshape", "astype", "broadcast_to", "broadcast_like"}))
#: the Python-level keyword MXNet's fluent wrappers accept and drop
_FLUENT_DROPPED = ("inplace",)


def make_fluent(namespace_module, name):
    def method(self, *args, **kwargs):
        for key in _FLUENT_DROPPED:
            kwargs.pop(key, None)
        return getattr(namespace_module, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in FLUENT_METHODS:
    setattr(NDArray, _name, make_fluent(_THIS, _name))

NDArray.__module__ = "mxnet.ndarray.ndarray"

# MXNet's operators the runtime lacks, present by name (a library's test for one sees what it sees on MXNet)
_ops.namespaces.stand_in_for_lacking_operators(_THIS, PUBLIC_NAME)


def _submodule_view(name):
    """A module object standing for MXNet's submodule ``name`` whose names are this module's: MXNet's
    ``mx.nd.ndarray`` is a module of its own, not ``mx.nd`` (gluonfr tests ``F is nd.ndarray``)."""
    view = types.ModuleType(name, "the runtime's view of %s: its names are those of mxnet.ndarray" % name)
    view.__dict__["__getattr__"] = lambda attr: getattr(_THIS, attr)
    return view


ndarray = _submodule_view("mxnet.ndarray.ndarray")
