"""MXNet 1.9.1's CPU rounding: softmax and its relatives bit for bit, exp, log and sigmoid as libm's.

MXNet runs oneDNN's softmax for float32 of rank 1-4 on the last axis without a temperature (``SoftmaxOutput``:
of rank 2 or 4): an exp by a polynomial, 8 lane-wise running sums, one reciprocal multiplied in. Everything
else (another axis, rank 5, a temperature, even 1.0, ``length``, ``softmin``, ``SoftmaxActivation``,
``SoftmaxOutput`` with ``multi_output``) runs MXNet's own kernel: libm's exp, a running float32 sum, one
division. Both round a probability within about 6e-8 of 1 to exactly 1.0 where the correctly rounded value is
0.99999994 or below; SSD's detections (hundreds of anchors with score 1.0 and a top-k cut among them) depend on
exactly which ones.

MXNet's own elementwise kernels call C's float functions (expf, logf: correctly rounded but for rare cases),
where numpy's float32 loops are a unit in the last place off on about a third of the values; ``Activation``
of float32 (rank 1-5) runs oneDNN's logistic, with oneDNN's exp.
"""
import numpy as np
import pytest

from hylint.runtime import ndarray as nd
from hylint.runtime.ops import nn
from hylint.runtime.ops.math import _onednn_exp

SATURATED = np.array([[0, -17, -17.5, -18, -16.75]], dtype=np.float32)
#: MXNet 1.9.1's softmax of SATURATED (float32 bits), with and without temperature=1.0 (both kernels' float32
#: sums stay 1.0); the correctly rounded first value is 0.99999988
SATURATED_MEASURED = [0x3f800000, 0x3331cf19, 0x32d7b174, 0x3282d315, 0x33644fad]
#: oneDNN's exp is 0 from ln(FLT_MIN) + ln(2) down (2^(n-1) underflows), MXNet's own kernel keeps subnormals
UNDERFLOW = np.array([[0, -86.5, -86.7, -87, -87.5, -100]], dtype=np.float32)
UNDERFLOW_MEASURED = [0x3f800000, 18070645, 15854012, 0, 0, 0]

RAMP = np.linspace(-20, 0, 21, dtype=np.float32)[None]
#: MXNet 1.9.1's softmax of RAMP: oneDNN's kernel (16 of 21 values differ from the correctly rounded ones)
RAMP_ONEDNN = [0x30b311a2, 0x31736141, 0x322564ce, 0x32e0cb1f, 0x3398c352, 0x344fa05d, 0x350d18c6, 0x35bfc538,
               0x3682524e, 0x37312012, 0x37f0bcfd, 0x38a3993c, 0x395e5a81, 0x3a171ada, 0x3acd5f72, 0x3b8b90b7,
               0x3c3db05c, 0x3d00e830, 0x3daf33e8, 0x3e6e2011, 0x3f21d2a8]
#: ... with temperature=1.0: MXNet's own kernel
RAMP_OWN = [0x30b311a3, 0x3173613e, 0x322564cd, 0x32e0cb1e, 0x3398c352, 0x344fa05c, 0x350d18c6, 0x35bfc538,
            0x3682524d, 0x37312012, 0x37f0bcfb, 0x38a3993c, 0x395e5a7f, 0x3a171ad9, 0x3acd5f72, 0x3b8b90b8,
            0x3c3db05d, 0x3d00e830, 0x3daf33e7, 0x3e6e200f, 0x3f21d2a8]


