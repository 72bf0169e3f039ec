"""What to write instead of a static shape read that HY201 cannot rewrite, by where the read is used.

Each suggestion is a shape-free MXNet 1.x form measured on MXNet 1.9.1 (eager and hybridized equal to the
shape-reading code): reshape's special codes, the `like`
operators, `scale_height`/`scale_width`, and `F.shape_array` where the size only feeds data (never a
static attribute such as `pad_width`, `height` or `shape`, which no tensor can feed).
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.syntax.walk import walk

_STOP = (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Lambda)
_ATTRIBUTES = {"height", "width", "pad_width", "shape", "size", "output_size", "scale", "kernel", "num_outputs"}


def _suggestion(callee: str, keyword: Optional[str], f: str, x: str) -> Optional[str]:
    op = callee.rsplit(".", 1)[-1]
    if op == "reshape":
        return (f"reshape's special codes (0 copies an axis, -1 infers one, -2 copies the rest, -3 merges two, "
                f"-4 splits one: `(0, G, -1)`, `(0, -4, G, -1, -2)`) or `{f}.reshape_like(y, {x})`")
    if op in ("zeros", "ones", "full", "empty"):
        return f"`{f}.zeros_like({x})` / `{f}.ones_like({x})` (times a constant for `full`)"
    if op == "arange":
        return f"`{f}.contrib.arange_like({x}, axis=i)`"
    if op in ("broadcast_to",):
        return f"`{f}.broadcast_like(v, {x})`"
    if op in ("BilinearResize2D", "UpSampling", "interpolate"):
        return (f"`{f}.contrib.BilinearResize2D(y, {x}, mode='like')` (the size of `{x}`), or `scale_height`/"
                f"`scale_width` for an integer factor")
    if op == "pad":
        return ("a static `pad_width` (a tensor never feeds an attribute): for TF 'SAME' padding, pad both "
                "parities statically and pick per axis with `F.where` on `F.shape_array(x)` % 2")
    if keyword in _ATTRIBUTES:
        return (f"a size given to `__init__`, or a `like` operator (`{f}.reshape_like`, `{f}.slice_like`, "
                f"`{f}.broadcast_like`): a static attribute never takes a tensor")
    return None


def _child_taking(name: str, assign: cst.Assign, parents: Dict[cst.CSTNode, cst.CSTNode]) -> Optional[str]:
    """``self.<child>`` when the size bound to ``name`` is passed to a child block's call in the function."""
    function = assign
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = parents.get(function)
    if function is None:
        return None
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            callee = dotted_name(call.func) or ""
            if callee.startswith("self.") and callee.count(".") == 1 and \
                    any(isinstance(a.value, cst.Name) and a.value.value == name for a in call.args):
                found.append(callee)

    walk(function.body, _Find())
    return found[0] if found else None


def instead(node: cst.Attribute, parents: Dict[cst.CSTNode, cst.CSTNode], f: str, x: str) -> str:
    """The shape-free form to write for the read ``node`` (``x.shape``), from the call or slice it feeds."""
    child: cst.CSTNode = node
    current = parents.get(node)
    while current is not None and not isinstance(current, _STOP):
        if isinstance(current, cst.Call) and child is not current.func:
            keyword = child.keyword.value if isinstance(child, cst.Arg) and child.keyword is not None else None
            found = _suggestion(dotted_name(current.func) or getattr(getattr(current.func, "attr", None), "value", ""),
                                keyword, f, x)
            if found:
                return found
        if isinstance(current, cst.Slice):
            return f"`{f}.slice_like(y, {x}, axes=(...))` for `y[..., :{x}.shape[i]]`"
        child, current = current, parents.get(current)
    if isinstance(current, cst.Assign) and len(current.targets) == 1 and \
            isinstance(current.targets[0].target, cst.Name):
        taker = _child_taking(current.targets[0].target.value, current, parents)
        if taker is not None:  # a size handed to a child block (an interpolation defined elsewhere)
            return (f"pass the tensor `{x}` itself to `{taker}` and take its size there with a `like` operator "
                    f"when it gets a tensor (a resize: `{f}.contrib.BilinearResize2D(y, {x}, mode='like')`; a crop: "
                    f"`{f}.slice_like`): a child's size argument cannot come from a Symbol (hylint rewrites the "
                    f"call itself only when the child's `hybrid_forward` returns a bilinear resize to exactly "
                    f"that size)")
    return (f"a size given to `__init__`, a `like` operator (`{f}.reshape_like`, `{f}.slice_like`, "
            f"`{f}.broadcast_like`, `{f}.zeros_like`, `{f}.contrib.arange_like`), or `{f}.shape_array({x})` "
            f"where the size only feeds data")
