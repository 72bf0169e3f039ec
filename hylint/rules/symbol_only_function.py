from typing import Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.analysis.ops import SYM_ONLY
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS, in_mode_branch, paren

# names that are not functions one calls inside a graph, or that cannot reach hybrid code
IGNORED = {"check_call"}
# mxnet.symbol's makers of a free graph input (`Variable` is `var` under another name, which the generated
# table of symbol-only names leaves out)
VARIABLES = {"var", "Variable"}


class SymbolOnlyFunction(LintRule):
    CODE = "HY602"
    NAME = "symbol-only-function"
    MESSAGE = "`F.` function that exists only in mxnet.symbol: the block fails before hybridize()"
    FIX_TITLE = "Use the operator that exists in both namespaces"
    DOC = """
## What it does
Flags `F.<name>` calls inside a hybrid context where `<name>` exists in `mxnet.symbol` but not in
`mxnet.ndarray` (generated from MXNet 1.9.1's API): `F.pow`, `F.hypot`, `F.var`, `F.Variable`,
`F.load_json`. Under a guard true only in a trace (`if F is mx.sym:`), where they do run, it flags
`F.var('name')` and `F.Variable('name')`: a graph input of the block's own making.

## Why is this bad?
The block works hybridized but not eagerly: F is `mxnet.ndarray` until `hybridize()`, so the first
eager call (and every call of a block that is never hybridized, or debugged with `hybridize(False)`)
raises `AttributeError: module 'mxnet.ndarray' has no attribute 'pow'`.

A Variable made in the trace is an input of the cached graph that gluon cannot feed: it gives a graph
only the block's arguments and its Parameters, so the first hybridized call raises `AssertionError:
Unknown input to HybridBlock: anchors` (measured on MXNet 1.9.1, turicreate 5.4's `YOLOLoss`: `if F ==
_mx.sym: mx_anchors = F.Variable('anchors', shape=..., init=...)`). Make it a Parameter of the block (a
`Constant` for fixed values) and take it as a keyword argument of `hybrid_forward`.

## Example
```python
def hybrid_forward(self, F, x, y):
    return F.pow(x, 2) + F.hypot(x, y)
```

## Use instead
```python
def hybrid_forward(self, F, x, y):
    return (x ** 2) + F.broadcast_hypot(x, y)
```

## Fix safety
Safe. `mxnet.symbol.pow(a, b)` is `a ** b` when one side is a number and the elementwise `_Power`
when both are tensors; `hypot` of two tensors is `_Hypot`. The rewrites (`a ** b`,
`F.broadcast_power(a, b)`, `F.broadcast_hypot(a, b)`) compute the same values hybridized (where the
original worked, the shapes were equal) and also work eagerly, where the original raised. Other
names, and operands whose kind is unknown, are reported without a fix.
"""
    VALID = [
        Valid(CLS.format("        return F.power(x, 2) + F.broadcast_hypot(x, x)\n")),
        Valid(CLS.format("        return x ** 2\n")),
        Valid(CLS.format("        if F is sym:\n            return F.pow(x, 2)\n        return x ** 2\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        return mx.sym.pow(x, 2)\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        return F.pow(x, 2)\n"), CLS.format("        return (x ** 2)\n")),
        Invalid(CLS.format("        return F.pow(2, x)\n"), CLS.format("        return (2 ** x)\n")),
        Invalid(CLS.format("        y = F.relu(x)\n        return F.hypot(x, y) + F.pow(x, y)\n"),
                CLS.format("        y = F.relu(x)\n        return F.broadcast_hypot(x, y) + F.broadcast_power(x, y)\n")),
        Invalid(CLS.format("        w = F.var('w')\n        return x * w\n")),
        Invalid(CLS.format("        if F is mx.sym:\n            w = F.Variable('w', shape=(1,))\n"
                           "        else:\n            w = F.ones((1,))\n        return F.broadcast_mul(x, w)\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        if not callee.startswith(ctx.f_name + "."):
            return
        path = callee[len(ctx.f_name) + 1:]
        parts = path.split(".")
        namespace, name = ("top", parts[0]) if len(parts) == 1 else (parts[0], parts[1]) if len(parts) == 2 \
            else (None, None)
        variable = namespace == "top" and name in VARIABLES
        if namespace is None or not (variable or name in SYM_ONLY.get(namespace, ())) or name in IGNORED:
            return
        if in_mode_branch(node, ctx, "sym"):
            label = _variable_name(node) if variable else None
            if label is not None:  # `if F is sym:` runs only hybridized, and there the Variable is an input
                ctx.report(node, f"`{callee}('{label}')` makes a graph input the block never gives: the first "
                                 f"hybridized call fails",
                           help=f"gluon feeds a traced graph only the block's arguments and Parameters: building "
                                f"the graph raises AssertionError (Unknown input to HybridBlock: {label})",
                           instead="a Parameter of the block (`self.params.get(...)`, or a `Constant` for fixed "
                                   "values), which hybrid_forward receives as a keyword argument")
            return
        module = "mxnet.ndarray" + ("" if namespace == "top" else f".{namespace}")
        ctx.report(node, f"`{callee}(...)` exists only in mxnet.symbol: it fails before hybridize()",
                   self._fix(node, ctx, namespace, name),
                   instead="an input of hybrid_forward (an argument, or a Parameter of the block), which is a Symbol "
                           "when traced and an NDArray eagerly" if variable else
                   "the same code only when traced, under `if F is mx.sym:`, and an NDArray counterpart eagerly",
                   help=f"Before hybridize() (F = mxnet.ndarray) it raises AttributeError (module '{module}' has no "
                        f"attribute '{name}')")

    def _fix(self, node: cst.Call, ctx, namespace: str, name: str) -> Optional[PendingFix]:
        if namespace != "top" or name not in ("pow", "hypot"):
            return None
        if len(node.args) != 2 or any(a.keyword is not None or a.star for a in node.args):
            return None
        left, right = node.args[0].value, node.args[1].value
        lv, rv = ctx.value(left), ctx.value(right)
        if lv.kind is Kind.TENSOR and rv.kind is Kind.TENSOR:
            op = "broadcast_power" if name == "pow" else "broadcast_hypot"
            return PendingFix(Applicability.SAFE, f"Use `{ctx.f_name}.{op}`",
                              [replace(node, f_call(ctx.f_name, op, [left, right]))])
        numbers = (cst.Integer, cst.Float)
        if name == "pow" and (lv.kind is Kind.TENSOR and isinstance(right, numbers) or
                              rv.kind is Kind.TENSOR and isinstance(left, numbers)):
            expr = cst.BinaryOperation(left=paren(left), right=paren(right), operator=cst.Power(
                whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return PendingFix(Applicability.SAFE, "Use the `**` operator", [replace(node, expr)])
        return None


def _variable_name(node: cst.Call) -> Optional[str]:
    """The name a `var(...)` call gives its Variable, when it is written as a string."""
    for position, arg in enumerate(node.args):
        if arg.keyword is None and position == 0 or arg.keyword is not None and arg.keyword.value == "name":
            value = arg.value
            return value.evaluated_value if isinstance(value, cst.SimpleString) else None
    return None
