"""hylint/facts/layers.py's BEGIN_STATE_ND_DEFAULT on MXNet 1.9.1 (HY404): the gluon RNN layers and cells
whose `begin_state` makes NDArrays unless `func` is given, and what `func=F.zeros` gives instead."""
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint.facts.layers import BEGIN_STATE_ND_DEFAULT  # noqa: E402

CONTAINERS = {"SequentialRNNCell", "HybridSequentialRNNCell", "BidirectionalCell"}  # pass `func` to their cells


@pytest.mark.mxnet
def test_begin_state_defaults_to_nd_zeros():
    mx = pytest.importorskip("mxnet")
    from mxnet.gluon import rnn
    from mxnet.gluon.contrib import rnn as contrib_rnn
    found = set()
    for module in (rnn, contrib_rnn):
        for name, cls in vars(module).items():
            if not inspect.isclass(cls) or not hasattr(cls, "begin_state"):
                continue
            func = inspect.signature(cls.begin_state).parameters.get("func")
            if func is not None and func.default is mx.nd.zeros or name in CONTAINERS:
                found.add(name)
    assert found == BEGIN_STATE_ND_DEFAULT
    assert mx.nd.zeros is mx.ndarray.zeros  # F.zeros, eagerly, is the default itself


@pytest.mark.mxnet
def test_nd_states_fail_hybridized_and_f_zeros_states_agree():
    mx = pytest.importorskip("mxnet")
    from mxnet.gluon import nn, rnn

    class Encoder(nn.HybridBlock):
        def __init__(self, func=None, batch_size=2):
            super().__init__()
            self.func, self.batch_size = func, batch_size
            self.lstm = rnn.LSTM(4, input_size=3)

        def hybrid_forward(self, F, x):
            kwargs = {} if self.func is None else {"func": getattr(F, self.func)}
            states = self.lstm.begin_state(batch_size=self.batch_size, **kwargs)
            return self.lstm(x, states)[0]

    x = mx.nd.arange(30).reshape((5, 2, 3)) / 10

    def run(hybridize, **kwargs):
        net = Encoder(**kwargs)
        net.initialize(mx.init.Constant(0.1))
        if hybridize:
            net.hybridize()
        return net(x).asnumpy()

    eager = run(False)
    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        run(True)
    assert (run(False, func="zeros") == eager).all()
    assert (run(True, func="zeros") == eager).all()
    # batch_size 0 (the default) works only hybridized: the graph infers it, nd.zeros cannot
    assert (run(True, func="zeros", batch_size=0) == eager).all()
    with pytest.raises(mx.base.MXNetError):
        run(False, func="zeros", batch_size=0)
