"""Graph-mode fusions (ops.FUSIONS, run by executor.evaluate): an inference BatchNorm folded into the convolution
before it, as MXNet's oneDNN graph pass fuses the pair in a hybridized graph. Eager calls never fold; a fold holds
within float32 rounding of the two kernels (far inside verify's 1e-4 tolerance), and steps aside where the pair
is not an inference float32 BatchNorm on axis 1 of a convolution that feeds nothing else."""
import numpy as np
import pytest

from hylint.runtime import exact
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


def _run(graph, no_bias=False, is_train=False, x=X):
    values = {k: nd.array(v) for k, v in dict(VALUES, x=x).items()
              if not (no_bias and k == "b") and k not in ("mean", "var")}
    aux = {k: nd.array(VALUES[k]) for k in ("mean", "var")}
    return [o.asnumpy() for o in graph.bind(None, values, aux_states=aux).forward(is_train=is_train)]


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
            from hylint.runtime import autograd
            with autograd.train_mode():
                eager = nd.BatchNorm(conv, *(nd.array(v) for v in (GAMMA, BETA, MEAN, VAR)), fix_gamma=False,
                                      eps=1e-5).asnumpy()
        else:
            eager = _eager()
    assert folds == {"called": 1, "folded": 0}
    np.testing.assert_array_equal(graph, eager)
