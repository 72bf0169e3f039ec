"""Initialisers (``mxnet.init``): Uniform, Normal, Xavier, MSRAPrelu, Orthogonal, Bilinear, LSTMBias, Constant,
One, Zero, and MXNet's dispatch rules.

Random draws use the runtime generator, so ``mx.random.seed(n)`` makes initialisation reproducible."""
import json

import numpy as np

from . import rng

__all__ = ["InitDesc", "Initializer", "Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "Bilinear",
           "LSTMBias", "Constant", "One", "Zero", "create", "register"]

_REGISTRY = {}


def register(klass):
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*names):
    def decorate(klass):
        for name in names:
            _REGISTRY[name] = klass
        return klass
    return decorate


class InitDesc(str):
    """A parameter name carrying attributes (``__init__``: the parameter's own initialiser)."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _fill(arr, values):
    arr[:] = np.asarray(values).astype(np.dtype(arr.dtype), copy=False)


class Initializer:
    """Base class: ``init(desc, arr)`` fills ``arr`` according to the parameter name (or its ``__init__``)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False

    def set_verbosity(self, verbose=False, print_func=None):
        self._verbose = verbose
        return self

    def dumps(self):
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            desc = InitDesc(str(desc))
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            return
        name = str(desc)
        if name.endswith("weight"):
            self._init_weight(desc, arr)
        elif name.endswith("bias"):
            self._init_bias(desc, arr)
        elif name.endswith("gamma"):
            self._init_gamma(desc, arr)
        elif name.endswith("beta"):
            self._init_beta(desc, arr)
        elif name.endswith("min") or name.endswith("running_mean") or name.endswith("moving_mean"):
            self._init_zero(desc, arr)
        elif name.endswith("max") or name.endswith("running_var") or name.endswith("moving_var"):
            self._init_one(desc, arr)
        else:
            self._init_default(desc, arr)

    def _init_zero(self, _, arr):
        _fill(arr, 0.0)

    def _init_one(self, _, arr):
        _fill(arr, 1.0)

    def _init_bias(self, _, arr):
        _fill(arr, 0.0)

    def _init_gamma(self, _, arr):
        _fill(arr, 1.0)

    def _init_beta(self, _, arr):
        _fill(arr, 0.0)

    def _init_weight(self, name, arr):
        raise NotImplementedError("Must override it")

    def _init_default(self, name, _):
        raise ValueError("Unknown initialization pattern for %s. Default initialization is now limited to "
                         "\"weight\", \"bias\", \"gamma\" (1.0), and \"beta\" (0.0). Please use mx.sym.Variable"
                         "(init=mx.init.*) to set initialization pattern" % name)

    def __repr__(self):
        return "%s(%s)" % (self.__class__.__name__, ", ".join("%s=%r" % kv for kv in self._kwargs.items()))


@register
@alias("zeros")
class Zero(Initializer):
    def _init_weight(self, _, arr):
        _fill(arr, 0.0)


@register
@alias("ones")
class One(Initializer):
    def _init_weight(self, _, arr):
        _fill(arr, 1.0)


@register
class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        _fill(arr, np.broadcast_to(np.asarray(value), arr.shape))

    def dumps(self):
        value = self.value.asnumpy().tolist() if hasattr(self.value, "asnumpy") else self.value
        return json.dumps(["constant", {"value": np.asarray(value).tolist()}])


@register
class Uniform(Initializer):
    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _fill(arr, rng.generator().uniform(-self.scale, self.scale, size=arr.shape))


@register
class Normal(Initializer):
    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _fill(arr, rng.generator().normal(0, self.sigma, size=arr.shape))


@register
class Xavier(Initializer):
    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError("Xavier initializer cannot be applied to vector {0}. It requires at least 2D."
                             .format(name))
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}.get(self.factor_type)
        if factor is None:
            raise ValueError("Incorrect factor type")
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill(arr, rng.generator().uniform(-scale, scale, size=shape))
        elif self.rnd_type == "gaussian":
            _fill(arr, rng.generator().normal(0, scale, size=shape))
        else:
            raise ValueError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He et al.'s initialisation for (P)ReLU networks: Xavier, gaussian, with magnitude ``2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Orthogonal(Initializer):
    """``scale`` times an orthogonal factor (SVD) of a uniform or normal draw of shape (out, prod(rest))."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, _, arr):
        rows, cols = arr.shape[0], int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            draw = rng.generator().uniform(-1.0, 1.0, size=(rows, cols))
        else:
            draw = rng.generator().normal(0.0, 1.0, size=(rows, cols))
        u, _, v = np.linalg.svd(draw, full_matrices=False)
        _fill(arr, self.scale * (u if u.shape == draw.shape else v).reshape(arr.shape))


@register
class Bilinear(Initializer):
    """The bilinear-interpolation kernel of an upsampling (transposed) convolution, on the last two axes."""

    def _init_weight(self, _, arr):
        shape = arr.shape
        f = np.ceil(shape[3] / 2.0)
        centre = (2 * f - 1 - f % 2) / (2.0 * f)
        x = 1 - np.abs(np.arange(shape[3]) / f - centre)
        y = 1 - np.abs(np.arange(shape[2]) / f - centre)
        _fill(arr, np.broadcast_to((y[:, None] * x[None, :]).astype(np.float32), shape))


@register
class LSTMBias(Initializer):
    """Zero biases, except ``forget_bias`` on an LSTM cell's forget gate (the second of its four gates)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        values = np.zeros(arr.shape, dtype=np.float64)
        hidden = int(arr.shape[0] / 4)
        values[hidden:2 * hidden] = self.forget_bias
        _fill(arr, values)


def create(init, **kwargs):
    """An Initializer from an instance, a registered name (``'zeros'``) or ``dumps()`` JSON."""
    if isinstance(init, Initializer):
        return init
    if isinstance(init, type) and issubclass(init, Initializer):
        return init(**kwargs)
    if isinstance(init, str):
        text = init.strip()
        if text.startswith("["):
            name, params = json.loads(text)
            return _REGISTRY[name.lower()](**params)
        if text.lower() not in _REGISTRY:
            raise ValueError("Cannot find initializer %r" % init)
        return _REGISTRY[text.lower()](**kwargs)
    raise TypeError("Cannot create an initializer from %r" % (init,))
