import libcst as cst

from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.rule import Fact, Invalid, LintRule, PendingFix, Reliance, Valid, replace
from hylint.rules._binary import OPERATOR_SYMBOLS
from hylint.rules._hazards import CLS


def _is_bool(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


class BoolOperand(LintRule):
    CODE = "HY905"
    NAME = "bool-operand"
    MESSAGE = "`True`/`False` as an operand of a tensor operator"
    FIX_TITLE = "Use the number (`1.0` / `0.0`)"
    DOC = """
## What it does
Flags a `True` or `False` literal as an operand of an arithmetic or comparison operator whose other
operand is a tensor, inside a hybrid context: `x + True`, `x * False`, `mask == True`.

## Why is this bad?
`bool` is a Python number: NDArray converts it with `float()`. Symbol writes the scalar into the
operator's parameters as text, `'True'`, which the operator cannot parse: after `hybridize()` the
call raises `MXNetError: Invalid Parameter format for scalar expect double but value='True'`.

## Example
```python
def hybrid_forward(self, F, x):
    return x * (x > 0) + True
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x * (x > 0) + 1.0
```

## Fix safety
Safe when the other operand is a proven tensor: `1.0` and `0.0` are the values NDArray computed with.
Unsafe when it is a tensor by assumption only: with a Python int, `2 + True` is 3 and `2 + 1.0` is 3.0.
"""
    VALID = [
        Valid(CLS.format("        return x + 1.0\n")),
        Valid(CLS.format("        flag = True\n        return x if flag == True else x * 2\n")),
    ]
    INVALID = [
        # `x` is a tensor by assumption only (`2 + True` is the int 3, `2 + 1.0` the float 3.0): unsafe
        Invalid(CLS.format("        return x + True\n"), CLS.format("        return x + 1.0\n"), unsafe=True),
        Invalid(CLS.format("        return F.relu(x) + True\n"), CLS.format("        return F.relu(x) + 1.0\n")),
        Invalid(CLS.format("        return (x > 0) == False\n"), CLS.format("        return (x > 0) == 0.0\n"), unsafe=True),
        Invalid(CLS.format("        return (F.relu(x) > 0) == False\n"), CLS.format("        return (F.relu(x) > 0) == 0.0\n")),
    ]

    def _check(self, left, right, ctx) -> None:
        for literal, other in ((left, right), (right, left)):
            if _is_bool(literal) and ctx.value(other).kind is Kind.TENSOR:
                number = "1.0" if literal.value == "True" else "0.0"
                ctx.report(literal, f"`{literal.value}` as an operand of a tensor operator fails after hybridize(): use {number}",
                           # `2 + True` is the int 3, `2 + 1.0` the float 3.0: exact only on a tensor
                           PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(literal, cst.Float(number))],
                                      relies_on=[Reliance(other, Fact.TENSOR)]),
                           help=f"After hybridize() the Symbol operator cannot parse the scalar '{literal.value}' (MXNetError)")

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:
        if type(node.operator) in OPERATOR_SYMBOLS:
            self._check(node.left, node.right, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:
        previous = node.left
        for comparison in node.comparisons:
            if type(comparison.operator) in OPERATOR_SYMBOLS:
                self._check(previous, comparison.comparator, ctx)
            previous = comparison.comparator
