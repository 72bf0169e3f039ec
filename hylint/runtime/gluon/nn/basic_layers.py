"""Basic layers: Sequential, HybridSequential, Dense, Dropout, BatchNorm, LayerNorm, Embedding, Flatten,
Lambda, HybridLambda, Activation."""
from ... import initializer as _init
from ... import ndarray as _nd
from ..block import Block, HybridBlock

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "BatchNorm", "LayerNorm", "Embedding", "Flatten",
           "Lambda", "HybridLambda", "Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "InstanceNorm"]


def _chain(blocks, x, args):
    for block in blocks:
        x = block(x, *args)
        args = []
        if isinstance(x, (tuple, list)):
            args = x[1:]
            x = x[0]
    if args:
        x = tuple([x] + list(args))
    return x


class Sequential(Block):
    """Stacks Blocks sequentially (imperative)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def forward(self, x, *args):
        return _chain(self._children.values(), x, args)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)

    def __repr__(self):
        return Block.__repr__(self)


class HybridSequential(HybridBlock):
    """Stacks HybridBlocks sequentially."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def hybrid_forward(self, F, x, *args):
        return _chain(self._children.values(), x, args)

    __getitem__ = Sequential.__getitem__

    def __len__(self):
        return len(self._children)


class Activation(HybridBlock):
    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return "{name}({_act_type})".format(name=self.__class__.__name__, **self.__dict__)


class LeakyReLU(HybridBlock):
    def __init__(self, alpha, **kwargs):
        assert alpha >= 0, "Slope coefficient for LeakyReLU must be no less than 0."
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")


class PReLU(HybridBlock):
    def __init__(self, alpha_initializer=None, in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,),
                                         init=alpha_initializer if alpha_initializer is not None
                                         else _init.Constant(0.25))

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(HybridBlock):
    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")


class Dense(HybridBlock):
    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32", weight_initializer=None,
                 bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer, dtype=dtype,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        act = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten,
                               name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        shape = self.weight.shape
        return "{name}({layout}, {act})".format(
            name=self.__class__.__name__, act=self.act if self.act else "linear",
            layout="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


class Dropout(HybridBlock):
    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return "{name}(p = {_rate}, axes={_axes})".format(name=self.__class__.__name__, **self.__dict__)


class BatchNorm(HybridBlock):
    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer="zeros", gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats}
        self._axis = axis
        self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=(in_channels,),
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=(in_channels,),
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return "{name}({content}, in_channels={in_channels})".format(
            name=self.__class__.__name__, in_channels=in_channels if in_channels else None,
            content=", ".join("=".join([k, repr(v)]) for k, v in self._kwargs.items()))


class InstanceNorm(HybridBlock):
    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon}
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True)

    def hybrid_forward(self, F, x, gamma, beta):
        return F.InstanceNorm(x, gamma, beta, name="fwd", **self._kwargs)


class LayerNorm(HybridBlock):
    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis}
        self._axis, self._epsilon = axis, epsilon
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class Embedding(HybridBlock):
    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, sparse_grad=False,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype, "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{block_name}({input_dim} -> {output_dim}, {dtype})".format(
            block_name=self.__class__.__name__, **self._kwargs)


class Flatten(HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Lambda(Block):
    """Wraps a function (or the name of an ``mx.nd`` function) as an imperative Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(_nd, function), "Function name %s is not found in ndarray." % function
            self._func_impl = getattr(_nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}".format(function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__, function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wraps ``function(F, x, *args)`` (or the name of an operator) as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}".format(function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__, function=self._func_name)



for _cls_name in __all__:
    globals()[_cls_name].__module__ = ("mxnet.gluon.nn.activations" if _cls_name in
                                       ("Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish")
                                       else "mxnet.gluon.nn.basic_layers")


class GroupNorm(HybridBlock):
    """Normalises groups of channels (MXNet 1.x: ``gamma``/``beta`` have one value per group)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center, "scale": scale}
        self._num_groups, self._epsilon = num_groups, epsilon
        self._center, self._scale = center, scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(num_groups,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(num_groups,),
                                    init=beta_initializer, allow_deferred_init=True)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon)


GroupNorm.__module__ = "mxnet.gluon.nn.basic_layers"
__all__.append("GroupNorm")
