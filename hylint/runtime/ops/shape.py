"""Shape manipulation: reshape, transpose, concat/split, slicing, take/pick/where, broadcasting, casting."""
import numpy as np

from ..base import MXNetError, shape_str
from .table import InferFailed, Op, ShapeCheck, UnwrappedCheck, _attr_type, _first_type, _fixed_type, register
from .attrs import P
from .common import _at_least_1d, _shape_same, _shape_unary, _unary_shape_fn, size_mismatch


# ----------------------------------------------------------------------------------------------
# shape manipulation
# ----------------------------------------------------------------------------------------------
def reshape_target(src, spec, reverse=False):
    """MXNet's legacy reshape codes 0 / -1 / -2 / -3 / -4 (optionally applied right-to-left)."""
    src = list(src)
    spec = list(spec)
    if reverse:  # MXNet simply reverses both lists, runs the same algorithm, reverses the result
        src, spec = src[::-1], spec[::-1]
    out, i, j, infer_at = [], 0, 0, None
    while i < len(spec):
        code = spec[i]
        if code > 0:
            out.append(code)
            j += 1
        elif code == 0:
            if j >= len(src):
                raise ShapeCheck("Check failed: src_idx < dshape.ndim()")
            out.append(src[j])
            j += 1
        elif code == -1:
            if infer_at is not None:
                raise ShapeCheck("Check failed: inf_idx < 0 (%d vs. 0) : One and only one dim can be inferred" % infer_at)
            infer_at = len(out)
            out.append(1)
            j += 1
        elif code == -2:
            out.extend(src[j:])
            j = len(src)
        elif code == -3:
            if j + 1 >= len(src):
                raise ShapeCheck("Check failed: src_idx < dshape.ndim() - 1")
            out.append(src[j] * src[j + 1])
            j += 2
        elif code == -4:
            if j >= len(src) or i + 2 >= len(spec):
                raise ShapeCheck("Check failed: i + 2 < params.shape.ndim()")
            d0, d1 = spec[i + 1], spec[i + 2]
            if d0 == -1:
                d0 = src[j] // d1
            if d1 == -1:
                d1 = src[j] // d0
            if d0 * d1 != src[j]:
                raise ShapeCheck("Check failed: d1 * d2 == dshape[src_idx] (%d vs. %d) : Split dims %d, %d do not "
                                 "divide original dim %d" % (d0 * d1, src[j], d0, d1, src[j]))
            out.extend([d0, d1])
            i += 2
            j += 1
        else:
            raise ShapeCheck("Check failed: Invalid special code %d in reshape" % code)
        i += 1
    total = int(np.prod(src)) if src else 1
    if infer_at is not None:
        # MXNet 1.9 infers -1 by integer division and never checks the total size: (7, -1) of 6 elements is (7, 0)
        rest = int(np.prod([d for k, d in enumerate(out) if k != infer_at])) if len(out) > 1 else 1
        if rest == 0:
            raise ShapeCheck("Check failed: oshape.Size() != 0: Cannot infer the -1 dim of a reshape to a "
                             "zero-size shape %s" % shape_str(out))
        out[infer_at] = total // rest
    if reverse:
        out = out[::-1]
    return tuple(out)


def _legacy_target(src, target, keep_highest):
    """The deprecated ``target_shape`` (read only when ``shape`` is empty): ``keep_highest`` copies the first
    dim, and a single 0 among the others is inferred by integer division; no size check, as in MXNet 1.9.1."""
    out = list(target)
    if keep_highest:
        out[0] = src[0]
    zeros = [i for i in range(1 if keep_highest else 0, len(out)) if out[i] == 0]
    if len(zeros) == 1:
        out[zeros[0]] = 1
        out[zeros[0]] = int(np.prod(src)) // int(np.prod(out))
    return tuple(out)


def _reshape_out(src, attrs):
    if attrs["shape"] or not attrs["target_shape"]:
        return reshape_target(src, attrs["shape"], attrs["reverse"])
    return _legacy_target(src, attrs["target_shape"], attrs["keep_highest"])


def _reshape_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    return list(in_shapes), [_reshape_out(s, attrs)]


