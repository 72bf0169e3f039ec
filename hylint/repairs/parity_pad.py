"""TF "SAME" padding computed from the input's size, rewritten as a padding picked by parity (HY201's fix).

The idiom (gluoncv2's EfficientNet in TF mode, and any port of TF's "SAME" convolutions)::

    size = self.size if self.size is not None else x.shape[2:]   # or the shape read inline
    x = F.pad(x, mode="constant", pad_width=same_padding(size, kernel_size=k, strides=s), constant_value=0)

reads ``x.shape``, which a Symbol lacks, and no tensor can feed ``pad_width`` (a static attribute). For
a stride of 1 or 2 (dilation 1) the padding depends on each spatial size only through its parity: the
rewrite pads ``x`` once for an odd and once for an even size, both to the same length (the shorter one
gets trailing zeros that a convolution with that stride and kernel never reads), and ``F.where`` picks
per axis by ``F.shape_array(x)[axis] % 2``. Measured on MXNet 1.9.1 against the shape-reading original
followed by the convolution: outputs and input gradients bit-identical, eager and hybridized, for
kernels 1 to 7, strides 1 and 2, odd, even and mixed sizes, float32 and float64.

The padding helper is the user's own (called with representative sizes, 1 for odd and 2 for even), so
the rewrite works for any kernel and stride expression; hylint cannot see that the helper depends on the
size only through its parity, nor that only a convolution reads the padded tensor: the fix is unsafe.
The rewrite calls a module-level function, ``_pad_by_parity``, inserted once before the module's first
function or class (identical insertions of several fixes are applied once, lint/fixes.py).

Used by HY201 (rules/ndarray_only_attribute.py); resize_like.py reuses its size reads. Rests on (MXNet
1.9.1): mxnet-truth shape-free.md, the row "TF-"SAME" padding" (28 cases, outputs and input gradients
0 / 0); tests/repairs/test_parity_pad.py (on every backend) and fixtures/HY201_5.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import PendingEdit, PendingFix, replace
from hylint.syntax.nodes import dotted_name, literal_int, literal_number, name_reads
from hylint.syntax.walk import walk

HELPER = "_pad_by_parity"
TITLE = ("Pad for odd and even sizes and pick by parity (`F.where` on `F.shape_array`); unsafe: the padding "
         "helper must depend on each size only through its parity (TF 'SAME', stride 1 or 2, dilation 1), "
         "and only a convolution with that kernel and stride may read the padded tensor")
_HELPER_LINES = (
    "def _pad_by_parity(F, x, pad_width_of):",
    '    """`F.pad(x, mode="constant", pad_width=pad_width_of(x.shape[2:]))` without reading the shape of',
    "    the 4-D `x`, so that it hybridizes (written by hylint's HY201 fix). `pad_width_of` may depend on each",
    "    spatial size only through its parity (TF 'SAME' padding, stride 1 or 2, dilation 1): `x` is padded",
    "    for an odd and for an even size, to one length (zeros at the end, which a convolution of that",
    '    kernel and stride never reads), and `F.where` picks each axis by the parity of its size."""',
    "    for axis in (2, 3):",
    "        odd, even = ([width if i // 2 == axis else 0",
    "                      for i, width in enumerate(pad_width_of(tuple(size if a == axis else 1 for a in (2, 3))))]",
    "                     for size in (1, 2))",
    "        longer = sum(odd) - sum(even)",
    "        (even if longer > 0 else odd)[2 * axis + 1] += abs(longer)",
    '        x_odd = F.pad(x, mode="constant", pad_width=tuple(odd), constant_value=0)',
    '        x_even = F.pad(x, mode="constant", pad_width=tuple(even), constant_value=0)',
    "        parity = F.slice_axis(F.shape_array(x), axis=0, begin=axis, end=axis + 1) % 2",
    "        x = F.where(F.broadcast_like(parity.reshape((1, 1, 1, 1)), x_odd), x_odd, x_even)",
    "    return x",
)


