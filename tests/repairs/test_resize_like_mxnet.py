"""HY201's `like` resize on MXNet 1.9.1: `F.contrib.BilinearResize2D(y, x, mode='like')` is what the child's
`BilinearResize2D(y, height=x.shape[2], width=x.shape[3])` computed, outputs and gradients, eager and
hybridized, for both `align_corners` and the default, up- and down-sizing (fixtures/HY201_8 checks the
rewritten blocks themselves, on MXNet and on the runtime)."""
from __future__ import annotations

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")
pytestmark = pytest.mark.mxnet


def _blocks(keywords):
    from mxnet.gluon import HybridBlock

    class BySize(HybridBlock):
        def hybrid_forward(self, F, y, x):
            return F.contrib.BilinearResize2D(y, height=x.shape[2], width=x.shape[3], **keywords)

    class Like(HybridBlock):
        def hybrid_forward(self, F, y, x):
            return F.contrib.BilinearResize2D(y, x, mode="like", **keywords)

    return BySize(), Like()


def _run(block, y, x, head):
    y, x = y.copy(), x.copy()
    y.attach_grad()
    x.attach_grad()
    with mx.autograd.record():
        out = block(y, x)
    out.backward(head)
    return out.asnumpy(), y.grad.asnumpy(), x.grad.asnumpy()


@pytest.mark.parametrize("keywords", [{}, {"align_corners": True}, {"align_corners": False}])
@pytest.mark.parametrize("y_shape, x_shape", [((1, 3, 7, 9), (1, 5, 56, 72)), ((2, 2, 17, 13), (2, 1, 5, 6)),
                                              ((1, 4, 8, 8), (1, 2, 8, 8))])
@pytest.mark.parametrize("hybridize", [False, True])
def test_like_resize_is_the_resize_to_the_size_read(keywords, y_shape, x_shape, hybridize):
    rng = np.random.RandomState(sum(y_shape) + sum(x_shape))
    y, x = mx.nd.array(rng.randn(*y_shape)), mx.nd.array(rng.randn(*x_shape))
    head = mx.nd.array(rng.randn(*(y_shape[:2] + x_shape[2:])))
    by_size, like = _blocks(keywords)
    if hybridize:
        like.hybridize()
    expected, expected_dy, _ = _run(by_size, y, x, head)
    for _ in range(2):  # the hybridized block's first call traces, the second runs the cached graph
        out, dy, dx = _run(like, y, x, head)
        assert np.array_equal(out, expected) and np.array_equal(dy, expected_dy)
        assert not dx.any()  # the like tensor gets no gradient
