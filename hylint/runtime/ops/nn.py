"""Linear algebra and the core layers: dot, FullyConnected, Convolution, Pooling, the normalisations, Embedding."""
import math

import numpy as np

from ..base import MXNetError, shape_str
from .. import exact, kernels
from .table import FUSIONS, Op, ShapeCheck, register
from .attrs import P
from .common import _assign, _assign_param, cpu_flags, is_blocked, mark_blocked


# ----------------------------------------------------------------------------------------------
# linear algebra and layers
# ----------------------------------------------------------------------------------------------
def _dot_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if ta:
        a_k, a_rest = a[0], tuple(a[1:])
        a_rest = tuple(reversed(a_rest)) if len(a) > 2 else a_rest
    else:
        a_k, a_rest = a[-1], tuple(a[:-1])
    if tb:
        b_k, b_rest = b[-1], tuple(b[:-1])
    else:
        b_k, b_rest = b[0], tuple(b[1:])
    if a_k != b_k:
        raise ShapeCheck("Check failed: L[!Ta].Size() == R[Tb].Size() (%d vs. %d) : dot shape error: %s X %s"
                         % (a_k, b_k, shape_str(a), shape_str(b)))
    return list(in_shapes), [(a_rest + b_rest) or (1,)]


def _dot_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = a.T
    if attrs["transpose_b"]:
        b = np.moveaxis(b, -1, 0) if b.ndim > 2 else b.T
    if a.ndim == 1 and b.ndim == 1:
        return np.array([np.dot(a, b)], dtype=inputs[0].dtype)
    return np.tensordot(a, b, axes=([a.ndim - 1], [0])).astype(inputs[0].dtype)


register(Op("dot", _dot_kernel, _dot_shape, inputs=("lhs", "rhs"),
            params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                    P("forward_stype", "any", None))))


def _batch_dot_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    if len(a) < 3 or len(a) != len(b):
        raise ShapeCheck("batch_dot currently only support N-D*N-D array (N >= 3)%s v.s. %s"
                         % (shape_str(a), shape_str(b)))
    m, k1 = (a[-1], a[-2]) if attrs["transpose_a"] else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if attrs["transpose_b"] else (b[-2], b[-1])
    if tuple(a[:-2]) != tuple(b[:-2]) or k1 != k2:
        raise ShapeCheck("Check failed: lshape[0] == rshape[0] && L[!Ta] == R[Tb]: batch_dot shape error: %s X %s"
                         % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(a[:-2]) + (m, n)]


def _batch_dot_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b).astype(inputs[0].dtype)


register(Op("batch_dot", _batch_dot_kernel, _batch_dot_shape, inputs=("lhs", "rhs"),
            params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                    P("forward_stype", "any", None))))


def _fc_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    n = attrs["num_hidden"]
    if data is None:
        return shapes, [None]
    in_units = int(np.prod(data[1:])) if attrs["flatten"] else data[-1]
    _assign_param(shapes, 1, (n, in_units))
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (n,), message="Unexpected shape for bias %s")
    out = (data[0], n) if attrs["flatten"] else tuple(data[:-1]) + (n,)
    return shapes, [out]


def _fc_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    x2 = x.reshape(x.shape[0], -1) if attrs["flatten"] else x
    y = np.matmul(x2, w.T)
    if not attrs["no_bias"]:
        bias = inputs[2]
        if bias.dtype == y.dtype:
            y += bias  # in place: no second output-sized array
        else:
            y = y + bias
    return y.astype(x.dtype, copy=False)


register(Op("FullyConnected", _fc_kernel, _fc_shape, inputs=("data", "weight", "bias"), optional_inputs=("bias",),
            params=(P("num_hidden", "int"), P("no_bias", "bool", False), P("flatten", "bool", True))))


def _conv_geometry(attrs, nd):
    def tup(name, default):
        v = attrs.get(name) or ()
        return tuple(v) if v else (default,) * nd
    return tup("stride", 1), tup("dilate", 1), tup("pad", 0)