def _reshape_kernel(inputs, attrs):
    a = inputs[0]
    target = _reshape_out(a.shape, attrs)
    if int(np.prod(target)) == a.size:
        return a.reshape(target)
    # the operator copies min(sizes) elements; MXNet leaves the rest uninitialised (zeros here)
    out = np.zeros(int(np.prod(target)), dtype=a.dtype)
    n = min(out.size, a.size)
    out[:n] = a.reshape(-1)[:n]
    return out.reshape(target)


register(Op("Reshape", _reshape_kernel, _reshape_shape, aliases=("reshape",), hint="reshape",
            # target_shape and keep_highest: MXNet 1.9.1's deprecated parameters, still parsed (so the positional
            # x.reshape(0, 0, 2, -1) of a Symbol binds -1 to keep_highest and fails at parsing, as measured)
            params=(P("shape", "shape", ()), P("reverse", "bool", False), P("target_shape", "shape", ()),
                    P("keep_highest", "bool", False))))


def _span(ndim, begin, end):
    """``[begin, end)`` of ``ndim`` axes as MXNet's reshape_like reads it: None for the whole, negatives wrap."""
    begin = 0 if begin is None else begin + ndim if begin < 0 else begin
    end = ndim if end is None else end + ndim if end < 0 else end
    return begin, end


def _reshape_like_target(a, b, attrs):
    """lhs's axes [lhs_begin, lhs_end) replaced by rhs's axes [rhs_begin, rhs_end) (default: all of them)."""
    lb, le = _span(len(a), attrs.get("lhs_begin"), attrs.get("lhs_end"))
    rb, re_ = _span(len(b), attrs.get("rhs_begin"), attrs.get("rhs_end"))
    return tuple(a[:lb]) + tuple(b[rb:re_]) + tuple(a[le:])


def _reshape_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    target = _reshape_like_target(a, b, attrs)
    if int(np.prod(a)) != int(np.prod(target)):
        raise ShapeCheck("Check failed: (*in_attrs)[0].Size() == oshape.Size() (%d vs. %d) : Cannot reshape lhs with "
                         "shape %sto new shape %s because they have different size."
                         % (np.prod(a), np.prod(target), shape_str(a), shape_str(target)))
    return list(in_shapes), [target]


register(Op("reshape_like", lambda ins, at: ins[0].reshape(_reshape_like_target(ins[0].shape, ins[1].shape, at)),
            _reshape_like_shape, inputs=("lhs", "rhs"), infer_type=_first_type,
            params=(P("lhs_begin", "opt_int", None), P("lhs_end", "opt_int", None),
                    P("rhs_begin", "opt_int", None), P("rhs_end", "opt_int", None))))


def _flatten(s, attrs):
    return (s[0], int(np.prod(s[1:]))) if len(s) > 1 else (s[0], 1)


register(Op("Flatten", lambda ins, at: ins[0].reshape(_flatten(ins[0].shape, at)), _unary_shape_fn(_flatten),
            aliases=("flatten",), hint="flatten"))


def _transpose_axes(s, attrs):
    axes = attrs["axes"]
    if not axes:
        return tuple(reversed(range(len(s))))
    if len(axes) != len(s):
        # MXNet walks the data dims and indexes ``axes`` out of range first
        raise UnwrappedCheck("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)"
                         % (len(axes), len(axes)))
    for a in axes:
        if not 0 <= a < len(s):
            raise ShapeCheck("Check failed: i >= 0 && i < ndim(): index = %d must be in range [0, %d)" % (a, len(s)))
    return tuple(axes)


register(Op("transpose", lambda ins, at: np.ascontiguousarray(np.transpose(ins[0], _transpose_axes(ins[0].shape, at))),
            _unary_shape_fn(lambda s, at: tuple(s[a] for a in _transpose_axes(s, at))),
            params=(P("axes", "shape", ()),)))


def _swap(s, attrs):
    s = list(s)
    d1, d2 = attrs["dim1"], attrs["dim2"]
    s[d1], s[d2] = s[d2], s[d1]
    return tuple(s)


register(Op("SwapAxis", lambda ins, at: np.ascontiguousarray(np.swapaxes(ins[0], at["dim1"], at["dim2"])),
            _unary_shape_fn(_swap), aliases=("swapaxes",), hint="swapaxes",
            params=(P("dim1", "int", 0), P("dim2", "int", 0))))


def _expand(s, attrs):
    axis = attrs["axis"]
    n = len(s) + 1
    if not -n <= axis < n:
        raise ShapeCheck("Check failed: axis >= 0 && axis <= indim: axis must be in the range [-%d, %d] (%d provided)"
                         % (len(s), len(s), axis))
    axis %= n
    return s[:axis] + (1,) + s[axis:]


