"""Operators the real model libraries need (gluoncv, gluoncv2, gluonnlp, the model zoo) beyond the core table.

They register into the same :data:`ops.OPS` table, with the same shape of definition (kernel, shape rule,
typed attributes as MXNet parses them), and are checked against MXNet's own operators the same way
(``tests/runtime/test_runtime_ops.py``). Ops named ``_contrib_<name>`` appear as ``nd.contrib.<name>`` and
``sym.contrib.<name>``.
"""
import numpy as np

from ..base import shape_str
from .. import rng
from .table import Op, ShapeCheck, _attr_type, _fixed_type, register
from .attrs import P
from .common import _assign_param, _unary_shape_fn, size_mismatch
from .creation import _creation_shape, _target_shape
from .nn import _batch_norm_kernel, _channel_param_shape, _conv_geometry, _conv_shape


# --- normalisation ---------------------------------------------------------------------------------
def _on_axis_1(fn):
    """A BatchNorm rule for an operator that has no ``axis`` attribute (the channel axis is 1)."""
    return lambda first, attrs: fn(first, dict(attrs, axis=1))


def _sync_batch_norm_kernel(inputs, attrs):
    """SyncBatchNorm on a single device is BatchNorm over axis 1 (ndev and key only name the device group), but
    MXNet runs its own kernel, not oneDNN's: in inference ``(gamma / sqrt(var + eps)) * x + (beta - gamma *
    mean / sqrt(var + eps))``, each step rounded (measured bit for bit; BatchNorm's rounding differed on about
    40% of the values)."""
    from .. import autograd
    if autograd.is_training() and not attrs["use_global_stats"]:
        return _batch_norm_kernel(inputs, dict(attrs, axis=1))
    x, gamma, beta, mean, var = inputs
    work = np.float32 if x.dtype in (np.float16, np.float32) else np.float64
    gamma = np.ones(gamma.shape, work) if attrs["fix_gamma"] else gamma.astype(work, copy=False)
    root = np.sqrt(var.astype(work, copy=False) + work(attrs["eps"]))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (gamma / root).reshape(shape) * x.astype(work, copy=False)
    y += (beta.astype(work, copy=False) - gamma * mean.astype(work, copy=False) / root).reshape(shape)
    return y.astype(x.dtype, copy=False)


register(Op("_contrib_SyncBatchNorm", _sync_batch_norm_kernel, _on_axis_1(_channel_param_shape("axis", 4)),
            inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
            hint="syncbatchnorm",
            params=(P("eps", "float", 1e-3), P("momentum", "float", 0.9), P("fix_gamma", "bool", True),
                    P("use_global_stats", "bool", False), P("output_mean_var", "bool", False),
                    P("ndev", "int", 1), P("key", "str", ""))))


# --- image (``nd.image.*``: what ``gluon.data.vision.transforms.ToTensor``/``Normalize`` run) ---------------
def _image_to_tensor_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeCheck("Check failed: (shp.ndim() == 3) || (shp.ndim() == 4): Input image must have shape "
                         "(height, width, channels), or (N, height, width, channels) but got %s" % shape_str(s))
    return list(in_shapes), [tuple(s[:-3]) + (s[-1], s[-3], s[-2])]


def _image_to_tensor_kernel(inputs, attrs):
    x = inputs[0]
    return (np.moveaxis(x, -1, -3).astype(np.float32) / np.float32(255.0)).astype(np.float32)


register(Op("_image_to_tensor", _image_to_tensor_kernel, _image_to_tensor_shape, infer_type=_fixed_type("float32"),
            hint="to_tensor"))


def _channel_values(value, channels):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    return np.array(values * channels if len(values) == 1 else values, dtype=np.float64)


def _image_normalize_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeCheck("Check failed: (dshape.ndim() == 3) || (dshape.ndim() == 4): Input tensor must have shape "
                         "(channels, height, width), or (N, channels, height, width), but got %s" % shape_str(s))
    channels = s[-3]
    for name in ("mean", "std"):
        given = attrs[name] if isinstance(attrs[name], (tuple, list)) else (attrs[name],)
        if len(given) not in (1, channels) and channels <= 4 or len(given) > 4:
            raise ShapeCheck("Check failed: %s.ndim() == 1 || %s.ndim() == nchannels: Invalid %s for input with %d "
                             "channels" % (name, name, name, channels))
    return list(in_shapes), [tuple(s)]


def _image_normalize_kernel(inputs, attrs):
    x = inputs[0]
    c = x.shape[-3]
    mean = _channel_values(attrs["mean"], c)[:c].reshape(c, 1, 1)
    std = _channel_values(attrs["std"], c)[:c].reshape(c, 1, 1)
    return ((x - mean) / std).astype(x.dtype)


register(Op("_image_normalize", _image_normalize_kernel, _image_normalize_shape, hint="normalize",
            params=(P("mean", "any", (0.0, 0.0, 0.0, 0.0)), P("std", "any", (1.0, 1.0, 1.0, 1.0)))))


# --- spatial ---------------------------------------------------------------------------------------------
def _pair(value, default):
    value = tuple(value) if value else ()
    if not value:
        return default
    return value * 2 if len(value) == 1 else value


def _adaptive_pool_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) != 4:
        raise ShapeCheck("Check failed: dshape.ndim() == 4U (%d vs. 4) : AdaptiveAvgPooling2D: Input data should "
                         "be 4D in (batch, channel, y, x)" % len(s))
    return list(in_shapes), [tuple(s[:2]) + _pair(attrs["output_size"], (1, 1))]


