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
    # MXNet's CPU kernel sorts indices with std::partial_sort (8 * k <= n) or std::sort: equal values come out
    # in the order of those algorithms
    rows = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
    ascending, n = attrs["is_ascend"], a.shape[axis]
    if not len(rows):
        picked = np.zeros((0, k), np.int64)
    elif 8 * k <= n:
        picked = np.stack([partial_sort_order(row, k, ascending) for row in rows])
    else:  # a row without equal values sorts the same whatever the algorithm: only rows with ties are replayed
        picked = np.argsort(rows if ascending else -rows, axis=1, kind="stable")
        ordered = np.take_along_axis(rows, picked, axis=1)
        for tied in np.nonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))[0].tolist():
            picked[tied] = full_sort_order(rows[tied], ascending)
    order = np.moveaxis(picked.reshape(np.moveaxis(a, axis, -1).shape[:-1] + (picked.shape[-1],)), -1, axis)
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
class _IndexSort:
    """libstdc++'s ``std::partial_sort`` and ``std::sort`` over the indices ``0..n-1`` of ``values``, replayed
    step for step with MXNet's comparison (``values[i] > values[j]``, or ``<`` ascending). MXNet's CPU ``topk``
    sorts indices that way, so equal values come out in the order of these algorithms, not in index order (a
    model whose scores saturate, CenterNet's heat map, picks its boxes among ties)."""

    THRESHOLD = 16  # libstdc++'s _S_threshold

    def __init__(self, values, ascending):
        self.values = values
        v = values.tolist()
        self.comp = (lambda i, j: v[i] < v[j]) if ascending else (lambda i, j: v[i] > v[j])
        self.ascending = ascending
        self.a = list(range(len(v)))

    # heaps over a[first:first + length] (std::__adjust_heap / __push_heap)
    def _push(self, first, hole, top, value):
        a, comp = self.a, self.comp
        parent = (hole - 1) // 2
        while hole > top and comp(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def _adjust(self, first, hole, length, value):
        a, comp = self.a, self.comp
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if comp(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        self._push(first, hole, top, value)

    def partial_sort(self, first, middle, last):
        """std::__partial_sort: a heap select of a[first:middle] over a[first:last], then a heap sort."""
        a, comp, length = self.a, self.comp, middle - first
        for parent in range((length - 2) // 2, -1, -1):  # make_heap
            self._adjust(first, parent, length, a[first + parent])
        if length and last > middle:
            # a later index enters only if it beats the heap's top, and the top only gets "better", so the
            # indices that never beat the first top are skipped without changing the result
            rest = self.values[a[middle:last]]
            top = self.values[a[first]]
            for position in (np.nonzero(rest < top if self.ascending else rest > top)[0] + middle).tolist():
                if comp(a[position], a[first]):  # pop_heap(first, middle, position)
                    value = a[position]
                    a[position] = a[first]
                    self._adjust(first, 0, length, value)
        for end in range(length - 1, 0, -1):  # sort_heap
            value = a[first + end]
            a[first + end] = a[first]
            self._adjust(first, 0, end, value)

    def sort(self):
        """std::sort: introsort (median-of-three pivot, unguarded partition, heap sort past the depth
        limit) down to runs of 16, then one insertion sort."""
        n = len(self.a)
        if n > 1:
            self._introsort(0, n, 2 * (n.bit_length() - 1))
            self._final_insertion_sort(0, n)

    def _introsort(self, first, last, depth):
        a, comp = self.a, self.comp
        while last - first > self.THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            mid = first + (last - first) // 2
            x, y, z = first + 1, mid, last - 1  # __move_median_to_first(first, first + 1, mid, last - 1)
            if comp(a[x], a[y]):
                median = y if comp(a[y], a[z]) else (z if comp(a[x], a[z]) else x)
            else:
                median = x if comp(a[x], a[z]) else (z if comp(a[y], a[z]) else y)
            a[first], a[median] = a[median], a[first]
            pivot, low, high = a[first], first + 1, last  # __unguarded_partition(first + 1, last, first)
            while True:
                while comp(a[low], pivot):
                    low += 1
                high -= 1
                while comp(pivot, a[high]):
                    high -= 1
                if not low < high:
                    break
                a[low], a[high] = a[high], a[low]
                low += 1
            self._introsort(low, last, depth)
            last = low

    def _final_insertion_sort(self, first, last):
        a, comp = self.a, self.comp
        guarded_end = min(last, first + self.THRESHOLD)
        for i in range(first + 1, guarded_end):  # __insertion_sort
            value = a[i]
            if comp(value, a[first]):
                a[first + 1:i + 1] = a[first:i]
                a[first] = value
            else:
                self._linear_insert(i)
        for i in range(guarded_end, last):  # __unguarded_insertion_sort
            self._linear_insert(i)

    def _linear_insert(self, i):
        a, comp = self.a, self.comp
        value = a[i]
        while comp(value, a[i - 1]):
            a[i] = a[i - 1]
            i -= 1
        a[i] = value


def partial_sort_order(values, k, ascending):
    """The first ``k`` indices of ``values`` as MXNet's CPU ``topk`` orders them when ``8 * k <= n``
    (``std::partial_sort``)."""
    sorter = _IndexSort(values, ascending)
    sorter.partial_sort(0, k, len(values))
    return np.array(sorter.a[:k], dtype=np.int64)


def full_sort_order(values, ascending):
    """All indices of ``values`` as MXNet's CPU ``topk`` orders them when ``8 * k > n`` (``std::sort``, which
    is not stable)."""
    sorter = _IndexSort(values, ascending)
    sorter.sort()
    return np.array(sorter.a, dtype=np.int64)