register(Op("expand_dims", lambda ins, at: ins[0].reshape(_expand(ins[0].shape, at)), _unary_shape_fn(_expand),
            params=(P("axis", "int"),)))


def _squeeze(s, attrs):
    axis = attrs["axis"]
    if axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = [a % len(s) for a in axis]
        for a in axes:
            if s[a] != 1:
                raise ShapeCheck("Check failed: dshape[axes[i]] == 1 (%d vs. 1) : cannot select an axis to squeeze "
                                 "out which has size=%d not equal to one" % (s[a], s[a]))
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return out or (1,)


register(Op("squeeze", lambda ins, at: ins[0].reshape(_squeeze(ins[0].shape, at)), _unary_shape_fn(_squeeze),
            params=(P("axis", "axis", None),)))


def _concat_shape(in_shapes, attrs):
    dim = attrs["dim"]
    known = [s for s in in_shapes if s is not None]
    if not known:
        return list(in_shapes), [None]
    ndim = len(known[0])
    axis = dim % ndim
    total = 0
    for i, s in enumerate(in_shapes):
        if s is None:
            return list(in_shapes), [None]
        if len(s) != ndim or any(a != b for k, (a, b) in enumerate(zip(s, known[0])) if k != axis):
            raise ShapeCheck("Check failed: shape_assign(&(*in_shape)[i], dshape): Incompatible input shape: expected "
                             "%s, got %s" % (shape_str(tuple(-1 if k == axis else d for k, d in enumerate(known[0]))),
                                             shape_str(s)))
        total += s[axis]
    out = tuple(total if k == axis else d for k, d in enumerate(known[0]))
    return list(in_shapes), [out]


register(Op("Concat", lambda ins, at: np.concatenate(ins, axis=at["dim"]), _concat_shape, variadic=True,
            aliases=("concat",), hint="concat", params=(P("dim", "int", 1), P("num_args", "int", 0))))


def _stack_shape(in_shapes, attrs):
    # MXNet infers the output from the first input and only notices a mismatch when the kernel runs
    shapes = list(in_shapes)
    ref = next((s for s in shapes if s is not None), None)
    if ref is None:
        return shapes, [None]
    axis = attrs["axis"] % (len(ref) + 1)
    return shapes, [ref[:axis] + (len(shapes),) + ref[axis:]]


def _stack_kernel(inputs, attrs):
    for a in inputs[1:]:
        if a.shape != inputs[0].shape:
            raise size_mismatch(a.size, inputs[0].size)
    return np.stack(inputs, axis=attrs["axis"])


register(Op("stack", _stack_kernel, _stack_shape, variadic=True,
            params=(P("axis", "int", 0), P("num_args", "int", 0))))


def _add_n_kernel(inputs, attrs):
    out = inputs[0].copy()
    for a in inputs[1:]:
        out = out + a
    return out.astype(inputs[0].dtype)


register(Op("add_n", _add_n_kernel, _shape_same, variadic=True, aliases=("ElementWiseSum",),
            params=(P("num_args", "int", 0),)))


def _split_outputs(attrs):
    return attrs["num_outputs"]