def _adaptive_avg_pool_kernel(inputs, attrs):
    """Output cell (i, j) averages rows floor(i*H/oh)..ceil((i+1)*H/oh) and the same for columns, rounded as
    MXNet's kernel does: one running sum in the input's dtype over the window, row by row, then divided by
    the window's width and then by its height (measured bit for bit; a correctly rounded mean was up to 22
    float32 steps away on sknet152's 56x56 windows)."""
    x = inputs[0]
    (h, w), (oh, ow) = x.shape[2:], _pair(attrs["output_size"], (1, 1))
    rows = [(i * h // oh, -(-(i + 1) * h // oh)) for i in range(oh)]
    cols = [(j * w // ow, -(-(j + 1) * w // ow)) for j in range(ow)]
    out = np.empty(x.shape[:2] + (oh, ow), dtype=x.dtype)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            window = x[:, :, r0:r1, c0:c1].reshape(x.shape[:2] + (-1,))
            # an accumulation runs left to right (np.sum would add pairwise)
            total = np.cumsum(window, axis=2, dtype=x.dtype)[:, :, -1]
            out[:, :, i, j] = total / x.dtype.type(c1 - c0) / x.dtype.type(r1 - r0)
    return out


register(Op("_contrib_AdaptiveAvgPooling2D", _adaptive_avg_pool_kernel, _adaptive_pool_shape,
            hint="adaptiveavgpooling2d", params=(P("output_size", "shape", ()),)))


def _resize_target(data, like, attrs):
    mode = attrs["mode"]
    if mode == "like":
        return tuple(like[2:4])
    if mode != "size":
        raise NotImplementedError("hylint.runtime implements BilinearResize2D modes 'size' and 'like', not %r" % mode)
    if attrs["scale_height"] is not None or attrs["scale_width"] is not None:
        return (int(data[2] * attrs["scale_height"]), int(data[3] * attrs["scale_width"]))
    return (attrs["height"], attrs["width"])


def _bilinear_resize_shape(in_shapes, attrs):
    data = in_shapes[0]
    like = in_shapes[1] if len(in_shapes) > 1 else None  # None also when the optional input is absent
    if data is None or (attrs["mode"] == "like" and like is None):
        return list(in_shapes), [None]
    if len(data) != 4:
        raise ShapeCheck("Check failed: dshape.ndim() == 4U (%d vs. 4) : input data should be 4D in batch-num_filter-y-x"
                         % len(data))
    return list(in_shapes), [tuple(data[:2]) + _resize_target(data, like, attrs)]


def _source_positions(size_in, size_out, align_corners):
    """For each output index: the two source indices and the weight of the second."""
    if size_out == 0:  # a scale that rounds a side down to 0: an empty output, as in MXNet
        empty = np.zeros(0, dtype=int)
        return empty, empty, np.zeros(0)
    if align_corners or size_out == 1:  # measured on MXNet 1.9.1: an output size of 1 samples index 0 either way
        scale = (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        pos = np.arange(size_out) * scale
    else:  # pixel centres, clamped at the border
        pos = np.maximum((np.arange(size_out) + 0.5) * (size_in / size_out) - 0.5, 0.0)
    low = np.minimum(np.floor(pos).astype(int), size_in - 1)
    high = np.minimum(low + 1, size_in - 1)
    return low, high, pos - low


def _float32_source_positions(size_in, size_out, align_corners):
    """MXNet's float32 positions: the scale a float division, a pixel centre's source ``scale * (i + 0.5) -
    0.5`` in double rounded to float (clamped at 0), a corner-aligned one ``scale * i`` in float; the two
    weights ``lambda = source - floor`` and ``1 - lambda`` in float."""
    f32 = np.float32
    scale = f32(0) if size_out <= 1 else f32(size_in - 1) / f32(size_out - 1) if align_corners \
        else f32(size_in) / f32(size_out)
    index = np.arange(size_out)
    if align_corners:
        source = scale * index.astype(f32)
    else:
        source = np.maximum((np.float64(scale) * (index + 0.5) - 0.5).astype(f32), f32(0))
    low = source.astype(np.int64)
    high = low + (low < size_in - 1)
    weight = source - low.astype(f32)
    return low, high, f32(1) - weight, weight


def _bilinear_resize_float32(x, oh, ow, align_corners):
    """MXNet's CPU kernel on float32, bit for bit: ``h0 * (w0 * a + w1 * b) + h1 * (w0 * c + w1 * d)`` with the
    float32 weights of :func:`_float32_source_positions` (the float64 interpolation differed by up to 4 float32
    steps on resattnet56's maps)."""
    if (oh, ow) == x.shape[2:]:
        return x.copy()  # MXNet copies a same-size input
    r0, r1, h0, h1 = _float32_source_positions(x.shape[2], oh, align_corners)
    c0, c1, w0, w1 = _float32_source_positions(x.shape[3], ow, align_corners)
    top, bottom = x[:, :, r0], x[:, :, r1]
    h0, h1 = h0[:, None], h1[:, None]
    return h0 * (w0 * top[:, :, :, c0] + w1 * top[:, :, :, c1]) + h1 * (w0 * bottom[:, :, :, c0] + w1 * bottom[:, :, :, c1])


def _bilinear_resize_kernel(inputs, attrs):
    x = inputs[0]
    like = inputs[1] if len(inputs) > 1 else None
    oh, ow = _resize_target(x.shape, None if like is None else like.shape, attrs)
    if x.dtype == np.float32 and oh and ow:
        return _bilinear_resize_float32(x, oh, ow, attrs["align_corners"])
    r0, r1, rw = _source_positions(x.shape[2], oh, attrs["align_corners"])
    c0, c1, cw = _source_positions(x.shape[3], ow, attrs["align_corners"])
    xd = x.astype(np.float64)
    top = xd[:, :, r0] * (1 - rw)[:, None] + xd[:, :, r1] * rw[:, None]
    return (top[:, :, :, c0] * (1 - cw) + top[:, :, :, c1] * cw).astype(x.dtype)


register(Op("_contrib_BilinearResize2D", _bilinear_resize_kernel, _bilinear_resize_shape, inputs=("data", "like"),
            optional_inputs=("like",), hint="bilinearresize2d",
            params=(P("height", "int", 1, minimum=1, doc='output height (required, but ignored if scale_height is '
                      'defined or mode is not "size")'),
                    P("width", "int", 1, minimum=1, doc='output width (required, but ignored if scale_width is '
                      'defined or mode is not "size")'), P("scale_height", "float", None),
                    P("scale_width", "float", None),
                    P("mode", ("size", "like", "odd_scale", "to_even_down", "to_even_up", "to_odd_down",
                               "to_odd_up"), "size"),
                    P("align_corners", "bool", True))))


def _lrn_kernel(inputs, attrs):
    """``x / (knorm + alpha / nsize * sum of x^2 over the nsize neighbouring channels) ** beta``."""
    x = inputs[0].astype(np.float64)
    half = attrs["nsize"] // 2
    squares = np.pad(x * x, [(0, 0), (half, half)] + [(0, 0)] * (x.ndim - 2))
    window = sum(squares[:, k:k + x.shape[1]] for k in range(2 * half + 1))
    return (x / (attrs["knorm"] + attrs["alpha"] / attrs["nsize"] * window) ** attrs["beta"]).astype(inputs[0].dtype)


def _lrn_shape(s, attrs):
    if len(s) != 4:
        raise ShapeCheck("Check failed: dim == ndim() (4 vs. %d) : dimension do not match target dimension 4 vs %d"
                         % (len(s), len(s)))
    return s


register(Op("LRN", _lrn_kernel, _unary_shape_fn(_lrn_shape),
            params=(P("alpha", "float", 1e-4), P("beta", "float", 0.75), P("knorm", "float", 2.0),
                    P("nsize", "int"))))


# --- normalisation over groups of channels -------------------------------------------------------------
def _group_norm_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    if data is None:
        return shapes, [None, None, None]
    if len(data) < 3:
        raise ShapeCheck("Check failed: dshape.ndim() >= 3U (%d vs. 3) : " % len(data))
    groups = attrs["num_groups"]
    for i in (1, 2):
        _assign_param(shapes, i, (groups,), paren=False)
    stats = (data[0], groups)
    return shapes, [tuple(data), stats, stats][:_group_norm_outputs(attrs)]


def _group_norm_kernel(inputs, attrs):
    """Normalises each group of channels over (its channels, all spatial positions); gamma/beta per group."""
    x, gamma, beta = inputs
    n, groups = x.shape[0], attrs["num_groups"]
    grouped = x.astype(np.float64).reshape((n, groups, -1))
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    std = np.sqrt(var + attrs["eps"])
    norm = ((grouped - mean) / std).reshape(x.shape)
    scale = np.repeat(gamma.astype(np.float64), x.shape[1] // groups).reshape((1, -1) + (1,) * (x.ndim - 2))
    shift = np.repeat(beta.astype(np.float64), x.shape[1] // groups).reshape((1, -1) + (1,) * (x.ndim - 2))
    out = (norm * scale + shift).astype(x.dtype)
    if not attrs["output_mean_var"]:
        return out
    return [out, mean.reshape(n, groups).astype(x.dtype), std.reshape(n, groups).astype(x.dtype)]


def _group_norm_outputs(attrs):
    return 3 if attrs["output_mean_var"] else 1


register(Op("GroupNorm", _group_norm_kernel, _group_norm_shape, inputs=("data", "gamma", "beta"),
            num_outputs=_group_norm_outputs,
            params=(P("num_groups", "int", 1), P("eps", "float", 1e-5), P("output_mean_var", "bool", False))))


# --- indices -------------------------------------------------------------------------------------------
def _ravel_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if s[0] != len(attrs["shape"]):
        raise ShapeCheck("Check failed: shape.ndim() == ishape[0] (%d vs. %d) : Number of indices exceeds "
                         "dimension of the target shape" % (len(attrs["shape"]), s[0]))
    return list(in_shapes), [tuple(s[1:]) or (1,)]


def _ravel_kernel(inputs, attrs):
    """Row-major flat index of each column of coordinates (``data[:, j]`` indexes ``shape``)."""
    data = inputs[0]
    strides = np.cumprod((1,) + tuple(attrs["shape"][:0:-1]))[::-1]
    flat = np.tensordot(strides.astype(np.float64), data.astype(np.float64), axes=(0, 0))
    return np.atleast_1d(flat).astype(data.dtype)


register(Op("_ravel_multi_index", _ravel_kernel, _ravel_shape, aliases=("ravel_multi_index",),
            hint="ravel_multi_index", params=(P("shape", "shape"),)))


# --- fused self-attention (gluonnlp's BERT): projections interleaved as (seq, batch, heads, 3, head_dim) ----
def _split_interleaved(qkv, heads):
    """(T, B, heads * 3 * D) -> q, k, v each (B * heads, T, D)."""
    t, b, width = qkv.shape
    d = width // (3 * heads)
    x = qkv.astype(np.float64).reshape(t, b, heads, 3, d).transpose(1, 2, 3, 0, 4).reshape(b * heads, 3, t, d)
    return x[:, 0], x[:, 1], x[:, 2], d


def _interleaved_check(qkv, attrs):
    if len(qkv) != 3:
        raise ShapeCheck("Check failed: q_shape.ndim() == 3U (%d vs. 3) : Input queries_keys_values should be 3D "
                         "in seq_length-batch-proj_dim*3" % len(qkv))
    if qkv[2] % (3 * attrs["heads"]):
        raise ShapeCheck("Check failed: q_shape[2] % 3 == 0 (%d vs. 0) : Last dimension of input "
                         "queries_keys_values should be divisible by 3" % (qkv[2] % 3))


def _selfatt_qk_shape(in_shapes, attrs):
    qkv = in_shapes[0]
    if qkv is None:
        return list(in_shapes), [None]
    _interleaved_check(qkv, attrs)
    return list(in_shapes), [(qkv[1] * attrs["heads"], qkv[0], qkv[0])]


def _selfatt_qk_kernel(inputs, attrs):
    """``q @ k^T / sqrt(head_dim)`` for every (batch, head)."""
    q, k, _, d = _split_interleaved(inputs[0], attrs["heads"])
    return (np.matmul(q, k.transpose(0, 2, 1)) / np.sqrt(d)).astype(inputs[0].dtype)


register(Op("_contrib_interleaved_matmul_selfatt_qk", _selfatt_qk_kernel, _selfatt_qk_shape,
            inputs=("queries_keys_values",), hint="interleaved_matmul_selfatt_qk", params=(P("heads", "int"),)))


def _selfatt_valatt_shape(in_shapes, attrs):
    qkv, att = in_shapes
    if qkv is None:
        return list(in_shapes), [None]
    _interleaved_check(qkv, attrs)
    shapes = list(in_shapes)
    _assign_param(shapes, 1, (qkv[1] * attrs["heads"], qkv[0], qkv[0]), paren=False)
    return shapes, [(qkv[0], qkv[1], qkv[2] // 3)]


def _selfatt_valatt_kernel(inputs, attrs):
    """``attention @ v`` for every (batch, head), back to (seq, batch, heads * head_dim)."""
    qkv, att = inputs
    heads = attrs["heads"]
    _, _, v, d = _split_interleaved(qkv, heads)
    t, b = qkv.shape[:2]
    out = np.matmul(att.astype(np.float64), v).reshape(b, heads, t, d).transpose(2, 0, 1, 3)
    return out.reshape(t, b, heads * d).astype(qkv.dtype)


register(Op("_contrib_interleaved_matmul_selfatt_valatt", _selfatt_valatt_kernel, _selfatt_valatt_shape,
            inputs=("queries_keys_values", "attention"), hint="interleaved_matmul_selfatt_valatt",
            params=(P("heads", "int"),)))


# --- random ----------------------------------------------------------------------------------------------
def _shuffle_kernel(inputs, attrs):
    """The rows (first axis) in a random order from the runtime generator (``mx.random.seed``)."""
    from .. import rng
    a = inputs[0]
    return a[rng.generator().permutation(a.shape[0])] if a.ndim else a.copy()


register(Op("_shuffle", _shuffle_kernel, _unary_shape_fn(lambda s, at: s), hint="shuffle"))


# --- random integers (``nd.random.randint``: gluonnlp's examples draw token ids with it) ----------------------
def _randint_kernel(inputs, attrs):
    low, high = int(attrs["low"]), int(attrs["high"])
    if not low < high:
        raise ShapeCheck("Check failed: param.high > param.low (%d vs. %d) : low must be less than high in "
                         "uniform distribution" % (high, low))
    return rng.generator().randint(low, high, size=_target_shape(attrs)).astype(attrs["dtype"] or "int32")


register(Op("_random_randint", _randint_kernel, _creation_shape, inputs=(), hint="_random_randint",
            params=(P("low", "int"), P("high", "int"), P("shape", "shape", ()), P("ctx", "str", ""),
                    P("dtype", "dtype", "int32")),
            infer_type=_attr_type("int32"), aliases=("random_randint", "random.randint"), needs_input=False))


# --- detection boxes (gluoncv's SSD, YOLOv3 and R-CNN heads) -------------------------------------------------
def _corners(boxes, box_format):
    """(..., 4) boxes as (xmin, ymin, xmax, ymax): ``corner`` as they are, ``center`` is (x, y, w, h)."""
    if box_format == "corner":
        return boxes
    x, y, w, h = (boxes[..., i] for i in range(4))
    return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1)


def _centers(boxes):
    x0, y0, x1, y1 = (boxes[..., i] for i in range(4))
    return np.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], axis=-1)


def _iou_matrix(a, b):
    """Intersection over union of every corner box of ``a`` (n, 4) with every one of ``b`` (m, 4); an area is
    (x1 - x0) * (y1 - y0), negative extents count as empty."""
    a, b = a[:, None, :], b[None, :, :]
    width = np.maximum(0, np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]))
    height = np.maximum(0, np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]))
    inter = width * height
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / union, 0)


def _box_nms_kernel(inputs, attrs):
    """Per batch row: records with score > valid_thresh (and not of background_id), sorted by score (stable,
    descending), the first topk kept; then greedy suppression of every later record whose IoU with a kept
    one exceeds overlap_thresh (same class id unless force_suppress). Kept records first, in score order,
    coordinates in out_format; the remaining rows -1 (measured on MXNet 1.9.1, tests/runtime/test_runtime_boxes.py)."""
    data = inputs[0]
    shape = data.shape
    records = data.reshape((-1,) + shape[-2:])
    out = np.full(records.shape, -1, dtype=data.dtype)
    start, score_at, id_at = attrs["coord_start"], attrs["score_index"], attrs["id_index"]
    for b, rows in enumerate(records):
        scores = rows[:, score_at]
        valid = scores > attrs["valid_thresh"]
        if id_at >= 0 and attrs["background_id"] >= 0:
            valid &= rows[:, id_at] != attrs["background_id"]
        order = np.flatnonzero(valid)
        order = order[np.argsort(-scores[order], kind="stable")]
        if attrs["topk"] > 0:
            order = order[:attrs["topk"]]
        boxes = _corners(rows[order, start:start + 4].astype(np.float32), attrs["in_format"])
        ious = _iou_matrix(boxes, boxes)
        same_class = np.ones_like(ious, dtype=bool) if attrs["force_suppress"] or id_at < 0 \
            else rows[order, id_at][:, None] == rows[order, id_at][None, :]
        alive = np.ones(len(order), dtype=bool)
        for i in range(len(order)):
            if alive[i]:
                alive[i + 1:] &= ~((ious[i, i + 1:] > attrs["overlap_thresh"]) & same_class[i, i + 1:])
        kept = order[alive]
        out[b, :len(kept)] = rows[kept]
        if attrs["in_format"] != attrs["out_format"]:
            corner = _corners(rows[kept, start:start + 4], attrs["in_format"])
            out[b, :len(kept), start:start + 4] = corner if attrs["out_format"] == "corner" else _centers(corner)
    return out.reshape(shape)


def _box_nms_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) < 2:
        raise ShapeCheck("Check failed: shape.ndim() >= 2U (%d vs. 2) : input must have dim >= 2 the last two "
                         "dimensions are num_box and box_width %s" % (len(s), shape_str(s)))
    width = s[-1]
    if not (attrs["score_index"] < width and attrs["coord_start"] + 4 <= width and attrs["id_index"] < width):
        raise ShapeCheck("Check failed: box_nms: score_index, coord_start + 4 and id_index must lie inside the "
                         "last dimension %d" % width)
    return list(in_shapes), [tuple(s)]


