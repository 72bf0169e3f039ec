"""``mxnet.gluon.model_zoo.vision``: AlexNet, VGG, ResNet v1/v2, DenseNet, SqueezeNet, Inception v3,
MobileNet v1/v2, as MXNet 1.9.1 defines them.

Every model has MXNet's structure: the same children under the same attribute names, added in the same
order and inside the same name scopes, so parameters have MXNet's structural names (``features.0.weight``)
and full names (``resnetv10_conv0_weight``), and weights saved by MXNet load here. ``pretrained=True``
raises :class:`~hylint.runtime.base.RuntimeUnsupported` (the runtime downloads nothing).
"""
import os

from ... import initializer
from ...base import data_dir
from ...context import cpu
from ..block import HybridBlock
from .. import nn
from ..contrib.nn import HybridConcurrent, Identity
from .model_store import get_model_file

_ROOT = os.path.join(data_dir(), "models")


def _with_weights(net, pretrained, file_name, root):
    if pretrained:
        net.load_parameters(get_model_file(file_name, root=root))
    return net


class _Classifier(HybridBlock):
    """``features`` then ``output``: the shape of every model here."""

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# --- AlexNet ---------------------------------------------------------------------------------------
class AlexNet(_Classifier):
    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool in ((64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                                            (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                                                            (256, 3, 1, 1, True)):
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride, padding=pad,
                                                activation="relu"))
                    if pool:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu"))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def alexnet(pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    return _with_weights(AlexNet(**kwargs), pretrained, "alexnet", root)


# --- VGG -------------------------------------------------------------------------------------------
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]), 13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]), 19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(_Classifier):
    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for count, channels in zip(layers, filters):
                for _ in range(count):
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1, bias_initializer="zeros",
                                                weight_initializer=initializer.Xavier(
                                                    rnd_type="gaussian", factor_type="out", magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    layers, filters = vgg_spec[num_layers]
    suffix = "_bn" if kwargs.get("batch_norm") else ""
    return _with_weights(VGG(layers, filters, **kwargs), pretrained, "vgg%d%s" % (num_layers, suffix), root)


def _vgg(depth, batch_norm):
    def build(**kwargs):
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(depth, **kwargs)
    build.__name__ = "vgg%d%s" % (depth, "_bn" if batch_norm else "")
    return build


vgg11, vgg13, vgg16, vgg19 = (_vgg(d, False) for d in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_vgg(d, True) for d in (11, 13, 16, 19))


# --- ResNet ----------------------------------------------------------------------------------------
def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels)


class _ResidualV1(HybridBlock):
    """``body`` + (``downsample`` or identity), then ReLU."""

    def _shortcut(self, channels, stride, downsample, in_channels):
        if downsample:
            self.downsample = nn.HybridSequential(prefix="")
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                                          in_channels=in_channels))
            self.downsample.add(nn.BatchNorm())
        else:
            self.downsample = None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self._join(residual, self.body(x)), act_type="relu")


class BasicBlockV1(_ResidualV1):
    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(), nn.Activation("relu"),
                      _conv3x3(channels, 1, channels), nn.BatchNorm())
        self._shortcut(channels, stride, downsample, in_channels)

    @staticmethod
    def _join(residual, body):
        return residual + body


class BottleneckV1(_ResidualV1):
    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4), nn.BatchNorm(),
                      nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self._shortcut(channels, stride, downsample, in_channels)

    @staticmethod
    def _join(residual, body):
        return body + residual


class _ResidualV2(HybridBlock):
    """Pre-activation: BN-ReLU before each convolution; the shortcut starts after the first BN-ReLU."""

    def _layers(self, convs, downsample, channels, stride, in_channels):
        for i, conv in enumerate(convs, 1):
            setattr(self, "bn%d" % i, nn.BatchNorm())
            setattr(self, "conv%d" % i, conv)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
                           if downsample else None)
        self._depth = len(convs)

    def hybrid_forward(self, F, x):
        residual = x
        for i in range(1, self._depth + 1):
            x = F.Activation(getattr(self, "bn%d" % i)(x), act_type="relu")
            if i == 1 and self.downsample:
                residual = self.downsample(x)
            x = getattr(self, "conv%d" % i)(x)
        return x + residual


