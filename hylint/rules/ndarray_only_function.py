from typing import Optional

import libcst as cst

from hylint.syntax.nodes import call_arg, dotted_name
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.analysis.ops import ND_ONLY
from hylint.facts.operators import ND_WRAPPERS as BINARY, nd_only_instead
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS, paren

OPERATORS = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide, "%": cst.Modulo}
COMPARISONS = {"==": cst.Equal, "!=": cst.NotEqual, ">": cst.GreaterThan, ">=": cst.GreaterThanEqual,
               "<": cst.LessThan, "<=": cst.LessThanEqual}
# handled by HY402 (ndarray-constant)
SKIP = {("top", "array")}


def _namespace(path: str):
    parts = path.split(".")
    if len(parts) == 1:
        return "top", parts[0]
    if len(parts) == 2 and parts[0] in ND_ONLY:
        return parts[0], parts[1]
    return None, None


class NdarrayOnlyFunction(LintRule):
    CODE = "HY601"
    NAME = "ndarray-only-function"
    MESSAGE = "`F.` function that exists only in mxnet.ndarray, not in mxnet.symbol"
    FIX_TITLE = "Use the operator that exists in both namespaces"
    DOC = """
## What it does
Flags calls of `F.<name>` inside a hybrid context where `<name>` is a Python function of
`mxnet.ndarray` with no counterpart in `mxnet.symbol` (the list is generated from MXNet 1.9.1's API
by scripts/gen_facts.py): `F.add`, `F.subtract`, `F.multiply`, `F.divide`, `F.true_divide`,
`F.modulo`, `F.equal`, `F.not_equal`, `F.greater`, `F.greater_equal`, `F.lesser`, `F.lesser_equal`,
`F.logical_and/or/xor`, `F.concatenate`, `F.moveaxis`, `F.onehot_encode`, `F.empty`, `F.waitall`,
`F.contrib.isnan/isinf/isfinite`, `F.sparse.*` constructors and the other nd-only helpers.
`F.array` is HY402's.

## Why is this bad?
Eagerly F is `mxnet.ndarray` and the call works; after `hybridize()` F is `mxnet.symbol` and the
first call raises `AttributeError: module 'mxnet.symbol' has no attribute 'add'`.

## Example
```python
def hybrid_forward(self, F, x, y):
    return F.add(x, y) + F.multiply(x, 2)
```

## Use instead
```python
def hybrid_forward(self, F, x, y):
    return F.broadcast_add(x, y) + (x * 2)
```

## Fix safety
Safe, for the rewrites that compute exactly what the nd wrapper computes: the arithmetic, comparison
and logical wrappers of two tensors call the `broadcast_*` operator (`F.add(x, y)` ->
`F.broadcast_add(x, y)`); of a tensor and a Python number they call the scalar operator, which is
what the Python operator calls (`F.multiply(x, 2)` -> `(x * 2)`); `F.concatenate([a, b], axis=k)`
-> `F.concat(a, b, dim=k)` (unsafe when `always_copy=` is given); `F.contrib.isnan(x)` -> `(x != x)`,
`isinf(x)` -> `(F.abs(x) == float('inf'))`, `isfinite(x)` ->
`F.broadcast_logical_and(F.abs(x) != float('inf'), x == x)`, for a plain name `x` (these are the
bodies of the nd functions). Operands whose kind is unknown, `moveaxis`, `onehot_encode`, `empty`,
`waitall` are reported without a fix.
"""
    VALID = [
        Valid(CLS.format("        return F.broadcast_add(x, x) + F.concat(x, x, dim=0)\n")),
        Valid(CLS.format("        return F.relu(x) + F.maximum(x, 0)\n")),
        Valid(CLS.format("        k = np.add(1, 2)\n        return x * k\n")),
        Valid(CLS.format("        if F is nd:\n            F.waitall()\n        return x\n")),
        Valid(CLS.format("        return x + F.array([1])\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        return nd.add(x, x)\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        y = F.relu(x)\n        return F.add(x, y)\n"),
                CLS.format("        y = F.relu(x)\n        return F.broadcast_add(x, y)\n")),
        Invalid(CLS.format("        return F.multiply(x, 2) + F.lesser(0.5, x)\n"),
                CLS.format("        return (x * 2) + (0.5 < x)\n")),
        Invalid(CLS.format("        return F.logical_xor(x, F.relu(x))\n"),
                CLS.format("        return F.broadcast_logical_xor(x, F.relu(x))\n")),
        Invalid(CLS.format("        return F.concatenate([x, x], axis=1)\n"),
                CLS.format("        return F.concat(x, x, dim=1)\n")),
        Invalid(CLS.format("        return F.contrib.isnan(x) + F.contrib.isfinite(x)\n"),
                CLS.format("        return (x != x) + F.broadcast_logical_and(F.abs(x) != float(\"inf\"), x == x)\n")),
        Invalid(CLS.format("        return F.moveaxis(x, 0, 1)\n")),
        Invalid(CLS.format("        F.waitall()\n        return x\n")),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, w):\n        return F.divide(x, w)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, w):\n        return F.broadcast_div(x, w)\n"),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        if not callee.startswith(ctx.f_name + "."):
            return
        path = callee[len(ctx.f_name) + 1:]
        namespace, name = _namespace(path)
        if namespace is None or name not in ND_ONLY.get(namespace, ()) or (namespace, name) in SKIP:
            return
        module = "mxnet.symbol" + ("" if namespace == "top" else f".{namespace}")
        fix = self._fix(node, ctx, namespace, name)
        instead = nd_only_instead(namespace, name, ctx.f_name) if fix is None else None
        hint = f"; use {instead}" if instead else ""
        ctx.report(node, f"`{callee}(...)` exists only in mxnet.ndarray: it fails after hybridize()", fix,
                   help=f"After hybridize() it raises AttributeError (module '{module}' has no attribute '{name}')"
                        f"{hint}")

    # -- fixes --------------------------------------------------------------------------------
    def _fix(self, node: cst.Call, ctx, namespace: str, name: str) -> Optional[PendingFix]:
        f = ctx.f_name
        if namespace == "top" and name in BINARY:
            return self._binary_fix(node, ctx, name)
        if namespace == "top" and name == "concatenate":
            return self._concatenate_fix(node, ctx)
        if namespace == "contrib" and name in ("isnan", "isinf", "isfinite"):
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return None
            data = node.args[0].value
            if not isinstance(data, cst.Name) or ctx.value(data).kind is not Kind.TENSOR:
                return None
            x = data.value
            code = {"isnan": f"({x} != {x})", "isinf": f'({f}.abs({x}) == float("inf"))',
                    "isfinite": f'{f}.broadcast_logical_and({f}.abs({x}) != float("inf"), {x} == {x})'}[name]
            return PendingFix(Applicability.SAFE, f"Inline `{name}` with operators that exist in both namespaces",
                              [replace(node, code)])
        return None

    def _binary_fix(self, node: cst.Call, ctx, name: str) -> Optional[PendingFix]:
        args = node.args
        if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
            return None
        left, right = args[0].value, args[1].value
        lv, rv = ctx.value(left), ctx.value(right)
        broadcast, symbol = BINARY[name]
        if lv.kind is Kind.TENSOR and rv.kind is Kind.TENSOR:
            new = f_call(ctx.f_name, broadcast, [left, right])
            return PendingFix(Applicability.SAFE, f"Use `{ctx.f_name}.{broadcast}`", [replace(node, new)])
        numbers = (cst.Integer, cst.Float)
        one_number = (lv.kind is Kind.TENSOR and isinstance(right, numbers)) or \
            (rv.kind is Kind.TENSOR and isinstance(left, numbers))
        if symbol is None or not one_number:
            return None
        if symbol in OPERATORS:
            expr: cst.BaseExpression = cst.BinaryOperation(
                left=paren(left), right=paren(right), operator=OPERATORS[symbol](
                    whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")))
        else:
            expr = cst.Comparison(left=paren(left), comparisons=[cst.ComparisonTarget(
                operator=COMPARISONS[symbol](whitespace_before=cst.SimpleWhitespace(" "),
                                             whitespace_after=cst.SimpleWhitespace(" ")),
                comparator=paren(right))])
        # always parenthesized: the call was an atom, the operator binds less tightly
        expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return PendingFix(Applicability.SAFE, f"Use the `{symbol}` operator", [replace(node, expr)])

    def _concatenate_fix(self, node: cst.Call, ctx) -> Optional[PendingFix]:
        arrays = call_arg(node, 0, "arrays")
        axis = call_arg(node, 1, "axis")
        copy = call_arg(node, 2, "always_copy")
        if arrays is None or any(a.star for a in node.args):
            return None
        if any(a.keyword is not None and a.keyword.value not in ("arrays", "axis", "always_copy") for a in node.args):
            return None
        dim = axis.value if axis is not None else cst.Integer("0")
        if isinstance(arrays.value, cst.List) and arrays.value.elements and \
                not any(isinstance(e, cst.StarredElement) for e in arrays.value.elements):
            parts = [e.value for e in arrays.value.elements]
            new = f_call(ctx.f_name, "concat", parts, [("dim", dim)])
        elif isinstance(arrays.value, cst.Name) and ctx.value(arrays.value).kind is Kind.SEQ:
            new = f_call(ctx.f_name, "concat", [], [("dim", dim)])
            new = new.with_changes(args=[cst.Arg(value=arrays.value, star="*",
                                                 comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                                   + list(new.args))
        else:
            return None
        applicability = Applicability.UNSAFE if copy is not None else Applicability.SAFE
        return PendingFix(applicability, f"Use `{ctx.f_name}.concat(..., dim=axis)`", [replace(node, new)])
