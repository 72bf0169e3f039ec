"""What an expression holds (``Value``: tensor, multi-output result, Python list, ...) and what is
statically known of a tensor's shape (``Shape``), with the broadcasting algebra on shapes."""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import FrozenSet, List, Optional, Tuple


class Kind(Enum):
    TENSOR = "tensor"  # an NDArray eagerly, a Symbol when hybridized
    MULTI = "multi"  # a multi-output result (F.split): [] selects outputs
    SEQ = "seq"  # a Python list/tuple of tensors (*args, states)
    KWARGS = "kwargs"  # **kwargs of hybrid_forward: a dict of tensors
    CHILD = "child"  # result of a child block: a tensor or a tuple of them
    PY = "py"  # a Python number, string, bool, None, tuple of numbers, config attribute
    NUMPY = "numpy"  # a numpy array (not a numpy scalar)
    F = "F"  # the F namespace itself
    BLOCK = "block"  # self or a child block object
    PARAM_OBJ = "param"  # a gluon Parameter object (self.weight)
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Shape:
    """What is statically known of a tensor's shape."""

    rank: Optional[int] = None
    dims: Optional[Tuple[Optional[int], ...]] = None  # per-axis sizes where known
    unit_axis: bool = False  # evidence of a size-1 axis made for broadcasting
    root: Optional[str] = None  # same shape as this named tensor
    static: bool = False  # shape fixed by code (constant, parameter), not by the input batch
    indexed_from: Optional[str] = None  # indexed or sliced out of this named tensor: its shape can differ
    # (owner, per-axis expressions over the owner's constructor arguments) for a declared parameter
    # (analysis/symbolic.py): two parameters of one block with equal expressions have equal shapes
    symbolic: Optional[Tuple[str, Tuple[Optional[str], ...]]] = None
    why: str = ""  # short evidence text for messages
    # where the size-1 axes are, counted from the front, when known without the rank (`x.expand_dims(0)`
    # of an input of unknown rank: axis 0); None: not tracked
    unit_axes: Optional[FrozenSet[int]] = None
    # the named tensor this one has the rank of, when its shape differs (`x - x.mean(-1, keepdims=True)` has
    # the rank of `x`): a root names the same, so ``rank_source`` reads either
    rank_of: Optional[str] = None

    def with_rank(self, rank: Optional[int]) -> "Shape":
        return replace(self, rank=rank)


UNKNOWN_SHAPE = Shape()


@dataclass(frozen=True)
class Value:
    kind: Kind
    shape: Shape = UNKNOWN_SHAPE
    certain: bool = True  # for tensors: proven (or first data argument) vs merely possible
    name: Optional[str] = None  # the local name this value came from, for messages
    elements: Tuple["Value", ...] = ()  # for literal tuples/lists
    # a tensor by assumption only (the first data argument when nothing in the body proves it, and
    # what is indexed out of it): enough to report, never enough for a fix marked safe
    assumed: bool = False
    # a tensor on evidence that a Python value meets too (`1 - lam` works for a float), or computed from
    # such a value: why it is not proven, else "". Enough to report, never enough for a safe fix
    unproven: str = ""
    # (kind UNKNOWN) a tensor on one path and a Python value on another, joined: which one reaches a later
    # use, the paths' tests say (autogluon's `delta`: a tensor when `self.encoding_delta` is set, else
    # `self.delta_fixed_value`, and each use under the matching test); how a use reads it proves nothing
    mixed: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.kind is Kind.TENSOR

    @property
    def is_python(self) -> bool:
        return self.kind in (Kind.PY, Kind.NUMPY, Kind.SEQ, Kind.KWARGS, Kind.F, Kind.BLOCK, Kind.PARAM_OBJ)


UNKNOWN = Value(Kind.UNKNOWN, certain=False)
MIXED = Value(Kind.UNKNOWN, certain=False, mixed=True)  # see Value.mixed
PY = Value(Kind.PY)
NUMPY = Value(Kind.NUMPY)


def tensor(shape: Shape = UNKNOWN_SHAPE, certain: bool = True, name: Optional[str] = None,
           assumed: bool = False, unproven: str = "") -> Value:
    return Value(Kind.TENSOR, shape, certain, name, assumed=assumed, unproven=unproven)