_BOX_FORMAT = ("corner", "center")
register(Op("_contrib_box_nms", _box_nms_kernel, _box_nms_shape, hint="box_nms",
            aliases=("_contrib_box_non_maximum_suppression",),
            params=(P("overlap_thresh", "float", 0.5), P("valid_thresh", "float", 0.0), P("topk", "int", -1),
                    P("coord_start", "int", 2), P("score_index", "int", 1), P("id_index", "int", -1),
                    P("background_id", "int", -1), P("force_suppress", "bool", False),
                    P("in_format", "str", "corner"), P("out_format", "str", "corner"))))


def _box_iou_kernel(inputs, attrs):
    lhs, rhs = (_corners(x.astype(np.float64), attrs["format"]) for x in inputs)
    ious = _iou_matrix(lhs.reshape(-1, 4), rhs.reshape(-1, 4))
    return ious.reshape(lhs.shape[:-1] + rhs.shape[:-1]).astype(inputs[0].dtype)


def _box_iou_shape(in_shapes, attrs):
    lhs, rhs = in_shapes
    if lhs is None or rhs is None:
        return list(in_shapes), [None]
    for s in (lhs, rhs):
        if s[-1] != 4:
            raise ShapeCheck("Check failed: lshape[lshape.ndim() - 1] == 4U (%d vs. 4) : last dimension must be "
                             "4 (box coordinates)" % s[-1])
    return list(in_shapes), [tuple(lhs[:-1]) + tuple(rhs[:-1])]


