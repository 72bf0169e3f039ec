"""Builders for the rewrites rules offer (libcst nodes, so comments inside operands survive)."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import libcst as cst

from hylint.context import literal_int

Whitespace = Union[cst.BaseParenthesizableWhitespace, None]


def _plain(ws: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(ws, cst.SimpleWhitespace)


def f_call(f_name: str, op: str, args: Sequence[cst.BaseExpression], keywords: Sequence[Tuple[str, cst.BaseExpression]] = (),
           between: Optional[Tuple[Whitespace, Whitespace]] = None) -> cst.Call:
    """``F.op(arg0, arg1, kw=value)``.

    ``between``: the whitespace around the operator this call replaces; when it holds a comment or
    a newline it is kept around the first comma so nothing the user wrote is lost.
    """
    func: cst.BaseExpression = cst.Name(f_name)
    for part in op.split("."):
        func = cst.Attribute(value=func, attr=cst.Name(part))
    nodes: List[cst.Arg] = []
    all_args = [(None, a) for a in args] + [(k, v) for k, v in keywords]
    for index, (keyword, value) in enumerate(all_args):
        last = index == len(all_args) - 1
        comma: Union[cst.Comma, cst.MaybeSentinel] = cst.MaybeSentinel.DEFAULT
        if not last:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            if index == 0 and between is not None:
                before, after = between
                if before is not None and not _plain(before) or after is not None and not _plain(after):
                    comma = cst.Comma(
                        whitespace_before=before if before is not None and not _plain(before) else cst.SimpleWhitespace(""),
                        whitespace_after=after if after is not None and not _plain(after) else cst.SimpleWhitespace(" "))
        if keyword is None:
            nodes.append(cst.Arg(value=_strip_parens_if_safe(value), comma=comma))
        else:
            nodes.append(cst.Arg(value=value, keyword=cst.Name(keyword),
                                 equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                       whitespace_after=cst.SimpleWhitespace("")),
                                 comma=comma))
    return cst.Call(func=func, args=nodes)


def _strip_parens_if_safe(value: cst.BaseExpression) -> cst.BaseExpression:
    return value


def int_node(value: Optional[int]) -> cst.BaseExpression:
    if value is None:
        return cst.Name("None")
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def tuple_node(values: Sequence[cst.BaseExpression]) -> cst.Tuple:
    elements = []
    for index, value in enumerate(values):
        last = index == len(values) - 1
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if not last else (
            cst.Comma() if len(values) == 1 else cst.MaybeSentinel.DEFAULT)
        elements.append(cst.Element(value=value, comma=comma))
    return cst.Tuple(elements=elements)


def keep_parens(original: cst.BaseExpression, replacement: cst.BaseExpression) -> cst.BaseExpression:
    """Carry the parentheses around ``original`` over to ``replacement``."""
    if getattr(original, "lpar", None):
        return replacement.with_changes(lpar=original.lpar, rpar=original.rpar)
    return replacement


# ---------------------------------------------------------------------------------------------
# subscripts -> slice_axis / slice (+ squeeze)


class SubscriptPlan:
    """How ``x[...]`` maps to F.slice_axis / F.slice; ``None`` from :func:`plan_subscript` means no fix."""

    def __init__(self, axes: List[Tuple[int, cst.BaseSlice]]) -> None:
        self.axes = axes  # (axis, Index or Slice) for every non-trivial axis

    @property
    def dropped(self) -> List[int]:
        return [axis for axis, item in self.axes if isinstance(item, cst.Index)]


def _literal_or_none(node: Optional[cst.BaseExpression]) -> Tuple[bool, Optional[int]]:
    """(ok, value): ok when node is absent, None, or an integer literal."""
    if node is None:
        return True, None
    if isinstance(node, cst.Name) and node.value == "None":
        return True, None
    value = literal_int(node)
    return (value is not None), value


def subscript_rewrite(f_name: str, node: cst.Subscript) -> Optional[Tuple[cst.BaseExpression, bool]]:
    """(replacement, exact) for a tensor subscript, or None when there is no rewrite.

    Only integer literals (and None) are rewritten: an integer index is exact (it fails exactly
    where the original fails); slice bounds are exact only while they stay inside the axis
    (NDArray clamps ``x[1:10]``, ``slice_axis`` refuses it), so slices with an explicit end or a
    negative start are reported as not exact.
    """
    items: List[Tuple[int, cst.BaseSlice]] = []
    for axis, element in enumerate(node.slice):
        item = element.slice
        if isinstance(item, cst.Index):
            if item.star is not None:
                return None
            if literal_int(item.value) is None:
                return None
            items.append((axis, item))
        elif isinstance(item, cst.Slice):
            ok_lower, lower = _literal_or_none(item.lower)
            ok_upper, upper = _literal_or_none(item.upper)
            ok_step, step = _literal_or_none(item.step)
            if not (ok_lower and ok_upper and ok_step) or step == 0:
                return None
            if lower is None and upper is None and step in (None, 1):
                continue  # `:` keeps the axis as it is
            items.append((axis, item))
        else:
            return None
    if not items:
        return None
    data = node.value
    exact = True
    stepped = any(isinstance(i, cst.Slice) and _literal_or_none(i.step)[1] not in (None, 1) for _, i in items)
    if len(items) == 1 and not stepped:
        axis, item = items[0]
        if isinstance(item, cst.Index):
            index = literal_int(item.value)
            begin, end = index, (None if index == -1 else index + 1)
        else:
            begin = _literal_or_none(item.lower)[1]
            end = _literal_or_none(item.upper)[1]
            if end is not None or (begin is not None and begin < 0):
                exact = False
            begin = 0 if begin is None else begin
        result: cst.BaseExpression = f_call(f_name, "slice_axis", [data], [
            ("axis", int_node(axis)), ("begin", int_node(begin)), ("end", int_node(end))])
    else:
        last_axis = max(axis for axis, _ in items)
        begins, ends, steps = [], [], []
        for axis in range(last_axis + 1):
            item = next((i for a, i in items if a == axis), None)
            if item is None:
                begins.append(None), ends.append(None), steps.append(None)
            elif isinstance(item, cst.Index):
                index = literal_int(item.value)
                begins.append(index), ends.append(None if index == -1 else index + 1), steps.append(None)
            else:
                lower = _literal_or_none(item.lower)[1]
                upper = _literal_or_none(item.upper)[1]
                step = _literal_or_none(item.step)[1]
                if lower is not None or upper is not None:
                    exact = False
                begins.append(lower), ends.append(upper), steps.append(step)
        keywords = [("begin", tuple_node([int_node(v) for v in begins])),
                    ("end", tuple_node([int_node(v) for v in ends]))]
        if any(s is not None for s in steps):
            keywords.append(("step", tuple_node([int_node(v) for v in steps])))
        result = f_call(f_name, "slice", [data], keywords)
    dropped = [axis for axis, item in items if isinstance(item, cst.Index)]
    if dropped:
        axis_node = int_node(dropped[0]) if len(dropped) == 1 else tuple_node([int_node(a) for a in dropped])
        result = f_call(f_name, "squeeze", [result], [("axis", axis_node)])
    return keep_parens(node, result), exact
