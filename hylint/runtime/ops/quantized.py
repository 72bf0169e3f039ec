"""The int8 inference operators of MXNet's quantized graphs (gluoncv's ``*_int8`` models): ``quantize_v2``,
``dequantize``, ``quantized_pooling`` and the fused oneDNN convolution ``_sg_mkldnn_conv``.

Integer results are equal to MXNet 1.9.1's as measured, node by node, on the graphs of gluoncv's
``simple_pose_resnet18_v1b_int8``, ``mobilenet1.0_int8`` and ``resnet50_v1_int8`` (every node's output, fed
MXNet's own inputs) on an AVX2 CPU without VNNI, and (``simple_pose_resnet18_v1b_int8``) on an AVX-512 CPU
with VNNI. MXNet's int8 convolution is oneDNN's and depends on the CPU: without VNNI oneDNN multiplies
``uint8 * int8`` pairs of input channels into int16 with saturation, and halves the weights of a convolution
whose input is signed; with AVX-512 VNNI (``vpdpbusd``) it sums the products exactly in int32 and keeps the
weights whole. The runtime follows the CPU it runs on, as MXNet does (:data:`ONEDNN_VNNI`).
"""
import numpy as np

from .. import kernels
from ..base import RuntimeUnsupported
from .attrs import P, parse_attrs
from .common import cpu_flags
from .nn import _POOL_PARAMS, _conv_shape, _pool_kernel, _pool_shape
from .table import Op, OPS, ShapeCheck, register

# MXNet scales a range onto these many steps: 127.5 for int8 and 255.5 for uint8, not 127 and 255 (measured:
# quantize_v2 of 0.5 with the range 127.5 is 0, dequantize of 1 with the range 3 is 3 / 127.5)
_STEPS = {np.dtype(np.int8): np.float32(127.5), np.dtype(np.uint8): np.float32(255.5)}
_LIMITS = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}
_INT16 = (-32768, 32767)

#: which int8 convolution MXNet's oneDNN runs on this CPU (read at each call: tests set it to check both)
#: (Linux's CPU flags; elsewhere unknown: the AVX2 kernels' integers, as measured first; a CPU with AVX-VNNI
#: alone was not measured)
ONEDNN_VNNI = "avx512_vnni" in cpu_flags()


def _saturate(values, dtype):
    """Round half to even and saturate into ``dtype``, as oneDNN stores a float into an 8-bit integer (NaN
    becomes the largest value, as measured on quantize_v2 with an empty range)."""
    low, high = _LIMITS[np.dtype(dtype)]
    with np.errstate(invalid="ignore"):
        rounded = np.rint(np.nan_to_num(values, nan=high, posinf=high, neginf=low))
    return np.clip(rounded, low, high).astype(dtype)


def _range(low, high):
    return np.float32(max(abs(np.float32(low)), abs(np.float32(high))))


# --- quantize_v2 ------------------------------------------------------------------------------------------
def _calibrated(attrs):
    return attrs["min_calib_range"] is not None and attrs["max_calib_range"] is not None


def _quantize_dtype(attrs):
    out_type = attrs["out_type"]
    if out_type == "auto":  # unsigned only when the calibrated range says so; without one, int8 (measured)
        return "uint8" if _calibrated(attrs) and attrs["min_calib_range"] >= 0 else "int8"
    return out_type


def _quantize_kernel(inputs, attrs):
    x = inputs[0]
    dtype = np.dtype(_quantize_dtype(attrs))
    if _calibrated(attrs):
        low, high = np.float32(attrs["min_calib_range"]), np.float32(attrs["max_calib_range"])
    else:
        low, high = np.float32(x.min()), np.float32(x.max())
    real = _range(low, high)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = _saturate(x.astype(np.float32, copy=False) * (_STEPS[dtype] / real), dtype)
    if dtype == np.int8:
        low, high = -real, real
    return q, np.array([low], np.float32), np.array([high], np.float32)


