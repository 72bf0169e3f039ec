"""The autograd scopes in hybrid code on MXNet 1.9.1 (HY812, HY813; issue 43): which layers and operators
compute differently in training and predict mode (hylint/facts/layers.py), and that a hybridized block
ignores the scopes its hybrid_forward opens."""
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint.facts.layers import MODE_DEPENDENT_LAYERS, MODE_DEPENDENT_OPERATORS  # noqa: E402

pytestmark = pytest.mark.mxnet


@pytest.fixture(scope="module")
def mx():
    return pytest.importorskip("mxnet")


def _differs(mx, compute) -> bool:
    mx.random.seed(1)
    predict = compute().asnumpy()
    mx.random.seed(1)
    with mx.autograd.train_mode():
        training = compute().asnumpy()
    return not np.allclose(predict, training)


def test_mode_dependent_layers(mx):
    from mxnet.gluon import contrib, nn
    x = mx.nd.random.uniform(shape=(4, 3, 5, 5)) + 1
    layers = {"Dropout": nn.Dropout(0.5), "BatchNorm": nn.BatchNorm(in_channels=3),
              "SyncBatchNorm": contrib.nn.SyncBatchNorm(in_channels=3), "InstanceNorm": nn.InstanceNorm(in_channels=3),
              "LayerNorm": nn.LayerNorm(in_channels=5), "GroupNorm": nn.GroupNorm(num_groups=1),
              "Dense": nn.Dense(3), "Conv2D": nn.Conv2D(3, 3), "Activation": nn.Activation("relu")}
    differ = set()
    for name, layer in layers.items():
        layer.initialize()
        if _differs(mx, lambda: layer(x)):
            differ.add(name)
    assert differ == MODE_DEPENDENT_LAYERS


def test_mode_dependent_operators(mx):
    x = mx.nd.random.uniform(shape=(4, 3, 5, 5)) + 1
    stats = (mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3) + 0.5, mx.nd.ones(3) * 2)
    assert {"Dropout", "BatchNorm"} <= MODE_DEPENDENT_OPERATORS
    assert _differs(mx, lambda: mx.nd.Dropout(x, p=0.5))
    assert _differs(mx, lambda: mx.nd.BatchNorm(x, *stats))
    # the rewrites HY812 names: the moving statistics in both modes, a dropout that drops in predict mode
    assert not _differs(mx, lambda: mx.nd.BatchNorm(x, *stats, use_global_stats=True))
    with mx.autograd.predict_mode():
        predict = mx.nd.BatchNorm(x, *stats).asnumpy()
    assert np.allclose(predict, mx.nd.BatchNorm(x, *stats, use_global_stats=True).asnumpy())
    assert (mx.nd.Dropout(mx.nd.ones((100,)), p=0.5, mode="always").asnumpy() == 0).any()


def _block(mx, scope, child=None):
    from mxnet.gluon import nn

    class Scoped(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.child = child() if child else None

        def hybrid_forward(self, F, x):
            with getattr(mx.autograd, scope)():
                y = self.child(x) if self.child is not None else x * 2
            return y if self.child is not None else x + y

    return Scoped


def _run(mx, cls, hybridize, record):
    net = cls()
    net.initialize()
    if hybridize:
        net.hybridize()
    x = mx.nd.ones((2, 3))
    x.attach_grad()
    if not record:
        return net(x).asnumpy(), None
    with mx.autograd.record():
        y = net(x)
    y.backward()
    return y.asnumpy(), x.grad.asnumpy()


def test_pause_stops_the_gradient_only_eagerly(mx):
    cls = _block(mx, "pause")
    assert (_run(mx, cls, False, True)[1] == 1).all()
    assert (_run(mx, cls, True, True)[1] == 3).all()


def test_mode_scopes_are_ignored_hybridized(mx):
    from mxnet.gluon import nn
    # predict_mode() around a Dropout child, the caller recording: no dropout eagerly, dropout hybridized
    cls = _block(mx, "predict_mode", lambda: nn.Dropout(0.5))
    mx.random.seed(0)
    assert (_run(mx, cls, False, True)[0] == 1).all()
    mx.random.seed(0)
    assert (_run(mx, cls, True, True)[0] != 1).any()
    # train_mode() around it, the caller predicting: dropout eagerly, none hybridized
    cls = _block(mx, "train_mode", lambda: nn.Dropout(0.5))
    mx.random.seed(0)
    assert (_run(mx, cls, False, False)[0] != 1).any()
    assert (_run(mx, cls, True, False)[0] == 1).all()
