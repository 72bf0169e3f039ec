"""HY809's straight-through rewrite on MXNet 1.9.1: gradients, not only outputs.

The fixture tests (fixtures/HY809_2) prove the outputs: before.py eager == after_unsafe.py eager ==
after_unsafe.py hybridized. A Function's point is its backward, and the gradients that matter flow into
Parameters, which the fixture harness does not compare. Here: the Parameter gradients of the original
(eager, the Function's own backward) against the rewritten block's, eager and hybridized, and the value's
bit-identity; plus the one input the fix changes (an infinite weight), which is why the fix is unsafe."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from loadmodule import load_module  # noqa: E402  (tests/, on sys.path under pytest)

mx = pytest.importorskip("mxnet")

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "HY809_2"
pytestmark = pytest.mark.mxnet


def _module(name):
    return load_module(FIXTURE / f"{name}.py", f"hy809_2_{name}")


def _run(block, x, hybridize):
    """(output, gradient of each Parameter) of one recorded call and backward with a fixed head gradient."""
    if hybridize:
        block.hybridize()
    with mx.autograd.record():
        y = block(x)
    head = mx.nd.array(np.random.RandomState(1).standard_normal(y.shape))
    y.backward(head)
    return y.asnumpy(), {name: p.grad().asnumpy() for name, p in sorted(block.collect_params().items())}


def _pair(cls_name, shape, weights=None):
    before, after = _module("before"), _module("after_unsafe")
    blocks = []
    for module in (before, after):
        block = getattr(module, cls_name)(prefix="b_")
        block.initialize()
        rng = np.random.RandomState(0)
        x = mx.nd.array(rng.standard_normal(shape))
        block(x)  # deferred shapes
        for name, param in sorted(block.collect_params().items()):
            param.set_data(mx.nd.array(rng.standard_normal(param.shape) if weights is None else weights(param.shape)))
        blocks.append(block)
    return blocks, x


@pytest.mark.parametrize("cls_name, shape", [("TernaryDense", (3, 4)), ("TernaryConv", (2, 2, 5, 6))])
def test_gradients_equal_the_functions_backward(cls_name, shape):
    (original, fixed), x = _pair(cls_name, shape)
    y0, g0 = _run(original, x, hybridize=False)
    (_, fixed_hybrid), _ = _pair(cls_name, shape)
    y1, g1 = _run(fixed, x, hybridize=False)
    y2, g2 = _run(fixed_hybrid, x, hybridize=True)
    assert np.array_equal(y0, y1)  # bit-identical eager value
    np.testing.assert_allclose(y2, y0, rtol=1e-5, atol=1e-6)
    assert g0.keys() == g1.keys() == g2.keys()
    for name in g0:
        np.testing.assert_allclose(g1[name], g0[name], rtol=1e-6, atol=1e-7, err_msg=name)
        np.testing.assert_allclose(g2[name], g0[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_infinite_weight_is_why_the_fix_is_unsafe():
    def weights(shape):
        w = np.ones(shape)
        w.flat[0] = np.inf
        return w
    (original, fixed), x = _pair("TernaryDense", (3, 4), weights)
    assert np.isfinite(original(x).asnumpy()).all()  # clip(inf) = 0.5
    assert np.isnan(fixed(x).asnumpy()).any()  # inf - inf


QUANTIZE = '''
import mxnet as mx
from mxnet.gluon import nn


class Round(mx.autograd.Function):
    def forward(self, v):
        return v.round()

    def backward(self, g):
        return g


class Quantize(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        y = x * 4
        return Round()(y) / 4
'''


def test_hy810_input_gradient(tmp_path):
    """HY810's case: a Function on data whose forward traces. The original cannot be recorded hybridized
    (the process crashes), so the rewritten block is held to the original's eager output and input gradient."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    fixed = Linter(select_rules(select=["HY810"])).fix_source(QUANTIZE, "q.py", unsafe=True).source
    assert "Round()(" not in fixed and "F.BlockGrad(" in fixed
    modules = []
    for name, text in (("before", QUANTIZE), ("after", fixed)):
        (tmp_path / f"q_{name}.py").write_text(text)
        modules.append(load_module(tmp_path / f"q_{name}.py", f"q_{name}"))
    x = mx.nd.array(np.random.RandomState(2).standard_normal((3, 5)) * 3)
    results = []
    for module, hybridize in ((modules[0], False), (modules[1], False), (modules[1], True)):
        block = module.Quantize()
        if hybridize:
            block.hybridize()
        inp = x.copy()
        inp.attach_grad()
        with mx.autograd.record():
            y = block(inp)
        y.backward(mx.nd.ones_like(y) * 3)
        results.append((y.asnumpy(), inp.grad.asnumpy()))
    (y0, g0), (y1, g1), (y2, g2) = results
    assert np.array_equal(y0, y1) and np.array_equal(y0, y2)
    np.testing.assert_allclose(g0, 3.0)  # identity backward of the Function, times d(x*4)/4
    assert np.array_equal(g1, g0) and np.array_equal(g2, g0)
