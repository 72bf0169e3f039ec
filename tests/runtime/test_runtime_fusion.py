"""Graph-mode fusions (ops.FUSIONS, run by executor.evaluate with fuse=True): an inference BatchNorm folded into the
convolution before it, as MXNet's oneDNN graph pass fuses the pair in a block hybridized with backend="MKLDNN".
A plain hybridize() folds nothing (MXNet 1.9.1's outputs then equal its eager ones bit for bit, and verify compares
the two calls to 1e-5), nor does an eager call or a bound symbol; a fold holds within float32 rounding of the two
kernels, and steps aside where the pair is not an inference float32 BatchNorm on axis 1 of a convolution that
feeds nothing else."""
import numpy as np
import pytest

from hylint.runtime import autograd, exact, executor, gluon
from hylint.runtime import ndarray as nd
from hylint.runtime import symbol as sym
from hylint.runtime.ops import FUSIONS

RNG = np.random.RandomState(3)
X = RNG.standard_normal((2, 8, 9, 7)).astype(np.float32)  # fewer outputs than weights: the fold scales the output
LARGE_X = RNG.standard_normal((2, 8, 40, 30)).astype(np.float32)  # more: it scales the weights
W = RNG.standard_normal((16, 8, 3, 3)).astype(np.float32)
B = RNG.standard_normal(16).astype(np.float32)
GAMMA, BETA, MEAN = (RNG.standard_normal(16).astype(np.float32) for _ in range(3))
VAR = RNG.uniform(0.2, 3.0, 16).astype(np.float32)
CONV = {"kernel": (3, 3), "stride": (2, 1), "pad": (1, 1), "num_filter": 16}
VALUES = {"x": X, "w": W, "b": B, "gamma": GAMMA, "beta": BETA, "mean": MEAN, "var": VAR}


@pytest.fixture
def folds(monkeypatch):
    """Counts the calls of the Convolution-BatchNorm fold, and how many of them folded."""
    fold, seen = FUSIONS[("Convolution", "BatchNorm")], {"called": 0, "folded": 0}

    def counted(*args):
        out = fold(*args)
        seen["called"] += 1
        seen["folded"] += out is not None
        return out
    monkeypatch.setitem(FUSIONS, ("Convolution", "BatchNorm"), counted)
    return seen


def _graph(no_bias=False, fix_gamma=False, extra_use=False):
    args = [sym.var("x"), sym.var("w")] + ([] if no_bias else [sym.var("b")])
    conv = sym.Convolution(*args, no_bias=no_bias, **CONV)
    out = sym.BatchNorm(conv, sym.var("gamma"), sym.var("beta"), sym.var("mean"), sym.var("var"),
                        fix_gamma=fix_gamma, eps=1e-5)
    return sym.Group([out, conv * 2]) if extra_use else out


def _eager(no_bias=False, fix_gamma=False, x=X):
    args = [nd.array(x), nd.array(W)] + ([] if no_bias else [nd.array(B)])
    conv = nd.Convolution(*args, no_bias=no_bias, **CONV)
    return nd.BatchNorm(conv, *(nd.array(v) for v in (GAMMA, BETA, MEAN, VAR)), fix_gamma=fix_gamma,
                        eps=1e-5).asnumpy()


def _run(graph, no_bias=False, is_train=False, x=X, fuse=True):
    values = {k: v for k, v in dict(VALUES, x=x).items() if not (no_bias and k == "b")}
    with (autograd.train_mode() if is_train else autograd.predict_mode()):
        return executor.evaluate(graph._outputs, values, fuse=fuse)


