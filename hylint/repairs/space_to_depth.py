"""Space-to-depth spelled out from the unpacked input shape, rewritten as ``F.space_to_depth`` (HY201's fix).

The idiom (i-RevNet's psi block in gluoncv2, after the PyTorch original)::

    batch, channels, height, width = x.shape
    y = x.transpose(axes=(0, 2, 3, 1))
    pieces = y.split(axis=2, num_outputs=width // s)
    pieces = [t.reshape(batch, height // s, channels * s * s) for t in pieces]
    y = F.stack(*pieces, axis=1)
    return y.transpose(axes=(0, 3, 2, 1))

reads ``x.shape`` for sizes that only move elements. hylint follows the layout symbolically: every axis
is a list of factors of the input's axes (``h`` split into an outer ``h.o`` and an inner ``h.i`` of size
``s``), sizes are monomials over the unpacked names and static attributes (``self.scale``), and
``transpose``, ``split``, ``reshape`` (row-major: a factor is split where a target size needs it), a
comprehension reshaping each piece, and ``F.stack`` move factors. When the function's tail ends with the
layout of ``F.space_to_depth(x, block_size=s)``, (N, [h.i, w.i, c], h.o, w.o) with ``h.i`` and ``w.i``
of size ``s``, the tail becomes ``return F.space_to_depth(x, block_size=s)``. Measured on MXNet 1.9.1
(the measured shape-free rewrites: 0 / 0 for s = 2, 3, 4).

Unsafe: the rewrite drops the tail's asserts, and for sizes not divisible by ``s`` it raises MXNetError
where the original raised its AssertionError (or a reshape error); the sizes the idiom divides must be
divisible, which hylint cannot see.

Used by HY201 (rules/ndarray_only_attribute.py). Rests on (MXNet 1.9.1): mxnet-truth shape-free.md, the row
"space-to-depth from `batch, c, h, w = x.shape`" (0 / 0 for s = 2, 3, 4; the channel order is the
same); fixtures/HY201_7.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Dict, List, Optional, Tuple

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import PendingEdit, PendingFix, replace
from hylint.syntax.nodes import dotted_name, literal_int

TITLE = ("Use `F.space_to_depth` (the tail moves elements only); unsafe: its asserts go, and sizes not "
         "divisible by the block size raise MXNetError instead")


class _NoMatch(Exception):
    pass


class Mono:
    """A size: a positive rational coefficient times symbols to integer powers."""

    def __init__(self, coef=1, powers=()):
        self.coef = Fraction(coef)
        self.powers = tuple(sorted((s, p) for s, p in dict(powers).items() if p))

    def __mul__(self, other: "Mono") -> "Mono":
        powers = dict(self.powers)
        for symbol, power in other.powers:
            powers[symbol] = powers.get(symbol, 0) + power
        return Mono(self.coef * other.coef, powers)

    def __truediv__(self, other: "Mono") -> "Mono":
        return self * Mono(1 / other.coef, {s: -p for s, p in other.powers})

    def __eq__(self, other) -> bool:
        return isinstance(other, Mono) and (self.coef, self.powers) == (other.coef, other.powers)

    def __hash__(self) -> int:
        return hash((self.coef, self.powers))

    def whole(self) -> bool:
        """Not a fraction of anything: an integer coefficient and no negative power."""
        return self.coef.denominator == 1 and all(p > 0 for _, p in self.powers)


ONE = Mono()
Factor = Tuple[str, Mono]
Layout = List[List[Factor]]


def _product(factors) -> Mono:
    size = ONE
    for _, factor_size in factors:
        size = size * factor_size
    return size


def _regroup(factors: List[Factor], sizes: List[Mono]) -> Layout:
    """Row-major reshape of ``factors`` into axes of ``sizes``, splitting a factor where a size needs it."""
    pending = list(factors)
    axes: Layout = []
    for size in sizes:
        axis: List[Factor] = []
        while _product(axis) != size:
            if not pending:
                raise _NoMatch
            need = size / _product(axis)
            ident, factor_size = pending.pop(0)
            if factor_size == need or (need / factor_size).whole():
                axis.append((ident, factor_size))
            elif (factor_size / need).whole():
                axis.append((ident + ".o", need))
                pending.insert(0, (ident + ".i", factor_size / need))
            else:
                raise _NoMatch
        axes.append(axis)
    if pending and _product(pending) != ONE:
        raise _NoMatch
    return axes


class _Interpreter:
    def __init__(self, f: str):
        self.f = f
        self.values: Dict[str, object] = {}  # name -> Mono (a size), list (a layout) or tuple (pieces)

    def size(self, node: cst.BaseExpression) -> Mono:
        number = literal_int(node)
        if number is not None and number > 0:
            return Mono(number)
        if isinstance(node, cst.Name) and isinstance(self.values.get(node.value), Mono):
            return self.values[node.value]
        if isinstance(node, cst.Attribute) and dotted_name(node) and dotted_name(node).startswith("self."):
            return Mono(1, {dotted_name(node): 1})  # a static attribute: a symbol
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Multiply, cst.FloorDivide)):
            left, right = self.size(node.left), self.size(node.right)
            return left * right if isinstance(node.operator, cst.Multiply) else left / right
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and \
                node.value.attr.value == "shape" and len(node.slice) == 1 and \
                isinstance(node.slice[0].slice, cst.Index):
            layout = self.tensor(node.value.value)
            index = literal_int(node.slice[0].slice.value)
            if index is None or not 0 <= index < len(layout):
                raise _NoMatch
            return _product(layout[index])
        raise _NoMatch

    def tensor(self, node: cst.BaseExpression) -> Layout:
        if isinstance(node, cst.Name) and isinstance(self.values.get(node.value), list):
            return self.values[node.value]
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "transpose":
                layout = self.tensor(node.func.value)
                axes = _int_tuple(_only_arg(node, "axes"))
                if sorted(axes) != list(range(len(layout))):
                    raise _NoMatch
                return [layout[i] for i in axes]
            if method == "reshape":
                layout = self.tensor(node.func.value)
                dims = [a.value for a in node.args] if len(node.args) > 1 else list(_elements(_only_arg(node, "shape")))
                if any(a.keyword is not None and len(node.args) > 1 for a in node.args):
                    raise _NoMatch
                return _regroup([f for axis in layout for f in axis], [self.size(d) for d in dims])
            if dotted_name(node.func) == f"{self.f}.stack":
                return self.stack(node)
        raise _NoMatch

    def stack(self, node: cst.Call) -> Layout:
        if len(node.args) != 2 or node.args[0].star != "*" or not isinstance(node.args[0].value, cst.Name) or \
                node.args[1].keyword is None or node.args[1].keyword.value != "axis":
            raise _NoMatch
        pieces = self.values.get(node.args[0].value.value)
        axis = literal_int(node.args[1].value)
        if not isinstance(pieces, tuple) or axis is None or not 0 <= axis <= len(pieces[1]):
            raise _NoMatch
        outer, layout = pieces
        return layout[:axis] + [[outer]] + layout[axis:]

    def pieces(self, node: cst.BaseExpression) -> tuple:
        """``t.split(axis=a, num_outputs=k)`` -> (outer factor, layout of a piece); a comprehension reshaping
        each piece keeps the outer factor."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "split":
            layout = self.tensor(node.func.value)
            keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
            if len(keywords) != 2 or len(node.args) != 2 or set(keywords) != {"axis", "num_outputs"}:
                raise _NoMatch
            axis, count = literal_int(keywords["axis"]), self.size(keywords["num_outputs"])
            if axis is None or not 0 <= axis < len(layout):
                raise _NoMatch
            outer, inner = _regroup(layout[axis], [count, _product(layout[axis]) / count])
            if len(outer) != 1:
                raise _NoMatch
            return outer[0], layout[:axis] + [inner] + layout[axis + 1:]
        if isinstance(node, cst.ListComp) and isinstance(node.for_in.target, cst.Name) and node.for_in.inner_for_in is None and \
                not node.for_in.ifs and isinstance(node.for_in.iter, cst.Name):
            pieces = self.values.get(node.for_in.iter.value)
            if not isinstance(pieces, tuple):
                raise _NoMatch
            name = node.for_in.target.value
            saved = self.values.get(name)
            self.values[name] = pieces[1]
            try:
                layout = self.tensor(node.elt)
            finally:
                self.values[name] = saved
            return pieces[0], layout
        raise _NoMatch

    def assign(self, name: str, value: cst.BaseExpression) -> None:
        for kind in (self.size, self.tensor, self.pieces):
            try:
                self.values[name] = kind(value)
                return
            except _NoMatch:
                continue
        raise _NoMatch