def _quantize_type(in_types, attrs):
    if in_types[0] not in (None, "float32"):
        raise RuntimeUnsupported("the operator _contrib_quantize_v2 on %s data" % in_types[0])
    return in_types, [_quantize_dtype(attrs), "float32", "float32"]


def _with_ranges(in_shapes):
    """The shapes of (data, min, max) inputs: the ranges are one float each."""
    return [in_shapes[0]] + [(1,)] * (len(in_shapes) - 1)


register(Op("_contrib_quantize_v2", _quantize_kernel, lambda shapes, attrs: ([shapes[0]], [shapes[0], (1,), (1,)]),
            num_outputs=3, infer_type=_quantize_type, hint="quantize_v2",
            params=(P("out_type", ("auto", "int8", "uint8"), "int8"), P("min_calib_range", "float", None),
                    P("max_calib_range", "float", None))))


# --- dequantize -------------------------------------------------------------------------------------------
def _dequantize_kernel(inputs, attrs):
    q, low, high = inputs
    if q.dtype not in _STEPS:
        raise RuntimeUnsupported("the operator _contrib_dequantize of %s data" % q.dtype)
    return q.astype(np.float32) * (_range(low.reshape(-1)[0], high.reshape(-1)[0]) / _STEPS[q.dtype])


register(Op("_contrib_dequantize", _dequantize_kernel, lambda shapes, attrs: (_with_ranges(shapes), [shapes[0]]), inputs=("data", "min_range", "max_range"),
            infer_type=lambda in_types, attrs: (in_types, "float32"), hint="dequantize",
            params=(P("out_type", ("float32",), "float32"),)))


# --- quantized pooling ------------------------------------------------------------------------------------
def _quantized_pool_kernel(inputs, attrs):
    q, low, high = inputs
    if attrs["pool_type"] not in ("max", "avg"):
        raise RuntimeUnsupported("the operator _contrib_quantized_pooling with pool_type=%s" % attrs["pool_type"])
    # exact: float64 sums of at most a few thousand bytes, divided once by the count
    pooled = _pool_kernel([q.astype(np.float64)], dict(attrs, __divide_once__=True))
    return _saturate(pooled, q.dtype), low.copy(), high.copy()  # an average rounds half to even (oneDNN)


register(Op("_contrib_quantized_pooling", _quantized_pool_kernel,
            lambda shapes, attrs: (_with_ranges(shapes), [None if shapes[0] is None else
                                                          _pool_shape(shapes[:1], attrs)[1][0], (1,), (1,)]),
            inputs=("data", "min_data", "max_data"), num_outputs=3, hint="quantized_pooling",
            infer_type=lambda in_types, attrs: (in_types, [in_types[0], "float32", "float32"]),
            params=_POOL_PARAMS))


# --- the fused oneDNN convolution -------------------------------------------------------------------------
_FUSED_FLAGS = ("quantized", "with_bn", "with_act", "with_sum", "with_postsum_act", "enable_float_output")
# graphs written by MXNet 1.5 name the activations `with_relu` / `with_postsum_relu`
_OLD_NAMES = {"with_act": "with_relu", "with_postsum_act": "with_postsum_relu"}


