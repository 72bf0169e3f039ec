from mxnet import gluon
from mxnet.gluon import rnn


def make_layer(mode, hidden):
    if mode == "lstm":
        return rnn.LSTM(hidden, layout="NTC")
    if mode == "gru":
        return rnn.GRU(hidden, layout="NTC")
    raise ValueError(mode)


class Recurrent(gluon.HybridBlock):
    def __init__(self, mode, hidden, **kwargs):
        super().__init__(**kwargs)
        self._mode = mode
        with self.name_scope():
            self.layer = self._make(hidden)

    def _make(self, hidden):
        return make_layer(self._mode, hidden)

    def hybrid_forward(self, F, x):
        return self.layer(x)


class LastStep(gluon.HybridBlock):
    def __init__(self, mode, hidden, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.layer = make_layer(mode, hidden)

    def hybrid_forward(self, F, x):
        out = self.layer(x)
        return out[:, -1, :]  # a Symbol's [] picks an output, not a slice


def build():
    return Recurrent("gru", 8), LastStep("lstm", 8)
