"""HY809's custom-operator rewrite on MXNet 1.9.1: gradients, other shapes, and two calls in one recording.

The fixture tests (fixtures/HY809_3) prove the outputs of one shape per block. A Function's point is its
backward: here the fixed blocks' input and Parameter gradients, eagerly and hybridized, against the
original Function's backward (run eagerly, a fresh block per call since a kept instance is single-use),
on shapes other than the fixture's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from loadmodule import load_module  # noqa: E402  (tests/, on sys.path under pytest)

mx = pytest.importorskip("mxnet")

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "HY809_3"
pytestmark = pytest.mark.mxnet


BEFORE = load_module(FIXTURE / "before.py", "hy809_3_before")
AFTER = load_module(FIXTURE / "after_unsafe.py", "hy809_3_after_unsafe")


def _block(module, cls_name, shape, hybridize):
    block = getattr(module, cls_name)(prefix="b_")
    block.initialize()
    rng = np.random.RandomState(0)
    for name, param in sorted(block.collect_params().items()):
        if param.shape and all(param.shape):
            param.set_data(mx.nd.array(rng.standard_normal(param.shape)))
    if any(not all(p.shape) for p in block.collect_params().values()):  # deferred: one call, then the values
        block(mx.nd.zeros(shape))
        for name, param in sorted(block.collect_params().items()):
            param.set_data(mx.nd.array(rng.standard_normal(param.shape)))
    if hybridize:
        block.hybridize()
    return block


def _recorded(block, inputs, seed=1):
    """(outputs, input gradients, Parameter gradients) of one recorded pass over ``inputs`` and backward."""
    inputs = [x.copy() for x in inputs]
    for x in inputs:
        x.attach_grad()
    with mx.autograd.record():
        outputs = [block(x) for x in inputs]
        total = sum((y * mx.nd.array(np.random.RandomState(seed + i).standard_normal(y.shape))).sum()
                    for i, y in enumerate(outputs))
    total.backward()
    return ([y.asnumpy() for y in outputs], [x.grad.asnumpy() for x in inputs],
            {name: p.grad().asnumpy() for name, p in sorted(block.collect_params().items())})


def _assert_same(expected, actual, rtol):
    (y0, dx0, dp0), (y1, dx1, dp1) = expected, actual
    for a, b in zip(y0 + dx0, y1 + dx1):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-6)
    assert dp0.keys() == dp1.keys()
    for name in dp0:
        np.testing.assert_allclose(dp1[name], dp0[name], rtol=rtol, atol=1e-6, err_msg=name)


CASES = [("StyleHead", (1, 2, 3, 3)), ("StyleHead", (3, 2, 6, 2)), ("RootNorm", (1, 4)), ("RootNorm", (6, 4)),
         ("Bilinear", (4, 5)), ("Bilinear", (1, 1))]


@pytest.mark.parametrize("cls_name, shape", CASES)
def test_gradients_equal_the_functions_backward(cls_name, shape):
    x = mx.nd.array(np.random.RandomState(3).standard_normal(shape))
    original = _recorded(_block(BEFORE, cls_name, shape, False), [x])
    eager = _recorded(_block(AFTER, cls_name, shape, False), [x])
    _assert_same(original, eager, rtol=1e-6)
    hybrid_block = _block(AFTER, cls_name, shape, True)
    for _ in range(3):  # the graph, run again: the same values (the oneDNN layout barrier holds)
        _assert_same(original, _recorded(hybrid_block, [x]), rtol=1e-5)


@pytest.mark.parametrize("cls_name, shape", [("RootNorm", (2, 4)), ("Bilinear", (3, 2))])
def test_two_calls_in_one_recording(cls_name, shape):
    """Each call of the hybridized graph keeps its own Function copy for its backward."""
    rng = np.random.RandomState(4)
    inputs = [mx.nd.array(rng.standard_normal(shape)), mx.nd.array(rng.standard_normal(shape) * 2)]
    original = _recorded(_block(BEFORE, cls_name, shape, False), inputs)
    _assert_same(original, _recorded(_block(AFTER, cls_name, shape, False), inputs), rtol=1e-6)
    _assert_same(original, _recorded(_block(AFTER, cls_name, shape, True), inputs), rtol=1e-5)


def test_the_graph_exports_and_runs_where_the_module_is_imported(tmp_path):
    block = _block(AFTER, "StyleHead", (2, 2, 4, 5), True)
    x = mx.nd.array(np.random.RandomState(5).standard_normal((2, 2, 4, 5)))
    expected = block(x).asnumpy()
    block.export(str(tmp_path / "style"))
    loaded = mx.gluon.SymbolBlock.imports(str(tmp_path / "style-symbol.json"), ["data"],
                                          str(tmp_path / "style-0000.params"))
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


TABLE = '''
import mxnet as mx
import numpy as np
from mxnet.gluon import nn


class Lookup(mx.autograd.Function):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, x):
        return x * float(self.table.sum())

    def backward(self, dy):
        return dy * float(self.table.sum())


class Scale(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lookup = Lookup(np.ones(3))

    def hybrid_forward(self, F, x):
        return self.lookup(x)
'''


def test_an_attribute_that_is_no_literal_is_refused_by_name(tmp_path):
    """Why the fix is unsafe: a Function keeping a numpy array cannot reach the operator's string attributes.
    The fixed block says so at its first call, eagerly and hybridized, instead of failing inside MXNet."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    fixed = Linter(select_rules(select=["HY809"])).fix_source(TABLE, "t.py", unsafe=True).source
    assert "_as_custom_op(F, self.lookup, x)" in fixed
    (tmp_path / "table_fixed.py").write_text(fixed)
    module = load_module(tmp_path / "table_fixed.py", "table_fixed")
    for hybridize in (False, True):
        block = module.Scale()
        if hybridize:
            block.hybridize()
        with pytest.raises(TypeError, match="Lookup cannot be a custom operator: its attributes must be Python literals"):
            block(mx.nd.ones((2, 3)))
