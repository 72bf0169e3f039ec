"""THE linter's table of operator semantics, shared by the ``F.op(x, ...)`` and ``x.op(...)`` forms.

Each operator is declared once (as ``hylint/runtime/ops.py`` is for the runtime) with what the linter
needs to know statically: what a call returns (a tensor, several outputs, a Python or NumPy value),
how many outputs, the shape rule of its result, which arguments are tensors, and in which forms it
exists (``F.op``, a fluent method of NDArray *and* Symbol, a method of NDArray only).

A call in either form is seen through :class:`OpCall`, which puts the receiver of ``x.op(a)`` at
argument position 0, so ``x.sum(1)`` and ``F.sum(x, 1)`` are read by the same rule. The names in
``mxnet_api`` are measured on MXNet 1.9.1 (see scripts/gen_facts.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, Optional, Tuple

import libcst as cst

from hylint.facts import attributes, mxnet_api, tensor_methods
from hylint.syntax.nodes import call_arg, is_true, keyword_value, literal_int, literal_shape
from hylint.analysis.values import (
    NUMPY, PY, UNKNOWN, UNKNOWN_SHAPE, Kind, Shape, Value, format_dims, merge_shapes, multi, rank_source, tensor,
)

Dims = Tuple[Optional[int], ...]


@dataclass(frozen=True)
class OpCall:
    """One call of an operator, in either form; positions count the receiver of ``x.op()`` as 0."""

    name: str  # the operator's short name: "sum"
    label: str  # as written, for messages: "F.sum" or ".sum"
    node: cst.Call
    method: bool  # x.op(...) rather than F.op(x, ...)
    values: Tuple[Value, ...]  # the receiver (method form), then every argument's value in order

    def arg(self, position: Optional[int], keyword: Optional[str] = None) -> Optional[cst.BaseExpression]:
        """The expression passed at ``position`` (receiver = 0 in the method form) or as ``keyword``."""
        if self.method:
            if position == 0:
                return self.node.func.value if isinstance(self.node.func, cst.Attribute) else None
            position = None if position is None else position - 1
        found = call_arg(self.node, position, keyword)
        return found.value if found is not None else None

    def keyword(self, keyword: str) -> Optional[cst.BaseExpression]:
        return keyword_value(self.node, keyword)

    @property
    def data(self) -> Optional[Value]:
        """The first tensor among the receiver and the arguments."""
        return next((v for v in self.values if v.kind is Kind.TENSOR), None)

    @property
    def static(self) -> bool:
        data = self.data
        return data.shape.static if data is not None else False


ShapeRule = Callable[[OpCall], Shape]
OutputRule = Callable[[OpCall], Optional[Value]]  # a multi-output Value, or None for one tensor


@dataclass(frozen=True)
class Op:
    shape: Optional[ShapeRule] = None  # shape of a tensor result (None: nothing known)
    outputs: Optional[OutputRule] = None  # several outputs (always, or depending on arguments)
    result: Optional[Value] = None  # a fixed value that is not a tensor (asnumpy -> NUMPY, ...)
    function: bool = True  # F.<op> exists
    fluent: bool = False  # x.<op>() exists on NDArray and on Symbol (a call is evidence of a tensor)
    ndarray_only: bool = False  # x.<op>() exists only on NDArray (raises on a Symbol)
    all_data: bool = False  # every positional argument is a tensor
    creation: bool = False  # makes a tensor from a shape, not from data
    shape_preserving: bool = False  # the result has the shape of the first data input


# -- shape rules ------------------------------------------------------------------------------------


def same_as_data(call: OpCall) -> Shape:
    data = call.data
    return data.shape if data is not None else UNKNOWN_SHAPE


def reduction(axis_at: int) -> ShapeRule:
    def rule(call: OpCall) -> Shape:
        base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
        return reduced_shape(base, call, axis_at)
    return rule


def reduced_shape(base: Shape, call: OpCall, axis_position: int) -> Shape:
    """Shape evidence for a reduction ``label(..., axis=..., keepdims=...)``.

    ``keepdims=True`` keeps the rank and leaves a size-1 axis; no axis (legacy MXNet has no 0-d
    arrays) gives shape ``(1,)``; a literal axis of a tensor of known rank removes that axis.
    """
    label = call.label
    # keepdims follows the axis in sum/mean/max/...(data, axis, keepdims, exclude); norm(data, ord, axis,
    # out_dtype, keepdims) is read by keyword only
    keepdims = call.arg(axis_position + 1, "keepdims") if axis_position == 1 else call.keyword("keepdims")
    if is_true(keepdims):
        axes = literal_shape(call.arg(axis_position, "axis")) if call.arg(axis_position, "axis") is not None else None
        # where the size-1 axes are, when every reduced axis is counted from the front (`sum(x, 1, keepdims=True)`
        # against `sum(y, 0, keepdims=True)`: (m, 1) and (1, n), which only broadcasting adds)
        units = frozenset(axes) | _front_units(base) if axes and all(a is not None and a >= 0 for a in axes) else None
        return Shape(rank=base.rank, unit_axis=True, static=base.static, rank_of=rank_source(base),
                     why=f"`{label}(..., keepdims=True)` keeps a size-1 axis", unit_axes=units)
    if keepdims is not None and not (isinstance(keepdims, cst.Name) and keepdims.value == "False"):
        return Shape(static=base.static)  # `keepdims=self.keep`: the rank is not known
    if call.arg(axis_position + 2, "exclude") is not None if axis_position == 1 else call.keyword("exclude") is not None:
        return Shape(static=base.static)
    axis = call.arg(axis_position, "axis")
    if axis is None or isinstance(axis, cst.Name) and axis.value == "None":
        return Shape(rank=1, dims=(1,), unit_axis=True, static=base.static,
                     why=f"`{label}(...)` without an axis reduces to shape (1,)")
    axes = literal_shape(axis)
    if base.rank is None or axes is None or any(a is None for a in axes):
        return Shape(static=base.static)
    rank = base.rank - len(set(a % base.rank for a in axes if base.rank))
    if rank <= 0:
        return Shape(rank=1, dims=(1,), unit_axis=True, static=base.static,
                     why=f"`{label}(...)` reduces every axis: shape (1,)")
    dims = None
    if base.dims is not None:
        dropped = {a % base.rank for a in axes}
        dims = tuple(d for i, d in enumerate(base.dims) if i not in dropped)
    return Shape(rank=rank, dims=dims, static=base.static)


def expand_dims(call: OpCall) -> Shape:
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    axis = literal_int(call.arg(1, "axis"))
    units = None
    if axis is not None and axis >= 0:  # the new axis, and the known size-1 axes shifted past it
        units = frozenset({p + 1 if p >= axis else p for p in _front_units(base)} | {axis})
    return Shape(rank=None if base.rank is None else base.rank + 1, unit_axis=True, static=base.static,
                 why=f"`{call.label}` adds a size-1 axis", unit_axes=units)


def _front_units(shape: Shape) -> frozenset:
    """The positions (from the front) of the size-1 axes of ``shape`` that are known."""
    if shape.dims is not None:
        return frozenset(i for i, d in enumerate(shape.dims) if d == 1)
    return shape.unit_axes or frozenset()


def _units_shape(base: Shape, rank: Optional[int], units: frozenset, why: str) -> Shape:
    """A result whose size-1 axes are exactly ``units`` where the input's were tracked, else unknown."""
    if base.unit_axes is None and base.dims is None and not units:
        return Shape(rank=rank, static=base.static)
    return Shape(rank=rank, unit_axis=bool(units), static=base.static, unit_axes=units,
                 why=(why or base.why) if units else "")


