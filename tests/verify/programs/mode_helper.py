from mxnet import gluon
from mxnet.gluon import rnn


def make_layer(mode, hidden, inputs):
    if mode == "lstm":
        return rnn.LSTM(hidden, layout="NTC", input_size=inputs)
    if mode == "gru":
        return rnn.GRU(hidden, layout="NTC", input_size=inputs)
    raise ValueError(mode)


class Recurrent(gluon.HybridBlock):
    def __init__(self, mode, hidden, inputs, **kwargs):
        super().__init__(**kwargs)
        self._mode = mode
        with self.name_scope():
            self.layer = self._make(hidden, inputs)

    def _make(self, hidden, inputs):
        return make_layer(self._mode, hidden, inputs)

    def hybrid_forward(self, F, x):
        return self.layer(x)


class LastStep(gluon.HybridBlock):
    def __init__(self, mode, hidden, inputs, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.layer = make_layer(mode, hidden, inputs)

    def hybrid_forward(self, F, x):
        out = self.layer(x)
        return out[:, -1, :]  # a Symbol's [] picks an output, not a slice


def build():
    return Recurrent("gru", 8, 4), LastStep("lstm", 8, 4)