def fused_conv_attrs(subgraphs):
    """What the kernel needs from the node's subgraph: the Convolution's parsed attributes, BatchNorm's
    ``eps``/``fix_gamma`` and the activations' types (every operator of the subgraph must be known)."""
    found = {"conv": None, "bn": None, "acts": []}
    for node in subgraphs[0]["nodes"]:
        op, attrs = node["op"], node.get("attrs", node.get("param", {})) or {}
        if op == "Convolution":
            found["conv"] = parse_attrs(OPS["Convolution"], attrs)
        elif op == "BatchNorm":
            found["bn"] = parse_attrs(OPS["BatchNorm"], attrs)
        elif op == "Activation":
            found["acts"].append(parse_attrs(OPS["Activation"], attrs)["act_type"])
        elif op not in ("null", "elemwise_add", "_plus", "_Plus", "add_n", "ElementWiseSum"):
            raise RuntimeUnsupported("the operator %s inside _sg_mkldnn_conv" % op)
    if found["conv"] is None or len(found["conv"]["kernel"]) != 2:
        raise RuntimeUnsupported("_sg_mkldnn_conv without a 2-D Convolution in its subgraph")
    if any(act != "relu" for act in found["acts"]):
        raise RuntimeUnsupported("_sg_mkldnn_conv with the activation %s" % ", ".join(found["acts"]))
    return {"__fused__": found}


def _flags(attrs):
    return {name: attrs[name] or attrs.get(_OLD_NAMES.get(name), False) for name in _FUSED_FLAGS}


def _fused_layout(attrs):
    """The positions of the node's inputs: data, weight, [bias], [gamma, beta, mean, var], [sum], then the
    ranges of data and sum when quantized."""
    conv, flags = attrs["__fused__"]["conv"], _flags(attrs)
    names = ["data", "weight"] + ([] if conv["no_bias"] else ["bias"])
    names += ["gamma", "beta", "mean", "var"] if flags["with_bn"] else []
    names += ["sum"] if flags["with_sum"] else []
    if flags["quantized"]:
        names += ["min_data", "max_data"] + (["min_sum", "max_sum"] if flags["with_sum"] else [])
    return {name: i for i, name in enumerate(names)}


def _output_dtype(attrs):
    flags = _flags(attrs)
    return "uint8" if (flags["with_act"] and not flags["with_sum"]) or flags["with_postsum_act"] else "int8"


def _check_supported(attrs):
    if "__fused__" not in attrs:
        raise RuntimeUnsupported("the operator _sg_mkldnn_conv outside a loaded graph (it needs its subgraph)")
    flags = _flags(attrs)
    if not flags["quantized"]:
        raise RuntimeUnsupported("the operator _sg_mkldnn_conv unquantized (a float oneDNN subgraph)")
    if attrs["min_calib_range"] is None or attrs["max_calib_range"] is None or flags["enable_float_output"]:
        raise RuntimeUnsupported("the operator _sg_mkldnn_conv without calibrated output ranges")


def _fused_shape(in_shapes, attrs):
    _check_supported(attrs)
    layout, conv = _fused_layout(attrs), attrs["__fused__"]["conv"]
    shapes = list(in_shapes) + [None] * (len(layout) - len(in_shapes))
    conv_shapes, out = _conv_shape([shapes[layout["data"]], shapes[layout["weight"]]]
                                   + ([shapes[layout["bias"]]] if "bias" in layout else []), conv)
    shapes[layout["weight"]] = conv_shapes[1]
    for name in ("bias", "gamma", "beta", "mean", "var"):
        if name in layout:
            shapes[layout[name]] = (conv["num_filter"],)
    for name in ("min_data", "max_data", "min_sum", "max_sum"):
        if name in layout:
            shapes[layout[name]] = (1,)
    if "sum" in layout and out[0] is not None:
        shapes[layout["sum"]] = out[0]
    return shapes[:len(layout)], [out[0], (1,), (1,)]


def _fused_type(in_types, attrs):
    _check_supported(attrs)
    layout = _fused_layout(attrs)
    types = list(in_types) + [None] * (len(layout) - len(in_types))
    for name in ("weight", "bias", "gamma", "beta", "mean", "var", "min_data", "max_data", "min_sum", "max_sum"):
        if name in layout and types[layout[name]] is None:
            types[layout[name]] = "float32"
    data = types[layout["data"]]
    if data is not None and data not in ("int8", "uint8"):
        raise ShapeCheck("Check failed: data.dtype() == mshadow::kInt8 || data.dtype() == mshadow::kUint8")
    return types[:len(layout)], [_output_dtype(attrs), "float32", "float32"]


