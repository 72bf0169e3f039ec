"""``mxnet.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity."""
from ...block import Block, HybridBlock
from ...nn.basic_layers import HybridSequential, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity"]


class Concurrent(Sequential):
    """Runs every child on the same input and concatenates the outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    def hybrid_forward(self, F, x):
        return x


for _cls in (Concurrent, HybridConcurrent, Identity):
    _cls.__module__ = "mxnet.gluon.contrib.nn.basic_layers"
del Block
