"""A reshape of the first axis that copies the rest from the input's shape, rewritten with reshape's special
codes (HY201's fix).

The idiom (gluonts' DeepRenewal, and any block folding samples into the batch axis and back)::

    y.reshape(shape=(-1, n) + y.shape[1:])        # or F.reshape(y, (k,) + y.shape[1:])

replaces the first axis of ``y`` by the sizes of the tuple. Without ``.shape``: ``(-4, -1, n, -2)`` (-4 splits
the first axis in two, -2 copies the remaining ones) for two sizes, ``(k, -2)`` for one; and
``(-1,) + y.shape[2:]``, which merges the first two axes, is ``(-3, -2)``. Measured on MXNet
1.9.1 (tests/repairs/test_reshape_prefix_mxnet.py): equal outputs eagerly and hybridized for ``(-1, 2)``,
``(3, -1)``, ``(2, 3)``, ``(-1,)`` and ``(6,)`` on a (6, 3, 4) input; where the sizes do not divide the first
axis both forms raise (ValueError before, MXNetError after: an input the block refused still fails).

Safe when the receiver is an NDArray (a NumPy array reads the codes as sizes) and every size is an integer
literal other than reshape's codes 0, -2, -3 and -4 (which the rewrite would read as part of a code);
unsafe when a size is an expression (``self.num_samples``): it is assumed to be a size, never a code. The
``(-3, -2)`` form also needs two axes (a 1-D array reshaped by ``(-1,) + x.shape[2:]`` stays itself, while -3
fails): safe only when the rank is proven above 1 (the fix oracle found the 1-D case).

Used by HY201 (rules/ndarray_only_attribute.py).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import Fact, PendingFix, Reliance, replace
from hylint.syntax.nodes import dotted_name, literal_int
from hylint.syntax.rewrite import int_node, tuple_node

TITLE = "Use reshape's special codes (-4 splits the first axis, -2 copies the rest)"
WHY_UNSAFE = "each size of the tuple is assumed to be a size, not one of reshape's special codes (0, -2, -3, -4)"
_CODES = (0, -2, -3, -4)


def _rest_of_shape(node: cst.CSTNode, receiver: str, ctx) -> Optional[int]:
    """k when ``node`` is ``<receiver>.shape[k:]``, else None."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)):
        return None
    piece = node.slice[0].slice
    if piece.upper is None and piece.step is None and isinstance(node.value, cst.Attribute) and \
            node.value.attr.value == "shape" and ctx.code(node.value.value).strip() == receiver:
        return literal_int(piece.lower)
    return None


def _reshaped(call: cst.Call, argument: cst.Arg, f_name: str, ctx) -> Optional[cst.BaseExpression]:
    """The array ``call`` reshapes when ``argument`` is its shape: ``x.reshape(s)``, ``x.reshape(shape=s)``,
    ``F.reshape(x, s)``, ``F.reshape(data=x, shape=s)``; else None."""
    name = dotted_name(call.func) or ""
    keyword = argument.keyword.value if argument.keyword is not None else None
    if name == f"{f_name}.reshape":
        positional = [arg for arg in call.args if arg.keyword is None]
        data = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "data"),
                    positional[0].value if positional else None)
        shape_position = keyword == "shape" or (keyword is None and len(positional) == 2 and argument is positional[1])
        return data if shape_position and len(call.args) == 2 else None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "reshape" and len(call.args) == 1 and \
            keyword in (None, "shape"):
        return call.func.value
    return None


def reshape_prefix_fix(attr_node: cst.Attribute, parents: Dict[cst.CSTNode, cst.CSTNode], ctx) -> Optional[PendingFix]:
    """The fix for ``attr_node`` (``x.shape``) read as ``x.shape[1:]`` after a tuple of one or two sizes in the
    shape of a reshape of ``x``; None when the code is not that idiom."""
    rest = parents.get(attr_node)
    addition = parents.get(rest)
    if not (isinstance(addition, cst.BinaryOperation) and isinstance(addition.operator, cst.Add)
            and addition.right is rest and isinstance(addition.left, cst.Tuple)):
        return None
    argument = parents.get(addition)
    call = parents.get(argument)
    if not (isinstance(argument, cst.Arg) and isinstance(call, cst.Call)):
        return None
    data = _reshaped(call, argument, ctx.f_name, ctx)
    kept_from = _rest_of_shape(rest, ctx.code(data).strip(), ctx) if data is not None else None
    sizes = addition.left.elements
    if kept_from not in (1, 2) or not 1 <= len(sizes) <= 2 or \
            any(isinstance(element, cst.StarredElement) for element in sizes):
        return None
    values: List[Optional[int]] = [literal_int(element.value) for element in sizes]
    if any(value in _CODES for value in values):
        return None
    if any("shape" in ctx.code(element.value) for element in sizes):
        return None  # another size read from a shape: that read is reported on its own
    relies_on = [Reliance(data, Fact.NDARRAY)]
    if kept_from == 2:  # `(-1,) + x.shape[2:]`: the first two axes merged (-3), only when inferred
        if values != [-1]:
            return None
        codes = [int_node(-3)]
        # -3 merges two axes: a 1-D array, which `(-1,) + x.shape[2:]` reshapes to itself, has one
        relies_on.append(Reliance(data, Fact.RANK_ABOVE, rank=1, doubt="may be 1-D",
                                  otherwise="with rank 1 the code -3 finds no second axis to merge and fails"))
    else:
        codes = ([int_node(-4)] if len(sizes) == 2 else []) + [element.value for element in sizes]
    new = tuple_node(codes + [int_node(-2)])
    if addition.lpar:  # `((-1, n) + x.shape[1:])`: the span replaced is inside those parentheses, which stay
        new = new.with_changes(lpar=[], rpar=[])
    exact = all(value is not None for value in values)
    return PendingFix(Applicability.SAFE if exact else Applicability.UNSAFE, TITLE, [replace(addition, new)],
                      relies_on=relies_on, why_unsafe=None if exact else WHY_UNSAFE)