class BasicBlockV2(_ResidualV2):
    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._layers([_conv3x3(channels, stride, in_channels), _conv3x3(channels, 1, channels)],
                     downsample, channels, stride, in_channels)


class BottleneckV2(_ResidualV2):
    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._layers([nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False),
                      _conv3x3(channels // 4, stride, channels // 4),
                      nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)],
                     downsample, channels, stride, in_channels)

    # MXNet creates bn1, conv1, bn2, conv2, bn3, conv3: the convolutions above are built first but
    # registered in that interleaved order by _layers, which is what the structural names follow.


class _ResNet(_Classifier):
    def _stem(self, channels, thumbnail):
        if thumbnail:
            self.features.add(_conv3x3(channels, 1, 0))
        else:
            self.features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(3, 2, 1))

    def _make_layer(self, block, layers, channels, stride, stage_index, in_channels=0):
        layer = nn.HybridSequential(prefix="stage%d_" % stage_index)
        with layer.name_scope():
            layer.add(block(channels, stride, channels != in_channels, in_channels=in_channels, prefix=""))
            for _ in range(layers - 1):
                layer.add(block(channels, 1, False, in_channels=channels, prefix=""))
        return layer


class ResNetV1(_ResNet):
    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self._stem(channels[0], thumbnail)
            for i, count in enumerate(layers):
                self.features.add(self._make_layer(block, count, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                                   in_channels=channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV2(_ResNet):
    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            self._stem(channels[0], thumbnail)
            for i, count in enumerate(layers):
                self.features.add(self._make_layer(block, count, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                                   in_channels=channels[i]))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])


resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    assert num_layers in resnet_spec, "Invalid number of layers: %d. Options are %s" % (
        num_layers, str(resnet_spec.keys()))
    assert 1 <= version <= 2, "Invalid resnet version: %d. Options are 1 and 2." % version
    block_type, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type], layers, channels, **kwargs)
    return _with_weights(net, pretrained, "resnet%d_v%d" % (num_layers, version), root)


def _resnet(version, depth):
    def build(**kwargs):
        return get_resnet(version, depth, **kwargs)
    build.__name__ = "resnet%d_v%d" % (depth, version)
    return build


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (_resnet(1, d) for d in (18, 34, 50, 101, 152))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (_resnet(2, d) for d in (18, 34, 50, 101, 152))


# --- DenseNet --------------------------------------------------------------------------------------
densenet_spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def _bn_relu_conv(seq, channels, **conv):
    seq.add(nn.BatchNorm(), nn.Activation("relu"), nn.Conv2D(channels, use_bias=False, **conv))


def _dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix="")
    _bn_relu_conv(new_features, bn_size * growth_rate, kernel_size=1)
    _bn_relu_conv(new_features, growth_rate, kernel_size=3, padding=1)
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity(), new_features)
    return out


class DenseNet(_Classifier):
    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            features = num_init_features
            for i, count in enumerate(block_config):
                stage = nn.HybridSequential(prefix="stage%d_" % (i + 1))
                with stage.name_scope():
                    for _ in range(count):
                        stage.add(_dense_layer(growth_rate, bn_size, dropout))
                self.features.add(stage)
                features += count * growth_rate
                if i != len(block_config) - 1:
                    features //= 2
                    transition = nn.HybridSequential(prefix="")
                    _bn_relu_conv(transition, features, kernel_size=1)
                    transition.add(nn.AvgPool2D(pool_size=2, strides=2))
                    self.features.add(transition)
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    init_features, growth_rate, block_config = densenet_spec[num_layers]
    return _with_weights(DenseNet(init_features, growth_rate, block_config, **kwargs), pretrained,
                         "densenet%d" % num_layers, root)


def _densenet(depth):
    def build(**kwargs):
        return get_densenet(depth, **kwargs)
    build.__name__ = "densenet%d" % depth
    return build


densenet121, densenet161, densenet169, densenet201 = (_densenet(d) for d in (121, 161, 169, 201))


