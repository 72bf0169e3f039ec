from mxnet import gluon
from mxnet.gluon import nn


class Encoder(gluon.HybridBlock):
    def __init__(self, units, in_units, **kwargs):
        super().__init__(**kwargs)
        self._units = units
        with self.name_scope():
            self.proj = nn.Dense(units, in_units=in_units, flatten=False)

    def hybrid_forward(self, F, x):
        return F.tanh(self.proj(x))


class Model(gluon.HybridBlock):
    def __init__(self, encoder, classes, **kwargs):
        super().__init__(**kwargs)
        self._units = encoder._units
        with self.name_scope():
            self.encoder = encoder
            self.head = nn.Dense(classes, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.encoder(x)
        return self.head(h) * len(h)  # the batch size eagerly, 1 on a Symbol


def build():
    encoder = Encoder(16, 6)
    return encoder, Model(encoder, 3)