def slice_axis(call: OpCall) -> Shape:
    """``slice_axis(x, axis, begin, end)``: the rank of ``x``; ``end == begin + 1`` (or ``begin=-1,
    end=None``) leaves that axis of size 1, another literal range one of another size."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    axis, begin = literal_int(call.arg(1, "axis")), literal_int(call.arg(2, "begin"))
    end_node = call.arg(3, "end")
    end = None if end_node is None or isinstance(end_node, cst.Name) and end_node.value == "None" \
        else literal_int(end_node)
    if axis is None or axis < 0 or begin is None or end is None and not (isinstance(end_node, cst.Name)):
        return Shape(rank=base.rank, static=base.static)
    units = set(_front_units(base))
    one = end == begin + 1 if end is not None else begin == -1
    if one:
        units.add(axis)
    elif end is not None and begin >= 0 and end > begin + 1:
        units.discard(axis)
    else:
        return Shape(rank=base.rank, static=base.static)
    return _units_shape(base, base.rank, frozenset(units), f"`{call.label}(..., end=begin + 1)` keeps a size-1 axis")


def squeeze(call: OpCall) -> Shape:
    """``squeeze(x, axis=a)``: removes axis ``a``; the known size-1 axes after it move one forward."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    axis = literal_int(call.arg(1, "axis")) if call.arg(1, "axis") is not None else None
    if axis is not None and axis < 0 and base.rank is not None and -base.rank <= axis:
        axis += base.rank  # `squeeze(axis=-1)` of a tensor of known rank
    if axis is None or axis < 0:
        return Shape(static=base.static)
    units = frozenset(p - 1 if p > axis else p for p in _front_units(base) if p != axis)
    return _units_shape(base, None if base.rank is None else max(base.rank - 1, 1), units, "")


