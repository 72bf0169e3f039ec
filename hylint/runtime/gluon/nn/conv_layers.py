"""Convolution and pooling layers (NCW / NCHW layouts)."""
from ..block import HybridBlock
from .basic_layers import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "ReflectionPad2D",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D"]


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


class _Conv(HybridBlock):
    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 op_name="Convolution", adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            self._op_name = op_name
            self._kwargs = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                            "num_filter": channels, "num_group": groups, "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            if op_name == "Deconvolution":  # weight: (in_channels, channels / groups, *kernel)
                wshape = (in_channels, channels // groups) + tuple(kernel_size)
            else:
                wshape = (channels, in_channels // groups if in_channels else 0) + tuple(kernel_size)
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            act = getattr(F, self._op_name)(x, weight, name="fwd", **self._kwargs)
        else:
            act = getattr(F, self._op_name)(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = self.act(act)
        return act

    def _alias(self):
        return "conv"

    def __repr__(self):
        shape = self.weight.shape
        return "{name}({mapping}, kernel_size={kernel}, stride={stride})".format(
            name=self.__class__.__name__, mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]),
            **self._kwargs)


class Conv1D(_Conv):
    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout="NCW",
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros", in_channels=0,
                 **kwargs):
        assert layout == "NCW", "Only supports 'NCW' layout for now"
        super().__init__(channels, _tuple(kernel_size, 1), _tuple(strides, 1), _tuple(padding, 1),
                         _tuple(dilation, 1), groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv2D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout="NCHW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        assert layout == "NCHW", "hylint.runtime supports only the 'NCHW' layout"
        super().__init__(channels, _tuple(kernel_size, 2), _tuple(strides, 2), _tuple(padding, 2),
                         _tuple(dilation, 2), groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv3D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1,
                 layout="NCDHW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        assert layout == "NCDHW", "hylint.runtime supports only the 'NCDHW' layout"
        super().__init__(channels, _tuple(kernel_size, 3), _tuple(strides, 3), _tuple(padding, 3),
                         _tuple(dilation, 3), groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv1DTranspose(_Conv):
    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        assert layout == "NCW", "Only supports 'NCW' layout for now"
        super().__init__(channels, _tuple(kernel_size, 1), _tuple(strides, 1), _tuple(padding, 1),
                         _tuple(dilation, 1), groups, layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=_tuple(output_padding, 1), **kwargs)
        self.outpad = output_padding


class Conv2DTranspose(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), output_padding=(0, 0), dilation=(1, 1),
                 groups=1, layout="NCHW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        assert layout == "NCHW", "hylint.runtime supports only the 'NCHW' layout"
        super().__init__(channels, _tuple(kernel_size, 2), _tuple(strides, 2), _tuple(padding, 2),
                         _tuple(dilation, 2), groups, layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=_tuple(output_padding, 2), **kwargs)
        self.outpad = output_padding


class Conv3DTranspose(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), output_padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        assert layout == "NCDHW", "hylint.runtime supports only the 'NCDHW' layout"
        super().__init__(channels, _tuple(kernel_size, 3), _tuple(strides, 3), _tuple(padding, 3),
                         _tuple(dilation, 3), groups, layout, in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name="Deconvolution", adj=_tuple(output_padding, 3), **kwargs)
        self.outpad = output_padding


class ReflectionPad2D(HybridBlock):
    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        if isinstance(strides, int):
            strides = (strides,)
        if isinstance(padding, int):
            padding = (padding,)
        self._kwargs = {"kernel": pool_size, "stride": strides, "pad": padding, "global_pool": global_pool,
                        "pool_type": pool_type, "layout": layout,
                        "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}, " \
               "global_pool={global_pool}, pool_type={pool_type}, layout={layout})".format(
                   name=self.__class__.__name__, ceil_mode=self._kwargs["pooling_convention"] == "full",
                   **self._kwargs)


class MaxPool1D(_Pooling):
    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, **kwargs):
        pool_size = _tuple(pool_size, 1)
        super().__init__(pool_size, _tuple(strides, 1) if strides is not None else None, _tuple(padding, 1),
                         ceil_mode, False, "max", layout, **kwargs)


class MaxPool2D(_Pooling):
    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False, **kwargs):
        pool_size = _tuple(pool_size, 2)
        super().__init__(pool_size, _tuple(strides, 2) if strides is not None else None, _tuple(padding, 2),
                         ceil_mode, False, "max", layout, **kwargs)


class AvgPool1D(_Pooling):
    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, count_include_pad=True,
                 **kwargs):
        pool_size = _tuple(pool_size, 1)
        super().__init__(pool_size, _tuple(strides, 1) if strides is not None else None, _tuple(padding, 1),
                         ceil_mode, False, "avg", layout, count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False, layout="NCHW",
                 count_include_pad=True, **kwargs):
        pool_size = _tuple(pool_size, 2)
        super().__init__(pool_size, _tuple(strides, 2) if strides is not None else None, _tuple(padding, 2),
                         ceil_mode, False, "avg", layout, count_include_pad, **kwargs)


class MaxPool3D(_Pooling):
    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout="NCDHW", **kwargs):
        pool_size = _tuple(pool_size, 3)
        super().__init__(pool_size, _tuple(strides, 3) if strides is not None else None, _tuple(padding, 3),
                         ceil_mode, False, "max", layout, **kwargs)


class AvgPool3D(_Pooling):
    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout="NCDHW",
                 count_include_pad=True, **kwargs):
        pool_size = _tuple(pool_size, 3)
        super().__init__(pool_size, _tuple(strides, 3) if strides is not None else None, _tuple(padding, 3),
                         ceil_mode, False, "avg", layout, count_include_pad, **kwargs)


class GlobalMaxPool3D(_Pooling):
    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__((1, 1, 1), None, 0, True, True, "max", layout, **kwargs)


class GlobalAvgPool3D(_Pooling):
    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__((1, 1, 1), None, 0, True, True, "avg", layout, **kwargs)


class GlobalMaxPool1D(_Pooling):
    def __init__(self, layout="NCW", **kwargs):
        super().__init__((1,), None, 0, True, True, "max", layout, **kwargs)


class GlobalMaxPool2D(_Pooling):
    def __init__(self, layout="NCHW", **kwargs):
        super().__init__((1, 1), None, 0, True, True, "max", layout, **kwargs)


class GlobalAvgPool1D(_Pooling):
    def __init__(self, layout="NCW", **kwargs):
        super().__init__((1,), None, 0, True, True, "avg", layout, **kwargs)


class GlobalAvgPool2D(_Pooling):
    def __init__(self, layout="NCHW", **kwargs):
        super().__init__((1, 1), None, 0, True, True, "avg", layout, **kwargs)

for _cls_name in __all__:
    globals()[_cls_name].__module__ = "mxnet.gluon.nn.conv_layers"
