"""Shape rules and kernel helpers that several operator families share."""
import weakref

import numpy as np

from ..base import MXNetError, shape_str
from .table import ShapeCheck


def cpu_flags():
    """This CPU's feature flags (Linux's /proc/cpuinfo; empty elsewhere): MXNet's oneDNN picks its kernels by
    them, and some of its results depend on that choice (the int8 convolution, softmax's partial sums)."""
    try:
        with open("/proc/cpuinfo") as info:
            return frozenset(next((line.split(":", 1)[1].split() for line in info if line.startswith("flags")), ()))
    except OSError:
        return frozenset()


#: the arrays MXNet would hold in oneDNN's blocked layout (id -> a weak reference, to tell a reused id apart)
_BLOCKED = {}


def mark_blocked(array):
    """Note that MXNet's oneDNN leaves this operator output in its blocked layout (``aBcd16b``), where the
    next BatchNorm rounds otherwise than on a plain array; eager NDArrays and graph entries keep the very
    array object, so the note travels with it until it is freed."""
    key = id(array)
    _BLOCKED[key] = weakref.ref(array, lambda _, key=key: _BLOCKED.pop(key, None))
    return array


def is_blocked(array):
    ref = _BLOCKED.get(id(array))
    return ref is not None and ref() is array


def _assign(shapes, i, target, node_kind="shape"):
    """MXNet's SHAPE_ASSIGN: unify input ``i`` with ``target`` or raise the 'Incompatible attr' check."""
    cur = shapes[i]
    if cur is None:
        shapes[i] = tuple(target)
        return
    if target is None:
        return
    if len(cur) == len(target) and all(a == b or a == 0 or b == 0 for a, b in zip(cur, target)):
        shapes[i] = _merge(cur, target)
        return
    raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at %d-th input: "
                     "expected %s, got %s" % (i, shape_str(target), shape_str(cur)))


def _assign_param(shapes, i, target, paren=True, message=None):
    """SHAPE_ASSIGN_CHECK on a parameter input: ``Shape inconsistent, Provided = [2,4], inferred shape=(3,3)``."""
    cur = shapes[i]
    if cur is None or (len(cur) == len(target) and all(a == b or a == 0 or b == 0 for a, b in zip(cur, target))):
        shapes[i] = tuple(target) if cur is None else _merge(cur, target)
        return
    if message:
        raise ShapeCheck(message % shape_str(cur))
    shown = "(" + ",".join(str(d) for d in target) + ")" if paren else shape_str(target)
    raise ShapeCheck("Shape inconsistent, Provided = %s, inferred shape=%s" % (shape_str(cur), shown))


def _merge(a, b):
    """Two compatible shapes, ``0`` (unknown) dims filled from the other."""
    return tuple(y if x == 0 else x for x, y in zip(a, b))


# ----------------------------------------------------------------------------------------------
# shape rules
# ----------------------------------------------------------------------------------------------
def _shape_same(in_shapes, attrs):
    """Elementwise: all inputs identical (MXNet ElemwiseShape); checks against input 0 first."""
    shapes = list(in_shapes)
    ref = next((s for s in shapes if s is not None), None)
    if ref is None:
        return shapes, [None]
    for i in range(len(shapes)):
        _assign(shapes, i, ref)
        ref = _merge(ref, shapes[i]) if len(shapes[i]) == len(ref) else ref
    for i in range(len(shapes)):
        _assign(shapes, i, ref)
    return shapes, [ref]


def _broadcast_shapes(a, b):
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for l, r in zip(pa, pb):
        if l != r and l != 1 and r != 1:
            raise ShapeCheck("Check failed: l == 1 || r == 1: operands could not be broadcast together with "
                             "shapes %s %s" % (shape_str(a), shape_str(b)))
        out.append(max(l, r) if l != 1 else r)
    return tuple(out)


def _shape_broadcast(in_shapes, attrs):
    return list(in_shapes), [_broadcast_shapes(in_shapes[0], in_shapes[1])]


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        if a >= ndim:
            raise ShapeCheck("Check failed: axes[axes.ndim()-1] < ishape.ndim() (%d vs. %d) : Reduction axis %d Exceeds "
                             "input dimensions %s" % (a, ndim, a, "{shape}"))
        if a < -ndim:
            raise ShapeCheck("Check failed: axes[0] >= 0 (%d vs. 0) : Reduction axis [%d] Exceeds input dimensions %s"
                             % (a + ndim, a, "{shape}"))
        out.append(a % ndim)
    return tuple(sorted(set(out)))


def _reduce_axes(shape, attrs):
    axes = _norm_axes(attrs.get("axis"), len(shape))
    if attrs.get("exclude"):
        axes = tuple(i for i in range(len(shape)) if i not in axes)
    return axes


def _shape_reduce(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    try:
        axes = _reduce_axes(s, attrs)
    except ShapeCheck as e:
        raise ShapeCheck(str(e).replace("{shape}", shape_str(s)))
    if attrs.get("keepdims"):
        out = tuple(1 if i in axes else d for i, d in enumerate(s))
    else:
        out = tuple(d for i, d in enumerate(s) if i not in axes) or (1,)
    return list(in_shapes), [out]


def _unary_shape_fn(fn):
    """Shape rule for single-input ops whose output shape only depends on the input shape."""
    def rule(in_shapes, attrs):
        s = in_shapes[0]
        return list(in_shapes), [None if s is None else tuple(fn(tuple(s), attrs))]
    return rule


# ----------------------------------------------------------------------------------------------
# kernels helpers
# ----------------------------------------------------------------------------------------------
def _at_least_1d(a):
    a = np.asarray(a)
    return a.reshape((1,)) if a.ndim == 0 else a


def _true_div(a, b):
    if np.issubdtype(np.result_type(a, b), np.integer):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b))
    return np.true_divide(a, b)


def _mod(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mod(a, b)


def _power(a, b):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(a, b)


_shape_unary = _unary_shape_fn(lambda s, attrs: s)


def size_mismatch(size, expected):
    """MXNet's run-time error when a kernel views an array of ``size`` values as a shape of ``expected`` values
    (``TBlob::get_with_shape``): raised by the kernel, after shape inference let the call through."""
    return MXNetError("TBlob.get_with_shape: Check failed: this->shape_.Size() == static_cast<size_t>(shape.Size()) "
                      "(%d vs. %d) : new and old shape do not match total elements" % (size, expected))
