"""The int8 operators of quantized graphs (gluoncv's ``*_int8`` models): ``quantize_v2``, ``dequantize``,
``quantized_pooling`` and oneDNN's fused ``_sg_mkldnn_conv``, against values measured on MXNet 1.9.1 and, where
MXNet imports, against MXNet itself (the integers must be equal, not close).

MXNet's int8 convolution depends on the CPU (oneDNN): on an AVX2 CPU without VNNI uint8 x int8 products of two
input channels saturate to int16 and a signed input halves the weights; with AVX-512 VNNI the sums are exact and
the weights whole. The runtime follows the CPU it runs on (``quantized.ONEDNN_VNNI``); the tests of one kind set
it, the MXNet comparisons use the host's (skipped on a CPU whose kind was not measured: AVX-VNNI alone).
"""
import json

import numpy as np
import pytest

from hylint.runtime import ndarray as nd
from hylint.runtime import symbol as sym
from hylint.runtime.ops import quantized

TIES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -127.5, -128.5, 0.49999997, 2.4999998, 127.4, 127.6],
                dtype=np.float32)

#: (attributes, quantized TIES, min, max, dtype) measured on MXNet 1.9.1: a range maps onto 127.5 (int8) or
#: 255.5 (uint8) steps, halves round to even, values saturate; `auto` is uint8 only for a calibrated range >= 0
QUANTIZE_MEASURED = [
    ({"out_type": "int8", "min_calib_range": -127.5, "max_calib_range": 127.5},
     [0, 2, 2, 0, -2, -2, 126, -128, -128, 0, 2, 127, 127], -127.5, 127.5, np.int8),
    ({"out_type": "uint8", "min_calib_range": 0.0, "max_calib_range": 255.5},
     [0, 2, 2, 0, 0, 0, 126, 0, 0, 0, 2, 127, 128], 0.0, 255.5, np.uint8),
    ({"out_type": "int8"}, [0, 1, 2, 0, -1, -2, 126, -127, -128, 0, 2, 126, 127], -128.5, 128.5, np.int8),
    ({"out_type": "uint8"}, [1, 3, 5, 0, 0, 0, 252, 0, 0, 1, 5, 253, 254], -128.5, 127.6, np.uint8),
    ({"out_type": "auto"}, [0, 1, 2, 0, -1, -2, 126, -127, -128, 0, 2, 126, 127], -128.5, 128.5, np.int8),
    ({"out_type": "auto", "min_calib_range": -0.0, "max_calib_range": 255.5},
     [0, 2, 2, 0, 0, 0, 126, 0, 0, 0, 2, 127, 128], -0.0, 255.5, np.uint8),
]


def _real_mxnet():
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    return real


@pytest.mark.parametrize("attrs, expected, low, high, dtype", QUANTIZE_MEASURED)
def test_quantize_v2_as_measured_on_mxnet(attrs, expected, low, high, dtype):
    q, q_min, q_max = nd.contrib.quantize_v2(nd.array(TIES), **attrs)
    assert q.dtype == dtype and q.asnumpy().tolist() == expected
    assert q_min.asnumpy().tolist() == [np.float32(low)] and q_max.asnumpy().tolist() == [np.float32(high)]
    assert np.signbit(q_min.asnumpy()[0]) == np.signbit(low)


def test_quantize_v2_of_an_empty_range_saturates_as_measured():
    q = nd.contrib.quantize_v2(nd.array(np.zeros(3, np.float32)), out_type="auto")[0]
    assert q.asnumpy().tolist() == [127, 127, 127]


def test_dequantize_as_measured_on_mxnet():
    signed = nd.contrib.dequantize(nd.array(np.arange(-5, 6), dtype="int8"), nd.array([-2.0]), nd.array([3.0]))
    np.testing.assert_array_equal(signed.asnumpy(), np.arange(-5, 6).astype(np.float32) * np.float32(3 / 127.5))
    unsigned = nd.contrib.dequantize(nd.array(np.arange(11), dtype="uint8"), nd.array([0.0]), nd.array([36.19449]))
    assert unsigned.asnumpy()[10] == np.float32(1.416614)  # printed by MXNet: 10 * 36.19449 / 255.5


def _random_ranges(rng, count):
    for _ in range(count):
        low = -abs(rng.standard_normal()) * 10 ** rng.uniform(-2, 2)
        high = abs(rng.standard_normal()) * 10 ** rng.uniform(-2, 2)
        yield float(np.float32(low)), float(np.float32(high))


def _quantize_and_back(namespace, x, ranges):
    results = []
    for low, high in ranges:
        for attrs in ({"out_type": "int8", "min_calib_range": low, "max_calib_range": high},
                      {"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": high}, {"out_type": "uint8"}):
            q, q_min, q_max = namespace.contrib.quantize_v2(namespace.array(x), **attrs)
            back = namespace.contrib.dequantize(q, q_min, q_max)
            results.append((q.asnumpy(), q_min.asnumpy(), q_max.asnumpy(), back.asnumpy()))
    return results


