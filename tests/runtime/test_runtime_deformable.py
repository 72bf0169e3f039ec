"""Deformable convolution on the runtime (``contrib.DeformableConvolution``, ``contrib.ModulatedDeformableConvolution``
and the ``gluon.contrib.cnn`` layers gluoncv's CenterNet DCNv2 heads use), against MXNet 1.9.1: the operators on
random offsets reaching outside the image, and the layers through ``hylint verify --save-outputs``."""
import numpy as np
import pytest

from verifyrun import as_json, mxnet_available, write

# channels, filters, groups, deformable groups, kernel, stride, pad, dilation
GEOMETRIES = [(4, 6, 1, 1, 3, 1, 1, 1), (4, 6, 2, 2, 3, 2, 1, 1), (6, 6, 1, 3, 3, 1, 2, 2), (4, 4, 1, 1, 1, 1, 0, 1)]
needs_mxnet = pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")


def _operator_outputs(mx, modulated):
    rng = np.random.RandomState(0)
    out = []
    for c, nf, g, dg, k, stride, pad, dil in GEOMETRIES:
        x = rng.uniform(-1, 1, (2, c, 7, 6)).astype("float32")
        ho, wo = ((size + 2 * pad - dil * (k - 1) - 1) // stride + 1 for size in (7, 6))
        offset = rng.uniform(-3, 3, (2, 2 * k * k * dg, ho, wo)).astype("float32")  # some taps land outside
        mask = rng.uniform(0, 2, (2, k * k * dg, ho, wo)).astype("float32")
        weight, bias = rng.uniform(-1, 1, (nf, c // g, k, k)).astype("float32"), rng.uniform(-1, 1, nf)
        attrs = dict(kernel=(k, k), stride=(stride, stride), pad=(pad, pad), dilate=(dil, dil), num_filter=nf,
                     num_group=g, num_deformable_group=dg)
        a = mx.nd.array
        if modulated:
            y = mx.nd.contrib.ModulatedDeformableConvolution(data=a(x), offset=a(offset), mask=a(mask),
                                                             weight=a(weight), bias=a(bias), **attrs)
        else:
            y = mx.nd.contrib.DeformableConvolution(data=a(x), offset=a(offset), weight=a(weight), bias=a(bias),
                                                    **attrs)
        out.append(y.asnumpy())
    return out


@pytest.mark.mxnet
@needs_mxnet
@pytest.mark.parametrize("modulated", [False, True], ids=["v1", "modulated"])
def test_deformable_operators_equal_mxnet(modulated):
    import mxnet
    from hylint.runtime import runtime_modules

    ours, theirs = _operator_outputs(runtime_modules()["mxnet"], modulated), _operator_outputs(mxnet, modulated)
    for mine, reference in zip(ours, theirs):
        assert mine.shape == reference.shape
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-5)


def test_zero_offsets_are_a_plain_convolution():
    from hylint.runtime import runtime_modules

    mx = runtime_modules()["mxnet"]
    rng = np.random.RandomState(1)
    x, w = mx.nd.array(rng.uniform(-1, 1, (1, 3, 6, 5))), mx.nd.array(rng.uniform(-1, 1, (4, 3, 3, 3)))
    offset = mx.nd.zeros((1, 18, 6, 5))
    plain = mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True).asnumpy()
    deformable = mx.nd.contrib.DeformableConvolution(data=x, offset=offset, weight=w, kernel=(3, 3), pad=(1, 1),
                                                     num_filter=4, no_bias=True).asnumpy()
    modulated = mx.nd.contrib.ModulatedDeformableConvolution(
        data=x, offset=offset, mask=mx.nd.ones((1, 9, 6, 5)), weight=w, kernel=(3, 3), pad=(1, 1), num_filter=4,
        no_bias=True).asnumpy()
    np.testing.assert_allclose(deformable, plain, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(modulated, plain, rtol=1e-5, atol=1e-5)


LAYERS = '''from mxnet.gluon import nn
from mxnet.gluon.contrib import cnn


class Head(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.v1 = cnn.DeformableConvolution(6, kernel_size=3, padding=1, num_deformable_group=2)
            self.v2 = cnn.ModulatedDeformableConvolution(4, kernel_size=3, strides=2, padding=1, in_channels=6,
                                                         activation="relu")

    def hybrid_forward(self, F, x):
        return self.v2(self.v1(x))
'''


@pytest.mark.mxnet
@needs_mxnet
def test_deformable_layers_equal_mxnet_through_verify(project):
    write(project, "m.py", LAYERS)
    outputs = {}
    for backend in ("numpy", "mxnet"):
        result, [report] = as_json(["m.py::Head", "--input", "2x4x9x8", "--backend", backend,
                                    "--save-outputs", f"{backend}.npz"])
        assert result.exit_code == 0 and report["verdict"] == "hybridizes", result.output
        outputs[backend] = np.load(f"{backend}.npz")
    for key in ("eager/0", "hybridized/0"):
        assert outputs["numpy"][key].shape == (2, 4, 5, 4)
        np.testing.assert_allclose(outputs["numpy"][key], outputs["mxnet"][key], rtol=1e-4, atol=1e-5)
