"""Initialisers (``mxnet.init``): Uniform, Normal, Xavier, MSRAPrelu, Orthogonal, Bilinear, LSTMBias, Constant,
One, Zero, Mixed, Load, and MXNet 1.9.1's dispatch (``Initializer.__call__``).

How MXNet picks what fills an array (python/mxnet/initializer.py, measured in
``tests/runtime/test_runtime_initializers.py``):

* ``init(InitDesc(name, attrs), arr)`` with an ``__init__`` attribute: that initialiser's ``_init_weight``,
  whatever the name. Gluon always calls so (``Parameter`` passes its own ``init``, or the one given to
  ``initialize()``), so in Gluon, Block, HybridBlock and SymbolBlock alike, the name decides nothing:
  ``net.initialize(mx.init.Xavier())`` reaches Xavier for a BatchNorm's ``gamma`` unless the parameter has
  an initialiser of its own (``nn.BatchNorm``'s ``'ones'``), and a SymbolBlock's parameters have none.
* ``init(InitDesc(name), arr)`` without one: by the name's ending, ``weight``, ``bias`` (0), ``gamma`` (1),
  ``beta`` (0), ``min`` (0), ``max`` (1), ``weight_quantize`` (one random integer in [-127, 127) for the
  whole array), ``bias_quantize`` (0), in that order; any other name (``running_mean`` included) raises.
* ``init(name, arr)`` with a plain string (deprecated: a DeprecationWarning): the older rules, in their own
  order: ``upsampling*`` bilinear, ``stn_loc*weight`` 0, ``stn_loc*bias`` the identity transform, ``bias``,
  ``gamma``, ``beta``, ``weight``, ``moving_mean`` 0, ``moving_var`` 1, ``moving_inv_var`` 0, ``moving_avg`` 0,
  ``min`` 0, ``max`` 1; anything else raises.

Random draws use the runtime's samplers (``nd.random.*`` with ``out=``, so an integer array fails as in
MXNet), seeded by ``mx.random.seed``: reproducible, but not MXNet's numbers."""
import json
import logging
import re
import warnings
from math import sqrt

import numpy as np

from . import ndarray as _nd
from . import registry

__all__ = ["InitDesc", "Initializer", "Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "Bilinear",
           "LSTMBias", "Constant", "One", "Zero", "Mixed", "Load", "create", "register", "alias"]


