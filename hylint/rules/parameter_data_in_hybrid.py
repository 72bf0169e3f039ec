from typing import Optional

import libcst as cst

from hylint.syntax.nodes import bound_names, dotted_name, param_names
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
       "        self.weight = self.params.get('weight', shape=(3, 3))\n        self.dense = nn.Dense(3)\n\n"
       "    def hybrid_forward(self, F, x, weight):\n        return {}\n")


class ParameterDataInHybrid(LintRule):
    CODE = "HY706"
    NAME = "parameter-data-in-hybrid"
    MESSAGE = "`Parameter.data()` inside a hybrid context"
    FIX_TITLE = "Use the parameter argument of hybrid_forward"
    DOC = """
## What it does
Flags `self.<param>.data()` (a Parameter declared in `__init__`) and `self.<child>.<param>.data()`
(a parameter of a child block) inside a hybrid context.

## Why is this bad?
`data()` returns the parameter's NDArray. After `hybridize()` the graph needs the Symbol that
`HybridBlock` passes to `hybrid_forward` as an argument named after the attribute: an NDArray in
the graph raises `AssertionError: Argument rhs must be Symbol instances` (or `TypeError`), and the
parameter would not be a graph input, so it would not train.

## Example
```python
def hybrid_forward(self, F, x, weight):
    return F.dot(x, self.weight.data(), transpose_b=True)
```

## Use instead
```python
def hybrid_forward(self, F, x, weight):
    return F.dot(x, weight, transpose_b=True)
```

## Fix safety
Safe for `self.<param>.data()` without arguments in a `hybrid_forward` that has the `<param>`
argument: eagerly HybridBlock passes exactly `self.<param>.data(ctx)` for the input's context. With a
context argument it is unsafe (the argument may name another context). A child's parameter has no
fix: it must be passed down (call the child) or re-registered on this block.
"""
    VALID = [
        Valid(CLS.format("F.dot(x, weight, transpose_b=True)")),
        Valid(CLS.format("x * self.weight.shape[0]")),
        Valid("class N(Block):\n    def forward(self, x):\n        return nd.dot(x, self.weight.data())\n"),
    ]
    INVALID = [
        Invalid(CLS.format("F.dot(x, self.weight.data(), transpose_b=True)"),
                CLS.format("F.dot(x, weight, transpose_b=True)")),
        Invalid(CLS.format("self.dense(x) + F.dot(x, self.dense.weight.data(), transpose_b=True)")),
        Invalid(CLS.format("F.dot(x, self.weight.data(mx.cpu()))"), CLS.format("F.dot(x, weight)"), unsafe=True),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in ("data", "list_data", "row_sparse_data"):
            return
        owner = dotted_name(node.func.value) or ""
        parts = owner.split(".")
        cls = ctx.cls
        if cls is None or parts[0] != "self":
            return
        if len(parts) == 2 and parts[1] in cls.params:
            ctx.report(node, f"`{owner}.{node.func.attr.value}()` is an NDArray: after hybridize() use the `{parts[1]}` "
                             f"argument", self._fix(node, ctx, parts[1]),
                       help=f"After hybridize() the graph needs the Symbol passed as the `{parts[1]}` argument of "
                            f"hybrid_forward",
                       instead=f"`{parts[1]}`, added to hybrid_forward's parameters (Gluon passes the parameter "
                               f"under its attribute name)")
        elif len(parts) == 3 and parts[1] in cls.children:
            ctx.report(node, f"`{owner}.{node.func.attr.value}()` is a child's parameter's NDArray: it cannot enter the "
                             f"graph", help="After hybridize() it cannot enter the graph; call the child, or register "
                                            "the parameter on this block")

    def _fix(self, node: cst.Call, ctx, name: str) -> Optional[PendingFix]:
        hybrid = ctx.hybrid
        if hybrid is None or hybrid.is_helper or node.func.attr.value != "data":
            return None
        if name not in [p.name.value for p in param_names(hybrid.fn)] or name in bound_names(hybrid.fn):
            return None
        applicability = Applicability.SAFE if not node.args else Applicability.UNSAFE
        return PendingFix(applicability, f"Use the `{name}` argument", [replace(node, cst.Name(name))])
