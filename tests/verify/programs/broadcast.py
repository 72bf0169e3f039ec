from mxnet import gluon
from mxnet.gluon import nn


class Gate(gluon.HybridBlock):
    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.pool = nn.GlobalAvgPool2D()
            self.conv = nn.Conv2D(channels, 1, in_channels=channels)

    def hybrid_forward(self, F, x):
        w = F.sigmoid(self.conv(self.pool(x)))
        return x * w  # NDArray broadcasts (N, C, H, W) by (N, C, 1, 1); a Symbol's * does not


class BroadcastGate(Gate):
    def hybrid_forward(self, F, x):
        w = F.sigmoid(self.conv(self.pool(x)))
        return F.broadcast_mul(x, w)


def build():
    return Gate(4), BroadcastGate(4)
