"""Graphs deeper than Python's recursion limit (issue 24: `faster_rcnn_fpn_syncbn_resnest101_coco` ended in a
RecursionError when its SymbolBlock backbone, thousands of ops deep, was substituted into the hybridized graph).
Every walk over a graph (building, substituting, inferring, evaluating, serialising) must be iterative."""
import sys

import numpy as np
import pytest

DEPTH = 3 * sys.getrecursionlimit()  # a chain of ops three times deeper than Python would recurse


def _chain(F, x, depth=DEPTH):
    for _ in range(depth):
        x = x + 1
    return x


def _deep_symbol_block(mx):
    data = mx.sym.var("data")
    return mx.gluon.SymbolBlock(_chain(mx.sym, data), data)


def _run_deep_symbol_block(mx, hybridize):
    """The gluoncv FPN pattern: a SymbolBlock (the backbone) inside a hybridized block."""
    outer = mx.gluon.nn.HybridSequential()
    outer.add(_deep_symbol_block(mx))
    outer.initialize()
    if hybridize:
        outer.hybridize()
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    return outer(x).asnumpy()


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_symbol_block_deeper_than_the_recursion_limit_runs_inside_a_hybridized_block(hybridize):
    from hylint.runtime import _mxnet as runtime
    out = _run_deep_symbol_block(runtime, hybridize)
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) + DEPTH)


@pytest.mark.mxnet
@pytest.mark.parametrize("hybridize", [False, True])
def test_a_deep_symbol_block_is_mxnets(hybridize):
    from runtime_harness import real_mx
    from hylint.runtime import _mxnet as runtime
    real = real_mx()
    if real is None:
        pytest.skip("MXNet does not import here")
    np.testing.assert_array_equal(_run_deep_symbol_block(runtime, hybridize), _run_deep_symbol_block(real, hybridize))


def test_a_deep_hybrid_forward_and_symbol_survive_every_graph_walk():
    from hylint.runtime import _mxnet as mx

    class Deep(mx.gluon.nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return _chain(F, x)

    net = Deep()
    net.initialize()
    x = mx.nd.zeros((2, 3))
    eager = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_array_equal(net(x).asnumpy(), eager)
    s = _chain(mx.sym, mx.sym.var("x"))
    loaded = mx.sym.load_json(s.tojson())
    assert loaded.infer_shape(x=(2, 3))[1] == [(2, 3)]
    np.testing.assert_array_equal(loaded.eval(x=x)[0].asnumpy(), eager)