register(Op("_contrib_box_iou", _box_iou_kernel, _box_iou_shape, inputs=("lhs", "rhs"), hint="box_iou",
            params=(P("format", "str", "corner"),)))


# --- box_encode / box_decode (gluoncv's box coders take them when ``F.contrib`` has them; without them gluoncv
# runs another branch: its Python decoder, and in the FPN heads ROIAlign then ``where`` instead of ROIAlign of
# regions masked to batch index -1, whose zeroed values MXNet's outputs carry; measured on MXNet 1.9.1) ---------
def _center_form(boxes, half):
    """(x, y, width, height) of corner boxes, in their own dtype: ``x = xmin + (xmax - xmin) * 0.5``."""
    width, height = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + width * half, boxes[..., 1] + height * half, width, height


def _box_decode_kernel(inputs, attrs):
    data, anchors = inputs
    n = data.shape[1]
    if anchors.size != n * 4:  # MXNet reads the anchors as (1, n, 4), whatever their shape
        raise size_mismatch(anchors.size, n * 4)
    kind = data.dtype.type
    anchors = anchors.reshape(1, n, 4)
    if attrs["format"] == "corner":
        ax, ay, aw, ah = _center_form(anchors, kind(0.5))
    else:
        ax, ay, aw, ah = (anchors[..., k] for k in range(4))
    stds = [kind(attrs["std%d" % k]) for k in range(4)]
    with np.errstate(all="ignore"):
        ox = data[..., 0] * stds[0] * aw + ax
        oy = data[..., 1] * stds[1] * ah + ay
        dw, dh = data[..., 2] * stds[2], data[..., 3] * stds[3]
        if attrs["clip"] > 0:  # ``dw < clip ? dw : clip``: a NaN becomes the clip
            clip = kind(attrs["clip"])
            dw, dh = np.where(dw < clip, dw, clip), np.where(dh < clip, dh, clip)
        # the kernel's exp is libm's double exp, rounded to the dtype when assigned
        dw, dh = (np.exp(v.astype(np.float64)).astype(kind) for v in (dw, dh))
        ow, oh = dw * aw * kind(0.5), dh * ah * kind(0.5)
        return np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(kind, copy=False)


