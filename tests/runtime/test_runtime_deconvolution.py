"""Deconvolution of float32 summed as MXNet 1.9.1's oneDNN sums it, bit for bit.

On an AVX-512 CPU MXNet runs a 2-D float32 Deconvolution of one group, 16k channels in and out, no dilation
and a kernel larger than 1x1 with oneDNN's direct kernel (``jit:avx512_common`` in ``MKLDNN_VERBOSE``): each
block of 16 input channels is summed from zero, kernel row by row, column by column, channel by channel, one
fused multiply-add per term, and the blocks' sums are added in order. gluoncv's simple pose heads are three
such deconvolutions; the int8 pose models quantize their output, where a unit in the last place moves a
value across a rounding boundary (one int8 step, 0.0076 of 0.97 on the heat maps). Other deconvolutions run
oneDNN's GEMM or 1x1 kernels, in other orders: the runtime keeps its plain sums there.

The replay (and the BatchNorm rounding after it) runs only with HYLINT_RUNTIME_EXACT=1: every test here runs
with that switch on (the default, plain path: tests/runtime/test_runtime_exact.py).
"""
import numpy as np
import pytest

from hylint.runtime import kernels
from hylint.runtime import ndarray as nd
from hylint.runtime import symbol as sym
from hylint.runtime.ops import layers

pytestmark = pytest.mark.usefixtures("exact_replays")


def _ordered_case():
    """Sums whose float32 result tells the order: (data, weight), a 2x2 kernel over a 1x2 input of 32 channels;
    output (0, 1) of each channel takes tap (0, 0) from column 1 and tap (0, 1) from column 0."""
    big, step = np.float32(2 ** 24), np.float32(2 ** -23)
    x = np.ones((1, 32, 1, 2), np.float32)
    w = np.zeros((32, 16, 2, 2), np.float32)
    # 0: taps outside channels: 1 + 2^24 rounds to 2^24, then -2^24 of the next tap: 0 (channels outside: 1)
    w[0, 0, 0, 0], w[1, 0, 0, 0], w[0, 0, 0, 1] = 1, big, -big
    # 1: each block from zero: 2^24 and (1 - 2^24) added once: 1 (one running sum: 0)
    w[0, 1, 0, 0], w[16, 1, 0, 0], w[17, 1, 0, 0] = big, 1, -big
    # 2: the same with the blocks' roles swapped: (1 - 2^24) + 2^24 = 1
    w[0, 2, 0, 0], w[1, 2, 0, 0], w[16, 2, 0, 0] = 1, -big, big
    # 3: fused: -1 + (1 + 2^-23)(1 - 2^-23) = -2^-46 exactly (a rounded product gives 0)
    x[0, 3, 0, 1] = 1 + step
    w[2, 3, 0, 0], w[3, 3, 0, 0] = -1, 1 - step
    return x, w


#: MXNet 1.9.1 (AVX-512, ``jit:avx512_common``) at output (0, 1) of channels 0-3 of `_ordered_case`; the
#: runtime's plain sums gave 0, 0, 0, 0
ORDERED_MEASURED = [0.0, 1.0, 1.0, -2.0 ** -46]


@pytest.fixture
def avx512(monkeypatch):
    monkeypatch.setattr(layers, "_AVX512", True)


def _deconv(namespace, x, w, bias=None, **attrs):
    args = [namespace.array(x), namespace.array(w)] + ([namespace.array(bias)] if bias is not None else [])
    return namespace.Deconvolution(*args, num_filter=w.shape[1] * attrs.get("num_group", 1), no_bias=bias is None,
                                   **attrs).asnumpy()


def test_deconvolution_sums_as_measured_on_mxnet(avx512):
    x, w = _ordered_case()
    out = _deconv(nd, x, w, kernel=(2, 2))
    assert out[0, :4, 0, 1].tolist() == ORDERED_MEASURED


