"""The initialisers the zoo models use (MSRAPrelu, Orthogonal, Bilinear, LSTMBias) against MXNet 1.9.1: equal
values where MXNet's are deterministic, the same distribution parameters where they are random."""
import json

import numpy as np
import pytest

from hylint.runtime import initializer as rt_init
from hylint.runtime import ndarray as nd


def _fill(init, shape, name="conv0_weight"):
    arr = nd.zeros(shape)
    init(rt_init.InitDesc(name), arr)
    return arr.asnumpy()


def _real():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


def _fill_real(real, init, shape, name="conv0_weight"):
    arr = real.nd.zeros(shape)
    init(real.init.InitDesc(name), arr)
    return arr.asnumpy()


@pytest.mark.mxnet
@pytest.mark.parametrize("shape", [(2, 1, 4, 4), (3, 2, 3, 5), (1, 1, 1, 1)])
def test_bilinear_equals_mxnet(shape):
    real = _real()
    np.testing.assert_array_equal(_fill(rt_init.Bilinear(), shape), _fill_real(real, real.init.Bilinear(), shape))


@pytest.mark.mxnet
@pytest.mark.parametrize("forget_bias", [1.0, 0.5])
def test_lstm_bias_equals_mxnet(forget_bias):
    real = _real()
    ours = _fill(rt_init.LSTMBias(forget_bias), (12,), "lstm0_i2h_bias")
    theirs = _fill_real(real, real.init.LSTMBias(forget_bias), (12,), "lstm0_i2h_bias")
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.mxnet
@pytest.mark.parametrize("kwargs", [{}, {"factor_type": "in", "slope": 0.1}, {"factor_type": "out"}])
def test_msra_prelu_is_mxnets_gaussian_xavier(kwargs):
    real = _real()
    ours, theirs = rt_init.MSRAPrelu(**kwargs), real.init.MSRAPrelu(**kwargs)
    assert json.loads(ours.dumps()) == json.loads(theirs.dumps())
    shape = (64, 32, 3, 3)
    slope, factor = kwargs.get("slope", 0.25), kwargs.get("factor_type", "avg")
    fan = {"avg": (32 * 9 + 64 * 9) / 2, "in": 32 * 9, "out": 64 * 9}[factor]
    expected = np.sqrt(2.0 / (1 + slope ** 2) / fan)
    for values in (_fill(ours, shape), _fill_real(real, theirs, shape)):
        assert abs(values.mean()) < 0.1 * expected and abs(values.std() / expected - 1) < 0.05


@pytest.mark.mxnet
@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (3, 2, 2, 2)])
def test_orthogonal_rows_or_columns_are_orthonormal_like_mxnet(shape):
    real = _real()
    for values in (_fill(rt_init.Orthogonal(scale=2.0), shape), _fill_real(real, real.init.Orthogonal(scale=2.0), shape)):
        flat = values.reshape(shape[0], -1) / 2.0
        gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
        np.testing.assert_allclose(gram, np.eye(len(gram)), atol=1e-5)


def test_gluon_initialises_with_msra_prelu():
    from hylint.runtime import gluon
    init = rt_init
    net = gluon.nn.Conv2D(8, 3, in_channels=4)
    net.initialize(init.MSRAPrelu())
    assert net.weight.data().shape == (8, 4, 3, 3) and float(net.weight.data().asnumpy().std()) > 0