@pytest.mark.mxnet
def test_quantize_and_dequantize_equal_mxnet():
    real = _real_mxnet()
    rng = np.random.RandomState(0)
    x = (rng.standard_normal(500) * 3).astype(np.float32)
    ranges = list(_random_ranges(rng, 40))
    for ours, theirs in zip(_quantize_and_back(nd, x, ranges), _quantize_and_back(real.nd, x, ranges)):
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


POOLING = [{"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max"},
           {"kernel": (2, 2), "stride": (2, 2), "pool_type": "avg"},
           {"kernel": (3, 3), "pad": (1, 1), "pool_type": "avg", "count_include_pad": False},
           {"kernel": (1, 1), "global_pool": True, "pool_type": "avg", "pooling_convention": "full"}]


def _quantized_pool(namespace, data, attrs):
    out = namespace.contrib.quantized_pooling(namespace.array(data, dtype=data.dtype), namespace.array([-1.5]),
                                              namespace.array([2.0]), **attrs)
    return [o.asnumpy() for o in out]


@pytest.mark.parametrize("attrs", POOLING)
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantized_pooling_rounds_averages_half_to_even(attrs, dtype):
    rng = np.random.RandomState(1)
    data = rng.randint(0 if dtype == "uint8" else -128, 256 if dtype == "uint8" else 128, (2, 3, 7, 6)).astype(dtype)
    out, low, high = _quantized_pool(nd, data, attrs)
    reference = nd.Pooling(nd.array(data.astype(np.float64), dtype="float64"), **attrs).asnumpy()
    if attrs["pool_type"] == "avg":  # the exact mean: float64 Pooling sums value / count, as MXNet's own kernel
        windows = dict(attrs, pool_type="sum")
        sums = nd.Pooling(nd.array(data.astype(np.float64), dtype="float64"), **windows).asnumpy()
        counts = nd.Pooling(nd.ones(data.shape, dtype="float64"), **windows).asnumpy()  # none counts padding
        reference = sums / counts
    assert out.dtype == data.dtype and low.tolist() == [-1.5] and high.tolist() == [2.0]
    np.testing.assert_array_equal(out, np.rint(reference).astype(dtype))


@pytest.mark.mxnet
@pytest.mark.parametrize("attrs", POOLING)
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_quantized_pooling_equals_mxnet(attrs, dtype):
    real = _real_mxnet()
    rng = np.random.RandomState(2)
    data = rng.randint(0 if dtype == "uint8" else -128, 256 if dtype == "uint8" else 128, (2, 3, 7, 6)).astype(dtype)
    for ours, theirs in zip(_quantized_pool(nd, data, attrs), _quantized_pool(real.nd, data, attrs)):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


