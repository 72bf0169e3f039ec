"""Reductions and sorting (``sum``, ``norm``, ``argmax``, ``sort``, ``topk``)."""
import numpy as np

from .table import Op, _attr_type, _first_type, _fixed_type, register
from .attrs import P
from .common import _at_least_1d, _reduce_axes, _shape_reduce


# ----------------------------------------------------------------------------------------------
# reductions and sorting
# ----------------------------------------------------------------------------------------------
def _reduce_kernel(fn):
    def kernel(inputs, attrs):
        a = inputs[0]
        axes = _reduce_axes(a.shape, attrs)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = fn(a, axis=axes, keepdims=bool(attrs.get("keepdims")))
        return _at_least_1d(np.asarray(r).astype(a.dtype, copy=False))
    return kernel


_REDUCE_PARAMS = (P("axis", "axis", None), P("keepdims", "bool", False), P("exclude", "bool", False))
for _name, _fn in [("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("max", np.max), ("min", np.min),
                   ("nansum", np.nansum), ("nanprod", np.nanprod)]:
    register(Op(_name, _reduce_kernel(_fn), _shape_reduce, params=_REDUCE_PARAMS,
                aliases=("sum_axis",) if _name == "sum" else ()))


def _norm_kernel(inputs, attrs):
    a = inputs[0]
    axes = _reduce_axes(a.shape, attrs)
    keep = bool(attrs["keepdims"])
    if attrs["ord"] == 1:
        r = np.sum(np.abs(a), axis=axes, keepdims=keep)
    else:
        r = np.sqrt(np.sum(np.square(a.astype(np.float64)), axis=axes, keepdims=keep))
    return _at_least_1d(np.asarray(r).astype(a.dtype))


register(Op("norm", _norm_kernel, _shape_reduce,
            params=(P("ord", "int", 2), P("axis", "axis", None), P("keepdims", "bool", False),
                    P("out_dtype", "dtype", None))))


def _arg_reduce_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    axis = attrs["axis"]
    if axis is None:
        return list(in_shapes), [(1,)]
    axis %= len(s)
    if attrs["keepdims"]:
        return list(in_shapes), [tuple(1 if i == axis else d for i, d in enumerate(s))]
    return list(in_shapes), [tuple(d for i, d in enumerate(s) if i != axis) or (1,)]


def _arg_kernel(fn):
    def kernel(inputs, attrs):
        a = inputs[0]
        axis = attrs["axis"]
        if axis is None:
            return np.array([fn(a.reshape(-1))], dtype=np.float32)
        r = fn(a, axis=axis)
        if attrs["keepdims"]:
            r = np.expand_dims(r, axis)
        return _at_least_1d(r.astype(np.float32))
    return kernel


for _name, _fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
    register(Op(_name, _arg_kernel(_fn), _arg_reduce_shape, params=(P("axis", "opt_int", None), P("keepdims", "bool", False)),
                infer_type=_fixed_type("float32")))


def _sorted(a, attrs):
    axis = attrs["axis"]
    if axis is None:
        a = a.reshape(-1)
        axis = -1
    return a, axis


def _sort_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    r = np.sort(a, axis=axis, kind="stable")
    return r if attrs["is_ascend"] else np.flip(r, axis=axis)


def _argsort_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    idx = np.argsort(a if attrs["is_ascend"] else -a, axis=axis, kind="stable")
    return idx.astype(attrs["dtype"] or "float32")


def _sort_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    return list(in_shapes), [s if attrs["axis"] is not None else (int(np.prod(s)),)]


register(Op("sort", _sort_kernel, _sort_shape, params=(P("axis", "opt_int", -1), P("is_ascend", "bool", True)),
            infer_type=_first_type))
register(Op("argsort", _argsort_kernel, _sort_shape,
            params=(P("axis", "opt_int", -1), P("is_ascend", "bool", True), P("dtype", "dtype", "float32")),
            infer_type=_attr_type("float32")))


def _topk_outputs(attrs):
    return 2 if attrs["ret_typ"] == "both" else 1


def _topk_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None] * _topk_outputs(attrs)
    axis = attrs["axis"]
    if axis is None:
        s, axis = (int(np.prod(s)),), 0
    axis %= len(s)
    k = attrs["k"] if attrs["k"] > 0 else s[axis]
    if attrs["ret_typ"] == "mask":
        return list(in_shapes), [tuple(s)]
    out = tuple(k if i == axis else d for i, d in enumerate(s))
    return list(in_shapes), [out] * _topk_outputs(attrs)


