"""Run a generated block's source on MXNet (or the runtime standing in for it): the fuzz property and the
fix-loop tests compare its eager and hybridized outputs."""
from __future__ import annotations


def evaluate(source: str, x, y, hybridize: bool):
    """The output of ``N()(x, y)`` as a NumPy array, ``N`` defined by ``source`` (HybridBlock, nd, mx known)."""
    import mxnet as mx
    from mxnet.gluon import HybridBlock

    namespace = {"HybridBlock": HybridBlock, "nd": mx.nd, "mx": mx}
    exec(compile(source, "<fuzz>", "exec"), namespace)
    block = namespace["N"]()
    block.initialize()
    if hybridize:
        block.hybridize()
    out = block(x, y)
    return out.asnumpy()