def is_proven_tensor(value: Value) -> bool:
    """``value`` is one tensor (an NDArray eagerly) on evidence no Python number, list or None meets."""
    return value.kind is Kind.TENSOR and value.certain and not value.assumed and not value.unproven


def why_not_proven(value: Value) -> str:
    """Why ``value`` is not a proven tensor (for a fix's ``why_unsafe``), "" when it is one."""
    if is_proven_tensor(value):
        return ""
    if value.kind is not Kind.TENSOR:
        return {Kind.CHILD: "a child block's output (a tensor or a tuple of them)",
                Kind.MULTI: "a multi-output result (a list of tensors)",
                Kind.SEQ: "a Python list or tuple"}.get(value.kind, "of unknown kind")
    if value.unproven:
        return value.unproven
    if value.assumed:
        return "taken for a tensor because nothing says otherwise: it may be a list of tensors"
    if not value.certain:
        return "nothing in the code proves it a tensor: it may be a Python number, a list or None"
    return "not proven a tensor"


def join(a: Value, b: Value) -> Value:
    """What a name holds after two branches that left it ``a`` and ``b``: only what both agree on."""
    if a == b:
        return a
    if a.kind is not b.kind:
        if {a.kind, b.kind} == {Kind.TENSOR, Kind.PY} or \
                (a.mixed or b.mixed) and {a.kind, b.kind} <= {Kind.TENSOR, Kind.PY, Kind.UNKNOWN}:
            return MIXED  # a tensor on one path, a Python number (or None) on the other
        return UNKNOWN  # a tensor in one branch and a Python list in the other: neither is known
    elements = a.elements if a.elements == b.elements else ()
    return Value(a.kind, join_shapes(a.shape, b.shape), a.certain and b.certain, a.name if a.name == b.name else None,
                 elements, a.assumed or b.assumed, a.unproven or b.unproven)


def join_shapes(a: Shape, b: Shape) -> Shape:
    if a == b:
        return a
    unit = a.unit_axis and b.unit_axis
    source = rank_source(a) if rank_source(a) == rank_source(b) else None
    return Shape(rank=a.rank if a.rank == b.rank else None, dims=a.dims if a.dims == b.dims else None,
                 unit_axis=unit, root=a.root if a.root == b.root else None, static=a.static and b.static,
                 why=(a.why or b.why) if unit else "", rank_of=source)


def rank_source(shape: Shape) -> Optional[str]:
    """The named tensor ``shape`` has the rank of (the one it has the shape of, when it has no other), else None."""
    return shape.rank_of or shape.root


def multi(count: Optional[int], part: Shape = UNKNOWN_SHAPE) -> Value:
    """A multi-output result; its elements (of shape ``part``) say how many outputs it has, when known."""
    if count is None or count < 1 or count > 64:
        return Value(Kind.MULTI)
    return Value(Kind.MULTI, elements=(tensor(part),) * count)