def _conv_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    kernel = tuple(attrs["kernel"])
    nd = len(kernel)
    if data is None:
        return shapes, [None]
    if len(data) != nd + 2:
        raise ShapeCheck("Check failed: dshp.ndim() == %dU (%d vs. %d) : Input data should be %dD in batch-num_filter-%s"
                         % (nd + 2, len(data), nd + 2, nd + 2, {1: "x", 2: "y-x", 3: "depth-y-x"}.get(nd, "x")))
    stride, dilate, pad = _conv_geometry(attrs, nd)
    g = attrs["num_group"]
    nf = attrs["num_filter"]
    if data[1] % g:
        raise ShapeCheck("Check failed: dshape[1] % param_.num_group == 0U: input num_filter must divide group size")
    _assign_param(shapes, 1, (nf, data[1] // g) + kernel)
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (nf,))
    spatial = []
    for d, k, s, dl, p in zip(data[2:], kernel, stride, dilate, pad):
        ek = dl * (k - 1) + 1
        if d + 2 * p < ek:
            raise ShapeCheck("Check failed: dilated_ksize <= AddPad(dshape[%d], param_.pad[%d]) : kernel size "
                             "exceed input" % (2, 0))
        spatial.append((d + 2 * p - ek) // s + 1)
    return shapes, [(data[0], nf) + tuple(spatial)]


def _conv_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    nd = len(attrs["kernel"])
    stride, dilate, pad = _conv_geometry(attrs, nd)
    # float32 BLAS as MXNet's CPU kernels (float64 stays float64; float16 and integers go through float32)
    work = np.float64 if x.dtype == np.float64 else np.float32
    y = kernels.convolution(x.astype(work, copy=False), w.astype(work, copy=False), stride, dilate, pad,
                            attrs["num_group"])
    if not attrs["no_bias"]:
        y += inputs[2].astype(work, copy=False).reshape((1, -1) + (1,) * nd)
    y = y.astype(x.dtype, copy=False)
    return mark_blocked(y) if exact.enabled() and _onednn_blocked_conv(x, attrs) else y


_AVX512 = "avx512f" in cpu_flags()


def _onednn_blocked_conv(x, attrs):
    """Whether MXNet 1.9.1's oneDNN leaves this convolution's output in its blocked layout, where a BatchNorm
    right after it rounds as one fused multiply-add (measured eagerly, each BatchNorm's rounding of MXNet's own
    convolution output): 2-D float32 with a multiple of 8 filters, grouped too; not 4, 10 or 12 filters
    (plain rounding), nor a depthwise convolution of 8, 24 or 40 channels (neither rounding: left plain);
    depthwise of 16, 32, 48 or 64 channels is blocked."""
    filters, groups = attrs["num_filter"], attrs["num_group"]
    if not _AVX512 or x.dtype != np.float32 or len(attrs["kernel"]) != 2 or filters % 8:
        return False  # measured on an AVX-512 CPU only: elsewhere oneDNN's kernels (and blocks) differ
    return not (groups > 1 and groups == x.shape[1] == filters and filters % 16)


_CONV_PARAMS = (P("kernel", "shape"), P("stride", "shape", ()), P("dilate", "shape", ()), P("pad", "shape", ()),
                P("num_filter", "int"), P("num_group", "int", 1), P("workspace", "int", 1024),
                P("no_bias", "bool", False), P("cudnn_tune", "any", None), P("cudnn_off", "bool", False),
                P("layout", "any", None))
register(Op("Convolution", _conv_kernel, _conv_shape, inputs=("data", "weight", "bias"), optional_inputs=("bias",),
            params=_CONV_PARAMS))


def _pool_params(attrs, data_shape):
    nd = len(data_shape) - 2
    if attrs["global_pool"]:
        return tuple(data_shape[2:]), (1,) * nd, (0,) * nd
    kernel = tuple(attrs["kernel"])
    stride = tuple(attrs["stride"]) if attrs["stride"] else (1,) * nd
    pad = tuple(attrs["pad"]) if attrs["pad"] else (0,) * nd
    return kernel, stride, pad


def _pool_out(d, k, s, p, convention):
    if convention == "full":
        return int(math.ceil(float(d + 2 * p - k) / s)) + 1
    return (d + 2 * p - k) // s + 1


def _pool_shape(in_shapes, attrs):
    data = in_shapes[0]
    if data is None:
        return list(in_shapes), [None]
    if len(data) < 3:
        shapes_text = ("Input data should be  3D in (batch, channel, x) Or 4D in (batch, channel, y, x)  Or 5D in "
                       "(batch, channel, d, y, x)")
        raise ShapeCheck("Check failed: dshape.ndim() >= 3 (%d vs. 3) : Pooling: %s" % (len(data), shapes_text),
                         eager="Pooling: Check failed: dshape.ndim() >= 3 (%d vs. 3) : %s" % (len(data), shapes_text))
    kernel, stride, pad = _pool_params(attrs, data)
    if len(kernel) != len(data) - 2:
        raise ShapeCheck("Check failed: param.kernel.ndim() == dshape.ndim() - 2: kernel must match input rank")
    spatial = []
    for d, k, s, p in zip(data[2:], kernel, stride, pad):
        if k > d + 2 * p:
            raise ShapeCheck("Check failed: param.kernel[0] <= dshape[2] + 2 * param.pad[0] (%d vs. %d) : kernel size "
                             "(%d) exceeds input (%d padded to %d)" % (k, d + 2 * p, k, d, d + 2 * p))
        spatial.append(_pool_out(d, k, s, p, attrs["pooling_convention"]))
    return list(in_shapes), [tuple(data[:2]) + tuple(spatial)]


def _separable_max(x, kernel, stride, out_sizes):
    """Max pooling one spatial axis at a time, the last first: a 3x3 window costs 2 + 2 elementwise maxima
    over strided slices instead of 8 (the maximum of maxima is the same value, exactly)."""
    y = x
    for axis in reversed(range(len(kernel))):
        k, s, o = kernel[axis], stride[axis], out_sizes[axis]
        lead = (slice(None),) * (2 + axis)
        taps = [y[lead + (slice(t, t + s * (o - 1) + 1, s),)] for t in range(k)]
        reduced = taps[0].copy()
        for tap in taps[1:]:
            np.maximum(reduced, tap, out=reduced)
        y = reduced
    return y


def _pool_kernel(inputs, attrs):
    x = inputs[0]
    kernel, stride, pad = _pool_params(attrs, x.shape)
    out_shape = _pool_shape([x.shape], attrs)[1][0]
    out_sizes = out_shape[2:]
    nd = len(kernel)
    ptype = attrs["pool_type"]
    # pad enough on the right for the 'full' convention
    extra = [max(0, (o - 1) * s + k - (d + 2 * p)) for o, s, k, d, p in zip(out_sizes, stride, kernel, x.shape[2:], pad)]
    padding = [(p, p + e) for p, e in zip(pad, extra)]
    # MXNet's own kernels sum float16 in float32 (their AccReal)
    work = np.float32 if x.dtype == np.float16 else x.dtype if x.dtype in (np.float32, np.float64) else np.float64
    xw = x.astype(work, copy=False)
    if any(p or e for p, e in padding):
        xw = np.pad(xw, [(0, 0), (0, 0)] + padding, constant_values=-np.inf if ptype == "max" else 0.0)
    windows = kernels.sliding_windows(xw, kernel, stride, (1,) * nd, out_sizes)
    large = int(np.prod(kernel)) >= int(np.prod(out_sizes))

    def reduce(ufunc, values):
        # few large windows (global pooling): reduce the view's window axes; many small ones: one
        # elementwise ufunc per kernel offset over whole (N, C, *O) slices (reducing strided window axes is slow)
        if large:
            return ufunc.reduce(values.reshape(values.shape[:2] + (-1,) + tuple(out_sizes)), axis=2)
        offsets = iter(np.ndindex(*kernel))
        total = values[(slice(None), slice(None)) + next(offsets)].copy()
        for offset in offsets:
            ufunc(total, values[(slice(None), slice(None)) + offset], out=total)
        return total

    def add_in_order(values, scale=None):
        """MXNet's running sum over each window, kernel offset by offset in row-major order (np.add.reduce
        would add pairwise), of ``values / scale`` when given (MXNet's own kernel divides every term)."""
        if large:
            terms = values.reshape(values.shape[:2] + (-1,) + tuple(out_sizes))
            if scale is not None:
                terms = terms / scale
            return np.cumsum(terms, axis=2, dtype=work)[:, :, -1]
        total = None
        for offset in np.ndindex(*kernel):
            term = values[(slice(None), slice(None)) + offset]
            term = term / scale if scale is not None else term
            total = term.copy() if total is None else np.add(total, term, out=total)
        return total

    if ptype == "max" and not large:
        y = _separable_max(xw, kernel, stride, out_sizes)
    elif ptype == "max":
        y = reduce(np.maximum, windows)
    elif ptype == "sum":
        y = add_in_order(windows)
    elif ptype == "avg":
        if attrs["count_include_pad"]:  # the symmetric padding counts, the 'full' convention's extra does not
            counted = np.pad(np.ones(x.shape[2:]), [(p, p) for p in pad], constant_values=1)
            counted = np.pad(counted, [(0, e) for e in extra])
        else:
            counted = np.pad(np.ones(x.shape[2:]), padding)
        denom = kernels.sliding_windows(counted, kernel, stride, (1,) * nd, out_sizes, lead=0).sum(axis=tuple(range(nd)))
        denom = np.maximum(denom, 1).astype(work)
        if (x.dtype == np.float32 and not any(extra)) or attrs.get("__divide_once__"):
            # oneDNN's pooling (MXNet 1.9.1 runs it for float32 unless the 'full' convention pads asymmetrically;
            # its int8 pooling asks for this too): the running sum, then one division by the count
            y = add_in_order(windows) / denom
        else:  # MXNet's own kernel (float64, float16, the asymmetric 'full' case): sum of value / count
            y = add_in_order(windows, denom)
    elif ptype == "lp":
        pv = attrs["p_value"] or 2
        y = np.power(reduce(np.add, np.power(np.abs(windows), pv)), 1.0 / pv)
    else:
        raise MXNetError("Invalid Input: '%s', valid values are: {'avg', 'lp', 'max', 'sum'}" % ptype)
    return y.astype(x.dtype, copy=False)


_POOL_PARAMS = (P("kernel", "shape", ()), P("pool_type", ("avg", "lp", "max", "sum"), "max"),
                P("global_pool", "bool", False), P("stride", "shape", ()), P("pad", "shape", ()),
                P("pooling_convention", ("full", "same", "valid"), "valid"), P("count_include_pad", "bool", True),
                P("p_value", "int", 0), P("cudnn_off", "bool", False), P("layout", "any", None))
register(Op("Pooling", _pool_kernel, _pool_shape, params=_POOL_PARAMS))


def _channel_param_shape(axis_attr, n_params, aux_count=0):
    def rule(in_shapes, attrs):
        shapes = list(in_shapes)
        data = shapes[0]
        if data is None:
            return shapes, [None] * 1
        c = data[attrs[axis_attr] % len(data)]
        for i in range(1, len(shapes)):
            _assign_param(shapes, i, (c,), paren=False)
        return shapes, [tuple(data)]
    return rule


def _batch_norm_kernel(inputs, attrs):
    x, gamma, beta, mean, var = inputs
    axis = attrs["axis"] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    if attrs["fix_gamma"]:
        gamma = np.ones_like(gamma)
    from .. import autograd
    training = autograd.is_training() and not attrs["use_global_stats"]
    if training:
        axes = tuple(i for i in range(x.ndim) if i != axis)
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
    # MXNet's rounding: one scale per channel, then (x - mean) * scale + beta, each step rounded (measured bit
    # for bit on float32 of rank 2 to 5, any axis; x * scale + (beta - mean * scale), one pass fewer, is a unit
    # in the last place off on about 40% of the values, enough to move an int8 model's next quantization)
    scale = gamma / np.sqrt(var + attrs["eps"])
    work = np.float32 if x.dtype in (np.float16, np.float32) else np.float64  # float16 computes in float32
    y = np.subtract(x, mean.reshape(shape).astype(work, copy=False), dtype=work)
    if exact.enabled() and not training and x.dtype == np.float32 and axis == 1 and is_blocked(x):
        # oneDNN's BatchNorm of its blocked layout (after a convolution or a direct deconvolution that leaves
        # it, :func:`_onednn_blocked_conv`, layers._onednn_direct_deconv): (x - mean) * scale + beta
        # as one fused multiply-add (exact in float64: a float32 product has 48 bits), rounded once
        fused = y.astype(np.float64)
        fused *= scale.reshape(shape).astype(np.float32).astype(np.float64)
        fused += beta.reshape(shape).astype(np.float32).astype(np.float64)
        return fused.astype(np.float32)
    y *= scale.reshape(shape).astype(work, copy=False)
    y += beta.reshape(shape).astype(work, copy=False)
    return y.astype(x.dtype, copy=False)


def _fold_batch_norm(conv_inputs, conv_attrs, bn_inputs, bn_attrs):
    """An inference BatchNorm folded into the convolution before it, as MXNet's oneDNN graph pass fuses the
    pair in a graph hybridized with ``backend="MKLDNN"`` (ops.FUSIONS): the weights scaled per filter by ``gamma / sqrt(var + eps)``, the bias
    ``(bias - mean) * scale + beta``; one convolution instead of a convolution and three passes over its output.
    Float32 only, channel axis 1, not in training mode, not with the exact replays on (they round the
    BatchNorm as oneDNN's blocked layout does). Within float32 rounding of the two kernels."""
    from .. import autograd

    x, w = conv_inputs[0], conv_inputs[1]
    gamma, beta, mean, var = bn_inputs
    if (exact.enabled() or (autograd.is_training() and not bn_attrs["use_global_stats"])
            or bn_attrs["output_mean_var"] or bn_attrs["axis"] % x.ndim != 1
            or any(a.dtype != np.float32 for a in (x, w, gamma, beta, mean, var))
            or (not conv_attrs["no_bias"] and conv_inputs[2].dtype != np.float32)):
        return None
    if bn_attrs["fix_gamma"]:
        gamma = np.ones_like(gamma)
    scale = gamma / np.sqrt(var + np.float32(bn_attrs["eps"]))
    shift = beta - mean * scale if conv_attrs["no_bias"] else (conv_inputs[2] - mean) * scale + beta
    nd = len(conv_attrs["kernel"])
    stride, dilate, pad = _conv_geometry(conv_attrs, nd)
    per_filter = (1, -1) + (1,) * nd
    # the scale goes into whichever is smaller, the weights or the output (a 1x1 convolution of 2048 filters on
    # a 7x7 map has 20x as many weights as outputs); each call pays it, nothing is cached across calls
    outputs = x.shape[0] * w.shape[0] * math.prod(kernels.output_sizes(x.shape[2:], w.shape[2:], stride, dilate,
                                                                       pad))
    on_weights = w.size <= outputs
    y = kernels.convolution(x, w * scale.reshape((-1,) + (1,) * (w.ndim - 1)) if on_weights else w, stride,
                            dilate, pad, conv_attrs["num_group"])
    if not on_weights:
        y *= scale.reshape(per_filter)
    y += shift.reshape(per_filter)
    return y


register(Op("BatchNorm", _batch_norm_kernel, _channel_param_shape("axis", 4),
            inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
            params=(P("eps", "float", 1e-3), P("momentum", "float", 0.9), P("fix_gamma", "bool", True),
                    P("use_global_stats", "bool", False), P("output_mean_var", "bool", False),
                    P("axis", "int", 1), P("cudnn_off", "bool", False), P("min_calib_range", "any", None),
                    P("max_calib_range", "any", None))))
FUSIONS[("Convolution", "BatchNorm")] = _fold_batch_norm


def _layer_norm_kernel(inputs, attrs):
    x, gamma, beta = inputs
    axis = attrs["axis"] % x.ndim
    if x.dtype == np.float32 and axis == x.ndim - 1 and x.shape[-1]:
        # MXNet's CPU kernel for float32's last axis: running float32 sums (two passes: the values, then the
        # squared deviations), then (x - mean) * gamma / std + beta, each step rounded (measured bit for bit;
        # the float64 computation rounded once differed on about 90% of BERT's values). Other axes and
        # dtypes: float64, rounded once (within a few float32 steps of MXNet's).
        width = np.float32(x.shape[-1])
        mean = np.cumsum(x, axis=-1, dtype=np.float32)[..., -1:] / width
        deviation = x - mean
        variance = np.cumsum(deviation * deviation, axis=-1, dtype=np.float32)[..., -1:] / width
        std = np.sqrt(variance + np.float32(attrs["eps"]))
        return deviation * gamma.astype(np.float32, copy=False) / std + beta.astype(np.float32, copy=False)
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axis, keepdims=True)
    var = xd.var(axis=axis, keepdims=True)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    y = (xd - mean) / np.sqrt(var + attrs["eps"]) * gamma.reshape(shape) + beta.reshape(shape)
    return y.astype(x.dtype)


register(Op("LayerNorm", _layer_norm_kernel, _channel_param_shape("axis", 2), inputs=("data", "gamma", "beta"),
            params=(P("axis", "int", -1), P("eps", "float", 1e-5), P("output_mean_var", "bool", False))))


def _instance_norm_kernel(inputs, attrs):
    x, gamma, beta = inputs
    axes = tuple(range(2, x.ndim))
    xd = x.astype(np.float64)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    y = (xd - xd.mean(axis=axes, keepdims=True)) / np.sqrt(xd.var(axis=axes, keepdims=True) + attrs["eps"])
    return (y * gamma.reshape(shape) + beta.reshape(shape)).astype(x.dtype)


def _instance_norm_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    if shapes[0] is None:
        return shapes, [None]
    for i in (1, 2):
        _assign(shapes, i, (shapes[0][1],))
    return shapes, [shapes[0]]


register(Op("InstanceNorm", _instance_norm_kernel, _instance_norm_shape, inputs=("data", "gamma", "beta"),
            params=(P("eps", "float", 1e-3),)))


def _embedding_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    _assign_param(shapes, 1, (attrs["input_dim"], attrs["output_dim"]))
    data = shapes[0]
    return shapes, [None if data is None else tuple(data) + (attrs["output_dim"],)]


def _embedding_kernel(inputs, attrs):
    idx, w = inputs
    i = np.clip(idx.astype(np.int64), 0, attrs["input_dim"] - 1)
    return w[i]


def _embedding_type(in_types, attrs):
    out = list(in_types)
    dtype = attrs["dtype"] or "float32"
    if out[1] is None:
        out[1] = dtype
    return out, out[1]


register(Op("Embedding", _embedding_kernel, _embedding_shape, inputs=("data", "weight"), infer_type=_embedding_type,
            params=(P("input_dim", "int"), P("output_dim", "int"), P("dtype", "dtype", "float32"),
                    P("sparse_grad", "bool", False))))