def test_the_ordered_sums_are_sequential_fused_steps():
    """The kernel against a scalar replay of the order (float64 sums of exact products, each rounded once)."""
    rng = np.random.RandomState(3)
    x = (rng.standard_normal((2, 32, 3, 2)) * np.exp(rng.uniform(-4, 4, (2, 32, 3, 2)))).astype(np.float32)
    w = (rng.standard_normal((32, 16, 3, 3)) * np.exp(rng.uniform(-4, 4, (32, 16, 3, 3)))).astype(np.float32)
    out = kernels.onednn_transposed_convolution(x, w, (2, 2), (1, 1), (1, 1), (0, 0), 16)
    assert out.shape == (2, 16, 5, 3)
    for sample, channel, row, col in [(0, 0, 0, 0), (1, 5, 2, 2), (0, 15, 4, 2), (1, 9, 1, 1)]:
        total = np.float32(0)
        for block in range(2):
            partial = np.float32(0)
            for kh in range(3):
                for kw in range(3):
                    for c in range(16 * block, 16 * block + 16):
                        ih, iw = row + 1 - kh, col + 1 - kw  # pad 1, stride 2
                        if ih % 2 or iw % 2 or not (0 <= ih // 2 < 3 and 0 <= iw // 2 < 2):
                            continue
                        term = float(x[sample, c, ih // 2, iw // 2]) * float(w[c, channel, kh, kw])
                        partial = np.float32(float(partial) + term)
            total = np.float32(total + partial)
        assert out[sample, channel, row, col] == total


def test_samples_in_groups_sum_as_one_group(monkeypatch):
    """The replay takes the samples a few at a time (to stay in cache): each sample's sums are its own, so the
    groups' outputs are those of one pass over all samples, bit for bit, whatever the group size."""
    rng = np.random.RandomState(5)
    x = rng.standard_normal((7, 32, 3, 4)).astype(np.float32)
    w = rng.standard_normal((32, 16, 2, 2)).astype(np.float32)
    whole = kernels.onednn_transposed_convolution(x, w, (2, 2), (1, 1), (0, 0), (0, 0), 16)
    step = 8 * 2 * 16 * 3 * 4  # one sample's step: 2 blocks x 16 output channels x 3x4, float64
    for samples in (1, 3):
        monkeypatch.setattr(kernels, "REPLAY_STEP_BYTES", samples * step)
        grouped = kernels.onednn_transposed_convolution(x, w, (2, 2), (1, 1), (0, 0), (0, 0), 16)
        assert grouped.shape == (7, 16, 6, 8)
        np.testing.assert_array_equal(grouped, whole)


def _real_mxnet():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


def _avx512_host():
    if not layers._AVX512:
        pytest.skip("MXNet's deconvolution sums on a CPU without AVX-512 were not measured")


@pytest.mark.mxnet
def test_the_ordered_case_equals_mxnet():
    real = _real_mxnet()
    _avx512_host()
    x, w = _ordered_case()
    np.testing.assert_array_equal(_deconv(nd, x, w, kernel=(2, 2)), _deconv(real.nd, x, w, kernel=(2, 2)))


#: (data shape, filters, attributes): oneDNN's direct kernel (the pose heads' 4x4 / 2 among them), then the
#: GEMM and 1x1 kernels, which the runtime does not reproduce (within float32 rounding only)
DIRECT = [((1, 512, 8, 6), 256, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}),
          ((2, 16, 5, 4), 16, {"kernel": (3, 3), "pad": (1, 1)}),
          ((1, 48, 3, 4), 16, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}),
          ((1, 32, 6, 5), 48, {"kernel": (2, 2), "stride": (2, 2)}),
          ((1, 32, 6, 5), 32, {"kernel": (3, 3)})]
OTHER = [((1, 24, 5, 4), 20, {"kernel": (3, 3), "pad": (1, 1)}),
         ((1, 32, 5, 4), 32, {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "dilate": (2, 2), "adj": (1, 1)}),
         ((1, 48, 5, 4), 16, {"kernel": (1, 1)}),
         ((1, 16, 5, 4), 32, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1), "num_group": 2})]


