"""The runtime's convolution and pooling kernels on the geometries real models use: grouped, depthwise
(small and large maps), few filters over many channels, transposed (each formulation of ``hylint.runtime.kernels``
is exercised, and forced where a threshold picks it), pointwise, strided, dilated, padded, 1-D and 3-D,
float16/32/64. Each case is compared with a direct float64 loop written here, and
with real MXNet 1.9.1's eager operator where MXNet imports."""
import itertools

import numpy as np
import pytest

from hylint.runtime import kernels
from hylint.runtime import ndarray as nd

#: id -> (input shape, num_filter, kernel, stride, dilate, pad, num_group, no_bias)
CONV_CASES = {
    "dense_3x3_padded_batch": ((3, 4, 9, 8), 5, (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    "dense_strided_asymmetric": ((2, 3, 11, 10), 4, (3, 2), (2, 3), (1, 1), (1, 0), 1, False),
    "dense_dilated": ((2, 3, 12, 12), 4, (3, 3), (1, 1), (2, 3), (2, 1), 1, True),
    "dense_7x7_stem": ((1, 3, 20, 20), 6, (7, 7), (2, 2), (1, 1), (3, 3), 1, True),
    "few_filters_3x3": ((1, 16, 20, 20), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    "few_filters_dilated_batch": ((2, 8, 24, 22), 2, (3, 3), (1, 1), (2, 2), (2, 2), 1, True),
    "few_filters_unpadded_5x3": ((1, 12, 26, 24), 3, (5, 3), (1, 1), (1, 1), (0, 0), 1, False),
    "few_filters_conv1d": ((2, 8, 410), 2, (3,), (1,), (1,), (1,), 1, True),
    "pointwise": ((2, 8, 5, 6), 7, (1, 1), (1, 1), (1, 1), (0, 0), 1, False),
    "pointwise_strided": ((2, 8, 9, 7), 7, (1, 1), (2, 2), (1, 1), (0, 0), 1, True),
    "pointwise_padded": ((1, 4, 5, 5), 3, (1, 1), (1, 1), (1, 1), (1, 1), 1, False),
    "pointwise_grouped": ((2, 12, 6, 6), 8, (1, 1), (1, 1), (1, 1), (0, 0), 4, True),
    "grouped_3x3": ((2, 12, 8, 8), 6, (3, 3), (1, 1), (1, 1), (1, 1), 3, False),
    "grouped_strided_dilated": ((1, 8, 13, 11), 8, (3, 3), (2, 1), (2, 2), (2, 1), 4, True),
    "depthwise_small_map": ((2, 16, 7, 7), 16, (3, 3), (1, 1), (1, 1), (1, 1), 16, True),
    "depthwise_small_map_strided": ((1, 32, 14, 14), 32, (3, 3), (2, 2), (1, 1), (1, 1), 32, False),
    "depthwise_small_map_dilated_5x5": ((1, 8, 8, 8), 8, (5, 5), (1, 1), (2, 2), (4, 4), 8, True),
    "depthwise_large_map": ((1, 4, 30, 30), 4, (3, 3), (1, 1), (1, 1), (1, 1), 4, True),
    "depthwise_large_map_strided": ((2, 4, 41, 40), 4, (3, 3), (2, 2), (1, 1), (1, 1), 4, False),
    "depthwise_unpadded": ((1, 6, 9, 9), 6, (3, 3), (1, 1), (1, 1), (0, 0), 6, True),
    "depthwise_multiplier": ((1, 4, 8, 8), 8, (3, 3), (1, 1), (1, 1), (1, 1), 4, False),
    "depthwise_1x1": ((1, 6, 5, 5), 6, (1, 1), (1, 1), (1, 1), (0, 0), 6, False),
    "conv1d_grouped_padded": ((2, 6, 17), 4, (3,), (2,), (1,), (1,), 2, False),
    "conv1d_depthwise_dilated": ((2, 5, 19), 5, (3,), (1,), (3,), (3,), 5, True),
    "conv3d_padded_strided": ((1, 3, 5, 6, 7), 4, (3, 3, 3), (1, 2, 2), (1, 1, 1), (1, 1, 0), 1, False),
    "conv3d_depthwise": ((1, 4, 4, 5, 6), 4, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 4, True),
}


def _draw(case, dtype="float32", seed=0):
    shape, nf, kernel, stride, dilate, pad, groups, no_bias = CONV_CASES[case]
    rng = np.random.RandomState(seed)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((nf, shape[1] // groups) + kernel).astype(dtype)
    b = rng.standard_normal(nf).astype(dtype)
    attrs = dict(kernel=kernel, stride=stride, dilate=dilate, pad=pad, num_filter=nf, num_group=groups,
                 no_bias=no_bias)
    return ([x, w] if no_bias else [x, w, b]), attrs


def direct_convolution(x, w, b, kernel, stride, dilate, pad, num_filter, num_group, no_bias):
    """Float64, one output position and one group at a time: the definition, nothing shared with the runtime."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out_sizes = [(xp.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(len(kernel))]
    out = np.zeros((x.shape[0], num_filter) + tuple(out_sizes))
    cg, fg = x.shape[1] // num_group, num_filter // num_group
    for g in range(num_group):
        for pos in itertools.product(*map(range, out_sizes)):
            window = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + tuple(
                slice(p * s, p * s + dl * (k - 1) + 1, dl) for p, s, dl, k in zip(pos, stride, dilate, kernel))]
            out[(slice(None), slice(g * fg, (g + 1) * fg)) + pos] = np.tensordot(
                window, w[g * fg:(g + 1) * fg], axes=(list(range(1, window.ndim)), list(range(1, w.ndim))))
    return out if no_bias else out + b.astype(np.float64).reshape((1, -1) + (1,) * len(kernel))


def _ours(arrays, attrs):
    return nd.Convolution(*[nd.array(a, dtype=a.dtype) for a in arrays], **attrs).asnumpy()


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_equals_direct_loop(case):
    arrays, attrs = _draw(case)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    got = _ours(arrays, attrs)
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["depthwise_small_map", "depthwise_large_map_strided", "conv1d_depthwise_dilated",
                                  "conv3d_depthwise", "depthwise_small_map_dilated_5x5", "depthwise_large_map",
                                  "depthwise_unpadded"])
def test_every_depthwise_formulation_agrees(case, monkeypatch):
    """The flat-map im2col (stride 1), the channels-last tap sum and the batched matmul, each forced, on the same
    depthwise input; the flat im2col sums as the batched matmul does, bit for bit."""
    arrays, attrs = _draw(case)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    outputs = {}
    for flat_block, threshold in ((1 << 17, 0), (1, 0), (0, 0), (0, 10 ** 9)):
        monkeypatch.setattr(kernels, "DEPTHWISE_BLOCK_VALUES", flat_block)
        monkeypatch.setattr(kernels, "CHANNELS_LAST_MAX_POSITIONS", threshold)
        outputs[(flat_block, threshold)] = got = _ours(arrays, attrs)
        assert got.shape == expected.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    if all(s == 1 for s in attrs["stride"]):
        np.testing.assert_array_equal(outputs[(1 << 17, 0)], outputs[(0, 0)])
        np.testing.assert_array_equal(outputs[(1, 0)], outputs[(0, 0)])


@pytest.mark.parametrize("case", ["few_filters_3x3", "few_filters_dilated_batch", "dense_3x3_padded_batch",
                                  "dense_dilated", "conv1d_grouped_padded", "conv3d_depthwise"])
def test_shifted_gemm_and_im2col_agree(case, monkeypatch):
    """Every eligible convolution forced through the shifted GEMM, then through im2col."""
    arrays, attrs = _draw(case)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    for per_filter, positions in ((0, 0), (10 ** 9, 10 ** 9)):
        monkeypatch.setattr(kernels, "SHIFTED_GEMM_MIN_CHANNELS_PER_FILTER", per_filter)
        monkeypatch.setattr(kernels, "SHIFTED_GEMM_MIN_POSITIONS", positions)
        np.testing.assert_allclose(_ours(arrays, attrs), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["dense_3x3_padded_batch", "dense_strided_asymmetric", "dense_dilated",
                                  "dense_7x7_stem", "pointwise_strided", "conv1d_grouped_padded",
                                  "conv3d_padded_strided"])
def test_transposed_gemm_and_plain_gemm_agree(case, monkeypatch):
    """Every im2col convolution forced through the transposed GEMM ``(O, C*K) @ (C*K, F)`` where it is
    ungrouped, then through the plain one, ``(F, C*K) @ (C*K, O)``."""
    arrays, attrs = _draw(case)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    monkeypatch.setattr(kernels, "SHIFTED_GEMM_MIN_POSITIONS", 10 ** 9)
    outputs = []
    for filters in (10 ** 9, 0):
        monkeypatch.setattr(kernels, "TRANSPOSED_GEMM_MAX_FILTERS", filters)
        monkeypatch.setattr(kernels, "TRANSPOSED_GEMM_MAX_POSITIONS", 10 ** 9)
        outputs.append(_ours(arrays, attrs))
        np.testing.assert_allclose(outputs[-1], expected, rtol=1e-4, atol=1e-4)
    assert outputs[0].flags.c_contiguous and outputs[0].shape == outputs[1].shape


@pytest.mark.parametrize("case", ["dense_3x3_padded_batch", "dense_strided_asymmetric", "dense_dilated",
                                  "dense_7x7_stem", "few_filters_unpadded_5x3", "pointwise_padded"])
@pytest.mark.parametrize("band_values", [1, 100, 10 ** 9])
def test_row_bands_equal_the_whole_map(case, band_values, monkeypatch):
    """Every 2-D ungrouped convolution forced through bands of output rows (one row a band, a few, all)."""
    arrays, attrs = _draw(case)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    monkeypatch.setattr(kernels, "ROW_BANDS_MIN_POSITIONS", 0)
    monkeypatch.setattr(kernels, "ROW_BAND_VALUES", band_values)
    got = _ours(arrays, attrs)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
@pytest.mark.parametrize("case", ["grouped_3x3", "depthwise_small_map", "pointwise_strided", "few_filters_3x3"])
def test_convolution_keeps_the_input_dtype(case, dtype):
    arrays, attrs = _draw(case, dtype)
    got = _ours(arrays, attrs)
    assert got.dtype == np.dtype(dtype)
    expected = direct_convolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    tolerance = 1e-9 if dtype == "float64" else 2e-2
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=tolerance, atol=tolerance * 10)


#: id -> (input shape, num_filter, kernel, stride, dilate, pad, adj, num_group, no_bias)
DECONV_CASES = {
    "upsample_4x4_s2_p1": ((2, 3, 5, 4), 4, (4, 4), (2, 2), (1, 1), (1, 1), (0, 0), 1, False),
    "strided_adj": ((1, 4, 4, 5), 2, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 1, True),
    "dilated": ((1, 2, 5, 5), 3, (3, 3), (1, 1), (2, 2), (0, 1), (0, 0), 1, False),
    "grouped": ((2, 6, 4, 4), 9, (3, 3), (2, 1), (1, 1), (1, 0), (0, 0), 3, False),
    "depthwise_bilinear_like": ((1, 5, 6, 6), 5, (4, 4), (2, 2), (1, 1), (1, 1), (0, 0), 5, True),
    "deconv1d": ((2, 3, 7), 2, (5,), (3,), (1,), (2,), (1,), 1, False),
    "deconv3d": ((1, 2, 3, 3, 4), 2, (2, 3, 3), (2, 1, 2), (1, 1, 1), (0, 1, 1), (0, 0, 1), 1, True),
}


def _draw_deconv(case, seed=4):
    shape, nf, kernel, stride, dilate, pad, adj, groups, no_bias = DECONV_CASES[case]
    rng = np.random.RandomState(seed)
    x = rng.standard_normal(shape).astype("float32")
    w = rng.standard_normal((shape[1], nf // groups) + kernel).astype("float32")
    b = rng.standard_normal(nf).astype("float32")
    attrs = dict(kernel=kernel, stride=stride, dilate=dilate, pad=pad, adj=adj, num_filter=nf, num_group=groups,
                 no_bias=no_bias)
    return ([x, w] if no_bias else [x, w, b]), attrs


def direct_deconvolution(x, w, b, kernel, stride, dilate, pad, adj, num_filter, num_group, no_bias):
    """Float64: every input value adds its weighted kernel into the output, one position and group at a time."""
    cg, fg = x.shape[1] // num_group, num_filter // num_group
    full = [(d - 1) * s + dl * (k - 1) + 1 + a for d, s, dl, k, a in zip(x.shape[2:], stride, dilate, kernel, adj)]
    out = np.zeros((x.shape[0], num_filter) + tuple(full))
    for g in range(num_group):
        for pos in itertools.product(*map(range, x.shape[2:])):
            for tap in itertools.product(*map(range, kernel)):
                target = tuple(p * s + t * dl for p, s, t, dl in zip(pos, stride, tap, dilate))
                out[(slice(None), slice(g * fg, (g + 1) * fg)) + target] += (
                    x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos].astype(np.float64)
                    @ w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap].astype(np.float64))
    out = out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))]
    return out if no_bias else out + b.reshape((1, -1) + (1,) * len(kernel))


@pytest.mark.parametrize("case", sorted(DECONV_CASES))
def test_deconvolution_equals_direct_loop(case):
    arrays, attrs = _draw_deconv(case)
    expected = direct_deconvolution(*arrays[:2], arrays[2] if len(arrays) > 2 else None, **attrs)
    got = nd.Deconvolution(*map(nd.array, arrays), **attrs).asnumpy()
    assert got.dtype == np.float32 and got.shape == expected.shape and got.flags.c_contiguous
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


#: id -> (input shape, Pooling attributes)
POOL_CASES = {
    "max_3x3_s2_p1": ((2, 3, 11, 11), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")),
    "max_full_convention": ((1, 4, 10, 9), dict(kernel=(3, 3), stride=(2, 2), pool_type="max",
                                                pooling_convention="full")),
    "avg_padded_counting_pad": ((2, 3, 7, 8), dict(kernel=(3, 3), stride=(1, 2), pad=(1, 1), pool_type="avg")),
    "avg_padded_not_counting_pad": ((2, 3, 7, 8), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                                       count_include_pad=False)),
    "avg_full_convention": ((1, 2, 9, 9), dict(kernel=(2, 2), stride=(2, 2), pool_type="avg",
                                               pooling_convention="full")),
    "sum_1d": ((2, 3, 13), dict(kernel=(4,), stride=(3,), pad=(1,), pool_type="sum")),
    "max_3d": ((1, 2, 6, 7, 8), dict(kernel=(2, 3, 3), stride=(2, 2, 2), pad=(0, 1, 1), pool_type="max")),
    "global_avg": ((2, 5, 7, 7), dict(kernel=(1, 1), global_pool=True, pool_type="avg")),
    "global_max": ((2, 5, 6, 4), dict(kernel=(1, 1), global_pool=True, pool_type="max")),
    "lp_2": ((1, 3, 6, 6), dict(kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2)),
}


def _draw_pool(case):
    shape, attrs = POOL_CASES[case]
    return np.random.RandomState(1).standard_normal(shape).astype("float32"), attrs


def direct_max_pool(x, kernel, stride, pad, out_sizes):
    """Each output the maximum of its window of the -inf padded input, one window at a time."""
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p + k) for p, k in zip(pad, kernel)], constant_values=-np.inf)
    out = np.empty(x.shape[:2] + tuple(out_sizes), dtype=x.dtype)
    for pos in itertools.product(*map(range, out_sizes)):
        window = xp[(slice(None), slice(None)) + tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, kernel))]
        out[(slice(None), slice(None)) + pos] = window.reshape(x.shape[:2] + (-1,)).max(axis=2)
    return out


@pytest.mark.parametrize("shape, kernel, stride, pad", [
    ((2, 3, 11, 11), (3, 3), (2, 2), (1, 1)), ((1, 4, 10, 9), (3, 2), (1, 2), (0, 1)),
    ((2, 3, 13), (4,), (3,), (1,)), ((1, 2, 6, 7, 8), (2, 3, 3), (2, 2, 2), (0, 1, 1))])
def test_max_pooling_is_exactly_the_window_maximum(shape, kernel, stride, pad):
    """Max pooling reduces one axis at a time: the same values as the window maxima, bit for bit, NaN too."""
    x = np.random.RandomState(4).standard_normal(shape).astype("float32")
    x.reshape(-1)[::17] = np.nan
    got = nd.Pooling(nd.array(x), kernel=kernel, stride=stride, pad=pad, pool_type="max").asnumpy()
    expected = direct_max_pool(x, kernel, stride, pad, got.shape[2:])
    assert got.shape == expected.shape and np.array_equal(got, expected, equal_nan=True)


def _real_mxnet():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


@pytest.mark.mxnet
@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_equals_mxnet(case):
    mx = _real_mxnet()
    for dtype in ("float32", "float64"):
        arrays, attrs = _draw(case, dtype, seed=2)
        theirs = mx.nd.Convolution(*[mx.nd.array(a, dtype=a.dtype) for a in arrays], **attrs).asnumpy()
        ours = _ours(arrays, attrs)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", sorted(DECONV_CASES))
def test_deconvolution_equals_mxnet(case):
    mx = _real_mxnet()
    arrays, attrs = _draw_deconv(case, seed=5)
    theirs = mx.nd.Deconvolution(*map(mx.nd.array, arrays), **attrs).asnumpy()
    ours = nd.Deconvolution(*map(nd.array, arrays), **attrs).asnumpy()
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pooling_equals_mxnet(case):
    mx = _real_mxnet()
    x, attrs = _draw_pool(case)
    theirs = mx.nd.Pooling(mx.nd.array(x), **attrs).asnumpy()
    ours = nd.Pooling(nd.array(x), **attrs).asnumpy()
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.mxnet
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_batch_norm_inference_equals_mxnet(fix_gamma):
    mx = _real_mxnet()
    rng = np.random.RandomState(3)
    x = rng.standard_normal((2, 5, 4, 3)).astype("float32")
    gamma, beta, mean = (rng.standard_normal(5).astype("float32") for _ in range(3))
    var = rng.uniform(0.5, 2, 5).astype("float32")
    theirs = mx.nd.BatchNorm(*map(mx.nd.array, (x, gamma, beta, mean, var)), fix_gamma=fix_gamma).asnumpy()
    ours = nd.BatchNorm(*map(nd.array, (x, gamma, beta, mean, var)), fix_gamma=fix_gamma).asnumpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.mxnet
@pytest.mark.parametrize("shape, axis", [((4, 10), 1), ((3, 8, 11), 1), ((2, 16, 9, 7), 1), ((2, 6, 4, 5, 3), 1),
                                         ((2, 9, 7, 16), 3), ((2, 9, 7, 16), -1), ((5, 7, 33), 2)])
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_batch_norm_inference_rounds_as_mxnet(shape, axis, fix_gamma):
    """Bit for bit: (x - mean) * scale + beta, each step rounded to float32 (x * scale + shift is a unit in the
    last place off on about 40% of the values, enough to move an int8 model's next quantization)."""
    mx = _real_mxnet()
    rng = np.random.RandomState(4)
    channels = shape[axis]
    x = (rng.standard_normal(shape) * 3).astype("float32")
    gamma, var = (rng.uniform(0.5, 1.5, channels).astype("float32") for _ in range(2))
    beta, mean = (rng.uniform(-1, 1, channels).astype("float32") for _ in range(2))
    attrs = dict(eps=1e-5, fix_gamma=fix_gamma, use_global_stats=True, axis=axis)
    theirs = mx.nd.BatchNorm(*map(mx.nd.array, (x, gamma, beta, mean, var)), **attrs).asnumpy()
    ours = nd.BatchNorm(*map(nd.array, (x, gamma, beta, mean, var)), **attrs).asnumpy()
    np.testing.assert_array_equal(ours, theirs)