# --- SqueezeNet ------------------------------------------------------------------------------------
def _fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    out = nn.HybridSequential(prefix="")
    out.add(_fire_conv(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_fire_conv(expand1x1, 1), _fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


# "pool" marks a ceil-mode 3x3/2 max pooling, a tuple a fire module (squeeze, expand 1x1, expand 3x3)
_SQUEEZE_PLAN = {
    "1.0": (96, 7, ["pool", (16, 64, 64), (16, 64, 64), (32, 128, 128), "pool", (32, 128, 128), (48, 192, 192),
                    (48, 192, 192), (64, 256, 256), "pool", (64, 256, 256)]),
    "1.1": (64, 3, ["pool", (16, 64, 64), (16, 64, 64), "pool", (32, 128, 128), (32, 128, 128), "pool",
                    (48, 192, 192), (48, 192, 192), (64, 256, 256), (64, 256, 256)]),
}


class SqueezeNet(_Classifier):
    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ["1.0", "1.1"], ("Unsupported SqueezeNet version {version}:"
                                           "1.0 or 1.1 expected".format(version=version))
        stem_channels, stem_kernel, plan = _SQUEEZE_PLAN[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2), nn.Activation("relu"))
            for step in plan:
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True) if step == "pool"
                                  else _fire(*step))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"), nn.AvgPool2D(13),
                            nn.Flatten())


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    return _with_weights(SqueezeNet(version, **kwargs), pretrained, "squeezenet%s" % version, root)


def squeezenet1_0(**kwargs):
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    return get_squeezenet("1.1", **kwargs)


# --- Inception v3 ----------------------------------------------------------------------------------
def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return out


_CONV_KEYS = ("channels", "kernel_size", "strides", "padding")