def _split_shape(in_shapes, attrs):
    s = in_shapes[0]
    n = attrs["num_outputs"]
    if s is None:
        return list(in_shapes), [None] * n
    axis = attrs["axis"] % len(s)
    if s[axis] % n:
        raise ShapeCheck("Check failed: dshape[real_axis] %% param_.num_outputs == 0U (%d vs. 0) : You are trying to split "
                         "the %d-th axis of input tensor with shape %s into num_outputs=%d evenly sized chunks, but "
                         "this is not possible because %d is not a multiple of %d"
                         % (s[axis] % n, axis, shape_str(s), n, s[axis], n))
    part = tuple(s[axis] // n if k == axis else d for k, d in enumerate(s))
    if attrs["squeeze_axis"]:
        if part[axis] != 1:
            raise ShapeCheck("Check failed: dshape[real_axis] == num_outputs: If squeeze axis is True, the size of "
                             "the sliced axis must be the same as num_outputs.")
        part = part[:axis] + part[axis + 1:] or (1,)
    return list(in_shapes), [part] * n


def _split_kernel(inputs, attrs):
    a = inputs[0]
    axis = attrs["axis"] % a.ndim
    parts = np.split(a, attrs["num_outputs"], axis=axis)
    if attrs["squeeze_axis"]:
        parts = [_at_least_1d(np.squeeze(p, axis=axis)) for p in parts]
    return tuple(np.ascontiguousarray(p) for p in parts)


register(Op("SliceChannel", _split_kernel, _split_shape, num_outputs=_split_outputs, aliases=("split",), hint="split",
            params=(P("num_outputs", "int"), P("axis", "int", 1), P("squeeze_axis", "bool", False))))


def _slice_bounds(shape, attrs):
    begin, end = attrs["begin"], attrs["end"]
    step = attrs["step"] or ()
    if len(begin) != len(end):
        raise ShapeCheck("Check failed: param.begin.ndim() == param.end.ndim() (%d vs. %d)" % (len(begin), len(end)))
    if len(begin) > len(shape):
        raise ShapeCheck("Check failed: param_begin.ndim() <= dshape.ndim() (%d vs. %d) : Slicing axis exceeds data "
                         "dimensions" % (len(begin), len(shape)))
    slices = []
    for i in range(len(shape)):
        if i < len(begin):
            st = step[i] if i < len(step) and step[i] is not None else 1
            slices.append(slice(begin[i], end[i], st))
        else:
            slices.append(slice(None))
    return tuple(slices)


def _slice_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    sl = _slice_bounds(s, attrs)
    out = tuple(len(range(*k.indices(d))) for k, d in zip(sl, s))
    if any(d == 0 for d in out):
        raise ShapeCheck("Check failed: b < e (slice result is empty): slice %s of shape %s" % (sl, shape_str(s)))
    return list(in_shapes), [out]


register(Op("slice", lambda ins, at: np.ascontiguousarray(ins[0][_slice_bounds(ins[0].shape, at)]), _slice_shape,
            aliases=("crop",),
            params=(P("begin", "opt_tuple"), P("end", "opt_tuple"), P("step", "opt_tuple", ()))))


def _slice_axis_bounds(shape, attrs):
    axis = attrs["axis"]
    if not -len(shape) <= axis < len(shape):
        transformed = axis + len(shape) if axis < 0 else axis
        raise ShapeCheck("Check failed: *axis < ishape.ndim() && *axis >= 0: Transformed axis must be smaller than the "
                         "source ndim and larger than zero! Recieved axis=%d, src_ndim=%d, transformed axis=%d"
                         % (axis, len(shape), transformed))
    axis %= len(shape)
    d = shape[axis]
    begin, end = attrs["begin"], attrs["end"]
    b = begin + d if begin < 0 else begin
    e = d if end is None else (end + d if end < 0 else end)
    if not (0 <= b < e <= d):
        raise ShapeCheck("Check failed: (*begin < *end): Invalid begin, end, get begin=%d, end=%d" % (b, e))
    return axis, b, e


def _slice_axis_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    axis, b, e = _slice_axis_bounds(s, attrs)
    return list(in_shapes), [tuple(e - b if k == axis else d for k, d in enumerate(s))]


def _slice_axis_kernel(inputs, attrs):
    a = inputs[0]
    axis, b, e = _slice_axis_bounds(a.shape, attrs)
    return np.ascontiguousarray(np.take(a, np.arange(b, e), axis=axis))


register(Op("slice_axis", _slice_axis_kernel, _slice_axis_shape,
            params=(P("axis", "int"), P("begin", "int"), P("end", "opt_int"))))


def _slice_like_axes(shape, attrs):
    axes = attrs["axes"]
    return range(len(shape)) if not axes else [a % len(shape) for a in axes]


def _slice_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    out = list(a)
    for k in _slice_like_axes(a, attrs):
        if k < len(b):
            out[k] = min(a[k], b[k])
    return list(in_shapes), [tuple(out)]


def _slice_like_kernel(inputs, attrs):
    a, b = inputs
    sl = [slice(None)] * a.ndim
    for k in _slice_like_axes(a.shape, attrs):
        if k < b.ndim:
            sl[k] = slice(0, b.shape[k])
    return np.ascontiguousarray(a[tuple(sl)])


register(Op("slice_like", _slice_like_kernel, _slice_like_shape, inputs=("data", "shape_like"),
            params=(P("axes", "shape", ()),), infer_type=_first_type))


def _take_shape(in_shapes, attrs):
    a, idx = in_shapes
    if a is None or idx is None:
        return list(in_shapes), [None]
    if not -len(a) <= attrs["axis"] < len(a):
        raise ShapeCheck("Check failed: param.axis >= -1 * arrshape.ndim() && param.axis < arrshape.ndim(): Axis should "
                         "be in the range of [-r, r-1] where r is the rank of input tensor")
    axis = attrs["axis"] % len(a)
    return list(in_shapes), [tuple(a[:axis]) + tuple(idx) + tuple(a[axis + 1:])]


def _take_kernel(inputs, attrs):
    a, idx = inputs
    axis = attrs["axis"] % a.ndim
    i = idx.astype(np.int64)
    if attrs["mode"] == "wrap":
        i = np.mod(i, a.shape[axis])
    else:
        i = np.clip(i, 0, a.shape[axis] - 1)
    return np.take(a, i, axis=axis)


register(Op("take", _take_kernel, _take_shape, inputs=("a", "indices"), infer_type=_first_type,
            params=(P("axis", "int", 0), P("mode", ("clip", "raise", "wrap"), "clip"))))


def _pick_shape(in_shapes, attrs):
    a, idx = in_shapes
    if a is None:
        return list(in_shapes), [None]
    axis = -1 if attrs["axis"] is None else attrs["axis"]
    axis %= len(a)
    out = tuple(1 if (k == axis) else d for k, d in enumerate(a)) if attrs["keepdims"] else \
        tuple(d for k, d in enumerate(a) if k != axis) or (1,)
    shapes = list(in_shapes)
    want = tuple(d for k, d in enumerate(a) if k != axis) or (1,)
    if shapes[1] is None:
        shapes[1] = want
    elif int(np.prod(shapes[1])) != int(np.prod(want)):
        # MXNet shows the index shape it expected, in the rank the given index has
        shown = tuple(1 if k == axis else d for k, d in enumerate(a)) if len(shapes[1]) == len(a) else want
        raise ShapeCheck("Shape inconsistent, Provided = %s, inferred shape=%s" % (shape_str(shapes[1]), shape_str(shown)))
    return shapes, [out]


def _pick_kernel(inputs, attrs):
    a, idx = inputs
    axis = (-1 if attrs["axis"] is None else attrs["axis"]) % a.ndim
    i = idx.astype(np.int64).reshape(tuple(d for k, d in enumerate(a.shape) if k != axis))
    if attrs["mode"] == "wrap":
        i = np.mod(i, a.shape[axis])
    else:
        i = np.clip(i, 0, a.shape[axis] - 1)
    r = np.take_along_axis(a, np.expand_dims(i, axis), axis=axis)
    return _at_least_1d(r if attrs["keepdims"] else np.squeeze(r, axis=axis))


register(Op("pick", _pick_kernel, _pick_shape, inputs=("data", "index"), infer_type=_first_type,
            params=(P("axis", "opt_int", -1), P("keepdims", "bool", False), P("mode", ("clip", "wrap"), "clip"))))


def _where_shape_eager(in_shapes, attrs):
    c, x, y = in_shapes
    shapes = list(in_shapes)
    if x is not None and y is not None and x != y:
        raise InferFailed()
    if c is not None and x is not None:
        if c != x and not (len(c) == 1 and c[0] == x[0]):
            raise InferFailed()
    return shapes, [x if x is not None else y]


def _where_shape(in_shapes, attrs):
    # MXNet's symbolic path accepts a condition of the same size but another shape (measured: cf_where_bcast);
    # eager MXNet refuses it. The executor passes ``eager`` to choose.
    c, x, y = in_shapes
    if attrs.get("__eager__", True):
        return _where_shape_eager(in_shapes, attrs)
    shapes = list(in_shapes)
    if x is not None and y is not None and x != y:
        raise InferFailed()
    return shapes, [x if x is not None else y]


def _where_kernel(inputs, attrs):
    c, x, y = inputs
    if c.shape != x.shape:
        if c.ndim == 1 and c.shape[0] == x.shape[0]:
            c = c.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            c = np.broadcast_to(c, x.shape) if np.broadcast_shapes(c.shape, x.shape) == x.shape else c
    return np.where(c != 0, x, y).astype(x.dtype)


def _where_type(in_types, attrs):
    out = list(in_types)
    if in_types[1] is not None and in_types[2] is not None and in_types[1] != in_types[2]:
        raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at 2-th input: "
                         "expected %s, got %s" % (in_types[1], in_types[2]))
    return out, in_types[1] or in_types[2]


