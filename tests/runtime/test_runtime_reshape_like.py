"""``reshape_like`` with ``lhs_begin``/``lhs_end``/``rhs_begin``/``rhs_end`` (gluonnlp's BERT decoder reshapes
the gathered positions so): the runtime against MXNet 1.9.1, eagerly and in shape inference."""
import numpy as np
import pytest

from verifyrun import mxnet_available

CASES = [  # lhs shape, rhs shape, attributes
    ((4, 1024), (2, 2), dict(lhs_begin=-2, lhs_end=-1, rhs_begin=0)),  # BERT's masked positions
    ((2, 3, 4), (6, 2, 2), dict(lhs_begin=1, lhs_end=3, rhs_begin=1, rhs_end=3)),  # sizes differ: an error
    ((2, 12), (3, 4), dict(lhs_begin=-1, rhs_begin=0)),
    ((2, 12), (3, 4), {}),  # the whole shapes: sizes differ
    ((6, 4), (2, 3, 4), dict(lhs_end=1, rhs_end=2)),
    ((2, 12), (3, 5), dict(lhs_begin=-1, rhs_begin=0)),
]


def _outcomes(mx):
    out = []
    for lhs, rhs, attrs in CASES:
        values = np.arange(int(np.prod(lhs)), dtype=np.float32).reshape(lhs)
        try:
            eager = mx.nd.reshape_like(mx.nd.array(values), mx.nd.ones(rhs), **attrs).asnumpy()
        except Exception as error:
            eager = "Cannot reshape lhs" in str(error)  # the error MXNet gives for a size mismatch
        graph = mx.sym.reshape_like(mx.sym.var("a"), mx.sym.var("b"), **attrs)
        try:
            inferred = graph.infer_shape(a=lhs, b=rhs)[1]
        except Exception:
            inferred = "error"
        out.append((eager, inferred))
    return out


def _same(ours, theirs):
    for (eager, inferred), (eager_ref, inferred_ref) in zip(ours, theirs):
        assert inferred == inferred_ref
        if isinstance(eager_ref, np.ndarray):
            np.testing.assert_array_equal(eager, eager_ref)
        else:
            assert eager is eager_ref is True


def test_runtime_reshape_like_spans():
    from hylint.runtime import runtime_modules

    outcomes = _outcomes(runtime_modules()["mxnet"])
    assert outcomes[0][0].shape == (2, 2, 1024) and outcomes[0][1] == [(2, 2, 1024)]
    assert outcomes[1] == (True, "error")
    assert outcomes[4][0].shape == (2, 3, 4)


@pytest.mark.mxnet
@pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")
def test_runtime_reshape_like_equals_mxnet():
    import mxnet
    from hylint.runtime import runtime_modules

    _same(_outcomes(runtime_modules()["mxnet"]), _outcomes(mxnet))