def _only_arg(call: cst.Call, keyword: str) -> cst.BaseExpression:
    if len(call.args) != 1 or call.args[0].keyword is not None and call.args[0].keyword.value != keyword:
        raise _NoMatch
    return call.args[0].value


def _elements(node: cst.BaseExpression):
    if not isinstance(node, cst.Tuple):
        raise _NoMatch
    return [e.value for e in node.elements]


def _int_tuple(node: cst.BaseExpression) -> List[int]:
    values = [literal_int(e) for e in _elements(node)]
    if any(v is None for v in values):
        raise _NoMatch
    return values


def _block_size(layout: Layout, source: Dict[str, Mono]) -> Optional[str]:
    """``s`` when ``layout`` is space_to_depth's (N, [h.i, w.i, c], h.o, w.o) with h.i and w.i of size s."""
    h, w = source["h"], source["w"]
    ids = [[ident for ident, _ in axis] for axis in layout]
    if ids != [["n"], ["h.i", "w.i", "c"], ["h.o"], ["w.o"]]:
        return None
    block = layout[1][0][1]
    if layout[1][1][1] != block or not block.whole() or layout[2][0][1] != h / block or layout[3][0][1] != w / block:
        return None
    if block.powers == () and block.coef > 1:
        return str(block.coef)
    if block.coef == 1 and len(block.powers) == 1 and block.powers[0][1] == 1:
        return block.powers[0][0]
    return None