class InitDesc(str):
    """A parameter name carrying attributes (``__init__``: the parameter's own initialiser)."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


# (name ending, method) in the order MXNet tests them; the first that matches fills the array
_DESC_RULES = (("weight", "_init_weight"), ("bias", "_init_bias"), ("gamma", "_init_gamma"), ("beta", "_init_beta"),
               ("min", "_init_zero"), ("max", "_init_one"), ("weight_quantize", "_init_quantized_weight"),
               ("bias_quantize", "_init_quantized_bias"))
_LEGACY_RULES = (("bias", "_init_bias"), ("gamma", "_init_gamma"), ("beta", "_init_beta"), ("weight", "_init_weight"),
                 ("moving_mean", "_init_zero"), ("moving_var", "_init_one"), ("moving_inv_var", "_init_zero"),
                 ("moving_avg", "_init_zero"), ("min", "_init_zero"), ("max", "_init_one"))


class Initializer:
    """Base class: ``init(desc, arr)`` fills ``arr`` according to the parameter name (or its ``__init__``)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        self._verbose = verbose
        if print_func is None:
            def asum_stat(x):
                return str((_nd.norm(x) / sqrt(x.size)).asscalar())
            print_func = asum_stat
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for ending, method in _DESC_RULES:
            if desc.endswith(ending):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, ending, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        warnings.warn("\033[91mCalling initializer with init(str, NDArray) has been deprecated.please use "
                      "init(mx.init.InitDesc(...), NDArray) instead.\033[0m", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("name must be string")
        if not isinstance(arr, _nd.NDArray):
            raise TypeError("arr must be NDArray")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        else:
            for ending, method in _LEGACY_RULES:
                if name.endswith(ending):
                    getattr(self, method)(name, arr)
                    return
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)

    def _init_loc_bias(self, _, arr):
        assert arr.shape[0] == 6
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_quantized_bias(self, _, arr):
        arr[:] = 0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        raise NotImplementedError("Must override it")

    def _init_quantized_weight(self, _, arr):
        # as MXNet: randint without a shape draws ONE integer, which then fills the whole array
        arr[:] = np.int8(_nd.random.randint(-127, 127, dtype="int32").asnumpy())

    def _init_default(self, name, _):
        raise ValueError("Unknown initialization pattern for %s. Default initialization is now limited to "
                         "\"weight\", \"bias\", \"gamma\" (1.0), and \"beta\" (0.0).Please use mx.sym.Variable"
                         "(init=mx.init.*) to set initialization pattern" % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # as MXNet's (``__eq__`` without ``__hash__``)


_register = registry.get_register_func(Initializer, "initializer")
alias = registry.get_alias_func(Initializer, "initializer")
create = registry.get_create_func(Initializer, "initializer")


def register(klass):
    """Registers a custom initializer (``mx.init.register``), by its lower-cased class name."""
    return _register(klass)


def _bilinear_kernel(shape):
    """The weights of an upsampling (transposed) convolution, float32, on the last two axes."""
    f = np.ceil(shape[3] / 2.0)
    centre = (2 * f - 1 - f % 2) / (2.0 * f)
    x = 1 - np.abs(np.arange(shape[3]) / f - centre)
    y = 1 - np.abs(np.arange(shape[2]) / f - centre)
    return np.broadcast_to((y[:, None] * x[None, :]).astype(np.float32), shape)


class Load:
    """Initializes variables by loading data from a file or dict (``arg:``/``aux:`` prefixes dropped), else
    ``default_init``."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = _nd.load(param)
        assert isinstance(param, dict)
        self.param = {(name[4:] if name.startswith(("arg:", "aux:")) else name): arr for name, arr in param.items()}
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            assert arr.shape == self.param[name].shape, (
                "Parameter %s cannot be initialized from loading. " % name
                + "Shape mismatch, target %s vs loaded %s" % (str(arr.shape), self.param[name].shape))
            arr[:] = self.param[name]
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            assert self.default_init is not None, (
                "Cannot Initialize %s. Not found in loaded param " % name + "and no default Initializer is provided.")
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """The first initializer whose pattern (``re.match``) the name matches (not an Initializer: Gluon's
    ``initialize()`` refuses it, as in MXNet)."""

    def __init__(self, patterns, initializers):
        assert len(patterns) == len(initializers)
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        # (sic) MXNet's message keeps its unformatted %s
        raise ValueError("Parameter name %s did not match any pattern. Consider" +
                         "add a \".*\" pattern at the and with default Initializer.")


@register
@alias("zeros")
class Zero(Initializer):
    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        arr[:] = np.broadcast_to(np.asarray(value), arr.shape)

    def dumps(self):
        val = self._kwargs["value"]
        if not np.isscalar(val):
            self._kwargs["value"] = val.tolist() if isinstance(val, np.ndarray) else val.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _nd.random.uniform(-self.scale, self.scale, arr.shape, out=arr)


@register
class Normal(Initializer):
    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _nd.random.normal(0, self.sigma, arr.shape, out=arr)


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
            _nd.random.uniform(-scale, scale, arr.shape, out=arr)
        elif self.rnd_type == "gaussian":
            _nd.random.normal(0, scale, arr.shape, out=arr)
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
    """``scale`` times an orthogonal factor (SVD) of a float32 uniform or normal draw of shape
    (out, prod(rest))."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, _, arr):
        # np.prod of a vector's empty tail is the float 1.0, and MXNet's shape parser refuses (n, 1.0)
        rows, cols = arr.shape[0], np.prod(arr.shape[1:])
        if self.rand_type == "uniform":
            draw = _nd.random.uniform(-1.0, 1.0, shape=(rows, cols)).asnumpy()
        elif self.rand_type == "normal":
            draw = _nd.random.normal(0.0, 1.0, shape=(rows, cols)).asnumpy()
        u, _, v = np.linalg.svd(draw, full_matrices=False)
        arr[:] = self.scale * (u if u.shape == draw.shape else v).reshape(arr.shape)


@register
class Bilinear(Initializer):
    """The bilinear-interpolation kernel of an upsampling (transposed) convolution, on the last two axes."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """Zero biases, except ``forget_bias`` on an LSTM cell's forget gate (the second of its four gates)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        hidden = int(arr.shape[0] / 4)
        arr[hidden:2 * hidden] = self.forget_bias
