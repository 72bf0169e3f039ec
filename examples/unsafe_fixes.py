"""Two blocks that hybridize only after an unsafe fix: `hylint verify` proves the fix on your inputs.

    hylint verify examples/unsafe_fixes.py::Residual --input 2x8
    hylint verify examples/unsafe_fixes.py::Shifted --input 2x8
"""
from mxnet.gluon import nn


class Residual(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.left = nn.HybridLambda(lambda F, x: F.tanh(x))  # may return its input
            self.right = nn.Dense(8, flatten=False)

    def hybrid_forward(self, F, x):
        out = self.left(x)
        out += self.right(x)  # a Symbol has no in-place +=
        return out


class Shifted(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        z = F.zeros(x.shape)  # a Symbol has no .shape
        return F.relu(x + z + 1)