def space_to_depth_fix(attr_node: cst.Attribute, parents: Dict, ctx) -> Optional[PendingFix]:
    """The fix for ``x.shape`` unpacked at the start of the idiom's tail, or None."""
    unpack = parents.get(attr_node)
    if not (isinstance(attr_node.value, cst.Name) and isinstance(unpack, cst.Assign) and unpack.value is attr_node
            and len(unpack.targets) == 1 and isinstance(unpack.targets[0].target, cst.Tuple)):
        return None
    names = [e.value for e in unpack.targets[0].target.elements]
    line = parents.get(unpack)
    body = parents.get(line)
    if len(names) != 4 or not all(isinstance(n, cst.Name) for n in names) or \
            not isinstance(body, cst.IndentedBlock) or parents.get(body) is not ctx.function or line not in body.body:
        return None
    x = attr_node.value.value
    interpreter = _Interpreter(ctx.f_name)
    source = {axis: Mono(1, {name.value: 1}) for axis, name in zip("nchw", names)}
    interpreter.values.update({name.value: source[axis] for axis, name in zip("nchw", names)})
    interpreter.values[x] = [[(axis, source[axis])] for axis in "nchw"]
    tail = list(body.body[body.body.index(line) + 1:])
    try:
        for statement in tail[:-1]:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                return None
            small = statement.body[0]
            if isinstance(small, cst.Assert):
                continue  # dropped with the rest (the fix's title says so)
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and
                    isinstance(small.targets[0].target, cst.Name)):
                return None  # (the input may be rebound: the whole tail goes, the new return reads it first)
            interpreter.assign(small.targets[0].target.value, small.value)
        last = tail[-1] if tail else None
        if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and
                isinstance(last.body[0], cst.Return) and last.body[0].value is not None):
            return None
        layout = interpreter.tensor(last.body[0].value)
    except _NoMatch:
        return None
    block = _block_size(layout, source)
    if block is None:
        return None
    new = f"return {ctx.f_name}.space_to_depth({x}, block_size={block})"
    edits = [PendingEdit(statement, "", mode="delete_lines") for statement in [line] + tail[:-1]]
    # the blank lines between the statements that go go with them (comments stay; so do the lines before
    # the first, which separate the tail from what precedes it)
    edits += [PendingEdit(empty, "") for statement in tail for empty in statement.leading_lines
              if empty.comment is None]
    return PendingFix(Applicability.UNSAFE, TITLE, edits + [replace(last.body[0], new)])