def _box_decode_shape(in_shapes, attrs):
    data, anchors = in_shapes
    if data is not None:
        if len(data) != 3:
            raise ShapeCheck("Check failed: dshape.ndim() == 3 (%d vs. 3) : data shape must have dim == 3, %d provided"
                             % (len(data), len(data)))
        if data[-1] != 4:
            raise ShapeCheck("Check failed: ldim == 4 (%d vs. 4) : last dimension of data must be 4, %d provided"
                             % (data[-1], data[-1]))
    if anchors is not None:
        if len(anchors) < 3:
            raise ShapeCheck("Check failed: ashape.ndim() >= 3 (%d vs. 3) : anchors shape must have dim == 3, %d "
                             "provided" % (len(anchors), len(anchors)))
        if anchors[-1] != 4:
            raise ShapeCheck("Check failed: ldim == 4 (%d vs. 4) : last dimension of anchors must be 4, %d provided"
                             % (anchors[-1], anchors[-1]))
    return list(in_shapes), [None if data is None else tuple(data)]


register(Op("_contrib_box_decode", _box_decode_kernel, _box_decode_shape, inputs=("data", "anchors"),
            hint="box_decode", params=(P("std0", "float", 1.0), P("std1", "float", 1.0), P("std2", "float", 1.0),
                                       P("std3", "float", 1.0), P("clip", "float", -1.0),
                                       P("format", "str", "center"))))


