"""Gluon parameters (``mxnet.gluon.Parameter``, ``Constant``, ``ParameterDict``) with deferred initialisation."""
import re
import warnings
from collections import OrderedDict

from .. import initializer as _init
from .. import ndarray as _nd
from .. import symbol as _sym
from ..base import mx_real_t
from ..context import cpu

__all__ = ["Parameter", "Constant", "ParameterDict", "DeferredInitializationError"]


class DeferredInitializationError(Exception):
    """Parameter data was requested before its shape was known."""


def shape_is_known(shape):
    return shape is not None and len(shape) > 0 and all(d > 0 for d in shape)


class Parameter:
    def __init__(self, name, grad_req="write", shape=None, dtype=mx_real_t, lr_mult=1.0, wd_mult=1.0, init=None,
                 allow_deferred_init=False, differentiable=True, stype="default", grad_stype="default"):
        self.name = name
        self._shape = (shape,) if isinstance(shape, int) else (tuple(shape) if shape is not None else None)
        self.dtype = dtype
        self.lr_mult, self.wd_mult = lr_mult, wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self.grad_req = grad_req if differentiable else "null"
        self._stype = stype
        self._data = None
        self._deferred_init = ()
        self._var = None

    def __repr__(self):
        return "Parameter {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                        dtype=self.dtype)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        compatible = len(self._shape) == len(new_shape) and all(
            i == j or i == 0 for i, j in zip(self._shape, new_shape))
        if not compatible:
            raise AssertionError("Expected shape %s is incompatible with given shape %s." % (new_shape, self._shape))
        self._shape = new_shape

    # --- initialisation ---------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=_init.Uniform(), force_reinit=False):
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to re-initialize."
                          % self.name, stacklevel=2)
            return
        self._data = None
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self.allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                             % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        if not self._deferred_init:
            return
        init, _, default_init, data = self._deferred_init
        self._deferred_init = ()
        assert shape_is_known(self.shape), (
            "Cannot initialize Parameter '%s' because it has invalid shape: %s. Please specify in_units, "
            "in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        if data is None:
            data = _nd.zeros(shape=self.shape, dtype=self.dtype)
            _init.create(default_init)(_init.InitDesc(self.name, {"__init__": init}), data)
        self._data = data

    def _check_initialized(self):
        if self._data is not None:
            return
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through the "
                "network before accessing Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % self.name)
        raise RuntimeError(
            "Parameter '%s' has not been initialized. Note that you should initialize parameters and create "
            "Trainer with Block.collect_params() instead of Block.params because the later does not include "
            "Parameters of nested child Blocks" % self.name)

    # --- MXNet's private attributes that libraries reach into (gluonnlp's WeightDropParameter) ----------
    _grad = _ctx_list = _ctx_map = _trainer = None  # one CPU context, no gradients, no trainer

    @property
    def _allow_deferred_init(self):
        return self.allow_deferred_init

    def _check_and_get(self, arr, ctx):
        """MXNet picks ``ctx``'s copy out of a per-context list; here there is one copy."""
        if arr is not None:
            return arr
        self._check_initialized()
        return self._data

    # --- data access ------------------------------------------------------------------------
    def data(self, ctx=None):
        self._check_initialized()
        return self._data

    def list_data(self):
        return [self.data()]

    def list_ctx(self):
        return [cpu()]

    def grad(self, ctx=None):
        return None

    def list_grad(self):
        return []

    def zero_grad(self):
        return None

    def reset_ctx(self, ctx):
        return None

    def set_data(self, data):
        # MXNet reads `data.shape` first: a Symbol (set_data in traced code) or a list raises AttributeError
        self.shape = data.shape
        value = data if isinstance(data, _nd.NDArray) else _nd.array(data, dtype=self.dtype)
        if self._data is None:
            if self._deferred_init:
                self._deferred_init = self._deferred_init[:3] + (value.astype(self.dtype),)
                self._finish_deferred_init()
                return
            self._data = value.astype(self.dtype)
            return
        self._data[:] = value

    def _load_init(self, data, ctx=None, cast_dtype=False, dtype_source="current"):
        if self.shape:
            unknown_ok = all(j in (0, i) for i, j in zip(data.shape, self.shape)) and len(data.shape) == len(self.shape)
            assert unknown_ok, ("Failed loading Parameter '%s' from saved params: shape incompatible expected %s vs "
                                "saved %s" % (self.name, str(self.shape), str(data.shape)))
            self.shape = data.shape
        if cast_dtype and dtype_source == "saved":
            self.dtype = data.dtype
        self._data = _nd.array(data, dtype=self.dtype if not cast_dtype or dtype_source == "current" else data.dtype)
        self._deferred_init = ()

    def var(self):
        if self._var is None:
            # the initializer goes along serialized, as MXNet's does: `init.Constant([1.0, 2.0])` fails here
            # (its dumps() takes a number or an array only), so a hybridized call fails as on MXNet 1.9.1
            self._var = _sym.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                 wd_mult=self.wd_mult, init=self.init)
        return self._var

    def cast(self, dtype):
        self.dtype = dtype
        if self._data is not None:
            self._data = self._data.astype(dtype)


class Constant(Parameter):
    """A non-trainable parameter holding a fixed value (``params.get_constant``)."""

    def __init__(self, name, value):
        if not isinstance(value, _nd.NDArray):
            value = _nd.array(value)
        self.value = value
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype, init=_init.Constant(value))

    def __repr__(self):
        return "Constant {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                       dtype=self.dtype)


class ParameterDict:
    """Parameters by full name, all sharing one prefix."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join("  " + repr(v) for v in self.values())
        return "{name}(\n{content}\n)".format(name=self._prefix + " " if self._prefix else "", content=body)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name, **kwargs):
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            if key == "shape" and value is not None and param.shape is not None:
                param.shape = tuple(max(a, b) for a, b in zip(param.shape, value))
            elif hasattr(param, key) and getattr(param, key) is None:
                setattr(param, key, value)
        return param

    def get_constant(self, name, value=None):
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to create a new "
                               "constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        return param

    def update(self, other):
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise AssertionError("Cannot update self with other because they have different Parameters with "
                                     "the same name '%s'" % key)
            self._params[key] = value

    def initialize(self, init=_init.Uniform(), ctx=None, verbose=False, force_reinit=False):
        # as MXNet: an explicit None is passed on, and fails where a parameter has no init of its own
        # (AssertionError: initializer must be of string type)
        if verbose:
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        return None

    def reset_ctx(self, ctx):
        return None

    def setattr(self, name, value):
        for param in self.values():
            setattr(param, name, value)

    def select(self, pattern):
        regex = re.compile(pattern)
        out = ParameterDict(self._prefix)
        out._params.update((k, v) for k, v in self._params.items() if regex.match(k))
        return out

    def save(self, filename, strip_prefix=""):
        arrays = {}
        for param in self.values():
            key = param.name[len(strip_prefix):] if param.name.startswith(strip_prefix) else param.name
            arrays[key] = param.data()
        _nd.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="", cast_dtype=False,
             dtype_source="current"):
        loaded = {restore_prefix + k: v for k, v in _nd.load(filename).items()}
        if not allow_missing:
            for name in self.keys():
                assert name in loaded, "Parameter '%s' is missing in file '%s'" % (name, filename)
        for name, value in loaded.items():
            if name not in self._params:
                assert ignore_extra, "Parameter '%s' loaded from file '%s' is not present in ParameterDict" % (
                    name, filename)
                continue
            self._params[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

for _cls in (Parameter, Constant, ParameterDict, DeferredInitializationError):
    _cls.__module__ = "mxnet.gluon.parameter"