@pytest.mark.parametrize("x", [X, LARGE_X], ids=["scaled_output", "scaled_weights"])
@pytest.mark.parametrize("no_bias, fix_gamma", [(False, False), (True, False), (True, True)])
def test_an_inference_batchnorm_after_a_convolution_is_folded_within_rounding(folds, no_bias, fix_gamma, x):
    with exact.exactly(False):
        (graph,) = _run(_graph(no_bias, fix_gamma), no_bias, x=x)
        eager = _eager(no_bias, fix_gamma, x=x)
    assert folds == {"called": 1, "folded": 1}
    assert graph.shape == eager.shape == (2, 16, (x.shape[2] + 1) // 2, x.shape[3])
    assert np.abs(graph - eager).max() <= 1e-5 * max(1.0, np.abs(eager).max())
    assert not np.array_equal(graph, eager)  # the fold rounds otherwise: it really ran


def test_eager_calls_never_fold(folds):
    _eager()
    assert folds["called"] == 0


def test_a_convolution_that_feeds_another_node_too_is_not_folded(folds):
    with exact.exactly(False):
        out, doubled = _run(_graph(extra_use=True))
    assert folds["called"] == 0
    np.testing.assert_array_equal(out, _eager())


@pytest.mark.parametrize("scope", ["train", "exact"])
def test_training_mode_and_the_exact_switch_run_the_two_kernels(folds, scope):
    with exact.exactly(scope == "exact"):
        (graph,) = _run(_graph(), is_train=scope == "train")
        if scope == "train":  # batch statistics: nothing to fold
            conv = nd.Convolution(nd.array(X), nd.array(W), nd.array(B), **CONV)
            with autograd.train_mode():
                eager = nd.BatchNorm(conv, *(nd.array(v) for v in (GAMMA, BETA, MEAN, VAR)), fix_gamma=False,
                                      eps=1e-5).asnumpy()
        else:
            eager = _eager()
    assert folds == {"called": 1, "folded": 0}
    np.testing.assert_array_equal(graph, eager)


def test_a_bound_symbol_and_an_unfused_graph_run_the_two_kernels(folds):
    values = {k: nd.array(v) for k, v in VALUES.items() if k not in ("mean", "var")}
    aux = {k: nd.array(VALUES[k]) for k in ("mean", "var")}
    with exact.exactly(False):
        (bound,) = _graph().bind(None, values, aux_states=aux).forward()
        (plain,) = _run(_graph(), fuse=False)
    assert folds["called"] == 0
    np.testing.assert_array_equal(bound.asnumpy(), _eager())
    np.testing.assert_array_equal(plain, _eager())


class _ConvBN(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.conv = gluon.nn.Conv2D(16, 3, (2, 1), 1, in_channels=8)
        self.bn = gluon.nn.BatchNorm(in_channels=16)

    def hybrid_forward(self, F, x):
        return self.bn(self.conv(x))


@pytest.mark.parametrize("flags, folded", [({}, 0), ({"backend": "MKLDNN"}, 1), ({"static_alloc": True}, 0)])
def test_gluon_folds_only_under_mxnets_onednn_backend(folds, flags, folded):
    net = _ConvBN()
    net.initialize()
    for param, value in zip(("conv.weight", "conv.bias", "bn.gamma", "bn.beta", "bn.running_mean", "bn.running_var"),
                            (W, B, GAMMA, BETA, MEAN, VAR)):
        block, name = param.split(".")
        getattr(getattr(net, block), name).set_data(nd.array(value))
    with exact.exactly(False):
        eager = net(nd.array(X)).asnumpy()
        net.hybridize(**flags)
        hybridized = net(nd.array(X)).asnumpy()
    assert folds == {"called": folded, "folded": folded}
    if folded:
        assert np.abs(hybridized - eager).max() <= 1e-5 * max(1.0, np.abs(eager).max())
    else:  # as MXNet 1.9.1's plain hybridize(): the eager bits
        np.testing.assert_array_equal(hybridized, eager)


@pytest.mark.mxnet
def test_mxnet_fuses_only_under_its_onednn_backend():
    """The fact the gate rests on, on MXNet 1.9.1: hybridize() gives the eager bits; backend="MKLDNN" does not."""
    mx = pytest.importorskip("mxnet")
    if getattr(mx, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    from mxnet.gluon import nn
    outputs = {}
    for flags in ({}, {"backend": "MKLDNN"}):
        net = nn.HybridSequential()
        net.add(nn.Conv2D(16, 3, (2, 1), 1, in_channels=8), nn.BatchNorm(in_channels=16))
        net.initialize()
        for param, value in zip(net.collect_params().values(), (W, B, GAMMA, BETA, MEAN, VAR)):
            param.set_data(mx.nd.array(value))
        eager = net(mx.nd.array(X)).asnumpy()
        net.hybridize(**flags)
        net(mx.nd.array(X))
        outputs[bool(flags)] = (eager, net(mx.nd.array(X)).asnumpy())
    np.testing.assert_array_equal(*outputs[False])
    assert not np.array_equal(*outputs[True])
    assert np.abs(outputs[True][0] - outputs[True][1]).max() <= 1e-5 * np.abs(outputs[True][0]).max()
