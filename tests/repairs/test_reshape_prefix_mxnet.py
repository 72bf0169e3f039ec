"""The reshape-prefix repair on MXNet 1.9.1: each rewrite hylint makes equals the original eagerly, and the
rewrite hybridizes where the original fails. The sizes are those the repair's docstring names."""
from __future__ import annotations

import numpy as np
import pytest

from hylint.lint.engine import Linter
from hylint.selection import select_rules

mx = pytest.importorskip("mxnet")
pytestmark = pytest.mark.mxnet

BLOCK = """from mxnet.gluon import HybridBlock


class B(HybridBlock):
    def hybrid_forward(self, F, x):
        y = F.relu(x).reshape((6, 3, 4))
        return {}
"""
CASES = [
    ("y.reshape(shape=(-1, 2) + y.shape[1:])", "y.reshape(shape=(-4, -1, 2, -2))"),
    ("y.reshape((3, -1) + y.shape[1:])", "y.reshape((-4, 3, -1, -2))"),
    ("F.reshape(y, (2, 3) + y.shape[1:])", "F.reshape(y, (-4, 2, 3, -2))"),
    ("F.reshape(y, shape=(-1,) + y.shape[1:])", "F.reshape(y, shape=(-1, -2))"),
    ("y.reshape((6,) + y.shape[1:])", "y.reshape((6, -2))"),
    ("y.reshape((-1,) + y.shape[2:])", "y.reshape((-3, -2))"),
]


def _run(source: str, hybridize: bool):
    namespace: dict = {}
    exec(compile(source, "<block>", "exec"), namespace)
    block = namespace["B"]()
    if hybridize:
        block.hybridize()
    return block(mx.nd.array(np.arange(72, dtype="float32").reshape(6, 3, 4) - 30))


@pytest.mark.parametrize("before, after", CASES)
def test_rewrite_is_exact_and_hybridizes(before, after):
    source = BLOCK.format(before)
    fixed = Linter(select_rules()).fix_source(source, "m.py").source
    assert fixed == BLOCK.format(after)  # a safe fix: every size is an integer literal
    eager = _run(source, hybridize=False).asnumpy()
    with pytest.raises(AttributeError):
        _run(source, hybridize=True)
    np.testing.assert_array_equal(_run(fixed, hybridize=False).asnumpy(), eager)
    np.testing.assert_array_equal(_run(fixed, hybridize=True).asnumpy(), eager)


def test_merging_two_axes_needs_a_rank_above_one():
    """`(-1,) + y.shape[2:]` reshapes a 1-D `y` to itself, where -3 fails: unsafe unless the rank is proven."""
    source = BLOCK.format("y.reshape((-1,) + y.shape[2:])").replace(".reshape((6, 3, 4))", "")
    result = Linter(select_rules()).lint_source(source, "m.py")
    fix = next(d.fix for d in result.diagnostics if d.code == "HY201")
    assert fix.applicability.value == "unsafe" and "may be 1-D" in fix.why_unsafe
    one_d = mx.nd.array(np.arange(4, dtype="float32"))
    assert one_d.reshape((-1,) + one_d.shape[2:]).shape == (4,)
    with pytest.raises(mx.base.MXNetError):
        one_d.reshape((-3, -2)).wait_to_read()


def test_sizes_that_do_not_divide_still_fail():
    source = BLOCK.format("y.reshape((-1, 4) + y.shape[1:])")
    fixed = Linter(select_rules()).fix_source(source, "m.py").source
    assert "(-4, -1, 4, -2)" in fixed
    for code in (source, fixed):
        with pytest.raises((ValueError, mx.base.MXNetError)):
            _run(code, hybridize=False)