register(Op("where", _where_kernel, _where_shape, inputs=("condition", "x", "y"), infer_type=_where_type))


def _tile_shape(s, attrs):
    reps = attrs["reps"]
    if any(r <= 0 for r in reps):
        raise InferFailed()
    n = max(len(s), len(reps))
    s2 = (1,) * (n - len(s)) + tuple(s)
    r2 = (1,) * (n - len(reps)) + tuple(reps)
    return tuple(a * b for a, b in zip(s2, r2))


register(Op("tile", lambda ins, at: np.tile(ins[0], at["reps"]), _unary_shape_fn(_tile_shape),
            params=(P("reps", "shape"),)))


def _repeat_shape(s, attrs):
    axis = attrs["axis"]
    if axis is None:
        return (int(np.prod(s)) * attrs["repeats"],)
    axis %= len(s)
    return tuple(d * attrs["repeats"] if k == axis else d for k, d in enumerate(s))


register(Op("repeat", lambda ins, at: np.repeat(ins[0], at["repeats"], axis=at["axis"]), _unary_shape_fn(_repeat_shape),
            params=(P("repeats", "int"), P("axis", "opt_int", None))))


def _reverse_kernel(inputs, attrs):
    return np.ascontiguousarray(np.flip(inputs[0], axis=attrs["axis"]))