def helper_source(indent: str = "    ", newline: str = "\n") -> str:
    """The inserted function, in the module's indentation and line endings."""
    return newline.join(line.replace("    ", indent) for line in _HELPER_LINES) + newline


def is_size_read(node: cst.CSTNode, x: str, code) -> bool:
    """``x.shape[2:]``: the spatial sizes of an NCHW tensor."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape" and code(node.value.value).strip() == x and len(node.slice) == 1):
        return False
    part = node.slice[0].slice
    return isinstance(part, cst.Slice) and literal_int(part.lower) == 2 and part.upper is None and part.step is None


def _mentions(node: cst.CSTNode, names: set) -> List[cst.Name]:
    return [name for name in name_reads(node) if name.value in names]


def _reads_shape(node: cst.CSTNode) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if attr.attr.value in ("shape", "size", "ndim"):
                found.append(attr)

    walk(node, _Find())
    return bool(found)


def _pad_call(size_arg: cst.Arg, x: str, parents: Dict, ctx) -> Optional[cst.Call]:
    """The ``F.pad(x, mode="constant", pad_width=helper(..., size, ...), constant_value=0)`` whose helper
    call takes ``size_arg``; None when the call is not exactly that."""
    helper_call = parents.get(size_arg)
    if not isinstance(helper_call, cst.Call) or size_arg not in helper_call.args or \
            (dotted_name(helper_call.func) or "").startswith(f"{ctx.f_name}."):
        return None
    if any(_reads_shape(arg) for arg in helper_call.args if arg is not size_arg) or \
            any(arg.star for arg in helper_call.args):
        return None
    width_arg = parents.get(helper_call)
    pad = parents.get(width_arg)
    if not isinstance(width_arg, cst.Arg) or width_arg.keyword is None or width_arg.keyword.value != "pad_width" \
            or not isinstance(pad, cst.Call) or dotted_name(pad.func) != f"{ctx.f_name}.pad":
        return None
    if not pad.args or pad.args[0].keyword is not None or pad.args[0].star or ctx.code(pad.args[0].value).strip() != x:
        return None
    for arg in pad.args[1:]:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "mode":
            if not isinstance(arg.value, cst.SimpleString) or arg.value.evaluated_value != "constant":
                return None
        elif keyword == "constant_value":
            if literal_number(arg.value) != 0:
                return None
        elif keyword != "pad_width":
            return None
    # the new expression replaces the call: it must stand where a conditional expression needs no parentheses
    holder = parents.get(pad)
    if not (isinstance(holder, (cst.Assign, cst.Return)) and holder.value is pad) and \
            not (isinstance(holder, cst.Arg) and holder.value is pad):
        return None
    return pad


def _helper_insertion(ctx) -> Optional[List[PendingEdit]]:
    """The edit inserting ``_pad_by_parity`` (none when the module has it), or None when the name is taken
    by something else."""
    module = ctx.module
    first = None
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == HELPER:
            expected = helper_source(module.default_indent, module.default_newline)
            return [] if module.code_for_node(statement).strip() == expected.strip() else None
        if first is None and isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and not statement.decorators:
            first = statement
    if first is None or HELPER in {n.value for n in _mentions(module, {HELPER})}:
        return None
    text = helper_source(module.default_indent, module.default_newline) + module.default_newline * 2
    return [PendingEdit(first, text, mode="insert_before")]


def _lambda(helper_call: cst.Call, size_arg: cst.Arg, ctx) -> str:
    taken = {n.value for n in name_reads(helper_call)}
    param = next(n for n in ("size", "spatial_size", "size_") if n not in taken)
    args = [arg.with_changes(value=cst.Name(param)) if arg is size_arg else arg for arg in helper_call.args]
    return f"lambda {param}: {ctx.module.code_for_node(helper_call.with_changes(args=args)).strip()}"


def parity_pad_fix(attr_node: cst.Attribute, parents: Dict, ctx) -> Optional[PendingFix]:
    """The fix for ``x.shape`` in the TF "SAME" padding idiom, or None when the code is not that idiom."""
    if not isinstance(attr_node.value, cst.Name) or ctx.function is None:
        return None
    x = attr_node.value.value
    read = parents.get(attr_node)
    if not is_size_read(read, x, ctx.code):
        return None
    holder = parents.get(read)
    edits: List[PendingEdit] = []
    tail = None
    if isinstance(holder, cst.Arg):  # F.pad(x, pad_width=helper(x.shape[2:], ...)): the read inline
        pad = _pad_call(holder, x, parents, ctx)
        if pad is None:
            return None
        new = f"{HELPER}({ctx.f_name}, {x}, {_lambda(parents[holder], holder, ctx)})"
    else:
        # size = A if C else x.shape[2:]  (or size = x.shape[2:]), then the padding on the next statement
        bound = bound_size(read, parents)
        if bound is None:
            return None
        choice, assign, line, body = bound
        size = assign.targets[0].target.value
        index = body.body.index(line)
        if index + 1 >= len(body.body):
            return None
        uses = [n for n in _mentions(ctx.function.body, {size}) if n is not assign.targets[0].target]
        if len(uses) != 1 or not isinstance(parents.get(uses[0]), cst.Arg):
            return None
        pad = _pad_call(parents[uses[0]], x, parents, ctx)
        if pad is None or _statement_of(pad, parents) is not body.body[index + 1]:
            return None  # the padding is the very next statement: nothing between reassigns the tensor
        helper_call = parents[parents[uses[0]]]
        parity = f"{HELPER}({ctx.f_name}, {x}, {_lambda(helper_call, parents[uses[0]], ctx)})"
        if choice is None:  # `size = x.shape[2:]` has no other use: it goes
            edits.append(PendingEdit(line, "", mode="delete_lines"))
            new = parity
        else:
            edits.append(size_or_none(choice, read, ctx))
            # the padding as written stays, for the sizes given; the parity pick for the others
            tail = PendingEdit(pad, f" if {size} is not None else {parity}", mode="insert_after")
    insertion = _helper_insertion(ctx)
    if insertion is None:
        return None
    edits.append(replace(pad, new) if tail is None else tail)
    return PendingFix(Applicability.UNSAFE, TITLE, insertion + edits)


def bound_size(read: cst.CSTNode, parents: Dict) -> Optional[tuple]:
    """For ``size = x.shape[2:]`` or ``size = A if C else x.shape[2:]`` alone on its line of an indented
    block: (the conditional expression or None, the assignment, its line, the block); else None."""
    holder = parents.get(read)
    choice = holder if isinstance(holder, cst.IfExp) and holder.orelse is read else None
    assign = parents.get(holder) if choice is not None else holder
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or \
            not isinstance(assign.targets[0].target, cst.Name) or assign.value is not (choice or read):
        return None
    line = parents.get(assign)
    body = parents.get(line)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
            not isinstance(body, cst.IndentedBlock) or line not in body.body:
        return None
    return choice, assign, line, body


def size_or_none(choice: cst.IfExp, read: cst.CSTNode, ctx) -> PendingEdit:
    """``A if C else x.shape[2:]`` -> ``A if C else None``, and ``A if A is not None else ...`` -> ``A``: the
    size when given, None when it was read from the input."""
    test = choice.test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.comparisons[0].operator, cst.IsNot) and \
            dotted_name(test.comparisons[0].comparator) == "None" and \
            ctx.code(test.left).strip() == ctx.code(choice.body).strip():
        return replace(choice, choice.body)
    return replace(read, "None")


def _statement_of(node: cst.CSTNode, parents: Dict) -> Optional[cst.CSTNode]:
    while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents.get(node)
    return node
