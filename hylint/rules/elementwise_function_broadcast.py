from typing import List

import libcst as cst

from hylint.syntax.nodes import call_arg, dotted_name
from hylint.analysis.values import Kind, shape_difference, shapes_proven_equal
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._binary import extra_input
from hylint.rules._hazards import CLS

FUNCTIONS = {"maximum": "broadcast_maximum", "minimum": "broadcast_minimum", "power": "broadcast_power"}


class ElementwiseFunctionBroadcast(LintRule):
    CODE = "HY603"
    NAME = "elementwise-function-broadcast"
    MESSAGE = "`F.maximum/minimum/power` of two tensors broadcasts eagerly but not after hybridize()"
    FIX_TITLE = "Use `F.broadcast_maximum/minimum/power`"
    DOC = """
## What it does
Flags `F.maximum(a, b)`, `F.minimum(a, b)` and `F.power(a, b)` inside a hybrid context when both
operands are tensors whose shapes hylint cannot prove equal (same tensor through shape-preserving
ops, or the same literal shape) and something suggests they differ: evidence as HY101 uses it (a
size-1 axis, known sizes, a parameter's fixed shape against the input), or an extra input of the block
(its shape is the caller's choice). Two values computed alike with nothing known of their shapes are
not reported (reading real code, they were equal every time); that is what it cannot see.

## Why is this bad?
The names are shared but the functions are not: `mxnet.ndarray.maximum` is a Python wrapper that
calls `broadcast_maximum` for two arrays, while `mxnet.symbol.maximum` is the elementwise
`_Maximum`, which needs equal shapes. Eagerly `(2, 3)` and `(1, 3)` broadcast; after `hybridize()`
the first call fails in shape inference (`Incompatible attr in node ..._maximum0`). With a number
operand (`F.maximum(x, 0)`) both are the scalar op and nothing is flagged.

## Example
```python
def hybrid_forward(self, F, x, floor):
    return F.maximum(x, floor)
```

## Use instead
```python
def hybrid_forward(self, F, x, floor):
    return F.broadcast_maximum(x, floor)
```

## Fix safety
Safe: the rewrite is the operator the ndarray wrapper calls for two arrays, so eager results are
identical, and hybridized it accepts the same shapes.
"""
    VALID = [
        Valid(CLS.format("        return F.maximum(x, 0) + F.minimum(1, x) + F.power(x, 2)\n")),
        Valid(CLS.format("        return F.maximum(x, F.relu(x))\n")),
        Valid(CLS.format("        return F.broadcast_maximum(x, x.mean(axis=1, keepdims=True))\n")),
        Valid(CLS.format("        return F.maximum(F.ones((2, 3)), F.zeros((2, 3)))\n")),
        # computed alike, nothing suggests they differ (sockeye's length penalty, a pair of column maxima)
        Valid(CLS.format("        return F.minimum(F.zeros_like(x), 1.0 - F.relu(x) / x)\n")),
        Valid(CLS.format("        a = F.expand_dims(F.max(x, axis=1), axis=1)\n"
                         "        b = F.expand_dims(F.max(x, axis=0), axis=1)\n        return F.maximum(a, b)\n")),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return F.maximum(x, y)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return F.broadcast_maximum(x, y)\n"),
        Invalid(CLS.format("        return F.minimum(x, x.mean(axis=0, keepdims=True))\n"),
                CLS.format("        return F.broadcast_minimum(x, x.mean(axis=0, keepdims=True))\n")),
        Invalid(CLS.format("        return F.power(x, F.ones((1, 3)))\n"),
                CLS.format("        return F.broadcast_power(x, F.ones((1, 3)))\n")),
        Invalid(CLS.format("        return F.maximum(lhs=x, rhs=x.sum())\n"),
                CLS.format("        return F.broadcast_maximum(lhs=x, rhs=x.sum())\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        prefix = ctx.f_name + "."
        if not callee.startswith(prefix) or callee[len(prefix):] not in FUNCTIONS:
            return
        name = callee[len(prefix):]
        if any(a.star for a in node.args):
            return
        operands: List[cst.Arg] = [a for a in (call_arg(node, 0, "lhs"), call_arg(node, 1, "rhs")) if a is not None]
        if len(operands) != 2 or len(node.args) != 2:
            return
        lv, rv = ctx.value(operands[0].value), ctx.value(operands[1].value)
        if lv.kind is not Kind.TENSOR or rv.kind is not Kind.TENSOR:
            return
        if shapes_proven_equal(lv.shape, rv.shape):
            return
        why = shape_difference(lv.shape, rv.shape)
        if why is None:
            # no evidence that the shapes differ: only an extra input of the block (a floor, a mask: its
            # shape is the caller's choice) is reported; two values computed alike are left alone
            extra = extra_input(lv, ctx) or extra_input(rv, ctx)
            if extra is None:
                return
            why = f"`{extra}` is an input whose shape the caller chooses"
        op = FUNCTIONS[name]
        new = node.with_changes(func=f_call(ctx.f_name, op, []).func)
        ctx.report(node, f"`{callee}` of two tensors does not broadcast after hybridize(): use `{ctx.f_name}.{op}`",
                   PendingFix(Applicability.SAFE, f"Use `{ctx.f_name}.{op}`", [replace(node, new)]),
                   help=f"{why}: eagerly it broadcasts (`{op}`), after hybridize() it is the elementwise op and fails "
                        f"unless the shapes are identical")