def format_dims(dims: Tuple[Optional[int], ...]) -> str:
    inner = ", ".join("?" if d is None else str(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"



def merge_shapes(a: Shape, b: Shape) -> Shape:
    """Shape of a broadcasting binary result (as far as known)."""
    if a.root is not None and a.root == b.root or shapes_proven_equal(a, b):
        return a
    for one, other in ((a, b), (b, a)):
        # a tensor of ones only, (1,) or of no higher rank than the other, broadcasts to the other's
        # shape exactly (legacy MXNet has no 0-d arrays: every tensor has rank 1 or more)
        if one.dims and all(d == 1 for d in one.dims) and \
                (len(one.dims) == 1 or other.rank is not None and other.rank >= len(one.dims)):
            return replace(other, static=a.static and b.static)
    rank = None
    if a.rank is not None and b.rank is not None:
        rank = max(a.rank, b.rank)
    dims = None
    if a.dims is not None and b.dims is not None:
        dims = broadcast_dims(a.dims, b.dims)
        unit = 1 in dims
    else:
        # without per-axis sizes, a size-1 axis survives only when both operands have one
        unit = a.unit_axis and b.unit_axis
    # two different tensors: the result's shape equals neither operand's in general; when one operand
    # carries facts the other lacks (a size-1 axis, an indexed part), the result may be broadcast
    # to a shape of neither, which later operators must not take for the other operand's
    # (per-axis sizes count only where one is known: `reshape((-1, k))` with a variable `k` gives a rank)
    facts = [(s.unit_axis, s.indexed_from, s.dims if s.dims and any(d is not None for d in s.dims) else None)
             for s in (a, b)]
    part = a.indexed_from or b.indexed_from
    if part is None and facts[0] != facts[1] and any(f != (False, None, None) for f in facts):
        part = "a broadcast result"
    # two tensors of the rank of one named tensor (`x` and `x.mean(axis=-1, keepdims=True)`) broadcast to that
    # rank, and so does one of them with a vector (legacy MXNet has no 0-d arrays: every tensor has rank 1 or more)
    source = rank_source(a) if rank_source(a) is not None and rank_source(a) == rank_source(b) else None
    for one, other in ((a, b), (b, a)):
        if source is None and one.rank == 1 and rank_source(other) is not None:
            source = rank_source(other)
    return Shape(rank=rank, dims=dims, unit_axis=unit, root=None, static=a.static and b.static,
                 indexed_from=part, why=(a.why or b.why) if unit or part else "", rank_of=source)


def broadcast_dims(a: Tuple[Optional[int], ...], b: Tuple[Optional[int], ...]) -> Tuple[Optional[int], ...]:
    """Right-aligned broadcast of per-axis sizes; None is an unknown size."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out: List[Optional[int]] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            out.append(max(x, y))
    return tuple(out)


def shapes_proven_equal(a: Shape, b: Shape) -> bool:
    if a.root is not None and a.root == b.root:
        return True
    if a.symbolic is not None and a.symbolic == b.symbolic and None not in a.symbolic[1]:
        return True
    if a.dims is not None and b.dims is not None and a.dims == b.dims and None not in a.dims:
        return True
    return False


def shape_difference(a: Shape, b: Shape) -> Optional[str]:
    """Why two tensors' shapes are known or likely to differ (HY101's evidence), else None."""
    if shapes_proven_equal(a, b):
        return None
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return f"ranks differ ({a.rank} vs {b.rank})"
    if a.dims is not None and b.dims is not None and len(a.dims) == len(b.dims):
        if all(x is not None and y is not None for x, y in zip(a.dims, b.dims)) and a.dims != b.dims:
            return f"shapes differ ({format_dims(a.dims)} vs {format_dims(b.dims)})"
    if a.unit_axis != b.unit_axis:
        return (a if a.unit_axis else b).why or "one operand has a size-1 axis"
    if a.unit_axes and b.unit_axes and a.unit_axes != b.unit_axes:  # size-1 axes at different places
        return a.why or b.why or "the operands have size-1 axes at different places"
    # a parameter (fixed shape) against a tensor of the input is no evidence by itself: that the input
    # has a batch axis the parameter lacks is an assumption (`w * x` with `shape=30` and `x` of (30,)
    # hybridizes), stated apart (``assumed_batch_axis``); a rank or a size known to differ, above, is the evidence
    return None


def assumed_batch_axis(a: Shape, b: Shape) -> Optional[Tuple[int, int]]:
    """A declared parameter of rank r against a tensor of unknown rank whose shape is not fixed by the code:
    their shapes differ if that tensor has a batch axis (a rank above r) that the parameter lacks (a layer
    norm's `normed * gamma`, `gamma` of shape (C,) and `normed` of (N, T, C)), which is an assumption, not
    evidence (``w * x`` with `w` of shape (30,) and `x` of (30,) hybridizes). (the position of the
    parameter among ``a, b``, r), or None when that is not the question (``shape_difference`` is)."""
    if shapes_proven_equal(a, b) or shape_difference(a, b) is not None:
        return None
    for position, (parameter, other) in enumerate(((a, b), (b, a))):
        if parameter.static and parameter.why.startswith("parameter") and parameter.rank is not None and \
                not other.static and other.rank is None:
            return position, parameter.rank
    return None
