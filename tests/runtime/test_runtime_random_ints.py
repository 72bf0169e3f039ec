"""``nd.random.randint`` / ``sym.random.randint`` on the runtime, checked against MXNet 1.9.1: dtype, shape,
range and shape/type inference (the draws themselves come from the runtime's own generator)."""
import numpy as np
import pytest

from verifyrun import mxnet_available


def _draws(mx):
    mx.random.seed(3)
    default = mx.nd.random.randint(0, 8, shape=(50, 4))
    wide = mx.nd.random.randint(-5, 5, shape=(7,), dtype="int64")
    sym = mx.sym.random.randint(2, 9, shape=(2, 3))
    _, out_shapes, _ = sym.infer_shape()
    _, out_types, _ = sym.infer_type()
    return default.asnumpy(), wide.asnumpy(), out_shapes, out_types


def _check(default, wide, out_shapes, out_types):
    assert default.dtype == np.int32 and default.shape == (50, 4)
    assert default.min() >= 0 and default.max() <= 7 and len(np.unique(default)) == 8
    assert wide.dtype == np.int64 and wide.shape == (7,) and wide.min() >= -5 and wide.max() <= 4
    assert out_shapes == [(2, 3)] and out_types == [np.int32]


def test_runtime_randint():
    from hylint.runtime import activate

    with activate():
        import mxnet as mx
        _check(*_draws(mx))
        with pytest.raises(Exception, match="low must be less than high"):  # MXNet 1.9.1 dies of SIGFPE here
            mx.nd.random.randint(3, 3, shape=(2,))


@pytest.mark.mxnet
@pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")
def test_mxnet_randint_is_what_the_runtime_mimics():
    import mxnet as mx

    _check(*_draws(mx))