def _box_encode_kernel(inputs, attrs):
    samples, matches, anchors, refs, means, stds = inputs
    kind = anchors.dtype.type
    batch, n = anchors.shape[:2]
    samples, matches = samples.reshape(batch, n), matches.reshape(batch, n)
    anchors, refs = anchors.reshape(batch, n, 4), refs.reshape(batch, -1, 4)
    # a sample's match indexes its batch's refs (the index truncated from the float); an unmatched sample's
    # index (-1) is read too, but its targets are 0, so it reads ref 0 here
    index = np.clip(matches.astype(np.int64), 0, refs.shape[1] - 1)
    matched = np.take_along_axis(refs, index[..., None], axis=1)
    half = kind(0.5)
    rx, ry, rw, rh = _center_form(matched, half)
    ax, ay, aw, ah = _center_form(anchors, half)
    valid = samples > 0.5
    with np.errstate(all="ignore"):
        # x and y in the dtype; the sizes through libm's double log, the rest of their expression in double too
        tx = ((rx - ax) / aw - means[0]) / stds[0]
        ty = ((ry - ay) / ah - means[1]) / stds[1]
        tw = (np.log((rw / aw).astype(np.float64)) - np.float64(means[2])) / np.float64(stds[2])
        th = (np.log((rh / ah).astype(np.float64)) - np.float64(means[3])) / np.float64(stds[3])
        targets = np.stack([tx, ty, tw.astype(kind), th.astype(kind)], axis=-1)
    targets = np.where(valid[..., None], targets, kind(0)).astype(kind, copy=False)
    masks = np.repeat(valid[..., None], 4, axis=-1).astype(kind)
    return targets, masks


def _box_encode_shape(in_shapes, attrs):
    samples, matches, anchors, refs = in_shapes[:4]

    def check(ok, message, *values):
        if not ok:
            raise ShapeCheck("Check failed: " + message % values)

    if samples is not None:
        check(len(samples) == 2, "sshape.ndim() == 2 (%d vs. 2) : samples shape must have dim == 2, %d provided",
              len(samples), len(samples))
    if matches is not None:
        check(len(matches) >= 2, "mshape.ndim() >= 2 (%d vs. 2) : matches shape must have dim == 2, %d provided",
              len(matches), len(matches))
    for shape, name, text in ((anchors, "ashape", "matches shape must have dim == 3"),
                              (refs, "rshape", "refs shape must have dim == 3")):
        if shape is None:
            continue
        # the refs message prints the anchors' rank (MXNet's own slip)
        shown = len(anchors) if shape is refs and anchors is not None else len(shape)
        check(len(shape) >= 3, "%s.ndim() >= 3 (%d vs. 3) : %s, %d provided", name, len(shape), text, shown)
        check(shape[-1] == 4, "ldim == 4 (%d vs. 4) : last dimension of anchors must be 4, %d provided",
              shape[-1], shape[-1])
    shapes = list(in_shapes)
    for k in (4, 5):  # means and stds
        _assign_param(shapes, k, (4,), message="Shape inconsistent, Provided = %s, inferred shape=(4,)")
    out = None if anchors is None else tuple(anchors)
    return shapes, [out, out]


register(Op("_contrib_box_encode", _box_encode_kernel, _box_encode_shape,
            inputs=("samples", "matches", "anchors", "refs", "means", "stds"), num_outputs=2, hint="box_encode"))



