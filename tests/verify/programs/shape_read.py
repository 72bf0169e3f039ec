from mxnet import gluon
from mxnet.gluon import nn


class Features(gluon.HybridBlock):
    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, 3, padding=1, in_channels=3)
            self.pool = nn.GlobalAvgPool2D()

    def hybrid_forward(self, F, x):
        return self.pool(F.relu(self.conv(x)))


class Classifier(gluon.HybridBlock):
    def __init__(self, channels, classes, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = Features(channels)
            self.output = nn.Dense(classes, in_units=channels)

    def hybrid_forward(self, F, x):
        y = self.features(x)
        y = y.reshape((x.shape[0], -1))  # a Symbol has no shape
        return self.output(y)


def build():
    return Features(8), Classifier(8, 10)
