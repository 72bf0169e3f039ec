"""Block classes that resize their input to a size they are given: what a caller may write instead.

A child block that takes an output size (gluoncv2's ``InterpolationBlock``)::

    def hybrid_forward(self, F, x, size=None):
        if self.bilinear or (size is not None):
            out_size = self.calc_out_size(x) if size is None else size
            return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])
        ...

is called as ``self.up(y, x.shape[2:])``, which cannot trace: the caller reads a Symbol's shape. When the
class's ``hybrid_forward``, given a size (``size is not None``), returns exactly
``F.contrib.BilinearResize2D(<its input>, height=size[0], width=size[1])`` (with at most a literal
``align_corners``), the call computes ``F.contrib.BilinearResize2D(y, x, mode='like')`` (measured on MXNet
1.9.1: bit-identical, eager and hybridized, both ``align_corners``). HY201's fix writes that in the caller.

The check reads the ``hybrid_forward`` under the assumption that the size is given: ``if`` tests and
conditional expressions that the assumption decides are followed (``A or size is not None`` is true,
``E if size is None else size`` is ``size``), names bound to the size are followed; any other statement
before the ``return``, a rebinding of the input, or a class (or package base) defining ``forward``, and the
class is not a resizer. The class may live in another module of the package: the reach's package pass
(analysis/reach/bindings.py) records, per module, the names under which it can see such classes.
"""
from __future__ import annotations

import ast
from typing import Dict, NamedTuple, Optional

_RESIZE = "contrib.BilinearResize2D"
_SIZE, _NONE = "size", "none"  # what an expression is known to be under the assumption


class Resizer(NamedTuple):
    """A block class, by the name a module sees it under, whose call ``block(y, ..., size)`` resizes ``y`` to
    ``size`` (positional argument ``position`` of the call)."""
    name: str
    position: int
    keywords: str  # the literal keywords the resize passes besides height and width (``align_corners=False``)


class _NotResizer(Exception):
    pass


def resize_position(hybrid_forward: ast.FunctionDef) -> Optional[tuple]:
    """``(position, keywords)`` when the method resizes its first input to the size given at ``position``
    (of the block's call, the input being 0), or None."""
    args = hybrid_forward.args
    params = [a.arg for a in list(args.posonlyargs) + list(args.args)]
    if len(params) < 4 or args.vararg is not None:
        return None
    f, x = params[1], params[2]
    for position, size in enumerate(params[3:], start=1):
        try:
            keywords = _Reader(f, x, size).body(hybrid_forward.body)
        except _NotResizer:
            continue
        if keywords is not None:
            return position, keywords
    return None


class _Reader:
    def __init__(self, f: str, x: str, size: str) -> None:
        self.f, self.x = f, x
        self.known: Dict[str, str] = {size: _SIZE}

    def body(self, statements) -> Optional[str]:
        """The keywords of the resize the statements return; None when they fall through without returning."""
        for index, stmt in enumerate(statements):
            if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
                    isinstance(stmt.value.value, str):
                continue  # the docstring
            if isinstance(stmt, ast.If):
                returned = self.body(stmt.body if self.truth(stmt.test) else stmt.orelse)
                if returned is not None:
                    return returned
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name in (self.f, self.x):
                    raise _NotResizer
                what = self.value(stmt.value)
                if what is None:
                    self.known.pop(name, None)
                else:
                    self.known[name] = what
                continue
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                return self.resize(stmt.value)
            raise _NotResizer
        return None

    def value(self, node: ast.expr) -> Optional[str]:
        if isinstance(node, ast.Name):
            return self.known.get(node.id)
        if isinstance(node, ast.Constant) and node.value is None:
            return _NONE
        if isinstance(node, ast.IfExp):
            return self.value(node.body if self.truth(node.test) else node.orelse)
        return None

    def truth(self, test: ast.expr) -> bool:
        """The value of ``test`` with the size given; _NotResizer when the assumption does not decide it."""
        if isinstance(test, ast.BoolOp):
            values = []
            for operand in test.values:
                try:
                    values.append(self.truth(operand))
                except _NotResizer:
                    values.append(None)
            if isinstance(test.op, ast.Or) and True in values or isinstance(test.op, ast.And) and False in values:
                return isinstance(test.op, ast.Or)
            if None in values:
                raise _NotResizer
            return any(values) if isinstance(test.op, ast.Or) else all(values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return not self.truth(test.operand)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            sides = {self.value(test.left), self.value(test.comparators[0])}
            if sides == {_SIZE, _NONE}:
                return isinstance(test.ops[0], ast.IsNot)
        raise _NotResizer

    def resize(self, call: ast.expr) -> str:
        if not (isinstance(call, ast.Call) and _dotted(call.func) == f"{self.f}.{_RESIZE}" and len(call.args) == 1
                and isinstance(call.args[0], ast.Name) and call.args[0].id == self.x):
            raise _NotResizer
        keywords = {k.arg: k.value for k in call.keywords}
        if None in keywords or not {"height", "width"} <= set(keywords) or \
                not set(keywords) <= {"height", "width", "align_corners"}:
            raise _NotResizer
        for axis, keyword in enumerate(("height", "width")):
            read = keywords[keyword]
            if not (isinstance(read, ast.Subscript) and self.value(read.value) == _SIZE
                    and isinstance(read.slice, ast.Constant) and read.slice.value == axis):
                raise _NotResizer
        corners = keywords.get("align_corners")
        if corners is None:
            return ""
        if not (isinstance(corners, ast.Constant) and isinstance(corners.value, bool)):
            raise _NotResizer
        return f"align_corners={corners.value}"


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""
