"""Builders for the rewrites rules offer (libcst nodes, so comments inside operands survive)."""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple, Union

import libcst as cst

from hylint.syntax.nodes import literal_int

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
                if before is not None and not _plain(before) and (after is None or _plain(after)):
                    # `a\n    + b` (the operator starting a line): the comma ends the first line, the
                    # second operand starts the next one where the operator did
                    before, after = None, before
                if before is not None and not _plain(before) or after is not None and not _plain(after):
                    comma = cst.Comma(
                        whitespace_before=before if before is not None and not _plain(before) else cst.SimpleWhitespace(""),
                        whitespace_after=after if after is not None and not _plain(after) else cst.SimpleWhitespace(" "))
        if keyword is None:
            nodes.append(cst.Arg(value=value, comma=comma))
        else:
            nodes.append(cst.Arg(value=value, keyword=cst.Name(keyword),
                                 equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                       whitespace_after=cst.SimpleWhitespace("")),
                                 comma=comma))
    return cst.Call(func=func, args=nodes)


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


# ---------------------------------------------------------------------------------------------
# subscripts -> slice_axis / slice (+ squeeze)


def _literal_or_none(node: Optional[cst.BaseExpression]) -> Tuple[bool, Optional[int]]:
    """(ok, value): ok when node is absent, None, or an integer literal."""
    if node is None:
        return True, None
    if isinstance(node, cst.Name) and node.value == "None":
        return True, None
    value = literal_int(node)
    return (value is not None), value


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` parenthesized unless it binds tighter than ``+`` on its own."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


Bound = Union[int, None, cst.BaseExpression]  # a literal, absent, or a Python expression (not a literal)


def _bound_node(value: Bound) -> cst.BaseExpression:
    return value if isinstance(value, cst.BaseExpression) else int_node(value)


def subscript_rewrite(f_name: str, node: cst.Subscript,
                      is_python_value: Callable[[cst.BaseExpression], bool] = lambda n: False,
                      ) -> Optional[Tuple[cst.BaseExpression, bool]]:
    """(replacement, exact) for a tensor subscript, or None when there is no rewrite.

    Measured on MXNet 1.9.1 (docs/fixing.md):

    * an integer index ``x[i]`` -> ``F.squeeze(F.slice_axis(x, axis=a, begin=i, end=i + 1), axis=a)``
      (``x[-1]`` ends at ``None``): exact, and it fails (MXNetError) exactly where the index is out of
      range (IndexError). ``F.slice_axis`` alone keeps the axis (mxnet-truth §1.4).
    * slices ``x[a:b]``, ``x[:, a:b:s]``: ``F.slice(x, begin=..., end=..., step=...)``. ``F.slice``
      clamps out-of-range bounds and returns empty axes exactly as NDArray's ``[]`` does, while
      ``F.slice_axis`` refuses them (``x[1:10]``, ``x[3:]`` on 3 rows, ``x[-10:]``), so a slice is
      never rewritten to ``slice_axis``.
    * several indexed axes: one ``F.slice`` with ``(i, i + 1)`` for integer indices, then
      ``F.squeeze`` over those axes (an out-of-range index makes the squeeze fail, as the original).

    Literal indices are exact. A non-literal index or bound that is a Python value (a loop
    variable, ``self.k``) gives a rewrite that is not exact: ``i + 1`` is wrong for ``i == -1``,
    and the value may be a tuple. Tensors, ellipsis, ``None``, starred and unknown indices: no rewrite.
    Literal slices whose NDArray form always raises (``x[2:1]``) are left alone.
    """
    exact = True
    items: List[Tuple[int, str, Tuple[Bound, Bound, Bound]]] = []  # (axis, "index"|"slice", (begin, end, step))
    for axis, element in enumerate(node.slice):
        item = element.slice
        if isinstance(item, cst.Index):
            if item.star is not None:
                return None
            index = literal_int(item.value)
            if index is not None:
                items.append((axis, "index", (index, None if index == -1 else index + 1, None)))
                continue
            if not is_python_value(item.value):
                return None
            exact = False
            end = cst.BinaryOperation(left=_atom(item.value), operator=cst.Add(
                whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
                right=cst.Integer("1"))
            items.append((axis, "index", (item.value, end, None)))
        elif isinstance(item, cst.Slice):
            parts: List[Bound] = []
            for part in (item.lower, item.upper, item.step):
                ok, value = _literal_or_none(part)
                if ok:
                    parts.append(value)
                elif part is not None and is_python_value(part):
                    exact = False
                    parts.append(part)
                else:
                    return None
            lower, upper, step = parts
            if step == 0:
                return None
            if lower is None and upper is None and step in (None, 1):
                continue  # `:` keeps the axis as it is
            if isinstance(lower, int) and isinstance(upper, int) and step in (None, 1) \
                    and (lower >= 0) == (upper >= 0) and lower > upper:
                return None  # NDArray raises for x[2:1]; F.slice would return an empty axis
            items.append((axis, "slice", (lower, upper, step)))
        else:
            return None
    if not items:
        return None
    data = node.value
    dropped = [axis for axis, kind, _ in items if kind == "index"]
    if len(items) == 1 and items[0][1] == "index":
        axis, _, (begin, end, _) = items[0]
        result: cst.BaseExpression = f_call(f_name, "slice_axis", [data], [
            ("axis", int_node(axis)), ("begin", _bound_node(begin)), ("end", _bound_node(end))])
    else:
        last_axis = max(axis for axis, _, _ in items)
        begins: List[Bound] = [None] * (last_axis + 1)
        ends: List[Bound] = [None] * (last_axis + 1)
        steps: List[Bound] = [None] * (last_axis + 1)
        for axis, _, (begin, end, step) in items:
            begins[axis], ends[axis], steps[axis] = begin, end, step
        keywords = [("begin", tuple_node([_bound_node(v) for v in begins])),
                    ("end", tuple_node([_bound_node(v) for v in ends]))]
        if any(s is not None for s in steps):
            keywords.append(("step", tuple_node([_bound_node(v) for v in steps])))
        result = f_call(f_name, "slice", [data], keywords)
    if dropped:
        axis_node = int_node(dropped[0]) if len(dropped) == 1 else tuple_node([int_node(a) for a in dropped])
        result = f_call(f_name, "squeeze", [result], [("axis", axis_node)])
    # (an edit replaces the node's span, which leaves its own parentheses in place: the result needs none)
    return result, exact
