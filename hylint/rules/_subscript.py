"""Shared by the subscript rules (HY301, HY302): what ``x[...]`` does to a Symbol, and the fix."""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from hylint.syntax.nodes import literal_int
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import subscript_rewrite
from hylint.rule import Fact, PendingFix, Reliance, replace


def is_whole_slice(node: cst.Subscript) -> bool:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return False
    item = node.slice[0].slice
    return item.lower is None and item.upper is None and item.step is None


def is_assignment_target(node: cst.CSTNode, ctx) -> bool:
    parent = ctx.hybrid.parents.get(node) if ctx.hybrid is not None else None
    if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
        return True
    if isinstance(parent, cst.Del):
        return True
    return False


def what_happens(node: cst.Subscript, name: str) -> str:
    """After hybridize(), what ``name[...]`` does (mxnet-truth §4.3)."""
    if len(node.slice) != 1:
        return "raises TypeError (a Symbol only supports integer indices, which select graph outputs)"
    item = node.slice[0].slice
    if isinstance(item, cst.Index):
        index = literal_int(item.value)
        if index == 0:
            return f"selects graph output 0 and silently returns all of `{name}`"
        if index is not None and index > 0:
            return f"selects graph output {index} and raises IndexError (`{name}` has one output)"
        if index is not None and index < 0:
            return "raises MXNetError (Symbol only accept nonnegative index)"
        return "selects a graph output (or raises TypeError for a non-int index) instead of indexing rows"
    lower, upper, step = (literal_int(p) if p is not None else None for p in (item.lower, item.upper, item.step))
    if item.lower is None and item.upper is None:
        if step is not None and step > 0:
            return f"selects every {step}th graph output of a one-output Symbol and silently returns `{name}` unchanged"
        return "selects graph outputs and raises TypeError (empty output list)"
    return "selects graph outputs instead of rows and raises IndexError"


def empty_slice_risk(node: cst.Subscript, dims: Optional[Tuple[Optional[int], ...]]) -> Optional[str]:
    """Why a literal slice of ``node`` may select nothing, else None. NDArray's ``x[1:]`` of one row is an
    empty array, while ``F.slice`` to an empty result fails (measured on MXNet 1.9.1: `Check failed:
    delay_alloc` at the next wait), so a slice that can be empty is no exact rewrite. Axes of size 0 are
    not considered (a slice from the start, `x[:3]`, `x[-2:]`, `x[::2]`, is never empty otherwise)."""
    for axis, element in enumerate(node.slice):
        item = element.slice
        if not isinstance(item, cst.Slice):
            continue
        lower, upper, step = (None if p is None else literal_int(p) for p in (item.lower, item.upper, item.step))
        if any(p is not None and v is None for p, v in zip((item.lower, item.upper, item.step), (lower, upper, step))):
            continue  # a Python variable bound: the rewrite is unsafe already
        size = dims[axis] if dims is not None and axis < len(dims) else None
        if size is not None:
            if len(range(*slice(lower, upper, step).indices(size))) == 0:
                return f"`{name_of(node)}` has {size} along axis {axis}: the slice is empty"
            continue
        forward = step is None or step > 0
        if forward and (lower is not None and lower > 0 or upper is not None and upper <= 0) or \
                not forward and (lower is not None or upper is not None):
            return (f"axis {axis} may be too short for the bounds, and `F.slice` fails where the eager slice is "
                    f"empty (MXNet 1.9.1)")
    return None


def name_of(node: cst.Subscript) -> str:
    return cst.Module([]).code_for_node(node.value).strip()


def subscript_fix(node: cst.Subscript, ctx) -> Optional[PendingFix]:
    rewrite = subscript_rewrite(ctx.f_name, node, lambda n: ctx.value(n).kind is Kind.PY)
    if rewrite is None:
        return None
    replacement, exact = rewrite
    f = ctx.f_name
    title = f"Use `{f}.slice_axis`/`{f}.slice`" + (f" and `{f}.squeeze`" if "squeeze" in ctx.code(replacement) else "")
    # a value that is a tensor by assumption may be a Python list eagerly (lint/soundness.py decides)
    empty = empty_slice_risk(node, ctx.value(node.value).shape.dims)
    return PendingFix(Applicability.SAFE if exact and empty is None else Applicability.UNSAFE, title,
                      [replace(node, replacement)], relies_on=[Reliance(node.value, Fact.TENSOR)], why_unsafe=empty)


def subscript_instead(name: str, f_name: str) -> str:
    """What to write for a tensor subscript hylint cannot rewrite (its bounds are not literals)."""
    return (f"`{f_name}.slice_axis({name}, axis=a, begin=b, end=e)` or `{f_name}.slice` (then `{f_name}.squeeze` "
            f"for an integer index), with bounds known when the block is built; `{f_name}.take` or `{f_name}.pick` "
            f"for indices held in a tensor")
