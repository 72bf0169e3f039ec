"""Group normalization written as a training-mode BatchNorm over (1, N*G, -1), rewritten through
``F.InstanceNorm`` over (N, G, -1) (HY201's fix; gluoncv's GroupNorm is the idiom)::

    with autograd.train_mode():
        y = x.expand_dims(0).reshape((0, 0, G, -1))         # (1, N, G, M); varargs accepted too
        y = y.reshape((1, -3, -1))                          # (1, N*G, M)
        batch = x.shape[0]
        y = F.BatchNorm(y, F.ones(batch * G, ctx=x.context), F.zeros(...), F.zeros(...), F.ones(...),
                        **kwargs)                           # statistics of each (n, g) over M
    y = y.reshape_like(x)...

reads ``x.shape`` and ``x.context`` to size the statistics, which a Symbol cannot, and the BatchNorm's
moving statistics would be graph inputs it mutates. Normalizing each (sample, group) over the rest is
what ``F.InstanceNorm`` does on ``x.reshape((0, G, -1))`` with gamma 1 and beta 0 (shape (G,)), so the
``with`` statement becomes::

    y = F.InstanceNorm(x.reshape((0, G, -1)), F.ones((G,)), F.zeros((G,)), eps=...)

Measured on MXNet 1.9.1 (the measured shape-free rewrites): 6.45e-7 from a float64 reference, the
original 3.2e-7; gluoncv's resnet50_v1b_gn 4.3e-6 at outputs of 5.7 eagerly, the same hybridized.
Unsafe: the float32 rounding differs (the two operators sum in another order), InstanceNorm rejects
float64 (so does the original, which mixes float32 statistics in), BatchNorm's ``axis`` must be 1 (read from
a ``**kwargs`` dict that hylint does not evaluate) and ``use_global_stats`` false, and the result may be
read only through ``reshape_like`` (its shape is (N, G, M), not (1, N*G, M)); hylint checks the last.

Used by HY201 (rules/ndarray_only_attribute.py). Rests on (MXNet 1.9.1): mxnet-truth shape-free.md, the row
"GroupNorm as above" (6.45e-7 against float64; InstanceNorm rejects float64); fixtures/HY201_6.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import PendingFix, replace
from hylint.syntax.nodes import dotted_name, literal_int, name_reads
from hylint.syntax.walk import walk

TITLE = ("Normalize the groups with `F.InstanceNorm` on `x.reshape((0, G, -1))`; unsafe: float32 only, "
         "rounding-level differences (about 1e-6 relative), and the BatchNorm's axis must be 1")
_STATISTICS = ("ones", "zeros", "zeros", "ones")  # gamma, beta, moving mean, moving variance
_BN_DEFAULT_EPS = 0.001  # MXNet 1.9.1's BatchNorm; InstanceNorm's default is the same


def _reshape_codes(call: cst.BaseExpression, receiver_ok) -> Optional[List[cst.BaseExpression]]:
    """The codes of ``r.reshape((a, b, ...))`` or ``r.reshape(a, b, ...)`` when ``receiver_ok(r)``."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "reshape"
            and receiver_ok(call.func.value)) or any(a.keyword is not None or a.star for a in call.args):
        return None
    if len(call.args) == 1 and isinstance(call.args[0].value, cst.Tuple):
        return [e.value for e in call.args[0].value.elements]
    return [a.value for a in call.args] if len(call.args) > 1 else None


