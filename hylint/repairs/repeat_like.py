"""A size-1 axis repeated as many times as another tensor has rows, rewritten as a `like` broadcast (HY201's
fix).

The idiom (gluonts' binning representations, and any block tiling a vector over the batch)::

    F.repeat(F.expand_dims(c, axis=0), len(x), axis=0)       # or repeats=x.shape[0], c.expand_dims(axis=0).repeat(...)

reads the number of rows of ``x``, which a Symbol does not have (``len()`` of a Symbol is its number of
outputs, 1; ``.shape`` raises). ``F.broadcast_like(F.expand_dims(c, axis=0), x, lhs_axes=(0,),
rhs_axes=(0,))`` takes the size from ``x`` inside the graph. Measured on MXNet 1.9.1
(tests/repairs/test_repeat_like_mxnet.py): equal values, dtype (float32 and int32) and gradient of ``c``,
eagerly and hybridized; the expanded axis may be any axis k (``lhs_axes=(k,)``), and ``x.shape[i]`` gives
``rhs_axes=(i,)``.

Offered only when the repeated tensor is literally an ``expand_dims`` on the repeated axis (its size there is
1, so repeating and broadcasting agree). Safe when ``x`` is proven a tensor (``len()`` of a list counts its
elements, which ``broadcast_like`` cannot take).

Used by HY201 (rules/ndarray_only_attribute.py).
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import Fact, PendingFix, Reliance, replace
from hylint.syntax.nodes import dotted_name, keyword_value, literal_int

TITLE = "Broadcast the size-1 axis like the other tensor (`broadcast_like`)"


def _expanded_axis(data: cst.BaseExpression, f_name: str) -> Optional[int]:
    """k when ``data`` is ``F.expand_dims(c, axis=k)`` or ``c.expand_dims(axis=k)`` (k a literal), else None."""
    if not isinstance(data, cst.Call):
        return None
    name = dotted_name(data.func) or ""
    positional = [arg for arg in data.args if arg.keyword is None]
    axis = keyword_value(data, "axis")
    if name == f"{f_name}.expand_dims":
        axis = axis if axis is not None else positional[1].value if len(positional) > 1 else None
    elif isinstance(data.func, cst.Attribute) and data.func.attr.value == "expand_dims":
        axis = axis if axis is not None else positional[0].value if positional else None
    else:
        return None
    return literal_int(axis)


def _repeat_call(count: cst.CSTNode, parents: Dict[cst.CSTNode, cst.CSTNode], f_name: str):
    """(call, repeated tensor, axis) when ``count`` is the number of repeats of ``F.repeat(data, count,
    axis=k)`` or ``data.repeat(count, axis=k)`` (``repeats=`` written or not), else None."""
    argument = parents.get(count)
    call = parents.get(argument)
    if not (isinstance(argument, cst.Arg) and isinstance(call, cst.Call)) or \
            any(arg.star for arg in call.args):
        return None
    name = dotted_name(call.func) or ""
    positional = [arg for arg in call.args if arg.keyword is None]
    keyword = argument.keyword.value if argument.keyword is not None else None
    if name == f"{f_name}.repeat":  # F.repeat(data, repeats, axis=k)
        data = keyword_value(call, "data") or (positional[0].value if positional else None)
        is_count = keyword == "repeats" or keyword is None and len(positional) > 1 and argument is positional[1]
        arguments = 3
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "repeat":  # data.repeat(repeats, axis=k)
        data = call.func.value
        is_count = keyword == "repeats" or keyword is None and bool(positional) and argument is positional[0]
        arguments = 2
    else:
        return None
    axis = literal_int(keyword_value(call, "axis"))
    if not is_count or data is None or axis is None or len(call.args) != arguments or \
            any(arg.keyword is not None and arg.keyword.value not in ("data", "repeats", "axis") for arg in call.args):
        return None
    return call, data, axis


def repeat_like_fix(count: cst.CSTNode, rows_of: cst.BaseExpression, rhs_axis: int,
                    parents: Dict[cst.CSTNode, cst.CSTNode], ctx) -> Optional[PendingFix]:
    """The fix for ``count`` (``len(x)`` or ``x.shape[i]``, the size of axis ``rhs_axis`` of ``rows_of``) used as
    the number of repeats of a size-1 axis; None when the code is not that idiom."""
    f = ctx.f_name
    found = _repeat_call(count, parents, f)
    if found is None or rhs_axis < 0:
        return None
    call, data, axis = found
    if axis < 0 or _expanded_axis(data, f) != axis:
        return None
    new = (f"{f}.broadcast_like({ctx.code(data).strip()}, {ctx.code(rows_of).strip()}, lhs_axes=({axis},), "
           f"rhs_axes=({rhs_axis},))")
    if "#" in ctx.code(call):
        return None  # a comment inside the call would be lost with its arguments
    return PendingFix(Applicability.SAFE, TITLE, [replace(call, new)], relies_on=[Reliance(rows_of, Fact.TENSOR)])
