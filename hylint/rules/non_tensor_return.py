import libcst as cst

from hylint.context import Kind, dotted_name
from hylint.optable import NDARRAY_ONLY_ATTRS, NDARRAY_ONLY_METHODS
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import CLS


class NonTensorReturn(LintRule):
    CODE = "HY907"
    NAME = "non-tensor-return"
    MESSAGE = "hybrid_forward returns a Python value (None, a number, a dict)"
    DOC = """
## What it does
Flags, in `hybrid_forward` (not in helpers), a bare `return`, and returned values (or elements of a
returned tuple/list) that are `None`, Python numbers, strings, dicts or numpy arrays.

## Why is this bad?
A hybridized block's outputs must be (nested lists of) Symbols. Eagerly anything can be returned;
after `hybridize()` the first call raises `ValueError: When hybridized, the input of HybridBlock
output must be (nested) list of Symbol or NDArray, but got 0 of type <class 'int'>` (for `None`:
`TypeError: Expected a list of symbols as input`).

## Example
```python
def hybrid_forward(self, F, x):
    return x * 2, 0
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x * 2
```
(return Python values from a method that is not hybridized, or as tensors).

## Fix safety
No fix: the callers unpack the outputs.
"""
    VALID = [
        Valid(CLS.format("        return x * 2, [x, x * 3]\n")),
        Valid(CLS.format("        if F is nd:\n            return None\n        return x\n")),
        Valid("def _helper(F, x):\n    return 0\n\n\n" + CLS.format("        return x * _helper(F, x)\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return x * 2, 0\n")),
        Invalid(CLS.format("        return x * 2, None\n")),
        Invalid(CLS.format("        return {'out': x * 2}\n")),
        Invalid(CLS.format("        x = x * 2\n        return\n")),
    ]

    def _bad(self, node: cst.BaseExpression, ctx) -> bool:
        if isinstance(node, (cst.Dict, cst.DictComp)) or \
                isinstance(node, cst.Call) and dotted_name(node.func) == "dict":
            return True
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
            return True
        if isinstance(node, (cst.Tuple, cst.List)):
            return False
        if _reads_ndarray_only(node, ctx):
            return False  # `return y.asnumpy()`, `return y.shape[0]`: HY401 / HY201 report the cause, once
        value = ctx.value(node)
        return value.kind is Kind.NUMPY or value.kind is Kind.PY and not value.elements

    def _walk(self, node: cst.BaseExpression, ctx) -> None:
        if isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._walk(element.value, ctx)
        elif self._bad(node, ctx):
            ctx.report(node, f"hybrid_forward returns `{ctx.code(node).strip()}`, a Python value: after hybridize() "
                             f"outputs must be Symbols and the call raises ValueError/TypeError")

    def visit_Return(self, node: cst.Return, ctx) -> None:
        if ctx.hybrid.is_helper or ctx.function is not ctx.hybrid.fn:
            return
        if node.value is None:
            ctx.report(node, "bare `return` in hybrid_forward returns None: after hybridize() the call raises TypeError "
                             "(Expected a list of symbols)")
            return
        self._walk(node.value, ctx)


def _reads_ndarray_only(node: cst.CSTNode, ctx) -> bool:
    """Whether the expression reads an NDArray-only attribute or method of a tensor."""
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if attr.attr.value in NDARRAY_ONLY_ATTRS | NDARRAY_ONLY_METHODS and \
                    ctx.value(attr.value).kind in (Kind.TENSOR, Kind.CHILD):
                found.append(attr)

    node.visit(_Find())
    return bool(found)