register(Op("reverse", _reverse_kernel, _shape_unary, aliases=("flip",), params=(P("axis", "shape"),)))


def _broadcast_to_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    target = attrs["shape"]
    if len(s) != len(target):
        raise ShapeCheck("Check failed: ishape.ndim() == param.shape.ndim() (%d vs. %d) : Operand of shape %s cannot "
                         "be broadcasted to %s" % (len(s), len(target), shape_str(s), shape_str(target)))
    out = []
    for a, t in zip(s, target):
        t = a if t == 0 else t
        if a != t and a != 1:
            raise ShapeCheck("Check failed: ishape[i] == oshape[i] || ishape[i] == 1: Array cannot be broadcasted "
                             "from %s to %s" % (shape_str(s), shape_str(target)))
        out.append(t)
    return list(in_shapes), [tuple(out)]


register(Op("broadcast_to", lambda ins, at: np.ascontiguousarray(np.broadcast_to(
    ins[0], _broadcast_to_shape([ins[0].shape], at)[1][0])), _broadcast_to_shape, params=(P("shape", "shape"),)))


def _broadcast_like_shape(in_shapes, attrs):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    lhs_axes, rhs_axes = attrs.get("lhs_axes"), attrs.get("rhs_axes")
    if lhs_axes is not None and rhs_axes is not None:  # only those axes of lhs take the sizes of rhs's axes
        lhs_axes, rhs_axes = tuple(lhs_axes), tuple(rhs_axes)
        if len(lhs_axes) != len(rhs_axes):
            raise ShapeCheck("Check failed: rhs_axes.ndim() == lhs_axes.ndim(): Input_axis and other_axis size does "
                             "not match")
        out = list(a)
        for position, (lhs_axis, rhs_axis) in enumerate(zip(lhs_axes, rhs_axes)):
            size = b[rhs_axis % len(b)]
            if a[lhs_axis % len(a)] != size and a[lhs_axis % len(a)] != 1:
                raise ShapeCheck("Check failed: lhs_shape[copyfrom] == 1: Input axis %d at dimension %d cannot be "
                                 "broadcasted to %d" % (lhs_axis, position, size))
            out[lhs_axis % len(a)] = size
        return list(in_shapes), [tuple(out)]
    if len(a) != len(b):
        raise ShapeCheck("Check failed: lhs_shape.ndim() == rhs_shape.ndim() (%d vs. %d) : Operand of shape %s cannot "
                         "be broadcasted to %s" % (len(a), len(b), shape_str(a), shape_str(b)))
    for x, y in zip(a, b):
        if x != y and x != 1:
            raise ShapeCheck("Check failed: lhs_shape[i] == rhs_shape[i] || lhs_shape[i] == 1: Array cannot be "
                             "broadcasted from %s to %s" % (shape_str(a), shape_str(b)))
    return list(in_shapes), [tuple(b)]