def reshape(call: OpCall) -> Shape:
    positional = [a for a in call.node.args if a.keyword is None]
    if call.method and len(positional) > 1:  # x.reshape(1, -1, 1): the sizes as separate arguments
        # as the tuple spelling `x.reshape((n, 1, -1))` is read: a size that is not a literal is unknown, and
        # the rank is still known (else `--fix`, once HY902 made the tuple, found what `check` had not)
        dims = None if any(a.star for a in positional) else tuple(literal_int(a.value) for a in positional)
    else:
        dims = literal_shape(call.arg(1, "shape"))
    return reshaped(dims, call.static)


def pick(call: OpCall) -> Shape:
    """``pick(data, index, axis=-1, keepdims=False)``: the picked axis is kept (size 1) or removed."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    if is_true(call.arg(3, "keepdims")):
        return Shape(rank=base.rank, unit_axis=True, static=base.static,
                     why=f"`{call.label}(..., keepdims=True)` keeps a size-1 axis")
    return Shape(rank=None if base.rank is None else max(base.rank - 1, 1), static=base.static)


def reshaped(dims: Optional[Dims], static: bool) -> Shape:
    if dims is None or any(d in (-2, -3, -4) for d in dims if d is not None):
        return Shape(static=static)
    # 0 copies an input axis and -1 is inferred: the rank is known, those sizes are not
    known = tuple(d if d is not None and d > 0 else None for d in dims)
    return Shape(rank=len(dims), dims=known, unit_axis=1 in known, static=static,
                 why=f"reshaped to {tuple(dims)}" if 1 in known else "")


def broadcast_to(call: OpCall) -> Shape:
    """``broadcast_to(shape=dims)``: the rank of dims; 0 (keep this axis) leaves the size unknown."""
    dims = literal_shape(call.arg(1, "shape"))
    if dims is None:
        return Shape(static=call.static)
    known = tuple(None if d in (0, None) else d for d in dims)
    return Shape(rank=len(dims), dims=known, static=call.static)


def like_second(call: OpCall) -> Shape:
    """``broadcast_like(a, b)``, ``reshape_like(a, b)``: the shape of ``b``; with ``lhs_axes`` (only those axes
    of ``a`` take ``b``'s sizes) the rank of ``a`` (measured on MXNet 1.9.1: (1, 3, 2, 2) like (5, 3, 2) with
    ``lhs_axes=(0,), rhs_axes=(0,)`` is (5, 3, 2, 2), eagerly and symbolically)."""
    if call.keyword("lhs_axes") is not None or call.keyword("lhs_begin") is not None:
        first = call.values[0] if call.values else None
        rank = first.shape.rank if first is not None and first.kind is Kind.TENSOR else None
        return Shape(rank=rank, static=call.static) if call.name == "broadcast_like" else UNKNOWN_SHAPE
    if len(call.values) > 1 and call.values[1].kind is Kind.TENSOR:
        return replace(call.values[1].shape, unit_axis=False, why="")
    return UNKNOWN_SHAPE


def second_input(call: OpCall) -> Shape:
    """``linalg_trmm(A, B)``: the shape of ``B``, its size-1 axes included (A is square; measured on MXNet
    1.9.1: (2, 3, 3) and (2, 3, 1) -> (2, 3, 1), with ``rightside=True`` (2, 1, 3) -> (2, 1, 3))."""
    if len(call.values) > 1 and call.values[1].kind is Kind.TENSOR:
        return call.values[1].shape
    return UNKNOWN_SHAPE


def matrix_product(call: OpCall) -> Shape:
    """``linalg_gemm2(A, B)``: (..., rows of A, columns of B), so a trailing size-1 axis of B
    (``delta.expand_dims(axis=-1)``) is one of the result; unknown with a transpose flag."""
    if len(call.values) > 1 and all(v.kind is Kind.TENSOR for v in call.values[:2]) and \
            call.keyword("transpose_a") is None and call.keyword("transpose_b") is None:
        b = call.values[1].shape
        return Shape(rank=b.rank, unit_axis=b.unit_axis, why=b.why)
    return UNKNOWN_SHAPE


def batch_matrix_product(call: OpCall) -> Shape:
    """``batch_dot(a, b)``: the rank of either input, which MXNet requires to be one rank of 3 or more, the
    transposes included (measured on MXNet 1.9.1: (4, 2, 3)·(4, 3, 5) -> (4, 2, 5), (5, 3, 2, 2)·(5, 3, 2, 1)
    -> (5, 3, 2, 1); (5, 3, 2, 2)·(3, 2, 1) raises "batch_dot currently only support N-D*N-D array (N >= 3)",
    eagerly and in shape inference)."""
    # a block's output (`self.global_model(x)`, whose class is not known) counts as a tensor of unknown shape
    if len(call.values) < 2 or call.values[1].kind is not Kind.TENSOR or \
            call.values[0].kind not in (Kind.TENSOR, Kind.CHILD):
        return UNKNOWN_SHAPE
    ranks = {v.shape.rank for v in call.values[:2] if v.kind is Kind.TENSOR} - {None}
    if len(ranks) != 1 or min(ranks) < 3:
        return Shape(static=call.static)
    rank = ranks.pop()
    static = call.values[0].kind is Kind.TENSOR and call.values[0].shape.static and call.values[1].shape.static
    rhs = call.values[1].shape
    transposed = call.keyword("transpose_b")
    if (transposed is None or isinstance(transposed, cst.Name) and transposed.value == "False") and \
            (rhs.dims is not None and len(rhs.dims) == rank and rhs.dims[-1] == 1 or
             rhs.unit_axes is not None and rank - 1 in rhs.unit_axes):
        # (B, T, K)·(B, K, 1) -> (B, T, 1): the right operand's size-1 last axis is the result's
        return Shape(rank=rank, static=static, unit_axis=True, unit_axes=frozenset({rank - 1}),
                     why=f"`{call.label}` with a right operand of size 1 in its last axis keeps that axis")
    return Shape(rank=rank, static=static)


def broadcast_binary(call: OpCall) -> Shape:
    if len(call.values) >= 2 and all(v.kind is Kind.TENSOR for v in call.values[:2]):
        return merge_shapes(call.values[0].shape, call.values[1].shape)
    return UNKNOWN_SHAPE


def elementwise_pair(call: OpCall) -> Shape:
    """``maximum(a, b)`` and the other elementwise functions of two operands: NDArray broadcasts two tensors
    (a Symbol needs them equal: HY103's question), and a number keeps the tensor's shape."""
    if len(call.values) < 2:
        return UNKNOWN_SHAPE
    a, b = call.values[:2]
    if a.kind is Kind.TENSOR and b.kind is Kind.TENSOR:
        return merge_shapes(a.shape, b.shape)
    for one, other in ((a, b), (b, a)):
        if one.kind is Kind.TENSOR and other.kind is Kind.PY and not other.elements:
            return one.shape
    return UNKNOWN_SHAPE


def dot(call: OpCall) -> Shape:
    """``dot(a, b)``: the axes of ``a`` but its last and of ``b`` but its first (measured on MXNet 1.9.1:
    (4, 84)·(84, 10) -> (4, 10), (2, 3, 4)·(4, 5) -> (2, 3, 5), two 1-D -> (1,)); the rank only."""
    if len(call.values) < 2 or any(v.kind is not Kind.TENSOR or v.shape.rank is None for v in call.values[:2]):
        return Shape(static=call.static)
    static = call.values[0].shape.static and call.values[1].shape.static
    return Shape(rank=max(call.values[0].shape.rank + call.values[1].shape.rank - 2, 1), static=static)


def pooled_to_one(call: OpCall) -> Shape:
    """``contrib.AdaptiveAvgPooling2D(x, output_size=1)`` and ``Pooling(x, global_pool=True)`` keep
    (N, C) and pool every spatial axis to size 1 (measured on MXNet 1.9.1: (2, 4, 5, 5) -> (2, 4, 1, 1),
    a 3-D input to (2, 4, 1)); another output size is no size-1 axis."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    if call.name == "Pooling":
        if not is_true(call.keyword("global_pool")):
            return Shape(rank=base.rank, static=base.static)
        rank = base.rank
    else:
        size = call.arg(1, "output_size")
        dims = literal_shape(size) if size is not None else (1,)  # the default output size is 1
        if dims is None or set(dims) != {1}:
            return Shape(rank=4, static=base.static)
        rank = 4
    spatial = rank - 2 if rank is not None and rank > 2 else None
    return Shape(rank=rank, dims=(None, None) + (1,) * spatial if spatial else None, unit_axis=True,
                 static=base.static, why=f"`{call.label}` pools to size 1")


def creation(call: OpCall) -> Shape:
    shape_node = call.keyword("shape")
    if shape_node is None and call.name in ("ones", "zeros", "full", "empty"):
        first = call.node.args[0] if call.node.args else None
        shape_node = first.value if first is not None and first.keyword is None else None
    return created(literal_shape(shape_node), f"{call.label}")


def sampled(call: OpCall) -> Shape:
    """``F.random.uniform/normal/randint(low, high, shape=(2, 1))`` with Python numbers for the
    distribution's arguments: the literal ``shape``. With a tensor among them, MXNet draws ``shape`` per
    element (the result is the tensor's shape followed by ``shape``): nothing known. Measured on MXNet 1.9.1,
    eagerly and by symbolic shape inference alike: ``normal(shape=(2, 1, 1, 1))`` -> (2, 1, 1, 1);
    ``normal(loc=<(3,)>, scale=<(3,)>, shape=(2,))`` -> (3, 2)."""
    if any(v.kind in (Kind.TENSOR, Kind.CHILD) for v in call.values):
        return UNKNOWN_SHAPE
    # `shape=` read even after a starred argument (`uniform(*self.range, shape=(n, 1))`), which hides positions
    given = next((a.value for a in call.node.args if a.keyword is not None and a.keyword.value == "shape"), None)
    return created(literal_shape(given if given is not None else call.arg(2, "shape")), call.label)


def repeat(call: OpCall) -> Shape:
    """``x.repeat(repeats, axis)``: ``x``'s rank with that axis ``repeats`` times longer (measured on MXNet
    1.9.1: (2, 1, 1, 1) repeated 3 times on axis 1 -> (2, 3, 1, 1), eagerly and symbolically); without an
    axis, the flattened input repeated (rank 1)."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    axis_node = call.arg(2, "axis")
    if axis_node is None or isinstance(axis_node, cst.Name) and axis_node.value == "None":
        return Shape(rank=1, static=base.static)
    axis, repeats = literal_int(axis_node), literal_int(call.arg(1, "repeats"))
    if base.dims is None or axis is None or repeats is None or not -len(base.dims) <= axis < len(base.dims):
        return Shape(rank=base.rank, static=base.static)
    dims = list(base.dims)
    dims[axis] = dims[axis] * repeats if dims[axis] is not None else None
    unit = 1 in dims
    return Shape(rank=base.rank, dims=tuple(dims), unit_axis=unit, static=base.static,
                 why=f"`{call.label}` leaves a size-1 axis ({format_dims(tuple(dims))})" if unit else "")


def created(dims: Optional[Dims], label: str) -> Shape:
    if dims is None:
        return Shape(static=True)
    unit = 1 in dims
    why = f"`{label}({format_dims(dims)})` has a size-1 axis" if unit else ""
    return Shape(rank=len(dims), dims=dims, unit_axis=unit, static=True, why=why)


# -- output rules -----------------------------------------------------------------------------------


def count_at(position: Optional[int], keyword: str) -> OutputRule:
    def rule(call: OpCall) -> Value:
        count = call.arg(position, keyword)
        return multi(literal_int(count) if count is not None else None)
    return rule


def equal_parts(call: OpCall) -> Value:
    """``split(x, num_outputs)``: its outputs have one shape (a root naming this call) and, without
    ``squeeze_axis``, the rank of ``x``."""
    count = call.arg(1, "num_outputs")
    number = literal_int(count) if count is not None else None
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    squeezed = is_true(call.arg(3, "squeeze_axis"))
    # the split axis is not a size-1 axis of the input (it is cut into parts), so a size-1 axis of the
    # input (`x.expand_dims(1)`) is one of every part, squeezed or not
    unit = base.unit_axis and (number is None or number > 1)
    part = Shape(rank=None if squeezed or base.rank is None else base.rank,
                 root=f"<outputs of {call.label} at {id(call.node)}>", static=base.static,
                 unit_axis=unit, why=base.why if unit else "")
    if number == 1:  # one output: eagerly an NDArray, hybridized a Symbol (measured), `[0]` is a row
        return tensor(replace(part, root=None, rank=None if squeezed and base.rank is None else
                              (base.rank - 1 if squeezed else base.rank)))
    return multi(number, part)


def fixed_count(count: int) -> OutputRule:
    """Always ``count`` outputs, whatever the arguments."""
    def rule(call: OpCall) -> Value:
        return multi(count)
    return rule


def always_multi(call: OpCall) -> Value:
    return Value(Kind.MULTI)


def _input_shape(call: OpCall) -> Optional[Shape]:
    """The shape of a linear-algebra operator's matrix input, when its rank is known (2 or more)."""
    base = call.data.shape if call.data is not None else UNKNOWN_SHAPE
    return base if base.rank is not None and base.rank >= 2 else None


def _batch_axes(base: Shape, drop: int, rank: Optional[int] = None) -> Shape:
    """``base`` without its last ``drop`` axes (a matrix per batch item: what is left is the batch)."""
    rank = base.rank - drop if rank is None else rank
    dims = base.dims[:base.rank - drop] if base.dims is not None else None
    return Shape(rank=rank, dims=dims, static=base.static)


def slogdet_outputs(call: OpCall) -> Value:
    """``linalg.slogdet(A)``: (sign, log|det|), each of A's batch shape; a single matrix gives (1,) (legacy
    MXNet has no 0-d arrays). Measured on MXNet 1.9.1, eagerly and by symbolic shape inference alike:
    (3, 3) -> (1,), (1,); (4, 3, 3) -> (4,), (4,); (2, 4, 3, 3) -> (2, 4), (2, 4)."""
    base = _input_shape(call)
    if base is None:
        return multi(2)
    part = _batch_axes(base, 2) if base.rank > 2 else Shape(rank=1, dims=(1,), static=base.static)
    return Value(Kind.MULTI, elements=(tensor(part), tensor(part)))


def syevd_outputs(call: OpCall) -> Value:
    """``linalg.syevd(A)``: (U, L), U of A's shape and the eigenvalues L without A's last axis. Measured on
    MXNet 1.9.1 (eager and symbolic): (3, 3) -> (3, 3), (3,); (4, 3, 3) -> (4, 3, 3), (4, 3)."""
    base = _input_shape(call)
    if base is None:
        return multi(2)
    return Value(Kind.MULTI, elements=(tensor(replace(base, root=None)), tensor(_batch_axes(base, 1))))


def gelqf_outputs(call: OpCall) -> Value:
    """``linalg.gelqf(A)`` of A (..., M, N): (Q, L), Q of A's shape and L (..., M, M). Measured on MXNet
    1.9.1 (eager and symbolic): (2, 3) -> (2, 3), (2, 2); (4, 2, 3) -> (4, 2, 3), (4, 2, 2)."""
    base = _input_shape(call)
    if base is None:
        return multi(2)
    rows = base.dims[-2] if base.dims is not None else None
    dims = base.dims[:-1] + (rows,) if base.dims is not None else None
    lower = Shape(rank=base.rank, dims=dims, static=base.static)
    return Value(Kind.MULTI, elements=(tensor(replace(base, root=None)), tensor(lower)))


def multi_when(keyword: str, count: Optional[int] = None, string: Optional[str] = None) -> OutputRule:
    """Several outputs when ``keyword`` is True (or the string ``string``)."""
    def rule(call: OpCall) -> Optional[Value]:
        value = call.keyword(keyword)
        flagged = is_true(value) if string is None else \
            isinstance(value, cst.SimpleString) and value.evaluated_value == string
        if not flagged:
            return None
        return multi(count) if count is not None else Value(Kind.MULTI)
    return rule


# -- the table --------------------------------------------------------------------------------------

OPS: Dict[str, Op] = {}


def _declare(names: str, **facts: object) -> None:
    for name in names.split():
        OPS[name] = replace(OPS.get(name, Op()), **facts)


# the result has the shape of the first data input
_declare("relu sigmoid tanh softmax log_softmax softsign exp log log1p expm1 sqrt rsqrt square abs sign negative "
         "reciprocal floor ceil round rint fix trunc sin cos tan arcsin arccos arctan sinh cosh erf gamma gammaln "
         "clip Activation LeakyReLU Dropout BatchNorm LayerNorm InstanceNorm GroupNorm identity stop_gradient "
         "BlockGrad cast Cast zeros_like ones_like L2Normalization hard_sigmoid softmin elemwise_add elemwise_sub "
         "elemwise_mul elemwise_div where logical_not make_loss smooth_l1",
         shape=same_as_data, shape_preserving=True)
_declare("sum mean max min prod nansum nanprod argmax argmin sum_axis max_axis min_axis", shape=reduction(1))
_declare("norm", shape=reduction(2))  # norm(data, ord, axis)
_declare("expand_dims", shape=expand_dims)
_declare("reshape", shape=reshape)
_declare("broadcast_to", shape=broadcast_to)
_declare("broadcast_like reshape_like", shape=like_second)
_declare("pick", shape=pick)
_declare("linalg_gemm2 gemm2", shape=matrix_product)
_declare("linalg_trmm trmm", shape=second_input)
_declare("dot", shape=dot)
_declare("maximum minimum power hypot arctan2", shape=elementwise_pair)
_declare("batch_dot", shape=batch_matrix_product)
_declare("slice_axis", shape=slice_axis)
_declare("squeeze", shape=squeeze)
_declare("AdaptiveAvgPooling2D Pooling", shape=pooled_to_one)
_declare("ones zeros full empty arange eye linspace array", shape=creation, creation=True)
_declare("uniform normal randint", shape=sampled)
_declare("repeat", shape=repeat)

# several outputs (`[i]` selects an output, eagerly and hybridized alike); counted with
# `len(mx.sym.<op>(...).list_outputs())` on MXNet 1.9.1 with default arguments
_declare("split SliceChannel", outputs=equal_parts)
_declare("amp_multicast", outputs=count_at(None, "num_outputs"))  # one output per data input
_declare("split_v2 bipartite_matching box_encode MultiBoxTarget hawkesll", outputs=always_multi)
# the linear-algebra decompositions: two outputs each, their shapes from the input's where its rank is known
_declare("slogdet linalg_slogdet", outputs=slogdet_outputs)
_declare("syevd linalg_syevd", outputs=syevd_outputs)
_declare("gelqf linalg_gelqf", outputs=gelqf_outputs)
_declare("BatchNorm", outputs=multi_when("output_mean_var"))
_declare("RNN", outputs=multi_when("state_outputs"))
_declare("Proposal MultiProposal", outputs=multi_when("output_score"))
_declare("topk", outputs=multi_when("ret_typ", count=2, string="both"))
_declare("multinomial", outputs=multi_when("get_prob", count=2))
# fixed counts (`len(mx.sym.<op>(x, ...).list_outputs())` on MXNet 1.9.1): moments gives (mean, variance);
# the quantization ops give (data, min, max); calibrate_entropy gives (threshold, divergence)
_declare("moments calibrate_entropy", outputs=fixed_count(2))
_declare("quantize quantize_v2 requantize", outputs=fixed_count(3))

# results that are not tensors
_declare("foreach while_loop", result=Value(Kind.PY, elements=(Value(Kind.SEQ), Value(Kind.SEQ))))
_declare("cond", result=UNKNOWN)

# fluent methods shared by NDArray and Symbol (calling one is evidence the receiver is a tensor)
_declare(" ".join(sorted(tensor_methods.FLUENT_METHODS)), fluent=True)
_declare("astype", shape=same_as_data, shape_preserving=True)

# methods that exist (or work) only on NDArray; on a Symbol they raise (mxnet-truth §3)
_declare(" ".join(sorted(attributes.NDARRAY_ONLY_METHODS)), ndarray_only=True, function=False)
_declare("copy copyto as_in_context detach tostype", shape=same_as_data)
_declare("asnumpy", result=NUMPY)
_declare("asscalar item tolist wait_to_read attach_grad backward", result=PY)

# ops whose positional arguments are all tensors
_declare("concat Concat stack add_n ElementWiseSum dot batch_dot where maximum minimum power hypot take pick "
         "batch_take gather_nd FullyConnected Convolution Deconvolution BatchNorm LayerNorm InstanceNorm GroupNorm "
         "Embedding RNN broadcast_like reshape_like slice_like SequenceMask SequenceLast SequenceReverse LeakyReLU "
         "arctan2 softmax_cross_entropy SoftmaxOutput LinearRegressionOutput", all_data=True)

BROADCAST_FAMILY = Op(shape=broadcast_binary, all_data=True)
DEFAULT = Op()


def lookup(name: str) -> Op:
    """The facts of operator ``name`` (a short name: "sum"; broadcast_* and elemwise_* by family)."""
    op = OPS.get(name)
    if op is not None:
        return op
    if name.startswith("broadcast_"):
        return BROADCAST_FAMILY
    if name.startswith("elemwise_"):
        return replace(DEFAULT, all_data=True)
    return DEFAULT


def evaluate(call: OpCall) -> Value:
    """The value of an operator call, from the table."""
    op = lookup(call.name)
    if not call.method and not op.function:
        op = DEFAULT  # F.asnumpy(x) is no operator: whatever it is, it is not a NumPy array
    certain = call.values[0].certain if call.method and call.values else True
    if op.result is not None:
        return op.result
    if op.outputs is not None:
        several = op.outputs(call)
        if several is not None:
            return several
    shape = op.shape(call) if op.shape is not None else UNKNOWN_SHAPE
    return tensor(shape, certain=certain)


# -- derived sets (what rules and parameter evidence ask) -------------------------------------------

CREATION_OPS = {name for name, op in OPS.items() if op.creation}
SHAPE_PRESERVING = {name for name, op in OPS.items() if op.shape_preserving}
TENSOR_METHODS = {name for name, op in OPS.items() if op.fluent}
NDARRAY_ONLY_METHODS = {name for name, op in OPS.items() if op.ndarray_only}
ALL_DATA_POSITIONAL = {name for name, op in OPS.items() if op.all_data}

DATA_KEYWORDS = {"data", "lhs", "rhs", "weight", "bias", "gamma", "beta", "moving_mean", "moving_var", "label",
                 "indices", "index", "condition", "x", "y", "a", "b", "mask", "sequence_length", "state",
                 "state_cell", "parameters", "rois", "query", "key", "value", "valid_length"}

# attributes of NDArray that Symbol lacks
NDARRAY_ONLY_ATTRS = set(attributes.NDARRAY_ONLY_ATTRS)

NUMPY_SCALAR_TYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
                      "float_", "int_", "double", "single", "pi", "e", "inf", "nan"}

ND_ONLY = {ns: set(names) for ns, names in mxnet_api.ND_ONLY.items()}
SYM_ONLY = {ns: set(names) for ns, names in mxnet_api.SYM_ONLY.items()}


# the NumPy-style interface (`F.np.stack(arrays)`) takes its tensors as one sequence, where the legacy
# operators take them as separate arguments (`F.stack(*arrays)`)
NUMPY_SEQUENCE_OPS = frozenset({"stack", "concatenate", "vstack", "hstack", "dstack", "column_stack"})


def is_sequence_position(op: str, index: int) -> bool:
    """The argument at ``index`` of ``F.<op>`` is a sequence of tensors (``F.np.concatenate(features)``)."""
    return index == 0 and op.startswith("np.") and op.rsplit(".", 1)[-1] in NUMPY_SEQUENCE_OPS


def is_data_position(op: str, index: int) -> bool:
    short = op.rsplit(".", 1)[-1]
    if is_sequence_position(op, index):
        return False
    if short in CREATION_OPS or op.startswith("random.") and short not in ("multinomial", "shuffle"):
        return False
    if lookup(short).all_data:
        return True
    return index == 0


def is_data_keyword(keyword: str) -> bool:
    return keyword in DATA_KEYWORDS