ELEMENTWISE = np.array([-17.5, -3.25, 0.1, 0.7, 2.0, 5.5, 20.0], dtype=np.float32)
#: MXNet 1.9.1 on ELEMENTWISE (float32 bits); numpy's float32 loops give other bits where marked
ELEMENTWISE_MEASURED = {
    "exp": [0x32d7b175, 0x3d1ed1b4, 0x3f8d763e, 0x4000e153, 0x40ec7326, 0x4374b122, 0x4de75844],  # 2.0, 20.0
    "sigmoid": [0x32d7b175, 0x3d18e414, 0x3f066509, 0x3f2b0e5a, 0x3f617bea, 0x3f7ef543, 0x3f800000],  # 0.7
    "Activation sigmoid": [0x32d7b174, 0x3d18e413, 0x3f06650a, 0x3f2b0e5b, 0x3f617beb, 0x3f7ef542, 0x3f800000],
    "log |x|": [0x40372e4d, 0x3f96de2b, 0xc0135d8e, 0xbeb69e1a, 0x3f317218, 0x3fda352f, 0x403fba14],  # 0.7, 5.5
}
_ELEMENTWISE_CALLS = {
    "exp": lambda m, x: m.nd.exp(x), "sigmoid": lambda m, x: m.nd.sigmoid(x),
    "Activation sigmoid": lambda m, x: m.nd.Activation(x, act_type="sigmoid"),
    "log |x|": lambda m, x: m.nd.log(m.nd.abs(x)),
}
_RUNTIME = type("runtime", (), {"nd": nd})


def _bits(array):
    return array.asnumpy().view(np.uint32).ravel().tolist()


def test_a_probability_near_one_is_one_as_measured():
    assert _bits(nd.softmax(nd.array(SATURATED))) == SATURATED_MEASURED
    assert _bits(nd.softmax(nd.array(UNDERFLOW))) == UNDERFLOW_MEASURED
    # MXNet's own kernel: the same 1.0; libm's expf(-17.5) is one unit in the last place from the correctly
    # rounded exp the runtime uses (about 1 value in 2,000 differs so)
    own = _bits(nd.softmax(nd.array(SATURATED), temperature=1.0))
    assert own[0] == SATURATED_MEASURED[0]
    assert np.abs(np.array(own, np.int64) - SATURATED_MEASURED).max() <= 1


@pytest.mark.parametrize("kwargs, expected", [({}, RAMP_ONEDNN), ({"temperature": 1.0}, RAMP_OWN)])
def test_softmax_bits_as_measured(kwargs, expected):
    assert _bits(nd.softmax(nd.array(RAMP), **kwargs)) == expected
    assert _bits(nd.softmax(nd.array(RAMP.T), axis=0, **kwargs)) == RAMP_OWN  # another axis: MXNet's own kernel


def test_onednn_exp_is_exp_within_its_polynomial_error():
    x = np.linspace(-86.6, 88.7, 200001, dtype=np.float32)
    relative = np.abs(_onednn_exp(x).astype(np.float64) / np.exp(x.astype(np.float64)) - 1)
    assert relative.max() < 4e-7
    assert _onednn_exp(np.zeros(3, np.float32)).tolist() == [1.0, 1.0, 1.0]
    assert _onednn_exp(np.array([-88, -1e30, -np.inf], np.float32)).tolist() == [0.0, 0.0, 0.0]  # below ln(FLT_MIN)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE_MEASURED))
def test_elementwise_bits_as_measured(name):
    assert _bits(_ELEMENTWISE_CALLS[name](_RUNTIME, nd.array(ELEMENTWISE))) == ELEMENTWISE_MEASURED[name]


def test_fully_masked_rows_are_zero():
    out = nd.softmax(nd.array(np.ones((2, 4), np.float32)), nd.array([0, 2], dtype="int32"), use_length=True)
    assert out.asnumpy().tolist() == [[0, 0, 0, 0], [0.5, 0.5, 0, 0]]


def _real_mxnet():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