# --- ROIAlign (gluoncv's Mask R-CNN heads) -------------------------------------------------------------------
def _roi_axis_weights(start, bin_size, pooled, grid, size):
    """(pooled * grid, size) bilinear weights of the sample points along one axis of a region: sample ``i`` of
    bin ``p`` sits at ``start + p * bin + (i + 0.5) * bin / grid``; a point beyond ``[-1, size]`` weighs nothing,
    one below 0 reads row 0, one at or past the last row reads the last row alone (MXNet's CPU kernel)."""
    steps = (np.arange(pooled)[:, None] * bin_size + (np.arange(grid)[None, :] + 0.5) * bin_size / grid).reshape(-1)
    pos = start + steps
    weights = np.zeros((pos.size, size))
    inside = (pos >= -1.0) & (pos <= size)
    pos = np.clip(pos, 0.0, None)
    low = np.floor(pos).astype(np.int64)
    last = low >= size - 1
    low = np.where(last, size - 1, low)
    high = np.where(last, size - 1, low + 1)
    frac = np.where(last, 0.0, pos - low)
    rows = np.arange(pos.size)
    np.add.at(weights, (rows, low), np.where(inside, 1.0 - frac, 0.0))
    np.add.at(weights, (rows, high), np.where(inside, frac, 0.0))
    return weights


def _roi_align_kernel(inputs, attrs):
    data, rois = inputs
    (ph, pw), scale, ratio = attrs["pooled_size"], attrs["spatial_scale"], attrs["sample_ratio"]
    n, channels, height, width = data.shape
    offset = 0.5 if attrs["aligned"] else 0.0
    out_channels = channels // (ph * pw) if attrs["position_sensitive"] else channels
    out = np.zeros((rois.shape[0], out_channels, ph, pw), dtype=np.float64)
    for r, roi in enumerate(rois.astype(np.float64)):
        batch = int(roi[0])
        if batch < 0 or batch >= n:
            continue
        x0, y0, x1, y1 = (v * scale - offset for v in roi[1:5])
        roi_w, roi_h = x1 - x0, y1 - y0
        if not attrs["aligned"]:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        grid_h = ratio if ratio > 0 else int(np.ceil(roi_h / ph))
        grid_w = ratio if ratio > 0 else int(np.ceil(roi_w / pw))
        if grid_h * grid_w == 0:
            continue
        wy = _roi_axis_weights(y0, roi_h / ph, ph, grid_h, height)
        wx = _roi_axis_weights(x0, roi_w / pw, pw, grid_w, width)
        # only the rows and columns a sample point reads (the kernel reads nothing else), as two matrix
        # products: an einsum over the whole map took 0.16 s per region on an FPN level (Faster R-CNN FPN:
        # 650 of 680 s of a forward); the sums are in float64, so their order does not show in float32
        rows, cols = np.flatnonzero(wy.any(axis=0)), np.flatnonzero(wx.any(axis=0))
        if rows.size and cols.size:
            top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
            window = data[batch, :, top:bottom, left:right].astype(np.float64)
            samples = np.matmul(wy[:, top:bottom], np.matmul(window, wx[:, left:right].T))
        else:
            samples = np.zeros((channels, wy.shape[0], wx.shape[0]))
        pooled = samples.reshape(channels, ph, grid_h, pw, grid_w).mean(axis=(2, 4))
        if attrs["position_sensitive"]:  # output channel c of bin (i, j) reads input channel (c * ph + i) * pw + j
            c, i, j = np.meshgrid(np.arange(out_channels), np.arange(ph), np.arange(pw), indexing="ij")
            pooled = pooled[(c * ph + i) * pw + j, i, j]
        out[r] = pooled
    # MXNet 1.9.1 marks a region of negative batch index by zeroing the r-th value of the whole output (inside
    # region 0's block when a region has more values than there are regions) and leaves the region's own block
    # unwritten (fresh memory: zeros; in a hybridized graph a reused buffer's values, not reproduced). Measured
    # with one thread, where its loop over regions runs in order: every such zero lands after its owner's values.
    flat = out.reshape(-1)
    flat[np.flatnonzero(rois[:, 0] < 0)] = 0
    return out.astype(data.dtype)


def _roi_align_shape(in_shapes, attrs):
    data, rois = in_shapes
    if data is None or rois is None:
        return list(in_shapes), [None]
    if len(data) != 4:
        raise ShapeCheck("Check failed: dshape.ndim() == 4U (%d vs. 4) : data should be a 4D tensor" % len(data))
    if len(rois) != 2 or rois[1] != 5:
        raise ShapeCheck("Check failed: bshape.ndim() == 2U && bshape[1] == 5U : bbox should be a 2D tensor of "
                         "shape [batch, 5]")
    ph, pw = attrs["pooled_size"]
    if attrs["position_sensitive"] and data[1] % (ph * pw):
        raise ShapeCheck("Check failed: dshape[1] % (param.pooled_size[0]*param.pooled_size[1]) == 0 (%d vs. 0) : "
                         "Input channels should be divided by pooled_size[0]*pooled_size[1]when position_sensitive "
                         "is true." % (data[1] % (ph * pw)))
    channels = data[1] // (ph * pw) if attrs["position_sensitive"] else data[1]
    return list(in_shapes), [(rois[0], channels, ph, pw)]


register(Op("_contrib_ROIAlign", _roi_align_kernel, _roi_align_shape, inputs=("data", "rois"), hint="roialign",
            params=(P("pooled_size", "shape"), P("spatial_scale", "float"), P("sample_ratio", "int", -1),
                    P("position_sensitive", "bool", False), P("aligned", "bool", False))))

