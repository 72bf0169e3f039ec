"""More layers' operators: transposed convolution, padding, upsampling, L2 normalisation, sequence masking,
losses, ``linalg.gemm2`` and selection."""
import numpy as np

from ..base import MXNetError, shape_str
from .. import exact, kernels
from .table import Op, ShapeCheck, _first_type, _fixed_type, register
from .attrs import P
from .common import _assign, _assign_param, _at_least_1d, _shape_unary, _unary_shape_fn, cpu_flags, mark_blocked
from .math import _onednn_softmax, _own_softmax, _softmax_np


# ----------------------------------------------------------------------------------------------
# more layers' operators: transposed convolution, padding, upsampling, normalisation, masking
# ----------------------------------------------------------------------------------------------
def _deconv_geometry(attrs, nd):
    def tup(name, default):
        v = attrs.get(name) or ()
        return tuple(v) if v else (default,) * nd
    return tup("stride", 1), tup("dilate", 1), tup("pad", 0), tup("adj", 0)


def _deconv_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    kernel = tuple(attrs["kernel"])
    nd = len(kernel)
    if data is None:
        return shapes, [None]
    if len(data) != nd + 2:
        raise ShapeCheck("Check failed: dshape.ndim() == %d (%d vs. %d) : Input data should be %dD in batch-num_filter-"
                         "spatial" % (nd + 2, len(data), nd + 2, nd + 2))
    stride, dilate, pad, adj = _deconv_geometry(attrs, nd)
    g, nf = attrs["num_group"], attrs["num_filter"]
    _assign_param(shapes, 1, (data[1], nf // g) + kernel)
    if not attrs["no_bias"] and len(shapes) > 2:
        _assign_param(shapes, 2, (nf,))
    spatial = tuple((d - 1) * s - 2 * p + dl * (k - 1) + 1 + a
                    for d, k, s, dl, p, a in zip(data[2:], kernel, stride, dilate, pad, adj))
    return shapes, [(data[0], nf) + spatial]


#: oneDNN's direct AVX-512 deconvolution (``jit:avx512_common``) runs on this CPU: its float32 sums are
#: reproduced bit for bit where MXNet 1.9.1 picks it (:func:`_onednn_direct_deconv`)
_AVX512 = "avx512f" in cpu_flags()


def _onednn_direct_deconv(x, w, attrs, dilate, adj):
    """Whether MXNet's oneDNN runs this Deconvolution with its direct AVX-512 kernel, as measured on MXNet 1.9.1
    (``MKLDNN_VERBOSE``): float32, 2-D, one group, channels in and out multiples of 16, no dilation; a 1x1
    kernel (``jit_1x1``), a dilation or other channel counts (``gemm:jit``) sum in other orders, and another
    CPU in blocks of another width (not measured: the plain sums stay there), as does an ``adj``."""
    kernel = tuple(attrs["kernel"])
    return (_AVX512 and x.dtype == np.float32 and w.dtype == np.float32 and x.ndim == 4 and len(kernel) == 2
            and attrs["num_group"] == 1 and kernel != (1, 1) and set(dilate) == {1} and not any(adj)
            and x.shape[1] % 16 == 0 and w.shape[1] % 16 == 0)


def _deconv_kernel(inputs, attrs):
    x, w = inputs[0], inputs[1]
    nd = len(attrs["kernel"])
    stride, dilate, pad, adj = _deconv_geometry(attrs, nd)
    work = np.float64 if x.dtype == np.float64 else np.float32  # as Convolution
    direct = exact.enabled() and _onednn_direct_deconv(x, w, attrs, dilate, adj)  # a replay: only on request
    if direct:
        y = kernels.onednn_transposed_convolution(x, w, stride, dilate, pad, adj, 16)
    else:
        y = kernels.transposed_convolution(x.astype(work, copy=False), w.astype(work, copy=False), stride, dilate,
                                           pad, adj, attrs["num_group"])
    if not attrs["no_bias"]:
        y = y + inputs[2].astype(work, copy=False).reshape((1, -1) + (1,) * nd)
    y = y.astype(x.dtype, copy=False)
    # the direct kernel writes oneDNN's blocked layout (``aBcd16b``), which a BatchNorm next rounds otherwise;
    # GEMM's output is plain (MKLDNN_VERBOSE; the BatchNorm's rounding measured after each, eagerly)
    return mark_blocked(y) if direct else y


register(Op("Deconvolution", _deconv_kernel, _deconv_shape, inputs=("data", "weight", "bias"),
            optional_inputs=("bias",),
            params=(P("kernel", "shape"), P("stride", "shape", ()), P("dilate", "shape", ()), P("pad", "shape", ()),
                    P("adj", "shape", ()), P("target_shape", "shape", ()), P("num_filter", "int"),
                    P("num_group", "int", 1), P("workspace", "int", 512), P("no_bias", "bool", True),
                    P("cudnn_tune", "any", None), P("cudnn_off", "bool", False), P("layout", "any", None))))


def _pad_widths(shape, attrs):
    widths = attrs["pad_width"]
    if len(shape) not in (4, 5):
        raise ShapeCheck("Check failed: dshape.ndim() == 4 || dshape.ndim() == 5: Current implementation only supports "
                         "4-D or 5-D input.")
    if len(widths) != 2 * len(shape):
        raise ShapeCheck("Check failed: pad.ndim() == 2 * dshape.ndim(): Input shape vs. pad_width mismatch.")
    if any(widths[:4]):
        raise ShapeCheck("Check failed: Current implementation expects padding on the first two axes to be zero.")
    return [(widths[2 * i], widths[2 * i + 1]) for i in range(len(shape))]


def _pad_kernel(inputs, attrs):
    a = inputs[0]
    widths = _pad_widths(a.shape, attrs)
    mode = attrs["mode"]
    if mode == "constant":
        return np.pad(a, widths, mode="constant", constant_values=attrs["constant_value"])
    return np.pad(a, widths, mode={"edge": "edge", "reflect": "reflect"}[mode])


register(Op("Pad", _pad_kernel, _unary_shape_fn(lambda s, at: tuple(d + a + b for d, (a, b) in zip(s, _pad_widths(s, at)))),
            aliases=("pad",), hint="pad",
            params=(P("mode", ("constant", "edge", "reflect"), "constant"), P("pad_width", "shape"), P("constant_value", "float", 0.0))))


def _upsampling_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if attrs["sample_type"] != "nearest" or len(in_shapes) != 1:
        raise ShapeCheck("hylint.runtime implements UpSampling for one input with sample_type='nearest' only")
    k = attrs["scale"]
    return list(in_shapes), [tuple(s[:2]) + tuple(d * k for d in s[2:])]


def _upsampling_kernel(inputs, attrs):
    a = inputs[0]
    for axis in range(2, a.ndim):
        a = np.repeat(a, attrs["scale"], axis=axis)
    return a


register(Op("UpSampling", _upsampling_kernel, _upsampling_shape, variadic=True,
            params=(P("scale", "int"), P("num_filter", "int", 0), P("sample_type", "str"),
                    P("multi_input_mode", "str", "concat"), P("num_args", "int", 1), P("workspace", "int", 512))))


def _l2norm_axes(ndim, mode):
    if mode == "instance":
        return tuple(range(1, ndim))
    if mode == "channel":
        return (1,)
    if mode == "spatial":
        return tuple(range(2, ndim))
    raise MXNetError("Invalid Input: '%s', valid values are: {'channel', 'instance', 'spatial'}" % mode)


def _l2norm_kernel(inputs, attrs):
    a = inputs[0]
    axes = _l2norm_axes(a.ndim, attrs["mode"])
    norm = np.sqrt(np.sum(np.square(a.astype(np.float64)), axis=axes, keepdims=True) + attrs["eps"])
    return (a / norm).astype(a.dtype)


def _l2norm_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is not None and attrs["mode"] in ("channel", "spatial") and len(s) < 3:
        raise ShapeCheck("Check failed: dshape.ndim() >= 3 (%d vs. 3) : At lease 3 dimensions required in %s mode"
                         % (len(s), attrs["mode"]))
    return list(in_shapes), [s]


register(Op("L2Normalization", _l2norm_kernel, _l2norm_shape, params=(P("eps", "float", 1e-10),
                                                                     P("mode", ("channel", "instance", "spatial"), "instance"))))


def _sequence_mask_kernel(inputs, attrs):
    a = inputs[0].copy()
    if not attrs["use_sequence_length"]:
        return a
    lengths = inputs[1].astype(np.int64)
    axis = attrs["axis"]
    batch_axis = 1 - axis
    steps = np.arange(a.shape[axis])
    mask = steps[:, None] >= lengths[None, :] if axis == 0 else lengths[:, None] <= steps[None, :]
    mask = mask.reshape(mask.shape + (1,) * (a.ndim - 2))
    del batch_axis
    return np.where(mask, np.asarray(attrs["value"], dtype=a.dtype), a)


def _sequence_mask_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if data is not None and attrs["use_sequence_length"] and len(shapes) > 1:
        _assign(shapes, 1, (data[1 - attrs["axis"]],))
    return shapes, [data]


register(Op("SequenceMask", _sequence_mask_kernel, _sequence_mask_shape, inputs=("data", "sequence_length"),
            optional_inputs=("sequence_length",), infer_type=_first_type,
            params=(P("use_sequence_length", "bool", False), P("value", "float", 0.0), P("axis", "int", 0))))


def _gather_nd_shape(in_shapes, attrs):
    data, idx = in_shapes
    if data is None or idx is None:
        return list(in_shapes), [None]
    m = idx[0]
    if m > len(data):
        raise ShapeCheck("Check failed: ishape[0] <= dshape.ndim() (%d vs. %d) : Number of indices exceeds data "
                         "dimension" % (m, len(data)))
    return list(in_shapes), [tuple(idx[1:]) + tuple(data[m:]) or (1,)]


def _gather_nd_kernel(inputs, attrs):
    data, idx = inputs
    idx = idx.astype(np.int64)
    return _at_least_1d(data[tuple(idx[i] for i in range(idx.shape[0]))])


register(Op("gather_nd", _gather_nd_kernel, _gather_nd_shape, inputs=("data", "indices"), infer_type=_first_type))


def _smooth_l1_kernel(inputs, attrs):
    a = inputs[0]
    sigma2 = attrs["scalar"] ** 2
    absolute = np.abs(a)
    return np.where(absolute < 1.0 / sigma2, 0.5 * sigma2 * a * a, absolute - 0.5 / sigma2).astype(a.dtype)


register(Op("smooth_l1", _smooth_l1_kernel, _shape_unary, params=(P("scalar", "float"),), infer_type=_first_type))


def _softmax_ce_kernel(inputs, attrs):
    data, label = inputs
    logp = np.log(_softmax_np(data, -1))
    picked = logp[np.arange(data.shape[0]), label.astype(np.int64)]
    return np.array([-picked.sum()], dtype=data.dtype)


register(Op("softmax_cross_entropy", _softmax_ce_kernel, lambda ins, at: (list(ins), [(1,)]), inputs=("data", "label"),
            infer_type=_first_type))


def _div_sqrt_dim_kernel(inputs, attrs):
    a = inputs[0]
    return (a / np.sqrt(a.shape[-1])).astype(a.dtype)


register(Op("_contrib_div_sqrt_dim", _div_sqrt_dim_kernel, _shape_unary, aliases=("contrib.div_sqrt_dim",),
            hint="div_sqrt_dim"))


def _softmax_output_kernel(inputs, attrs):
    a = inputs[0]
    if attrs["multi_output"]:
        return _own_softmax(a, 1)
    if attrs["preserve_shape"] or a.ndim == 2:  # oneDNN's softmax for float32 of rank 2 or 4 (measured)
        return _onednn_softmax(a) if a.dtype == np.float32 and a.size and a.ndim in (2, 4) else _own_softmax(a, -1)
    return _softmax_np(a.reshape(a.shape[0], -1), -1).reshape(a.shape).astype(a.dtype)


def _softmax_output_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if data is not None and len(shapes) > 1 and shapes[1] is None:
        shapes[1] = (data[0],) if not attrs["multi_output"] else (data[0],) + tuple(data[2:])
    return shapes, [data]


register(Op("SoftmaxOutput", _softmax_output_kernel, _softmax_output_shape, inputs=("data", "label"),
            aliases=("Softmax",), infer_type=_first_type,
            params=(P("grad_scale", "float", 1.0), P("ignore_label", "float", -1.0), P("multi_output", "bool", False),
                    P("use_ignore", "bool", False), P("preserve_shape", "bool", False),
                    P("normalization", "str", "null"), P("out_grad", "bool", False), P("smooth_alpha", "float", 0.0))))


register(Op("argmax_channel", lambda ins, at: _at_least_1d(np.argmax(ins[0], axis=1).astype(np.float32)),
            _unary_shape_fn(lambda s, at: tuple(d for i, d in enumerate(s) if i != 1) or (1,)),
            infer_type=_fixed_type("float32")))


def _batch_take_shape(in_shapes, attrs):
    a, idx = in_shapes
    return list(in_shapes), [None if a is None else (a[0],)]


def _batch_take_type(in_types, attrs):
    if in_types[1] is not None and in_types[1] != "int32":
        raise ShapeCheck("Type inconsistent, Provided = %s, inferred type = int32" % in_types[1])
    return in_types, in_types[0]


register(Op("batch_take", lambda ins, at: ins[0][np.arange(ins[0].shape[0]),
                                               np.clip(ins[1].astype(np.int64), 0, ins[0].shape[1] - 1)],
            _batch_take_shape, inputs=("a", "indices"), infer_type=_batch_take_type))


def _gemm2_operands(a_shape, b_shape, attrs):
    m, k = (a_shape[-1], a_shape[-2]) if attrs["transpose_a"] else (a_shape[-2], a_shape[-1])
    k2, n = (b_shape[-1], b_shape[-2]) if attrs["transpose_b"] else (b_shape[-2], b_shape[-1])
    return m, k, k2, n


def _gemm2_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    m, k, k2, n = _gemm2_operands(a, b, attrs)
    if k != k2 or tuple(a[:-2]) != tuple(b[:-2]):
        raise ShapeCheck("Check failed: Incompatible matrix dimensions in linalg_gemm2: %s x %s"
                         % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(a[:-2]) + (m, n)]


def _gemm2_kernel(inputs, attrs):
    a, b = inputs
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, -1, -2)
    return (attrs["alpha"] * np.matmul(a.astype(np.float64), b)).astype(inputs[0].dtype)


register(Op("_linalg_gemm2", _gemm2_kernel, _gemm2_shape, inputs=("A", "B"), aliases=("linalg_gemm2", "linalg.gemm2"),
            hint="linalg_gemm2", params=(P("transpose_a", "bool", False), P("transpose_b", "bool", False),
                                         P("alpha", "float", 1.0), P("axis", "int", -2))))


def _select_kernel(inputs, attrs):
    """``contrib.cond`` lowered to a select: both branches are computed, the predicate picks one."""
    pred, *branches = inputs
    half = len(branches) // 2
    chosen = branches[:half] if float(np.asarray(pred).reshape(-1)[0]) != 0 else branches[half:]
    return tuple(a.copy() for a in chosen) if half > 1 else chosen[0].copy()


def _select_shape(in_shapes, attrs):
    branches = in_shapes[1:]
    half = len(branches) // 2
    return list(in_shapes), list(branches[:half])


def _select_type(in_types, attrs):
    branches = in_types[1:]
    half = len(branches) // 2
    outs = list(branches[:half])
    return in_types, outs if half > 1 else outs[0]


register(Op("_cond_select", _select_kernel, _select_shape, variadic=True, infer_type=_select_type, hint="_cond",
            num_outputs=lambda at: at["num_outputs"], params=(P("num_outputs", "int", 1), P("num_args", "int", 0)),
            namespaces=()))