def _branch(pool, *convs):
    """A pooling (``'avg'`` 3x3/1 pad 1, ``'max'`` 3x3/2, or None) followed by convolutions given as
    (channels, kernel, strides, padding) with None for MXNet's defaults."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        out.add(_basic_conv(**{k: v for k, v in zip(_CONV_KEYS, setting) if v is not None}))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for make in branches:
            out.add(make())
    return out


def _inception_a(pool_features, prefix):
    return _concurrent(prefix, lambda: _branch(None, (64, 1, None, None)),
                       lambda: _branch(None, (48, 1, None, None), (64, 5, None, 2)),
                       lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
                       lambda: _branch("avg", (pool_features, 1, None, None)))


def _inception_b(prefix):
    return _concurrent(prefix, lambda: _branch(None, (384, 3, 2, None)),
                       lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
                       lambda: _branch("max"))


def _inception_c(c7, prefix):
    return _concurrent(
        prefix, lambda: _branch(None, (192, 1, None, None)),
        lambda: _branch(None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))),
        lambda: _branch(None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)), (c7, (1, 7), None, (0, 3)),
                        (c7, (7, 1), None, (3, 0)), (192, (1, 7), None, (0, 3))),
        lambda: _branch("avg", (192, 1, None, None)))


def _inception_d(prefix):
    return _concurrent(
        prefix, lambda: _branch(None, (192, 1, None, None), (320, 3, 2, None)),
        lambda: _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0)),
                        (192, 3, 2, None)),
        lambda: _branch("max"))


def _split_pair():
    pair = HybridConcurrent(axis=1, prefix="")
    pair.add(_branch(None, (384, (1, 3), None, (0, 1))), _branch(None, (384, (3, 1), None, (1, 0))))
    return pair


def _inception_e(prefix):
    def branch_3x3():
        seq = nn.HybridSequential(prefix="")
        seq.add(_branch(None, (384, 1, None, None)), _split_pair())
        return seq

    def branch_3x3dbl():
        seq = nn.HybridSequential(prefix="")
        seq.add(_branch(None, (448, 1, None, None), (384, 3, None, 1)), _split_pair())
        return seq
    return _concurrent(prefix, lambda: _branch(None, (320, 1, None, None)), branch_3x3, branch_3x3dbl,
                       lambda: _branch("avg", (192, 1, None, None)))


def make_aux(classes):
    out = nn.HybridSequential(prefix="")
    out.add(nn.AvgPool2D(pool_size=5, strides=3), _basic_conv(channels=128, kernel_size=1),
            _basic_conv(channels=768, kernel_size=5), nn.Flatten(), nn.Dense(classes))
    return out


class Inception3(_Classifier):
    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2), _basic_conv(channels=32, kernel_size=3),
                              _basic_conv(channels=64, kernel_size=3, padding=1), nn.MaxPool2D(pool_size=3, strides=2),
                              _basic_conv(channels=80, kernel_size=1), _basic_conv(channels=192, kernel_size=3),
                              nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_inception_a(32, "A1_"), _inception_a(64, "A2_"), _inception_a(64, "A3_"),
                              _inception_b("B_"))
            self.features.add(*[_inception_c(c7, "C%d_" % (i + 1)) for i, c7 in enumerate((128, 160, 160, 192))])
            self.features.add(_inception_d("D_"), _inception_e("E1_"), _inception_e("E2_"),
                              nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)


def inception_v3(pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    return _with_weights(Inception3(**kwargs), pretrained, "inceptionv3", root)


# --- MobileNet v1 / v2 -----------------------------------------------------------------------------
class RELU6(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True, relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


class LinearBottleneck(nn.HybridBlock):
    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1, num_group=in_channels * t,
                      relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(_Classifier):
    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
                dw_channels = [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]
                channels = [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dw, c, s in zip(dw_channels, channels, strides):
                    dw, c = int(dw * multiplier), int(c * multiplier)
                    _add_conv(self.features, channels=dw, kernel=3, stride=s, pad=1, num_group=dw)  # depthwise
                    _add_conv(self.features, channels=c)                                           # pointwise
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)


class MobileNetV2(_Classifier):
    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1, relu6=True)
                in_group = [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3
                out_group = [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]
                expansions = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for c_in, c_out, t, s in zip(in_group, out_group, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=int(c_in * multiplier),
                                                       channels=int(c_out * multiplier), t=t, stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"), nn.Flatten())


def _mobilenet_file(prefix, multiplier):
    suffix = "{0:.2f}".format(multiplier)
    return prefix + (suffix[:-1] if suffix in ("1.00", "0.50") else suffix)


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    return _with_weights(MobileNet(multiplier, **kwargs), pretrained, _mobilenet_file("mobilenet", multiplier), root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=_ROOT, **kwargs):
    return _with_weights(MobileNetV2(multiplier, **kwargs), pretrained,
                         _mobilenet_file("mobilenetv2_", multiplier), root)


def _mobilenet(getter, multiplier, name):
    def build(**kwargs):
        return getter(multiplier, **kwargs)
    build.__name__ = name
    return build


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    _mobilenet(get_mobilenet, m, "mobilenet%s" % str(m).replace(".", "_")) for m in (1.0, 0.75, 0.5, 0.25))
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _mobilenet(get_mobilenet_v2, m, "mobilenet_v2_%s" % str(m).replace(".", "_")) for m in (1.0, 0.75, 0.5, 0.25))


_MODELS = {
    "resnet18_v1": resnet18_v1, "resnet34_v1": resnet34_v1, "resnet50_v1": resnet50_v1,
    "resnet101_v1": resnet101_v1, "resnet152_v1": resnet152_v1, "resnet18_v2": resnet18_v2,
    "resnet34_v2": resnet34_v2, "resnet50_v2": resnet50_v2, "resnet101_v2": resnet101_v2,
    "resnet152_v2": resnet152_v2, "vgg11": vgg11, "vgg13": vgg13, "vgg16": vgg16, "vgg19": vgg19,
    "vgg11_bn": vgg11_bn, "vgg13_bn": vgg13_bn, "vgg16_bn": vgg16_bn, "vgg19_bn": vgg19_bn, "alexnet": alexnet,
    "densenet121": densenet121, "densenet161": densenet161, "densenet169": densenet169,
    "densenet201": densenet201, "squeezenet1.0": squeezenet1_0, "squeezenet1.1": squeezenet1_1,
    "inceptionv3": inception_v3, "mobilenet1.0": mobilenet1_0, "mobilenet0.75": mobilenet0_75,
    "mobilenet0.5": mobilenet0_5, "mobilenet0.25": mobilenet0_25, "mobilenetv2_1.0": mobilenet_v2_1_0,
    "mobilenetv2_0.75": mobilenet_v2_0_75, "mobilenetv2_0.5": mobilenet_v2_0_5,
    "mobilenetv2_0.25": mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """A model of the zoo by name (``'resnet18_v1'``, ``'mobilenetv2_1.0'``, ...), as MXNet's ``get_model``."""
    name = name.lower()
    if name not in _MODELS:
        raise ValueError("Model %s is not supported. Available options are\n\t%s" % (
            name, "\n\t".join(sorted(_MODELS.keys()))))
    return _MODELS[name](**kwargs)
