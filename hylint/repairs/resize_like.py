"""A size read from the input handed to a child block that resizes to it, rewritten as a `like` resize
(HY201's fix).

The idiom (gluoncv2's CGNet, DABNet, BiSeNet, LEDNet)::

    in_size = self.in_size if self.fixed_size else x.shape[2:]   # or `in_size = x.shape[2:]`
    ...
    y = self.up(y, in_size)

where ``self.up`` is a block whose call, given a size, returns ``F.contrib.BilinearResize2D(y,
height=size[0], width=size[1])`` (analysis/resizers.py reads its ``hybrid_forward``, in this module or,
through the package's reach, in another one). The call becomes ``F.contrib.BilinearResize2D(y, x,
mode='like')`` (the child's literal ``align_corners`` kept), for the sizes read from ``x``; with ``A if C
else x.shape[2:]`` the size read becomes ``None`` and the call ``self.up(y, in_size) if in_size is not None
else ...``, so the sizes given still go to the child. Measured on MXNet 1.9.1 and on the runtime: outputs
and gradients bit-identical, eager and hybridized, both ``align_corners``, up- and down-sizing.

Unsafe: the child block no longer runs for the rewritten call (its hooks, and a ``hybrid_forward`` changed
later), and with ``A if C``, ``A`` must not be None when ``C`` holds (``A if A is not None`` is exact).

Used by HY201 (rules/ndarray_only_attribute.py). Rests on (MXNet 1.9.1): mxnet-truth shape-free.md, the row
"`BilinearResize2D(y, height=x.shape[2], width=x.shape[3])`" (0 / 0; the like tensor gets a zero
gradient); tests/repairs/test_resize_like_mxnet.py and fixtures/HY201_8.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

import libcst as cst

from hylint.analysis.resizers import resize_position
from hylint.diagnostic import Applicability
from hylint.rule import PendingEdit, PendingFix, replace
from hylint.repairs.parity_pad import is_size_read, bound_size, size_or_none
from hylint.syntax.nodes import dotted_name, name_reads
from hylint.syntax.walk import walk

TITLE = ("Resize with `F.contrib.BilinearResize2D(y, x, mode='like')` instead of handing the child a size read "
         "from `x`; unsafe: the child block no longer runs for this call, and a size given as `A if C` must not "
         "be None when `C` holds")


def _resizer_position(attr: str, ctx) -> Optional[tuple]:
    """``(position, keywords)`` of the child ``self.<attr>`` when its class resizes to a given size."""
    cls = ctx.cls
    constructor = cls.children.get(attr) if cls is not None else None
    if not constructor or "." in constructor:
        return None
    known = ctx.module_info.resizers.get(constructor)
    if known is not None:  # the package's reach read the class, wherever it is defined
        return known.position, known.keywords
    local = ctx.module_info.classes.get(constructor)  # a class of this file (no reach: a lone source)
    if local is None or local.hybrid_forward is None or "forward" in local.methods or \
            not set(local.base_names) <= {"HybridBlock"}:
        return None
    tree = ast.parse(ctx.module.code_for_node(local.hybrid_forward).strip())
    return resize_position(tree.body[0])


_TARGETS = {cst.AssignTarget: "target", cst.AugAssign: "target", cst.AnnAssign: "target", cst.For: "target",
            cst.NamedExpr: "target", cst.AsName: "name"}


def _rebinds(statements, name: str) -> bool:
    """Whether ``name`` is assigned anywhere in ``statements`` (targets of any kind)."""
    found: List[cst.CSTNode] = []

    class _Find(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            field = _TARGETS.get(type(node))
            if field is not None:
                found.extend(n for n in name_reads(getattr(node, field)) if n.value == name)
            return True

    for statement in statements:
        walk(statement, _Find())
    return bool(found)


def _indent(body: cst.IndentedBlock, ctx) -> Optional[str]:
    """The indentation of ``body``, the body of a method of a module-level class; None elsewhere."""
    cls = ctx.cls.node
    if body is not ctx.function.body or cls not in ctx.module.body or ctx.function not in cls.body.body:
        return None
    return "".join(ctx.module.default_indent if block.indent is None else block.indent for block in (cls.body, body))


def resize_like_fix(attr_node: cst.Attribute, parents: Dict, ctx) -> Optional[PendingFix]:
    """The fix for ``x.shape[2:]`` bound to a size that only a resizing child's call reads, or None."""
    if not isinstance(attr_node.value, cst.Name) or ctx.function is None or ctx.cls is None:
        return None
    x = attr_node.value.value
    read = parents.get(attr_node)
    if not is_size_read(read, x, ctx.code):
        return None
    bound = bound_size(read, parents)
    if bound is None:
        return None
    choice, assign, line, body = bound
    size = assign.targets[0].target.value
    uses = [n for n in name_reads(ctx.function.body) if n.value == size and n is not assign.targets[0].target]
    arg = parents.get(uses[0]) if len(uses) == 1 else None
    call = parents.get(arg)
    if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and len(call.args) == 2 and call.args[1] is arg
            and all(a.keyword is None and not a.star for a in call.args)):
        return None
    callee = dotted_name(call.func) or ""
    if callee.count(".") != 1 or not callee.startswith("self."):
        return None
    statement = parents.get(parents.get(call))
    if not (isinstance(parents.get(call), (cst.Assign, cst.Return)) and parents[call].value is call
            and statement in body.body and body.body.index(statement) > body.body.index(line)):
        return None  # the call is the value of a statement after the size's, in the same block
    found = _resizer_position(callee.split(".", 1)[1], ctx)
    if found is None or found[0] != 1:
        return None
    between = body.body[body.body.index(line) + 1:body.body.index(statement)]
    if _rebinds(between, size):
        return None
    edits: List[PendingEdit] = []
    like_tensor = x
    if _rebinds(between, x):  # the like tensor must be the one the size was read from: kept under a new name
        like_tensor, indent = f"{size}_like", _indent(body, ctx)
        if indent is None or like_tensor in {n.value for n in name_reads(ctx.function)}:
            return None
        edits.append(PendingEdit(between[0], f"{like_tensor} = {x}{ctx.module.default_newline}{indent}",
                                 mode="insert_before"))  # the line of the size keeps its comment
    y = ctx.code(call.args[0].value).strip()
    extra = f", {found[1]}" if found[1] else ""
    like = f"{ctx.f_name}.contrib.BilinearResize2D({y}, {like_tensor}, mode='like'{extra})"
    if choice is None:  # `size = x.shape[2:]`, read only by the call: it goes
        if like_tensor != x:
            return None
        edits.append(PendingEdit(line, "", mode="delete_lines"))
        edits.append(replace(call, like))
    else:
        edits.append(size_or_none(choice, read, ctx))
        edits.append(PendingEdit(call, f" if {size} is not None else {like}", mode="insert_after"))
    return PendingFix(Applicability.UNSAFE, TITLE, edits)