# --- deformable convolution (gluon.contrib.cnn: gluoncv's CenterNet DCNv2 heads) -----------------------------
def _bilinear_taps(plane, h, w, modulated):
    """``plane`` (N, G, Cg, H, W) sampled at the real positions ``h``, ``w`` (N, G, Ho, Wo) -> (N, G, Cg, Ho, Wo),
    bilinear between the four neighbours, as MXNet's two im2col kernels do. Modulated (DCNv2): 0 unless
    -1 < h < H and -1 < w < W, a neighbour outside the image counting 0. Plain (DCNv1): 0 unless 0 <= h < H and
    0 <= w < W, and a position in the last row (column) samples that row (column) alone."""
    n, g, cg, height, width = plane.shape
    if modulated:
        inside = (h > -1) & (w > -1) & (h < height) & (w < width)
    else:
        inside = (h >= 0) & (w >= 0) & (h < height) & (w < width)
        h, w = np.where(np.floor(h) >= height - 1, height - 1, h), np.where(np.floor(w) >= width - 1, width - 1, w)
    h_low, w_low = np.floor(h), np.floor(w)
    lh, lw = h - h_low, w - w_low
    h_low, w_low = h_low.astype(np.int64), w_low.astype(np.int64)
    batch = np.arange(n)[:, None, None, None]
    group = np.arange(g)[None, :, None, None]
    out = np.zeros((n, g, h.shape[2], h.shape[3], cg), dtype=np.float64)
    for dh, dw, weight in ((0, 0, (1 - lh) * (1 - lw)), (0, 1, (1 - lh) * lw), (1, 0, lh * (1 - lw)), (1, 1, lh * lw)):
        rows, cols = h_low + dh, w_low + dw
        valid = inside & (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
        values = plane[batch, group, :, np.clip(rows, 0, height - 1), np.clip(cols, 0, width - 1)]
        out += np.where(valid, weight, 0)[..., None] * values
    return np.moveaxis(out, -1, 2)


def _deformable_conv_kernel(inputs, attrs, modulated):
    x, offset = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    mask = inputs[2].astype(np.float64) if modulated else None
    weight = inputs[3 if modulated else 2]
    (kh, kw), stride, dilate, pad = tuple(attrs["kernel"]), *_conv_geometry(attrs, 2)
    n, c, height, width = x.shape
    dg, groups, nf = attrs["num_deformable_group"], attrs["num_group"], attrs["num_filter"]
    ho, wo = offset.shape[2:]
    taps = kh * kw
    offset = offset.reshape(n, dg, taps, 2, ho, wo)
    plane = x.reshape(n, dg, c // dg, height, width)
    cols = np.empty((n, dg, c // dg, taps, ho, wo))
    rows0 = (np.arange(ho) * stride[0] - pad[0])[:, None]
    cols0 = (np.arange(wo) * stride[1] - pad[1])[None, :]
    for tap in range(taps):
        i, j = divmod(tap, kw)
        sampled = _bilinear_taps(plane, rows0 + i * dilate[0] + offset[:, :, tap, 0],
                                 cols0 + j * dilate[1] + offset[:, :, tap, 1], modulated)
        if mask is not None:
            sampled *= mask.reshape(n, dg, taps, ho, wo)[:, :, tap][:, :, None]
        cols[:, :, :, tap] = sampled
    # (N, C*K, L) against the weight (G, F/G, C/G*K): a convolution over the sampled columns
    cols = cols.reshape(n, groups, (c // groups) * taps, ho * wo)
    out = np.matmul(weight.astype(np.float64).reshape(groups, nf // groups, -1), cols).reshape(n, nf, ho, wo)
    if not attrs["no_bias"]:
        out += inputs[-1].astype(np.float64).reshape(1, nf, 1, 1)
    return out.astype(inputs[0].dtype)


def _deformable_conv_shape(modulated):
    def rule(in_shapes, attrs):
        shapes = list(in_shapes)
        data = shapes[0]
        if data is None:
            return shapes, [None]
        kernel = tuple(attrs["kernel"])
        if len(data) != 4:
            raise ShapeCheck("Check failed: dshp.ndim() == 4U (%d vs. 4) : Input data should be 4D in "
                             "batch-num_filter-y-x" % len(data))
        conv_shapes, [out] = _conv_shape([data, shapes[3 if modulated else 2]] +
                                         ([shapes[-1]] if not attrs["no_bias"] else []), attrs)
        shapes[3 if modulated else 2] = conv_shapes[1]
        if not attrs["no_bias"]:
            shapes[-1] = conv_shapes[2]
        taps, dg = kernel[0] * kernel[1], attrs["num_deformable_group"]
        _assign_param(shapes, 1, (data[0], 2 * taps * dg) + tuple(out[2:]))
        if modulated:
            _assign_param(shapes, 2, (data[0], taps * dg) + tuple(out[2:]))
        return shapes, [out]
    return rule


_DEFORMABLE_PARAMS = (P("kernel", "shape"), P("stride", "shape", ()), P("dilate", "shape", ()), P("pad", "shape", ()),
                      P("num_filter", "int"), P("num_group", "int", 1), P("num_deformable_group", "int", 1),
                      P("workspace", "int", 1024), P("no_bias", "bool", False), P("layout", "any", None))
register(Op("_contrib_DeformableConvolution", lambda ins, at: _deformable_conv_kernel(ins, at, False),
            _deformable_conv_shape(False), inputs=("data", "offset", "weight", "bias"), optional_inputs=("bias",),
            hint="deformableconvolution", params=_DEFORMABLE_PARAMS))
register(Op("_contrib_ModulatedDeformableConvolution", lambda ins, at: _deformable_conv_kernel(ins, at, True),
            _deformable_conv_shape(True), inputs=("data", "offset", "mask", "weight", "bias"),
            optional_inputs=("bias",), hint="modulateddeformableconvolution",
            params=_DEFORMABLE_PARAMS + (P("im2col_step", "int", 64),)))