def _assignment(statement: cst.CSTNode) -> Optional[tuple]:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
            isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1 and \
            isinstance(statement.body[0].targets[0].target, cst.Name):
        return statement.body[0].targets[0].target.value, statement.body[0].value
    return None


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def group_norm_fix(attr_node: cst.Attribute, parents: Dict, ctx) -> Optional[PendingFix]:
    """The fix for ``x.shape``/``x.context`` inside the idiom's ``with`` statement, else None."""
    with_node = attr_node
    while with_node is not None and not isinstance(with_node, cst.With):
        with_node = parents.get(with_node)
    if with_node is None or len(with_node.items) != 1 or with_node.items[0].asname is not None or \
            not isinstance(with_node.body, cst.IndentedBlock):
        return None
    manager = with_node.items[0].item
    if not (isinstance(manager, cst.Call) and not manager.args and
            (dotted_name(manager.func) or "").split(".")[-1] == "train_mode"):
        return None
    comments = _comments(with_node.body)
    indent = _indentation(with_node, parents, ctx) if comments else ""
    if indent is None:
        return None  # the comments inside could not be kept
    steps = [_assignment(s) for s in with_node.body.body]
    if any(step is None for step in steps) or len(steps) < 3:
        return None
    f = ctx.f_name
    # 1. y1 = x.expand_dims(0).reshape((0, 0, G, -1))
    first, value = steps[0]
    holder = {}

    def expand_dims_of_tensor(node):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value == "expand_dims" and len(node.args) == 1 and \
                literal_int(node.args[0].value) == 0 and isinstance(node.func.value, cst.Name):
            holder["x"] = node.func.value.value
            return True
        return False

    codes = _reshape_codes(value, expand_dims_of_tensor)
    if codes is None or len(codes) != 4 or [literal_int(c) for c in codes[:2]] + [literal_int(codes[3])] != [0, 0, -1]:
        return None
    x, groups = holder["x"], codes[2]
    if _reads_attributes(groups) or x == first:
        return None
    # 2. y2 = y1.reshape((1, -3, -1))
    second, value = steps[1]
    codes = _reshape_codes(value, lambda node: _is_name(node, first))
    if codes is None or [literal_int(c) for c in codes] != [1, -3, -1]:
        return None
    # 3. helpers of the statistics' size (batch = x.shape[0]) and the BatchNorm last
    result, bn = steps[-1]
    if not (isinstance(bn, cst.Call) and dotted_name(bn.func) == f"{f}.BatchNorm"):
        return None
    middle = [name for name, _ in steps[2:-1]]
    positional = [a for a in bn.args if a.keyword is None and not a.star]
    if len(positional) != 5 or not _is_name(positional[0].value, second):
        return None
    for arg, op in zip(positional[1:], _STATISTICS):
        if not (isinstance(arg.value, cst.Call) and dotted_name(arg.value.func) == f"{f}.{op}"):
            return None
    eps = None
    spread = None
    for arg in bn.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if arg.star == "**":
            spread = ctx.code(arg.value).strip()
        elif keyword == "eps":
            eps = ctx.code(arg.value).strip()
        elif keyword == "axis" and literal_int(arg.value) != 1 or \
                keyword == "use_global_stats" and dotted_name(arg.value) != "False" or \
                keyword == "output_mean_var" and dotted_name(arg.value) != "False" or \
                keyword not in (None, "axis", "use_global_stats", "output_mean_var", "fix_gamma", "momentum", "name",
                                "cudnn_off"):
            return None
    if eps is None:
        eps = f"{spread}.get('eps', {_BN_DEFAULT_EPS})" if spread else str(_BN_DEFAULT_EPS)
    # the names made inside serve only the BatchNorm; its result is read only through reshape_like
    function = ctx.function
    after = _statements_after(with_node, parents)
    if function is None or after is None:
        return None
    for statement in after:
        names = [n.value for n in name_reads(statement)]
        if any(n in names for n in {first, second, *middle} - {result}):
            return None
        if result in names:
            if not _first_use_is_reshape_like(statement, result):
                return None
            break
    new = (f"{result} = {f}.InstanceNorm({x}.reshape((0, {ctx.code(groups).strip()}, -1)), "
           f"{f}.ones(({ctx.code(groups).strip()},)), {f}.zeros(({ctx.code(groups).strip()},)), eps={eps})")
    # the comments of the replaced lines stay, each on a line of its own above the new statement
    kept = "".join(f"{comment}{ctx.module.default_newline}{indent}" for comment in comments)
    return PendingFix(Applicability.UNSAFE, TITLE, [replace(with_node, kept + new)])


def _comments(node: cst.CSTNode) -> List[str]:
    found: List[str] = []

    class _Find(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    walk(node, _Find())
    return found


def _indentation(statement: cst.CSTNode, parents: Dict, ctx) -> Optional[str]:
    """The indentation of ``statement``'s line: its blocks' up to the function, and the class's when the
    function is one of its methods; None when that cannot be told."""
    default = ctx.module.default_indent
    indent = ""
    current = parents.get(statement)
    while current is not None:
        if isinstance(current, cst.IndentedBlock):
            indent += current.indent if current.indent is not None else default
        elif isinstance(current, cst.FunctionDef) and current is ctx.function:
            break
        current = parents.get(current)
    function = ctx.function
    if function is None:
        return None
    if function in ctx.module.body:
        return indent
    cls = ctx.cls
    if cls is not None and isinstance(cls.node.body, cst.IndentedBlock) and function in cls.node.body.body \
            and cls.node in ctx.module.body:
        return indent + (cls.node.body.indent if cls.node.body.indent is not None else default)
    return None


def _reads_attributes(node: cst.CSTNode) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if attr.attr.value in ("shape", "size", "ndim", "context", "ctx", "dtype"):
                found.append(attr)

        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    walk(node, _Find())
    return bool(found)


def _statements_after(statement: cst.CSTNode, parents: Dict) -> Optional[List[cst.CSTNode]]:
    """The statements that run after ``statement`` in its block and the blocks around it, in order."""
    found: List[cst.CSTNode] = []
    current = statement
    while True:
        block = parents.get(current)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        body = list(block.body)
        found.extend(body[body.index(current) + 1:])
        owner = parents.get(block)
        if isinstance(owner, cst.FunctionDef) or owner is None:
            return found
        if not isinstance(owner, (cst.With, cst.If, cst.Else)):
            return None  # a loop would run the statement again
        current = owner if not isinstance(owner, cst.Else) else parents.get(owner)


def _first_use_is_reshape_like(statement: cst.CSTNode, name: str) -> bool:
    """``name`` appears in ``statement`` once, as ``name.reshape_like(...)``, and the statement rebinds it (so
    later reads see the reshaped value) or returns."""
    uses = [n for n in name_reads(statement) if n.value == name]
    targets = []
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
            isinstance(statement.body[0], cst.Assign):
        targets = [t.target for t in statement.body[0].targets]
    reads = [n for n in uses if not any(n is t for t in targets)]
    returns = isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], cst.Return)
    if len(reads) != 1 or not (returns or any(_is_name(t, name) for t in targets)):
        return False
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if attr.value is reads[0] and attr.attr.value == "reshape_like":
                found.append(attr)

    walk(statement, _Find())
    return bool(found)