def _cases(rng):
    """(name, runtime call, MXNet call) on seeded data, every kernel choice MXNet makes."""
    for shape in [(40,), (7, 13), (3, 5, 21), (2, 3, 4, 9), (2, 2, 3, 4, 9), (3, 1), (4, 8), (2, 17), (2, 1000)]:
        data = (rng.randn(*shape) * rng.choice([0.1, 3.0, 30.0])).astype(np.float32)
        yield f"softmax{shape}", data, lambda m, x: m.nd.softmax(x)
    data = (rng.randn(4, 6, 9) * 8).astype(np.float32)
    yield "axis 1", data, lambda m, x: m.nd.softmax(x, axis=1)
    yield "temperature 2.5", data, lambda m, x: m.nd.softmax(x, temperature=2.5)
    yield "temperature 1.0", data, lambda m, x: m.nd.softmax(x, temperature=1.0)
    yield "softmin", data, lambda m, x: m.nd.softmin(x)
    yield "float64", data.astype(np.float64), lambda m, x: m.nd.softmax(x)
    yield "length", data, lambda m, x: m.nd.softmax(x, m.nd.array(np.arange(24).reshape(4, 6) % 10, dtype="int32"),
                                                    use_length=True)
    yield "SoftmaxActivation", data, lambda m, x: m.nd.SoftmaxActivation(x.reshape((24, 9)))
    yield "SoftmaxActivation channel", data, lambda m, x: m.nd.SoftmaxActivation(x.reshape((4, 6, 9, 1)),
                                                                                  mode="channel")
    yield "SoftmaxOutput", data, lambda m, x: m.nd.SoftmaxOutput(x.reshape((24, 9)), m.nd.zeros(24))
    yield "SoftmaxOutput preserve_shape", data, lambda m, x: m.nd.SoftmaxOutput(x, m.nd.zeros((4, 6)),
                                                                                 preserve_shape=True)
    yield "SoftmaxOutput preserve_shape 4-D", data, lambda m, x: m.nd.SoftmaxOutput(
        x.reshape((2, 2, 6, 9)), m.nd.zeros((2, 2, 6)), preserve_shape=True)
    yield "SoftmaxOutput multi_output", data, lambda m, x: m.nd.SoftmaxOutput(x, m.nd.zeros((4, 9)),
                                                                               multi_output=True)


@pytest.mark.mxnet
def test_softmax_equals_mxnet_bit_for_bit():
    real = _real_mxnet()
    for name, data, call in _cases(np.random.RandomState(5)):
        expected = call(real, real.nd.array(data, dtype=data.dtype)).asnumpy()
        got = call(_RUNTIME, nd.array(data, dtype=data.dtype)).asnumpy()
        assert got.dtype == expected.dtype, name
        assert np.array_equal(got, expected), f"{name}: {int((got != expected).sum())} of {got.size} differ"


@pytest.mark.mxnet
def test_softmax_in_a_graph_equals_mxnet():
    real = _real_mxnet()
    from hylint.runtime import symbol as sym
    data = (np.random.RandomState(6).randn(3, 5, 21) * 10).astype(np.float32)
    expected = real.sym.softmax(real.sym.var("x")).eval(x=real.nd.array(data))[0].asnumpy()
    assert np.array_equal(sym.softmax(sym.var("x")).eval(x=nd.array(data))[0].asnumpy(), expected)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", sorted(_ELEMENTWISE_CALLS))
def test_elementwise_equals_mxnet_bit_for_bit(name):
    real = _real_mxnet()
    data = np.concatenate([(np.random.RandomState(7).randn(100000) * 6).astype(np.float32),
                           np.array([0, -0.0, 88, -88, 100, -100, 1e-8, -1e-8], np.float32)])
    expected = _ELEMENTWISE_CALLS[name](real, real.nd.array(data)).asnumpy()
    got = _ELEMENTWISE_CALLS[name](_RUNTIME, nd.array(data)).asnumpy()
    ulps = np.abs(got.view(np.int32).astype(np.int64) - expected.view(np.int32))
    # oneDNN's logistic, glibc's expf (exp, sigmoid) and logf, reproduced exactly (rounding the float64
    # functions, exp, sigmoid and log differed on 59, 19 and 258 of these 100,008 values)
    assert ulps.max() == 0


@pytest.mark.mxnet
@pytest.mark.parametrize("name", ["exp", "log |x|"])
def test_float64_exp_and_log_are_libms_as_in_mxnet(name):
    """MXNet's float64 kernels call libm's double functions; numpy's float64 loops are its own SIMD ones on an
    AVX-512 CPU (a unit in the last place away on about a quarter of the values): the runtime calls libm."""
    real = _real_mxnet()
    data = np.random.RandomState(8).randn(20000) * 6
    expected = _ELEMENTWISE_CALLS[name](real, real.nd.array(data, dtype="float64")).asnumpy()
    got = _ELEMENTWISE_CALLS[name](_RUNTIME, nd.array(data, dtype="float64")).asnumpy()
    assert got.dtype == expected.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