def _topk_kernel(inputs, attrs):
    a, axis = _sorted(inputs[0], attrs)
    axis %= a.ndim
    k = attrs["k"] if attrs["k"] > 0 else a.shape[axis]
    order = np.argsort(a if attrs["is_ascend"] else -a, axis=axis, kind="stable")
    if 8 * k <= a.shape[axis]:  # MXNet's CPU kernel then partially sorts: equal values come out in its order
        rows = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
        picked = np.stack([partial_sort_order(row, k, attrs["is_ascend"]) for row in rows]) if len(rows) else rows
        order = np.moveaxis(picked.reshape(np.moveaxis(a, axis, -1).shape[:-1] + (k,)), -1, axis)
    idx = np.take(order, np.arange(k), axis=axis)
    values = np.take_along_axis(a, idx, axis=axis)
    idx = idx.astype(attrs["dtype"] or "float32")
    typ = attrs["ret_typ"]
    if typ == "value":
        return values
    if typ == "indices":
        return idx
    if typ == "mask":
        mask = np.zeros_like(a)
        np.put_along_axis(mask, order.take(np.arange(k), axis=axis), 1, axis=axis)
        return mask
    return values, idx


def _topk_type(in_types, attrs):
    if attrs["ret_typ"] == "both":
        return in_types, [in_types[0], attrs["dtype"] or "float32"]
    if attrs["ret_typ"] == "indices":
        return in_types, attrs["dtype"] or "float32"
    return in_types, in_types[0]


register(Op("topk", _topk_kernel, _topk_shape, num_outputs=_topk_outputs, infer_type=_topk_type,
            params=(P("axis", "opt_int", -1), P("k", "int", 1), P("ret_typ", ("both", "indices", "mask", "value"), "indices"),
                    P("is_ascend", "bool", False), P("dtype", "dtype", "float32"))))


# --- topk's order for equal values -----------------------------------------------------------------------
def partial_sort_order(values, k, ascending):
    """The first ``k`` indices of ``values`` as MXNet's CPU ``topk`` orders them when ``8 * k <= n``: it runs
    ``std::partial_sort`` (libstdc++: a heap select, then a heap sort) over the indices, comparing values.
    Equal values therefore come out in the heap's order, not in index order; this replays that algorithm
    step for step (a model whose scores saturate, CenterNet's heat map, picks its boxes among ties)."""
    v = values.tolist()

    def comp(i, j):
        return v[i] < v[j] if ascending else v[i] > v[j]

    def push(heap, hole, top, value):
        parent = (hole - 1) // 2
        while hole > top and comp(heap[parent], value):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def adjust(heap, hole, length, value):
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if comp(heap[child], heap[child - 1]):
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        push(heap, hole, top, value)

    heap = list(range(k))
    for parent in range((k - 2) // 2, -1, -1):  # make_heap
        adjust(heap, parent, k, heap[parent])
    # heap select: a later index enters only if it beats the heap's top, and the top only gets "better",
    # so the indices that never beat the first top are skipped without changing the result
    if k:
        rest = np.asarray(values[k:])
        first = values[heap[0]]
        candidates = np.nonzero(rest < first if ascending else rest > first)[0] + k
        for i in candidates.tolist():
            if comp(i, heap[0]):
                adjust(heap, 0, k, i)  # pop_heap(first, middle, i): the top leaves, i sifts in
    for last in range(k - 1, 0, -1):  # sort_heap
        value = heap[last]
        heap[last] = heap[0]
        adjust(heap, 0, last, value)
    return np.array(heap, dtype=np.int64)