register(Op("broadcast_like", lambda ins, at: np.ascontiguousarray(np.broadcast_to(
    ins[0], _broadcast_like_shape([ins[0].shape, ins[1].shape], at)[1][0])),
            _broadcast_like_shape, inputs=("lhs", "rhs"), infer_type=_first_type,
            params=(P("lhs_axes", "any", None), P("rhs_axes", "any", None))))


def _broadcast_axis_shape(s, attrs):
    out = list(s)
    for a, n in zip(attrs["axis"], attrs["size"]):
        if out[a] != 1:
            raise ShapeCheck("Check failed: dst_shape[axis] == 1U: Cannot broadcast axis %d of size %d" % (a, out[a]))
        out[a] = n
    return tuple(out)


register(Op("broadcast_axis", lambda ins, at: np.ascontiguousarray(np.broadcast_to(
    ins[0], _broadcast_axis_shape(ins[0].shape, at))), _unary_shape_fn(_broadcast_axis_shape),
    aliases=("broadcast_axes",), params=(P("axis", "shape", ()), P("size", "shape", ()))))


def _diag_kernel(inputs, attrs):
    a = inputs[0]
    return _at_least_1d(np.ascontiguousarray(np.diag(a, attrs["k"]) if a.ndim <= 2 else
                                             np.diagonal(a, attrs["k"], attrs["axis1"], attrs["axis2"])))


def _diag_shape(s, attrs):
    k = attrs["k"]
    if len(s) == 1:
        n = s[0] + abs(k)
        return (n, n)
    return np.diagonal(np.empty(s, dtype=np.int8), k, attrs["axis1"], attrs["axis2"]).shape or (1,)


register(Op("diag", _diag_kernel, _unary_shape_fn(_diag_shape),
            params=(P("k", "int", 0), P("axis1", "int", 0), P("axis2", "int", 1))))