def _random(rng, shape, filters, attrs):
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-3, 3, shape))).astype(np.float32)
    wshape = (shape[1], filters // attrs.get("num_group", 1)) + attrs["kernel"]
    w = (rng.standard_normal(wshape) * np.exp(rng.uniform(-3, 3, wshape))).astype(np.float32)
    return x, w, rng.standard_normal(filters).astype(np.float32)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", range(len(DIRECT)))
@pytest.mark.parametrize("with_bias", [False, True])
def test_direct_deconvolution_equals_mxnet_bit_for_bit(case, with_bias):
    real = _real_mxnet()
    _avx512_host()
    shape, filters, attrs = DIRECT[case]
    x, w, bias = _random(np.random.RandomState(case), shape, filters, attrs)
    bias = bias if with_bias else None
    np.testing.assert_array_equal(_deconv(nd, x, w, bias, **attrs), _deconv(real.nd, x, w, bias, **attrs))


@pytest.mark.mxnet
@pytest.mark.parametrize("case", range(len(OTHER)))
def test_other_deconvolutions_stay_within_rounding_of_mxnet(case):
    real = _real_mxnet()
    shape, filters, attrs = OTHER[case]
    x, w, _ = _random(np.random.RandomState(10 + case), shape, filters, attrs)
    ours, theirs = _deconv(nd, x, w, **attrs), _deconv(real.nd, x, w, **attrs)
    scale = np.abs(x).max() * np.abs(w).max() * shape[1] * np.prod(attrs["kernel"])
    assert ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() <= scale * 2.0 ** -20


# --- the BatchNorm after it ---------------------------------------------------------------------------------
# The direct kernel leaves its output in oneDNN's blocked layout (``aBcd16b``), where MXNet's BatchNorm rounds
# ``(x - mean) * scale + beta`` as one fused multiply-add; after a GEMM deconvolution (plain layout), after the
# ``relu`` operator, or on an array made by ``nd.array``, it rounds each step (measured eagerly and in a graph).
def _bn_params(rng, channels):
    gamma, beta, mean = (rng.standard_normal(channels).astype(np.float32) for _ in range(3))
    return gamma, beta, mean, rng.uniform(0.5, 2, channels).astype(np.float32)


def _deconv_bn(namespace, x, w, params, between=None, **attrs):
    y = namespace.Deconvolution(namespace.array(x), namespace.array(w), num_filter=w.shape[1], no_bias=True, **attrs)
    y = between(namespace, y) if between else y
    return namespace.BatchNorm(y, *(namespace.array(p) for p in params), fix_gamma=False, eps=1e-5).asnumpy()


def _fused_and_plain(y, params):
    gamma, beta, mean, var = params
    shape = (1, -1, 1, 1)
    scale = (gamma / np.sqrt(var + np.float32(1e-5))).reshape(shape)
    centred = y - mean.reshape(shape)
    fused = (centred.astype(np.float64) * scale.astype(np.float64) + beta.reshape(shape).astype(np.float64))
    return fused.astype(np.float32), centred * scale + beta.reshape(shape)


def test_batch_norm_after_a_direct_deconvolution_is_fused(avx512):
    rng = np.random.RandomState(20)
    x, w = rng.standard_normal((1, 32, 6, 5)).astype(np.float32), rng.standard_normal((32, 32, 4, 4)).astype(np.float32)
    params = _bn_params(rng, 32)
    attrs = {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}
    y = nd.Deconvolution(nd.array(x), nd.array(w), num_filter=32, no_bias=True, **attrs).asnumpy()
    fused, plain = _fused_and_plain(y, params)
    assert np.count_nonzero(fused != plain) > 100  # the two roundings differ on a good share of the values
    np.testing.assert_array_equal(_deconv_bn(nd, x, w, params, **attrs), fused)
    copied = lambda namespace, value: namespace.array(value.asnumpy())  # a plain array again
    np.testing.assert_array_equal(_deconv_bn(nd, x, w, params, between=copied, **attrs), plain)


#: (data shape, filters, attributes, between, the rounding): the direct kernel's output (fused), a GEMM
#: deconvolution's (plain), the direct kernel's through the ``relu`` operator (plain)
BN_CASES = [((1, 64, 6, 5), 32, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}, False, "fused"),
            ((1, 24, 6, 5), 20, {"kernel": (3, 3), "pad": (1, 1)}, False, "plain"),
            ((1, 64, 6, 5), 32, {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1)}, True, "plain")]


def _deconv_then_bn(namespace, x, w, params, relu, attrs):
    y = namespace.Deconvolution(namespace.array(x), namespace.array(w), num_filter=w.shape[1], no_bias=True, **attrs)
    y = namespace.relu(y) if relu else y
    z = namespace.BatchNorm(y, *(namespace.array(p) for p in params), fix_gamma=False, eps=1e-5)
    return y.asnumpy(), z.asnumpy()


@pytest.mark.mxnet
@pytest.mark.parametrize("case", range(len(BN_CASES)))
def test_batch_norm_after_a_deconvolution_rounds_as_mxnet_eagerly(case):
    """Each backend's BatchNorm, of its own deconvolution's output, rounds the way MXNet's does there (the
    GEMM deconvolutions themselves differ in their last bits)."""
    real = _real_mxnet()
    _avx512_host()
    shape, filters, attrs, relu, rounding = BN_CASES[case]
    rng = np.random.RandomState(30 + case)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((shape[1], filters) + attrs["kernel"]).astype(np.float32)
    params = _bn_params(rng, filters)
    for namespace in (real.nd, nd):
        y, z = _deconv_then_bn(namespace, x, w, params, relu, attrs)
        fused, plain = _fused_and_plain(y, params)
        assert np.count_nonzero(fused != plain) > 10
        np.testing.assert_array_equal(z, fused if rounding == "fused" else plain)


@pytest.mark.mxnet
def test_batch_norm_after_a_deconvolution_equals_mxnet_in_a_graph():
    real = _real_mxnet()
    _avx512_host()
    rng = np.random.RandomState(40)
    x, w = rng.standard_normal((1, 64, 6, 5)).astype(np.float32), rng.standard_normal((64, 32, 4, 4)).astype(np.float32)
    gamma, beta, mean, var = _bn_params(rng, 32)
    values = {"data": x, "d_weight": w, "bn_gamma": gamma, "bn_beta": beta}
    aux = {"bn_moving_mean": mean, "bn_moving_var": var}
    outs = []
    for namespace, module in ((nd, sym), (real.nd, real.sym)):
        net = module.BatchNorm(module.Deconvolution(module.var("data"), kernel=(4, 4), stride=(2, 2), pad=(1, 1),
                                                    num_filter=32, no_bias=True, name="d"),
                               fix_gamma=False, eps=1e-5, name="bn")
        args = {k: namespace.array(v) for k, v in values.items()}
        states = {k: namespace.array(v) for k, v in aux.items()}
        executor = net.bind(real.cpu(), args, aux_states=states) if module is real.sym else \
            net.bind(args=args, aux_states=states)
        outs.append(executor.forward()[0].asnumpy())
    np.testing.assert_array_equal(*outs)
