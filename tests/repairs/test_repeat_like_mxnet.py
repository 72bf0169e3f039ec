"""The repeat-like repair on MXNet 1.9.1: a size-1 axis repeated `len(x)` (or `x.shape[i]`) times equals its
`broadcast_like` rewrite in value, dtype and gradient, eagerly and hybridized; the original fails or is wrong
once hybridized."""
from __future__ import annotations

import numpy as np
import pytest

from hylint.lint.engine import Linter
from hylint.selection import select_rules

mx = pytest.importorskip("mxnet")
pytestmark = pytest.mark.mxnet

BLOCK = """from mxnet.gluon import HybridBlock


class B(HybridBlock):
    def hybrid_forward(self, F, x, c):
        x = F.relu(x)
        return {}
"""
CASES = [
    ("F.repeat(F.expand_dims(c, axis=0), len(x), axis=0)",
     "F.broadcast_like(F.expand_dims(c, axis=0), x, lhs_axes=(0,), rhs_axes=(0,))"),
    ("F.repeat(F.expand_dims(c, axis=0), repeats=x.shape[0], axis=0)",
     "F.broadcast_like(F.expand_dims(c, axis=0), x, lhs_axes=(0,), rhs_axes=(0,))"),
    ("c.expand_dims(axis=1).repeat(x.shape[1], axis=1)",
     "F.broadcast_like(c.expand_dims(axis=1), x, lhs_axes=(1,), rhs_axes=(1,))"),
]


def _run(source: str, hybridize: bool, dtype: str):
    namespace: dict = {}
    exec(compile(source, "<block>", "exec"), namespace)
    block = namespace["B"]()
    if hybridize:
        block.hybridize()
    x = mx.nd.array(np.random.RandomState(0).rand(4, 3), dtype=dtype)
    c = mx.nd.array(np.arange(3) + 1, dtype=dtype)
    c.attach_grad()
    with mx.autograd.record():
        out = block(x, c)
    if dtype == "float32":
        out.backward()
    return out, c.grad


@pytest.mark.parametrize("before, after", CASES)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_rewrite_is_exact_and_hybridizes(before, after, dtype):
    source = BLOCK.format(before)
    fixed = Linter(select_rules()).fix_source(source, "m.py").source
    assert fixed == BLOCK.format(after)
    eager, eager_grad = _run(source, False, dtype)
    try:
        hybrid, _ = _run(source, True, dtype)
        assert hybrid.shape != eager.shape  # len() of a Symbol is 1: a different result, silently
    except (AttributeError, mx.base.MXNetError):
        pass  # `.shape` of a Symbol
    for hybridize in (False, True):
        out, grad = _run(fixed, hybridize, dtype)
        assert out.dtype == eager.dtype
        np.testing.assert_array_equal(out.asnumpy(), eager.asnumpy())
        if dtype == "float32":
            np.testing.assert_array_equal(grad.asnumpy(), eager_grad.asnumpy())