def _folded(weight, bias, gamma, beta, mean, var, bn):
    """BatchNorm folded into the weight and bias as MXNet does before quantizing: the factor in double, stored
    as float32, the rest in float32."""
    factor = (np.ones_like(gamma) if bn["fix_gamma"] else gamma).astype(np.float64) / np.sqrt(
        var.astype(np.float64) + bn["eps"])
    factor = factor.astype(np.float32)
    weight = weight * factor.reshape((-1,) + (1,) * (weight.ndim - 1))
    bias = beta + factor * (bias - mean) if bias is not None else beta - factor * mean
    return weight, bias


def _weight_scales(weight, bias, data_scale):
    """One scale per output channel (the node is calibrated), lowered where the bias would pass INT_MAX / 2."""
    largest = np.abs(weight.reshape(len(weight), -1)).max(axis=1).astype(np.float32)
    with np.errstate(divide="ignore"):
        scales = _STEPS[np.dtype(np.int8)] / largest
        if bias is not None:
            bound = np.where(bias > 0, np.float32(2147483648.0), np.float32(-2147483648.0))
            limit = bound / np.float32(2) / bias / data_scale
            scales = np.where((bias != 0) & (limit < scales), limit, scales)
    return scales.astype(np.float32)


def _pair_saturation(x, w, stride, dilate, pad, groups):
    """What int16 saturation takes off each output: without VNNI oneDNN multiplies a uint8 input by the int8
    weights two input channels at a time (``vpmaddubsw``: channels 2j and 2j + 1 of a group, per kernel tap)
    and saturates each pair's sum to int16 before adding it up in int32."""
    n = x.shape[0]
    f, cg = w.shape[:2]
    kernel = w.shape[2:]
    out_sizes = kernels.output_sizes(x.shape[2:], kernel, stride, dilate, pad)
    windows = kernels.sliding_windows(kernels.zero_padded(x.astype(np.int32), pad), kernel, stride, dilate, out_sizes)
    windows = windows.reshape((n, groups, cg) + windows.shape[2:])
    weights = w.astype(np.int32).reshape((groups, f // groups, cg) + kernel)
    largest = x.reshape(n, groups, cg, -1).max(axis=(0, 3)).astype(np.int32)  # per group and channel
    if cg % 2:  # a missing partner channel counts as zero
        windows = np.concatenate([windows, np.zeros_like(windows[:, :, :1])], axis=2)
        weights = np.concatenate([weights, np.zeros_like(weights[:, :, :1])], axis=2)
        largest = np.concatenate([largest, np.zeros_like(largest[:, :1])], axis=1)
    correction = np.zeros((n, groups, f // groups) + tuple(out_sizes), np.int64)
    for g in range(groups):
        for tap in np.ndindex(*kernel):
            w0, w1 = weights[(g, slice(None), slice(0, None, 2)) + tap], weights[(g, slice(None), slice(1, None, 2)) + tap]
            bound = np.abs(w0) * largest[g, 0::2] + np.abs(w1) * largest[g, 1::2]  # (filters, pairs)
            filters, pairs = np.nonzero(bound > _INT16[1])
            if not len(filters):
                continue
            x_tap = windows[(slice(None), g, slice(None)) + tap]  # (N, channels, *O)
            for start in range(0, len(filters), 256):  # bounded memory
                fs, js = filters[start:start + 256], pairs[start:start + 256]
                expand = (slice(None),) + (None,) * len(out_sizes)
                sums = w0[fs, js][expand] * x_tap[:, 2 * js] + w1[fs, js][expand] * x_tap[:, 2 * js + 1]
                lost = np.clip(sums, *_INT16) - sums
                # np.nonzero lists the filters in order: one sum per run of equal filters
                owners, starts = np.unique(fs, return_index=True)
                correction[:, g, owners] += np.add.reduceat(lost, starts, axis=1)
    return correction.reshape((n, f) + tuple(out_sizes))


def _fused_kernel(inputs, attrs):
    _check_supported(attrs)
    layout, fused, flags = _fused_layout(attrs), attrs["__fused__"], _flags(attrs)
    conv = fused["conv"]
    data = inputs[layout["data"]]
    weight = inputs[layout["weight"]].astype(np.float32, copy=False)
    bias = inputs[layout["bias"]].astype(np.float32, copy=False) if "bias" in layout else None
    if flags["with_bn"]:
        weight, bias = _folded(weight, bias, *(inputs[layout[k]].astype(np.float32, copy=False)
                                               for k in ("gamma", "beta", "mean", "var")), fused["bn"])
    data_scale = _STEPS[data.dtype] / _range(inputs[layout["min_data"]][0], inputs[layout["max_data"]][0])
    scales = _weight_scales(weight, bias, data_scale)
    # a signed input gets halved weights (oneDNN's adjustment without VNNI: the products then fit in int16)
    vnni = ONEDNN_VNNI
    half = np.float32(0.5) if data.dtype == np.int8 and not vnni else np.float32(1)
    q_weight = _saturate(weight * (scales * half).reshape((-1,) + (1,) * (weight.ndim - 1)), np.int8)
    stride, dilate, pad = (tuple(conv[k]) if conv[k] else (d,) * 2 for k, d in (("stride", 1), ("dilate", 1), ("pad", 0)))
    groups = conv["num_group"]
    # exact integer sums: float64 holds every int32 accumulator of these sizes
    total = kernels.convolution(data.astype(np.float64), q_weight.astype(np.float64), stride, dilate, pad, groups)
    # the depthwise kernel multiplies in int32; with VNNI every sum is exact
    if data.dtype == np.uint8 and groups < data.shape[1] and not vnni:
        total += _pair_saturation(data, q_weight, stride, dilate, pad, groups)
    out_dtype = np.dtype(_output_dtype(attrs))
    low, high = np.float32(attrs["min_calib_range"]), np.float32(attrs["max_calib_range"])
    out_scale = _STEPS[out_dtype] / _range(low, high)
    requantize = (out_scale / data_scale / scales) / half
    per_channel = (1, -1) + (1,) * (total.ndim - 2)
    y = total.astype(np.float32)
    if bias is not None:  # the int32 bias, rounded at the full weight scale, then halved with the weights
        y += (np.rint(bias * (data_scale * scales)).astype(np.float32) * half).reshape(per_channel)
    y *= requantize.reshape(per_channel)
    store = out_dtype
    if flags["with_act"] and not flags["with_sum"]:
        y = np.maximum(y, 0)
    if flags["with_sum"]:
        addend = inputs[layout["sum"]]
        sum_scale = out_scale / (_STEPS[addend.dtype] / _range(inputs[layout["min_sum"]][0], inputs[layout["max_sum"]][0]))
        # oneDNN's sum post-op is one fused multiply-add
        y = (y.astype(np.float64) + addend.astype(np.float64) * np.float64(sum_scale)).astype(np.float32)
        if flags["with_postsum_act"]:
            y = np.maximum(y, 0)
        store = addend.dtype  # MXNet writes into the addend's memory: its type saturates (int8 into uint8: 127)
    out = _saturate(y, store).view(out_dtype)
    return out, np.array([low], np.float32), np.array([high], np.float32)


register(Op("_sg_mkldnn_conv", _fused_kernel, _fused_shape, variadic=True, num_outputs=3, infer_type=_fused_type,
            hint="sg_mkldnn_conv", reads_subgraphs=fused_conv_attrs,
            params=tuple(P(name, "bool", False) for name in _FUSED_FLAGS + tuple(_OLD_NAMES.values()))
            + (P("min_calib_range", "float", None), P("max_calib_range", "float", None))))