#: a running float32 sum of these is 7 (1e8 + 1 rounds to 1e8), numpy's pairwise sum (8 lanes) 14
_CANCELLING = np.array([[[[1e8, 1, 1, 1, 1, 1, 1, 1, -1e8, 1, 1, 1, 1, 1, 1, 1]]]], dtype=np.float32)


def _adaptive_cases(rng):
    """(input, output_size): global pooling of a ResNet-sized map, shrinking, overlapping and growing windows."""
    yield (rng.randn(2, 64, 56, 56) * 3 + 1).astype(np.float32), 1
    yield (rng.randn(2, 16, 13, 17) * 30).astype(np.float32), (3, 4)
    yield (rng.randn(1, 8, 30, 30) * 0.1).astype(np.float32), (4, 7)
    yield (rng.randn(1, 8, 5, 6) * 5).astype(np.float32), (7, 9)
    yield rng.randn(2, 8, 11, 13) * 7, (2, 3)  # float64: the running sum in double
    yield (rng.randn(1, 4, 9, 10) * 2).astype(np.float16), (2, 2)


def test_adaptive_average_pooling_sums_in_order_then_divides_twice():
    """A running float32 sum, divided by the width and then by the height: bits a correctly rounded mean
    (or one division by the area) does not give."""
    out = nd.contrib.AdaptiveAvgPooling2D(nd.array(_CANCELLING), output_size=1).asnumpy()
    assert out.ravel().tolist() == [7 / 16]  # numpy's pairwise sum gives 14 / 16


@pytest.mark.mxnet
def test_adaptive_average_pooling_equals_mxnet_bit_for_bit():
    real = _real_mxnet()
    for data, size in _adaptive_cases(np.random.RandomState(9)):
        expected = real.nd.contrib.AdaptiveAvgPooling2D(real.nd.array(data, dtype=data.dtype),
                                                        output_size=size).asnumpy()
        got = nd.contrib.AdaptiveAvgPooling2D(nd.array(data, dtype=data.dtype), output_size=size).asnumpy()
        assert got.dtype == expected.dtype, (data.shape, size)
        assert np.array_equal(got, expected), f"{data.shape} -> {size}: {int((got != expected).sum())} differ"


