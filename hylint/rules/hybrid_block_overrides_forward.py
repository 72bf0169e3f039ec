from typing import Optional

import libcst as cst

from hylint.analysis.module import is_hybrid_class
from hylint.syntax.nodes import dotted_name, param_names
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.syntax.walk import walk


def _calls_super_forward(fn: cst.FunctionDef) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            callee = dotted_name(node.func) or ""
            if callee.endswith(".forward") and callee != "self.forward":
                found.append(node)
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "forward" and \
                    isinstance(node.func.value, cst.Call) and dotted_name(node.func.value.func) == "super":
                found.append(node)

    walk(fn.body, _Find())
    return bool(found)


def _only_delegates(fn: cst.FunctionDef, children) -> bool:
    """``forward`` computes nothing itself: its statements return, bind or call only its arguments, names and
    the outputs of its children (`return self.net(x)`, `a = self.body(x); return self.head(a), a`). Then
    hybridize(), which hybridizes the children, does run graphs: the children's (issue 43)."""
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    calls = []

    def plain(expr: Optional[cst.BaseExpression]) -> bool:
        if expr is None or isinstance(expr, cst.Name):
            return True
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(plain(e.value) for e in expr.elements)
        if isinstance(expr, cst.Call):
            callee = dotted_name(expr.func) or ""
            calls.append(expr)
            return callee.startswith("self.") and callee.count(".") == 1 and callee[5:] in children and \
                all(plain(a.value) for a in expr.args)
        return False

    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Return):
                ok = plain(small.value)
            elif isinstance(small, cst.Assign):
                ok = plain(small.value) and all(isinstance(t.target, (cst.Name, cst.Tuple)) for t in small.targets)
            elif isinstance(small, cst.Expr):
                ok = plain(small.value) or isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
            else:
                ok = False
            if not ok:
                return False
    return bool(calls)  # (a forward that calls no child, `return x`, runs nothing hybridized either)


def _uses_name(fn: cst.FunctionDef, name: str) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    walk(fn, _Find())
    return bool(found)


class HybridBlockOverridesForward(LintRule):
    CODE = "HY703"
    NAME = "hybrid-block-overrides-forward"
    MESSAGE = "A HybridBlock that overrides forward() is never hybridized"
    FIX_TITLE = "Rename `forward(self, x)` to `hybrid_forward(self, F, x)`"
    HYBRID_ONLY = False
    METHODS = ("forward",)  # ctx.cls.methods["forward"] is the node, or nothing is reported
    DOC = """
## What it does
Flags `def forward(...)` in a HybridBlock subclass whose `forward` does not call the base class's
`forward` (`super().forward(...)`). Not flagged: a `forward` that only calls the block's children and
returns their outputs (`return self.net(x)`): `hybridize()` hybridizes the children, whose graphs run.

## Why is this bad?
`HybridBlock.forward` is what builds and runs the cached graph. Overriding it replaces that
machinery: `hybridize()` is accepted without a warning, every call still runs eagerly (silently no
graph, no speed-up), and `export()` raises `RuntimeError: Please first call block.hybridize() and
then run forward with this block at least once before calling export.`

## Example
```python
class Scale(nn.HybridBlock):
    def forward(self, x):
        return x * 2
```

## Use instead
```python
class Scale(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 2
```

## Fix safety
Unsafe, offered only when the class has no `hybrid_forward` and declares no parameters: the
renamed body now runs hybridized, where its NDArray-only code (which hylint then reports) fails.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2\n"),
        Valid("class N(HybridBlock):\n    def forward(self, x):\n        return super().forward(x) * 2\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x * 2\n"),
        # only calls its hybridized children: their graphs run (issue 43)
        Valid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.net = nn.Dense(2)\n"
              "        self.head = nn.Dense(1)\n\n    def forward(self, x):\n        h = self.net(x)\n"
              "        return self.head(h), h\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def forward(self, x):\n        return x * 2\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2\n", unsafe=True),
        Invalid("class N(nn.HybridSequential):\n    def forward(self, x):\n        for b in self._children.values():\n"
                "            x = b(x)\n        return x\n"),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.net = nn.Dense(2)\n\n"
                "    def forward(self, x):\n        return self.net(x) * 2\n"),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        cls = ctx.cls
        if node.name.value != "forward" or cls is None or cls.methods.get("forward") is not node:
            return
        if not is_hybrid_class(cls, ctx.module_info.classes) or _calls_super_forward(node):
            return
        if _only_delegates(node, cls.children):
            return  # its children are hybridized and run graphs: nothing of its own runs eagerly
        ctx.report(node.name, f"`{cls.name}` is a HybridBlock but overrides forward(): hybridize() silently does nothing",
                   self._fix(node, ctx),
                   help="Every call runs eagerly and export() raises; define hybrid_forward(self, F, ...)")

    def _fix(self, node: cst.FunctionDef, ctx) -> Optional[PendingFix]:
        cls = ctx.cls
        if cls.hybrid_forward is not None or cls.params or cls.children or _uses_name(node, "F"):
            return None
        params = param_names(node)
        if not params or params[0].name.value != "self" or node.params.posonly_params:
            return None
        if "hybrid_forward" in dotted_name_set(cls.node):
            return None
        f_param = cst.Param(name=cst.Name("F"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        first = node.params.params[0]
        if len(node.params.params) == 1 and not isinstance(node.params.star_arg, cst.Param) \
                and not node.params.kwonly_params:
            first = first.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            f_param = f_param.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new_params = node.params.with_changes(params=[first, f_param] + list(node.params.params[1:]))
        return PendingFix(Applicability.UNSAFE, self.FIX_TITLE,
                          [replace(node.name, cst.Name("hybrid_forward")), replace(node.params, new_params)])


def dotted_name_set(node: cst.CSTNode):
    names = set()

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            names.add(attr.attr.value)

    walk(node, _Find())
    return names