# --- the fused convolution ----------------------------------------------------------------------------------
class Graph:
    """A quantized graph in MXNet's JSON, written node by node as MXNet's quantization pass writes it."""

    def __init__(self):
        self.nodes, self.params = [], {}

    def add(self, op, name, inputs=(), attrs=None, subgraphs=None):
        node = {"op": op, "name": name, "inputs": [[i, k, 0] for i, k in inputs]}
        if attrs:
            node["attrs"] = {k: str(v) for k, v in attrs.items()}
        if subgraphs:
            node["subgraphs"] = subgraphs
        self.nodes.append(node)
        return len(self.nodes) - 1

    def param(self, name, value):
        self.params[name] = value.astype(np.float32)
        return self.add("null", name)

    def quantize(self, data, name, low, high):
        return self.add("_contrib_quantize_v2", name, [(data, 0)],
                        {"out_type": "auto", "min_calib_range": "%f" % low, "max_calib_range": "%f" % high})

    def conv(self, data, name, rng, channels, filters, low, high, kernel=3, bn=False, act=False, bias=False,
             addend=None, groups=1):
        """An `_sg_mkldnn_conv` over quantized `data` (its three outputs), with its subgraph."""
        inner = [{"op": "null", "name": "data0", "inputs": []}]
        weight = self.param(name + "_weight", rng.uniform(-1, 1, (filters, channels // groups, kernel, kernel)))
        inner.append({"op": "null", "name": name + "_weight0", "inputs": []})
        inputs, conv_inputs = [(data, 0), (weight, 0)], [[0, 0, 0], [1, 0, 0]]
        if bias:
            inputs.append((self.param(name + "_bias", rng.uniform(-2, 2, filters)), 0))
            inner.append({"op": "null", "name": name + "_bias0", "inputs": []})
            conv_inputs.append([len(inner) - 1, 0, 0])
        inner.append({"op": "Convolution", "name": name + "_fwd", "inputs": conv_inputs,
                      "attrs": {"kernel": str((kernel, kernel)), "pad": str((kernel // 2, kernel // 2)),
                                "num_filter": str(filters), "num_group": str(groups), "no_bias": str(not bias)}})
        last = len(inner) - 1
        if bn:
            values = {"gamma": rng.uniform(0.5, 1.5, filters), "beta": rng.uniform(-1, 1, filters),
                      "running_mean": rng.uniform(-1, 1, filters), "running_var": rng.uniform(0.5, 1.5, filters)}
            for key, value in values.items():
                inputs.append((self.param("%s_bn_%s" % (name, key), value), 0))
                inner.append({"op": "null", "name": "%s_bn_%s0" % (name, key), "inputs": []})
            inner.append({"op": "BatchNorm", "name": name + "_bn", "inputs": [[last, 0, 0]] + [
                [len(inner) - 4 + i, 0, 0] for i in range(4)], "attrs": {"eps": "1e-05", "fix_gamma": "False"}})
            last = len(inner) - 1
        if act and addend is None:
            inner.append({"op": "Activation", "name": name + "_relu", "inputs": [[last, 0, 0]],
                          "attrs": {"act_type": "relu"}})
        if addend is not None:
            inputs.append((addend, 0))
            inner.append({"op": "null", "name": "sum0", "inputs": []})
            inner.append({"op": "elemwise_add", "name": name + "_add", "inputs": [[last, 0, 0], [len(inner) - 1, 0, 0]]})
            if act:
                inner.append({"op": "Activation", "name": name + "_relu", "inputs": [[len(inner) - 1, 0, 0]],
                              "attrs": {"act_type": "relu"}})
        inputs += [(data, 1), (data, 2)] + ([(addend, 1), (addend, 2)] if addend is not None else [])
        attrs = {"quantized": "true", "min_calib_range": "%f" % low, "max_calib_range": "%f" % high}
        attrs.update({"with_bn": "true"} if bn else {})
        if act:
            attrs["with_postsum_act" if addend is not None else "with_act"] = "true"
        if addend is not None:
            attrs["with_sum"] = "true"
        subgraph = {"nodes": inner, "arg_nodes": [i for i, n in enumerate(inner) if n["op"] == "null"],
                    "node_row_ptr": list(range(len(inner) + 1)), "heads": [[len(inner) - 1, 0, 0]]}
        return self.add("_sg_mkldnn_conv", "quantized_" + name, inputs, attrs, [subgraph])

    def json(self, heads):
        return json.dumps({"nodes": self.nodes, "arg_nodes": [i for i, n in enumerate(self.nodes) if n["op"] == "null"],
                           "node_row_ptr": list(range(len(self.nodes) + 1)),
                           "heads": [[h, k, 0] for h in heads for k in range(3)],  # (value, min, max)
                           "attrs": {"mxnet_version": ["int", 10901]}})


def _network(kind):
    """(graph JSON, parameters, input) of a small quantized network exercising one part of the convolution."""
    rng = np.random.RandomState({"signed": 0, "unsigned": 1, "sum": 2, "depthwise": 3}[kind])
    g = Graph()
    data = g.add("null", "data")
    x = rng.standard_normal((1, 16, 9, 8)).astype(np.float32)
    if kind == "signed":  # int8 input: the weights are halved; BatchNorm folded; relu makes the output uint8
        q = g.quantize(data, "data_quantize", -2.0, 2.5)
        heads = [g.conv(q, "conv0", rng, 16, 8, 0.0, 6.0, bn=True, act=True, bias=True)]
    elif kind == "unsigned":  # uint8 input: channel pairs saturate to int16
        q = g.quantize(g.add("relu", "relu0", [(data, 0)]), "data_quantize", 0.0, 2.0)
        heads = [g.conv(q, "conv0", rng, 16, 12, -40.0, 30.0, bias=True)]
    elif kind == "sum":  # a residual block: an int8 addend summed into a uint8 output (saturating at 127)
        q = g.quantize(g.add("relu", "relu0", [(data, 0)]), "data_quantize", 0.0, 2.0)
        shortcut = g.conv(q, "conv0", rng, 16, 8, -8.0, 7.0, kernel=1, bn=True)
        body = g.conv(q, "conv1", rng, 16, 8, 0.0, 5.0, bn=True, act=True)
        heads = [g.conv(body, "conv2", rng, 8, 8, 0.0, 9.0, bn=True, act=True, addend=shortcut)]
    else:  # depthwise, as MobileNet: no pair saturation
        q = g.quantize(g.add("relu", "relu0", [(data, 0)]), "data_quantize", 0.0, 2.0)
        heads = [g.conv(q, "conv0", rng, 16, 16, 0.0, 3.0, bn=True, act=True, groups=16)]
    return g.json(heads), g.params, x


def _run(namespace, kind):
    text, params, x = _network(kind)
    symbol = namespace.load_json(text)
    args = {name: value for name, value in params.items() if name in symbol.list_arguments()}
    aux = {name: value for name, value in params.items() if name in symbol.list_auxiliary_states()}
    args["data"] = x
    module = namespace if namespace is sym else None
    to_nd = (lambda v: nd.array(v)) if module is not None else None
    if module is None:
        import mxnet
        to_nd = mxnet.nd.array
        executor = symbol.bind(mxnet.cpu(), {k: to_nd(v) for k, v in args.items()},
                               aux_states={k: to_nd(v) for k, v in aux.items()})
    else:
        executor = symbol.bind(args={k: to_nd(v) for k, v in args.items()},
                               aux_states={k: to_nd(v) for k, v in aux.items()})
    return [o.asnumpy() for o in executor.forward()]


@pytest.mark.parametrize("kind", ["signed", "unsigned", "sum", "depthwise"])
def test_a_fused_quantized_convolution_runs_from_its_graph(kind):
    out, low, high = _run(sym, kind)
    assert out.dtype in (np.int8, np.uint8) and low.shape == high.shape == (1,)
    assert len(np.unique(out)) > 5  # a real spread of values, not a saturated block


def _two_channel_sum(namespace):
    """One output of 255 * 127 + 255 * 127 = 64770: 200 where the pair saturates to 32767, else 395 (255)."""
    g = Graph()
    q = g.quantize(g.add("null", "data"), "data_quantize", 0.0, 255.5)
    g.params["conv0_weight"] = np.ones((1, 2, 1, 1), np.float32)  # quantized to 127 (128 saturates)
    g.add("null", "conv0_weight")
    inner = [{"op": "null", "name": "data0", "inputs": []}, {"op": "null", "name": "w0", "inputs": []},
             {"op": "Convolution", "name": "c", "inputs": [[0, 0, 0], [1, 0, 0]],
              "attrs": {"kernel": "(1, 1)", "num_filter": "1", "no_bias": "True"}},
             {"op": "Activation", "name": "c_relu", "inputs": [[2, 0, 0]], "attrs": {"act_type": "relu"}}]
    high = 255.5 * 32767 / 127.5 / 200  # the saturated sum lands on 200
    node = g.add("_sg_mkldnn_conv", "conv", [(q, 0), (2, 0), (q, 1), (q, 2)],
                 {"quantized": "true", "min_calib_range": "0.0", "max_calib_range": repr(high), "with_act": "true"},
                 [{"nodes": inner, "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[3, 0, 0]]}])
    symbol = namespace.load_json(g.json([node]))
    args = {"data": np.full((1, 2, 1, 1), 255, np.float32), "conv0_weight": g.params["conv0_weight"]}
    if namespace is sym:
        executor = symbol.bind(args={k: nd.array(v) for k, v in args.items()})
    else:
        import mxnet
        executor = symbol.bind(mxnet.cpu(), {k: mxnet.nd.array(v) for k, v in args.items()})
    return executor.forward()[0].asnumpy()


@pytest.mark.parametrize("vnni, expected", [(False, 200), (True, 255)])
def test_pairs_of_unsigned_channels_saturate_to_int16_without_vnni(monkeypatch, vnni, expected):
    """Without VNNI oneDNN's vpmaddubsw saturates each pair's sum to int16 (32767) before the int32 sum; with
    VNNI the sum is exact (395, saturated at 255 in uint8)."""
    monkeypatch.setattr(quantized, "ONEDNN_VNNI", vnni)
    out = _two_channel_sum(sym)
    assert out.dtype == np.uint8 and out.ravel().tolist() == [expected]


def _measured_cpu():
    """Whether MXNet's int8 kind on this CPU was measured: AVX-512 VNNI, or no VNNI at all (AVX2)."""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line.split() for line in info if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_vnni" in flags or not any("vnni" in flag for flag in flags)


@pytest.mark.mxnet
def test_the_two_channel_sum_of_this_cpu_equals_mxnet():
    real = _real_mxnet()
    if not _measured_cpu():
        pytest.skip("MXNet's int8 convolution on this kind of CPU was not measured")
    ours, theirs = _two_channel_sum(sym), _two_channel_sum(real.sym)
    assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()


@pytest.mark.mxnet
@pytest.mark.parametrize("kind", ["signed", "unsigned", "sum", "depthwise"])
def test_a_fused_quantized_convolution_equals_mxnet(kind):
    real = _real_mxnet()
    if not _measured_cpu():
        pytest.skip("MXNet's int8 convolution on this kind of CPU was not measured")
    ours, theirs = _run(sym, kind), _run(real.sym, kind)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
