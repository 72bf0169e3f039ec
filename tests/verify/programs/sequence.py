from mxnet import gluon
from mxnet.gluon import nn


class Tagger(gluon.HybridBlock):
    def __init__(self, vocab_size, units, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)
            self.out = nn.Dense(2, flatten=False)

    def hybrid_forward(self, F, tokens, valid_length):
        h = self.embed(tokens)
        h = F.SequenceMask(h, sequence_length=valid_length, use_sequence_length=True, axis=1)
        return self.out(h)


class Positions(gluon.HybridBlock):
    def __init__(self, vocab_size, units, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)

    def hybrid_forward(self, F, tokens):
        steps = F.arange(tokens.shape[1])  # a Symbol has no shape
        return self.embed(tokens) + steps.reshape((1, -1, 1))


def build():
    return Tagger(100, 8), Positions(100, 8)
