"""HY201's parity-picked TF "SAME" padding (hylint/repairs/parity_pad.py), on every backend.

fixtures/HY201_5 proves three forms of the idiom on one input each. Here the inserted function itself, on
a grid: kernels 1 to 5 (odd and even), strides 1 and 2, odd, even and mixed sizes, followed by the
convolution it pads for; its output must equal the shape-reading padding's, eagerly and hybridized."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hylint.repairs.parity_pad import helper_source
from hylint.verify.backends import backend
from verifyrun import BACKENDS, mxnet_available

SIZES = [(7, 8), (8, 7), (6, 6), (5, 9), (1, 2)]
KERNELS_STRIDES = list(itertools.product((1, 2, 3, 5), (1, 2)))


def tf_same(hw, kernel, stride):
    pads = []
    for n in hw:
        total = max((math.ceil(n / stride) - 1) * stride + kernel - n, 0)
        pads += [total // 2, total - total // 2]
    return (0, 0, 0, 0) + tuple(pads)


def _blocks(mx, kernel, stride):
    namespace = {}
    exec(helper_source(), namespace)  # the text the fix inserts
    pad_by_parity = namespace["_pad_by_parity"]

    class Padded(mx.gluon.HybridBlock):
        def __init__(self, by_parity):
            super().__init__()
            self.by_parity = by_parity
            with self.name_scope():
                self.conv = mx.gluon.nn.Conv2D(2, kernel, strides=stride, in_channels=3)

        def hybrid_forward(self, F, x):
            if self.by_parity:
                x = pad_by_parity(F, x, lambda size: tf_same(size, kernel, stride))
            else:
                x = F.pad(x, mode="constant", pad_width=tf_same(x.shape[2:], kernel, stride), constant_value=0)
            return self.conv(x)

    reading, parity = Padded(False), Padded(True)
    for block in (reading, parity):
        block.initialize(mx.init.Constant(0.5))
    weights = np.random.RandomState(kernel * 10 + stride).randn(*reading.conv.weight.shape)
    for block in (reading, parity):
        block.conv.weight.set_data(mx.nd.array(weights))
    return reading, parity


@pytest.mark.parametrize("name", BACKENDS)
def test_parity_padding_equals_the_shape_reading_padding(name):
    with backend(name) as mx:
        for (kernel, stride), (h, w) in itertools.product(KERNELS_STRIDES, SIZES):
            reading, parity = _blocks(mx, kernel, stride)
            x = mx.nd.array(np.random.RandomState(h * 10 + w).randn(2, 3, h, w))
            expected = reading(x).asnumpy()
            eager = parity(x).asnumpy()
            parity.hybridize()
            hybridized = parity(x).asnumpy()
            case = f"kernel {kernel}, stride {stride}, size {h}x{w}"
            assert eager.shape == expected.shape and np.array_equal(eager, expected), case
            assert hybridized.shape == expected.shape and np.array_equal(hybridized, expected), case


@pytest.mark.mxnet
@pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")
def test_parity_padding_keeps_the_input_gradient():
    """The zeros added to the shorter padding are never read: the input gradient is the original's too."""
    with backend("mxnet") as mx:
        for (kernel, stride), (h, w) in itertools.product(((3, 2), (5, 2), (4, 1)), SIZES[:4]):
            grads = []
            for block in _blocks(mx, kernel, stride):
                x = mx.nd.array(np.random.RandomState(h * 10 + w).randn(2, 3, h, w))
                x.attach_grad()
                with mx.autograd.record():
                    y = block(x)
                y.backward(mx.nd.array(np.random.RandomState(1).randn(*y.shape)))
                grads.append(x.grad.asnumpy())
            assert np.array_equal(grads[0], grads[1]), f"kernel {kernel}, stride {stride}, size {h}x{w}"


def test_inserted_function_keeps_the_module_indentation():
    text = helper_source("\t", "\r\n")
    assert "\r\n\tfor axis in (2, 3):\r\n\t\todd, even" in text
    compile(text, "<helper>", "exec")
