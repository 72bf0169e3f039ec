import libcst as cst

from hylint.syntax.nodes import literal_int
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS


class NegativeOutputIndex(LintRule):
    CODE = "HY906"
    NAME = "negative-output-index"
    MESSAGE = "Negative index into a multi-output result"
    FIX_TITLE = "Use the non-negative output index"
    DOC = """
## What it does
Flags a negative integer index into the result of a multi-output operator inside a hybrid context:
`F.split(x, num_outputs=3)[-1]`, `parts[-2]` where `parts = F.split(...)`,
`F.topk(x, ret_typ='both')[-1]`.

## Why is this bad?
Eagerly the result is a Python list and `[-1]` is its last element. Hybridized it is a grouped
Symbol, whose `[]` only accepts non-negative output indices: `MXNetError: ... Symbol only accept
nonnegative index`.

## Example
```python
def hybrid_forward(self, F, x):
    return F.split(x, num_outputs=3, axis=1)[-1]
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.split(x, num_outputs=3, axis=1)[2]
```

## Fix safety
Safe when the number of outputs is a literal (`num_outputs=3`, `ret_typ='both'`): the index is the
same element. Otherwise reported without a fix.
"""
    VALID = [
        Valid(CLS.format("        return F.split(x, num_outputs=3, axis=1)[2]\n")),
        Valid(CLS.format("        outs = [x, x * 2]\n        return outs[-1]\n")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        return x + args[-1]\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        return F.split(x, num_outputs=3, axis=1)[-1]\n"),
                CLS.format("        return F.split(x, num_outputs=3, axis=1)[2]\n")),
        Invalid(CLS.format("        parts = F.split(x, 2)\n        return parts[-2]\n"),
                CLS.format("        parts = F.split(x, 2)\n        return parts[0]\n")),
        Invalid(CLS.format("        parts = F.split(x, self._n)\n        return parts[-1]\n")),
    ]

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:
        value = ctx.value(node.value)
        if value.kind is not Kind.MULTI or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        index_node = node.slice[0].slice.value
        index = literal_int(index_node)
        if index is None or index >= 0:
            return
        count = len(value.elements)
        fix = None
        if count and -count <= index:
            fix = PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(index_node, cst.Integer(str(count + index)))])
        ctx.report(node, f"`[{index}]` on a multi-output result: after hybridize() Symbol outputs only accept "
                         f"non-negative indices (MXNetError)", fix,
                   instead="the non-negative index, `[n - 1]` for the last of n outputs")
