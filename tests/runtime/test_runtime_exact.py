"""Fast by default, exact on request: HYLINT_RUNTIME_EXACT=1 (read once, in hylint/runtime/exact.py) turns on the
replays of MXNet's oneDNN kernels that cost time (the direct deconvolution's summation order, BatchNorm's fused
rounding of oneDNN's blocked layout); without it those operators compute plainly. The replays' bits are checked
against MXNet with the switch on (test_runtime_deconvolution.py, test_runtime_rounding.py)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from hylint.runtime import exact, kernels
from hylint.runtime import ndarray as nd
from hylint.runtime import symbol as sym
from hylint.runtime.ops import common, layers
from hylint.runtime.ops import nn as nn_ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("value, expected", [(None, False), ("1", True), ("0", False), ("", False)])
def test_the_switch_is_the_environment_variable(value, expected):
    env = {k: v for k, v in os.environ.items() if k != "HYLINT_RUNTIME_EXACT"}
    if value is not None:
        env["HYLINT_RUNTIME_EXACT"] = value
    out = subprocess.run([sys.executable, "-c", "from hylint.runtime import exact; print(exact.enabled())"],
                         capture_output=True, text=True, env=dict(env, PYTHONPATH=ROOT), cwd=ROOT, check=True)
    assert out.stdout.strip() == str(expected)


def test_exactly_sets_the_switch_for_a_scope():
    before = exact.enabled()
    with exact.exactly():
        assert exact.enabled()
        with exact.exactly(False):
            assert not exact.enabled()
        assert exact.enabled()
    assert exact.enabled() == before


@pytest.fixture
def as_on_avx512(monkeypatch):
    """The CPU test of both replays answers yes (they are measured on AVX-512)."""
    monkeypatch.setattr(layers, "_AVX512", True)
    monkeypatch.setattr(nn_ops, "_AVX512", True)


def _direct_case():
    rng = np.random.RandomState(7)
    x = rng.standard_normal((2, 32, 5, 4)).astype(np.float32)
    w = rng.standard_normal((32, 16, 4, 4)).astype(np.float32)
    return x, w, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1), "num_filter": 16, "no_bias": True}


@pytest.mark.usefixtures("as_on_avx512")
def test_a_direct_deconvolution_is_the_plain_gemm_by_default():
    x, w, attrs = _direct_case()
    plain = kernels.transposed_convolution(x, w, (2, 2), (1, 1), (1, 1), (0, 0), 1)
    with exact.exactly(False):
        eager = nd.Deconvolution(nd.array(x), nd.array(w), **attrs)
        graph = sym.Deconvolution(sym.var("x"), sym.var("w"), **attrs).eval(x=nd.array(x), w=nd.array(w))[0]
    np.testing.assert_array_equal(eager.asnumpy(), plain)
    np.testing.assert_array_equal(graph.asnumpy(), plain)
    assert not common.is_blocked(eager._data)
    with exact.exactly():
        replayed = nd.Deconvolution(nd.array(x), nd.array(w), **attrs)
    ordered = kernels.onednn_transposed_convolution(x, w, (2, 2), (1, 1), (1, 1), (0, 0), 16)
    np.testing.assert_array_equal(replayed.asnumpy(), ordered)
    assert common.is_blocked(replayed._data)
    assert np.count_nonzero(ordered != plain) > 0  # the two differ in their last bits, within rounding
    np.testing.assert_allclose(ordered, plain, rtol=1e-5, atol=1e-5)


def _bn_of_conv():
    rng = np.random.RandomState(8)
    x = rng.standard_normal((1, 16, 9, 9)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    gamma, beta, mean = (rng.standard_normal(16).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2, 16).astype(np.float32)
    y = nd.Convolution(nd.array(x), nd.array(w), kernel=(3, 3), num_filter=16, no_bias=True)
    z = nd.BatchNorm(y, *(nd.array(p) for p in (gamma, beta, mean, var)), fix_gamma=False, eps=1e-5)
    scale = (gamma / np.sqrt(var + np.float32(1e-5))).reshape(1, -1, 1, 1)
    plain = (y.asnumpy() - mean.reshape(1, -1, 1, 1)) * scale + beta.reshape(1, -1, 1, 1)
    return y, z.asnumpy(), plain


@pytest.mark.usefixtures("as_on_avx512")
def test_batch_norm_after_a_convolution_rounds_plainly_by_default():
    with exact.exactly(False):
        y, z, plain = _bn_of_conv()
    assert not common.is_blocked(y._data)  # nothing noted: the bookkeeping is part of the replay
    np.testing.assert_array_equal(z, plain)
    with exact.exactly():
        y, z, plain = _bn_of_conv()
    assert common.is_blocked(y._data)
    assert np.count_nonzero(z != plain) > 10  # the fused rounding