#: Pooling settings that take each of MXNet's kernels: oneDNN's for float32 (valid, or 'full' without extra
#: padding), MXNet's own for float64, float16 and the 'full' convention's extra row or column
_POOLINGS = [
    ((1, 64, 8, 8), dict(kernel=(8, 8))),
    ((1, 256, 7, 7), dict(kernel=(7, 7), global_pool=True)),
    ((1, 32, 56, 56), dict(kernel=(1, 1), global_pool=True)),
    ((1, 64, 4, 7, 7), dict(kernel=(4, 7, 7), global_pool=True)),
    ((2, 16, 15, 15), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ((2, 16, 15, 15), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), count_include_pad=False)),
    ((2, 16, 14, 14), dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full")),
    ((2, 16, 15, 15), dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full")),
    ((2, 3, 6, 9, 9), dict(kernel=(2, 3, 3), stride=(2, 2, 2), pad=(0, 1, 1), count_include_pad=False)),
    ((2, 8, 30), dict(kernel=(5,), stride=(2,))),
]


def test_average_pooling_sums_in_order():
    """A running sum over the window, not numpy's pairwise one: then one division
    by the count for float32 (oneDNN), or a sum of value / count (MXNet's own kernel, float64)."""
    out = nd.Pooling(nd.array(_CANCELLING), pool_type="avg", kernel=(1, 16)).asnumpy()
    assert out.ravel().tolist() == [7 / 16]  # numpy's pairwise sum gives 14 / 16
    assert nd.Pooling(nd.array(_CANCELLING), pool_type="sum", kernel=(1, 1), global_pool=True).asnumpy().ravel() == [7]
    data = np.array([[[[0.1, 0.2, 0.3]]]])
    out = nd.Pooling(nd.array(data, dtype="float64"), pool_type="avg", kernel=(1, 3)).asnumpy()
    assert out.ravel().tolist() == [0.1 / 3 + 0.2 / 3 + 0.3 / 3]


@pytest.mark.mxnet
@pytest.mark.parametrize("pool_type", ["avg", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_average_pooling_equals_mxnet_bit_for_bit(pool_type, dtype):
    real = _real_mxnet()
    rng = np.random.RandomState(10)
    for shape, kwargs in _POOLINGS:
        data = (rng.randn(*shape) * 10 + 3).astype(dtype)
        expected = real.nd.Pooling(real.nd.array(data, dtype=dtype), pool_type=pool_type, **kwargs).asnumpy()
        got = nd.Pooling(nd.array(data, dtype=dtype), pool_type=pool_type, **kwargs).asnumpy()
        assert got.dtype == expected.dtype, (shape, kwargs)
        assert np.array_equal(got, expected), f"{shape} {kwargs}: {int((got != expected).sum())} differ"


@pytest.mark.mxnet
@pytest.mark.parametrize("fix_gamma", [False, True])
def test_sync_batch_norm_equals_mxnet_bit_for_bit(fix_gamma):
    """MXNet's own SyncBatchNorm kernel rounds (gamma / sqrt(var + eps)) * x + (beta - gamma * mean / sqrt(...)),
    not BatchNorm's (x - mean) * scale + beta."""
    real = _real_mxnet()
    rng = np.random.RandomState(11)
    for shape, dtype in [((2, 32, 9, 9), "float32"), ((5, 16), "float32"), ((2, 8, 3, 4, 5), "float32")]:
        # (MXNet 1.9.1's SyncBatchNorm refuses float64: its kernel reads float32 blobs)
        c = shape[1]
        arrays = [(rng.randn(*shape) * 3).astype(dtype)] + [rng.uniform(-1.5, 1.5, c).astype(dtype) for _ in range(3)]
        arrays.append(rng.uniform(0.5, 1.5, c).astype(dtype))
        expected = real.nd.contrib.SyncBatchNorm(*[real.nd.array(a, dtype=dtype) for a in arrays], eps=1e-5,
                                                 fix_gamma=fix_gamma, key="k").asnumpy()
        got = nd.contrib.SyncBatchNorm(*[nd.array(a, dtype=dtype) for a in arrays], eps=1e-5, fix_gamma=fix_gamma,
                                       key="k").asnumpy()
        assert got.dtype == expected.dtype, shape
        assert np.array_equal(got, expected), f"{shape} {dtype}: {int((got != expected).sum())} differ"


@pytest.mark.mxnet
def test_layer_norm_on_the_last_axis_equals_mxnet_bit_for_bit():
    """float32 on the last axis: running float32 sums of the values, then of the squared deviations, then
    (x - mean) * gamma / std + beta (the float64 computation differed on about 90% of the values)."""
    real = _real_mxnet()
    rng = np.random.RandomState(12)
    for shape in [(2, 5, 768), (4, 33), (3, 1, 1024)]:
        data = (rng.randn(*shape) * 2 + 0.5).astype(np.float32)
        gamma, beta = rng.uniform(0.5, 1.5, shape[-1]).astype(np.float32), rng.uniform(-1, 1, shape[-1]).astype(np.float32)
        expected = real.nd.LayerNorm(*[real.nd.array(a) for a in (data, gamma, beta)], eps=1e-5).asnumpy()
        got = nd.LayerNorm(*[nd.array(a) for a in (data, gamma, beta)], eps=1e-5).asnumpy()
        assert got.dtype == expected.dtype, shape
        assert np.array_equal(got, expected), f"{shape}: {int((got != expected).sum())} differ"


@pytest.mark.mxnet
@pytest.mark.parametrize("slope", [1.0, 0.25])
def test_elu_equals_mxnet_bit_for_bit(slope):
    """LeakyReLU(act_type="elu") of float32, rank 1 to 5: oneDNN's elu, alpha * (exp(x) - 1) with oneDNN's exp
    (numpy's expm1 differed on about 14% of the values)."""
    real = _real_mxnet()
    rng = np.random.RandomState(15)
    for shape in [(20000,), (4, 5, 6, 7), (2, 3, 4, 5, 6)]:
        data = (rng.randn(*shape) * 3).astype(np.float32)
        expected = real.nd.LeakyReLU(real.nd.array(data), act_type="elu", slope=slope).asnumpy()
        got = nd.LeakyReLU(nd.array(data), act_type="elu", slope=slope).asnumpy()
        assert np.array_equal(got, expected), f"{shape}: {int((got != expected).sum())} differ"


@pytest.mark.mxnet
def test_gelu_equals_mxnet_bit_for_bit():
    """LeakyReLU(act_type="gelu") of float32, rank 1 to 5: oneDNN's gelu_erf, reproduced exactly (a float64 erf
    rounded once differed on about 75% of the values)."""
    real = _real_mxnet()
    rng = np.random.RandomState(13)
    for shape in [(20000,), (4, 5, 6), (2, 3, 4, 5, 6)]:
        data = (rng.randn(*shape) * 3).astype(np.float32)
        data.ravel()[:7] = [0, -0.0, 10, -10, 20, -20, 1e-6]
        expected = real.nd.LeakyReLU(real.nd.array(data), act_type="gelu").asnumpy()
        got = nd.LeakyReLU(nd.array(data), act_type="gelu").asnumpy()
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), \
            f"{shape}: {int((got != expected).sum())} differ"


@pytest.mark.mxnet
@pytest.mark.parametrize("align_corners", [True, False])
def test_bilinear_resize_equals_mxnet_bit_for_bit(align_corners):
    """float32 weights and MXNet's h0 * (w0 * a + w1 * b) + h1 * (w0 * c + w1 * d)."""
    real = _real_mxnet()
    rng = np.random.RandomState(14)
    for shape, (height, width) in [((2, 4, 7, 9), (14, 18)), ((1, 3, 56, 56), (112, 112)), ((1, 3, 20, 30), (7, 11)),
                                   ((1, 2, 5, 5), (13, 3)), ((1, 2, 8, 8), (1, 5)), ((1, 2, 6, 6), (6, 6))]:
        data = (rng.randn(*shape) * 5).astype(np.float32)
        kwargs = dict(height=height, width=width, align_corners=align_corners)
        expected = real.nd.contrib.BilinearResize2D(real.nd.array(data), **kwargs).asnumpy()
        got = nd.contrib.BilinearResize2D(nd.array(data), **kwargs).asnumpy()
        assert np.array_equal(got, expected), f"{shape} -> {(height, width)}: {int((got != expected).sum())} differ"


#: float32 inputs (bits) whose exp glibc's expf, and so MXNet 1.9.1, rounds the other way than the correctly
#: rounded value (measured on MXNet: its bits, then the correctly rounded ones)
EXPF_MEASURED = [(0x403529a4, 0x4187a772, 0x4187a771), (0xbf50599a, 0x3ee2e362, 0x3ee2e361),
                 (0xbeb480a3, 0x3f33f11b, 0x3f33f11a)]


#: ... and for log, glibc's logf
LOGF_MEASURED = [(0x3f785863, 0xbcf8b043, 0xbcf8b044), (0x40112458, 0x3f519ecc, 0x3f519ecb),
                 (0x3f72e1b6, 0xbd577643, 0xbd577644)]


@pytest.mark.parametrize("name, measured", [("exp", EXPF_MEASURED), ("log", LOGF_MEASURED)])
def test_exp_and_log_are_glibcs_where_they_are_not_correctly_rounded(name, measured):
    data = np.array([bits for bits, _, _ in measured], dtype=np.uint32).view(np.float32)
    assert _bits(getattr(nd, name)(nd.array(data))) == [bits for _, bits, _ in measured]
    assert getattr(np, name)(data.astype(np.float64)).astype(np.float32).view(np.uint32).tolist() == \
        [bits for _, _, bits in measured]


# --- BatchNorm after a convolution: oneDNN's blocked layout ---------------------------------------------------
#: (input channels, filters, groups, kernel, the rounding of a BatchNorm right after), measured on MXNet 1.9.1:
#: a multiple of 8 filters leaves oneDNN's blocked layout, where BatchNorm is one fused multiply-add
#: ``(x - mean) * scale + beta``; 4, 10 or 12 filters leave a plain array (each step rounded); a depthwise
#: convolution of 24 channels gave neither (not listed), one of 16, 32 or 48 the fused rounding
CONV_BN_CASES = [(3, 64, 1, 7, "fused"), (16, 10, 1, 3, "plain"), (32, 48, 2, 3, "fused"), (16, 8, 1, 1, "fused"),
                 (16, 12, 1, 3, "plain"), (16, 4, 1, 3, "plain"), (16, 24, 1, 3, "fused"), (24, 24, 3, 3, "fused"),
                 (32, 32, 32, 3, "fused"), (48, 48, 48, 3, "fused")]


def _conv_then_bn(namespace, x, w, params, groups, kernel):
    y = namespace.Convolution(namespace.array(x), namespace.array(w), kernel=(kernel, kernel), num_group=groups,
                              num_filter=w.shape[0], pad=(kernel // 2, kernel // 2), no_bias=True)
    z = namespace.BatchNorm(y, *(namespace.array(p) for p in params), fix_gamma=False, eps=1e-5)
    return y.asnumpy(), z.asnumpy()


def _bn_roundings(y, params):
    """(fused, plain) BatchNorm of ``y`` with ``params`` (gamma, beta, mean, var; eps 1e-5)."""
    gamma, beta, mean, var = params
    shape = (1, -1, 1, 1)
    scale = (gamma / np.sqrt(var + np.float32(1e-5))).reshape(shape)
    centred = y - mean.reshape(shape)
    fused = centred.astype(np.float64) * scale.astype(np.float64) + beta.reshape(shape).astype(np.float64)
    return fused.astype(np.float32), centred * scale + beta.reshape(shape)


#: the rule was measured on an AVX-512 CPU, and the runtime applies it there only (ops/nn.py)
on_avx512 = pytest.mark.skipif(not nn._AVX512, reason="oneDNN's blocked convolutions measured on AVX-512 only")


@pytest.mark.mxnet
@on_avx512
@pytest.mark.usefixtures("exact_replays")  # the fused rounding is a replay: HYLINT_RUNTIME_EXACT=1's
@pytest.mark.parametrize("case", range(len(CONV_BN_CASES)))
def test_batch_norm_after_a_convolution_rounds_as_mxnet(case):
    """Each backend's BatchNorm of its own convolution's output (their last bits differ: oneDNN's sums) rounds
    the way MXNet's does after that convolution."""
    real = _real_mxnet()
    channels, filters, groups, kernel, rounding = CONV_BN_CASES[case]
    rng = np.random.RandomState(50 + case)
    x = rng.standard_normal((1, channels, 9, 9)).astype(np.float32)
    w = rng.standard_normal((filters, channels // groups, kernel, kernel)).astype(np.float32)
    params = [rng.standard_normal(filters).astype(np.float32) for _ in range(3)]
    params.append(rng.uniform(0.5, 2, filters).astype(np.float32))
    for namespace in (real.nd, nd):
        y, z = _conv_then_bn(namespace, x, w, params, groups, kernel)
        fused, plain = _bn_roundings(y, params)
        assert np.count_nonzero(fused != plain) > 10
        np.testing.assert_array_equal(z, fused if rounding == "fused" else plain)


@on_avx512
@pytest.mark.usefixtures("exact_replays")
def test_batch_norm_of_a_copied_convolution_output_rounds_plainly():
    rng = np.random.RandomState(60)
    x, w = rng.standard_normal((1, 16, 9, 9)).astype(np.float32), rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    params = [rng.standard_normal(16).astype(np.float32) for _ in range(3)] + [rng.uniform(0.5, 2, 16).astype(np.float32)]
    y = nd.Convolution(nd.array(x), nd.array(w), kernel=(3, 3), num_filter=16, no_bias=True)
    fused, plain = _bn_roundings(y.asnumpy(), params)
    bn = lambda value: nd.BatchNorm(value, *(nd.array(p) for p in params), fix_gamma=False, eps=1e-5).asnumpy()
    np.testing.assert_array_equal(bn(y), fused)
    np.testing.assert_array_equal(bn(nd.array(y.asnumpy())), plain)  # as MXNet on an nd.array