def _depth_space_shape(to_space):
    def rule(in_shapes, attrs):
        s = in_shapes[0]
        if s is None:
            return list(in_shapes), [None]
        name = "Depth To Space" if to_space else "Space To Depth"
        if len(s) != 4:
            raise ShapeCheck("Check failed: in_attrs->at(0).ndim() == 4 (%d vs. 4) : Operation %s requires exactly "
                             "4D tensor" % (len(s), name))
        b = attrs["block_size"]
        n, c, h, w = s
        if to_space:
            if c % (b * b):
                raise ShapeCheck("Check failed: in_shape[1] % (block * block) == 0 : Cannot perform Depth To Space "
                                 "operation on the specified tensor. Dimension:1(depth dimension) should be a "
                                 "multiple of 'block^2'")
            return list(in_shapes), [(n, c // (b * b), h * b, w * b)]
        if h % b or w % b:
            raise ShapeCheck("Check failed: in_shape[2] % block == 0 : Cannot perform Space To Depth operation on "
                             "the specified tensor.")
        return list(in_shapes), [(n, c * b * b, h // b, w // b)]
    return rule


def _depth_to_space_kernel(inputs, attrs):
    x = inputs[0]
    b = attrs["block_size"]
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return np.ascontiguousarray(y.reshape(n, c // (b * b), h * b, w * b))


def _space_to_depth_kernel(inputs, attrs):
    x = inputs[0]
    b = attrs["block_size"]
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return np.ascontiguousarray(y.reshape(n, c * b * b, h // b, w // b))


register(Op("depth_to_space", _depth_to_space_kernel, _depth_space_shape(True), params=(P("block_size", "int"),)))
register(Op("space_to_depth", _space_to_depth_kernel, _depth_space_shape(False), params=(P("block_size", "int"),)))


def _one_hot_kernel(inputs, attrs):
    idx = inputs[0].astype(np.int64)
    depth = attrs["depth"]
    out = np.full(idx.shape + (depth,), attrs["off_value"], dtype=attrs["dtype"])
    if depth == 0:
        return out
    valid = (idx >= 0) & (idx < depth)
    pos = np.where(valid, idx, 0)
    np.put_along_axis(out, pos[..., None], np.where(valid, attrs["on_value"], attrs["off_value"])[..., None]
                      .astype(attrs["dtype"]), axis=-1)
    return out


register(Op("one_hot", _one_hot_kernel, _unary_shape_fn(lambda s, at: tuple(s) + (at["depth"],)),
            inputs=("indices",), infer_type=_attr_type("float32"),
            params=(P("depth", "int"), P("on_value", "float", 1.0), P("off_value", "float", 0.0),
                    P("dtype", "dtype", "float32"))))


def _cast_kernel(inputs, attrs):
    return inputs[0].astype(attrs["dtype"])


register(Op("Cast", _cast_kernel, _shape_unary, aliases=("cast",), hint="cast",
            params=(P("dtype", "dtype"),), infer_type=_attr_type()))


# amp_multicast (gluoncv's box decoder calls it before contrib.box_decode): MXNet 1.9.1's type rule, measured:
# the target is float32 if any input is float32, else input 0's type (cast_narrow: float16 if any input is
# float16, else float32); only the float32 and float16 inputs take it, so (int32, float16) gives two int32s
_AMP_FLOATS = ("float32", "float16")


def _amp_multicast_types(in_types, cast_narrow):
    if cast_narrow:
        target = "float16" if "float16" in in_types else "float32"
    else:
        target = "float32" if "float32" in in_types else in_types[0]
    return [target if t in _AMP_FLOATS else t for t in in_types]


def _amp_multicast_shape(in_shapes, attrs):
    if len(in_shapes) != attrs["num_outputs"]:
        raise UnwrappedCheck("Check failed: num_inputs == infered_num_inputs (%d vs. %d) : Operator amp_multicast "
                             "expects %d inputs, but got %d instead." % (len(in_shapes), attrs["num_outputs"],
                                                                        attrs["num_outputs"], len(in_shapes)))
    return list(in_shapes), list(in_shapes)


#: MXNet's type codes of the dtypes its CPU (oneDNN) amp_multicast cannot copy: it fails at run time on the first
#: such input or output, in order (measured: float64, float16 and int64 fail; float32, int32, int8 and uint8 run)
_ONEDNN_REJECTS = {"float64": 1, "float16": 2, "int64": 6}


def _amp_multicast_kernel(inputs, attrs):
    types = [np.dtype(a.dtype).name for a in inputs]
    targets = _amp_multicast_types(types, attrs["cast_narrow"])
    for name in (name for pair in zip(types, targets) for name in pair):
        if name in _ONEDNN_REJECTS:
            raise MXNetError("unknown type for MKLDNN :%d" % _ONEDNN_REJECTS[name])
    return tuple(a.astype(t) for a, t in zip(inputs, targets))


register(Op("amp_multicast", _amp_multicast_kernel, _amp_multicast_shape, variadic=True,
            num_outputs=lambda attrs: attrs["num_outputs"],
            infer_type=lambda in_types, attrs: (in_types, _amp_multicast_types(in_types, attrs["cast_narrow"])),
            params=(P("num_outputs", "int"), P("cast_narrow", "bool", False))))


def _shape_array_kernel(inputs, attrs):
    return np.array(inputs[0].shape, dtype=np.int64)


register(Op("shape_array", _shape_array_kernel, _unary_shape_fn(lambda s, at: (len(s),)),
            infer_type=_fixed_type("int64")))
register(Op("size_array", lambda ins, at: np.array([ins[0].size], dtype=np.int64), _unary_shape_fn(lambda s, at: (1,)),
            infer_type=_fixed_type("int64")))


def _like_kernel(value):
    def kernel(inputs, attrs):
        return np.full(inputs[0].shape, value, dtype=inputs[0].dtype)
    return kernel


register(Op("zeros_like", _like_kernel(0), _shape_unary, infer_type=_first_type))
register(Op("ones_like", _like_kernel(1), _shape_unary, infer_type=_first_type))


def _arange_like_kernel(inputs, attrs):
    a = inputs[0]
    n = a.size if attrs["axis"] is None else a.shape[attrs["axis"]]
    return (attrs["start"] + attrs["step"] * np.arange(n)).astype(a.dtype)


register(Op("_contrib_arange_like", _arange_like_kernel,
            _unary_shape_fn(lambda s, at: (int(np.prod(s)),) if at["axis"] is None else (s[at["axis"]],)),
            aliases=("contrib.arange_like",), hint="arange_like", infer_type=_first_type,
            params=(P("start", "float", 0.0), P("step", "float", 1.0), P("repeat", "int", 1),
                    P("axis", "opt_int", None))))
