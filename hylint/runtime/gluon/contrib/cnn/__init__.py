"""``mxnet.gluon.contrib.cnn``: deformable convolutions (v1 and the modulated v2), NCHW.

A plain convolution of the input predicts, per output pixel, where each kernel tap samples (and for v2 how
much it weighs); the deformable operator samples there bilinearly (``contrib.DeformableConvolution`` /
``contrib.ModulatedDeformableConvolution`` in ``hylint/runtime/ops/models.py``). Parameter names, shapes and
default initialisers are MXNet 1.9.1's (offsets start at zero: a plain convolution until trained)."""
from ...block import HybridBlock
from ...nn.basic_layers import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


class _Deformable(HybridBlock):
    """The shared layer: ``offset_weight``/``offset_bias`` predict ``per_tap`` values per kernel tap and
    deformable group (2: the offsets; 3: offsets and the mask), ``deformable_conv_weight``/``_bias`` convolve."""

    per_tap = 2

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        if layout not in ("NCHW", "NHWC"):
            raise AssertionError("Only supports 'NCHW' and 'NHWC' layout for now")
        kernel, strides, padding, dilation = (_pair(v) for v in (kernel_size, strides, padding, dilation))
        with self.name_scope():
            self._channels, self._in_channels = channels, in_channels
            taps = kernel[0] * kernel[1] * num_deformable_group
            self.offset_split_index = 2 * taps
            geometry = {"kernel": kernel, "stride": strides, "dilate": dilation, "pad": padding,
                        "num_group": groups, "layout": layout}
            self._kwargs_offset = dict(geometry, num_filter=self.per_tap * taps, no_bias=not offset_use_bias)
            self._kwargs_deformable_conv = dict(geometry, num_filter=channels, no_bias=not use_bias,
                                                num_deformable_group=num_deformable_group)
            if adj:
                self._kwargs_offset["adj"] = self._kwargs_deformable_conv["adj"] = adj
            # the offset convolution's parameters, as MXNet infers them from in_channels (0: deferred)
            self.offset_weight = self.params.get(
                "offset_weight", shape=(self.per_tap * taps, in_channels // groups if in_channels else 0) + kernel,
                init=offset_weight_initializer, allow_deferred_init=True)
            self.offset_bias = self.params.get("offset_bias", shape=(self.per_tap * taps,),
                                               init=offset_bias_initializer, allow_deferred_init=True) \
                if offset_use_bias else None
            self.deformable_conv_weight = self.params.get(  # MXNet leaves its input channels deferred
                "deformable_conv_weight", shape=(channels, 0) + kernel, init=weight_initializer,
                allow_deferred_init=True)
            self.deformable_conv_bias = self.params.get("deformable_conv_bias", shape=(channels,),
                                                        init=bias_initializer, allow_deferred_init=True) \
                if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        args = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _finish(self, act):
        return self.act(act) if self.act else act


class DeformableConvolution(_Deformable):
    """Deformable convolution v1 (Dai et al. 2017): learned offsets per kernel tap."""

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None, deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        extra = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        return self._finish(F.contrib.DeformableConvolution(data=x, offset=offset, weight=deformable_conv_weight,
                                                            name="fwd", **extra, **self._kwargs_deformable_conv))

    def _alias(self):
        return "deformable_conv"


class ModulatedDeformableConvolution(_Deformable):
    """Deformable convolution v2 (Zhu et al. 2019): offsets and a mask, ``2 * sigmoid``, per kernel tap."""

    per_tap = 3

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None, deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)) * 2
        extra = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        return self._finish(F.contrib.ModulatedDeformableConvolution(
            data=x, offset=offset_t, mask=mask, weight=deformable_conv_weight, name="fwd", **extra,
            **self._kwargs_deformable_conv))

    def _alias(self):
        return "modulated_deformable_conv"
