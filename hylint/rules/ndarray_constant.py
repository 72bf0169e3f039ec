from typing import List, Optional

import libcst as cst

from hylint.context import dotted_name, keyword_value, literal_number, nested_literal_shape, ND_NAMES
from hylint.diagnostic import Applicability
from hylint.fixes import f_call, int_node, tuple_node
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace

CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return {}\n"


def _numbers(node: cst.CSTNode) -> Optional[List[float]]:
    value = literal_number(node)
    if value is not None:
        return [value]
    if isinstance(node, (cst.List, cst.Tuple)):
        out: List[float] = []
        for element in node.elements:
            inner = _numbers(element.value)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


class NdarrayConstant(LintRule):
    CODE = "HY402"
    NAME = "ndarray-constant"
    MESSAGE = "NDArray created inside a hybrid context"
    FIX_TITLE = "Create the constant with `F.full` / `F.ones` / `F.zeros`"
    DOC = """
## What it does
Flags tensors created outside F inside a hybrid context: `nd.array(...)`, `mx.nd.array(...)`,
`mx.ndarray.array(...)` and `F.array(...)`. `np.array(...)` used as Python-side data is not flagged.

## Why is this bad?
After `hybridize()` the other operands are Symbols, and an NDArray cannot enter a graph:
`x + nd.array(...)` raises `TypeError: type <class 'NDArray'> not supported`. `F.array` does not
exist in `mxnet.symbol` (`AttributeError`).

## Example
```python
def hybrid_forward(self, F, x):
    return x + nd.array([[1, 1, 1]])
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_add(x, F.ones((1, 3)))
```
(hylint first rewrites the constant, then HY101 the operator.) A constant whose values differ
belongs in a constant parameter: `self.c = self.params.get_constant('c', value)` in `__init__`
and a `c` argument of `hybrid_forward`.

## Fix safety
Safe for a literal whose elements are all equal: `F.full(shape, v)` (`F.ones`, `F.zeros`) with the
literal's shape and the same dtype (float32 unless `dtype=` is given) computes the same array. A
`ctx=` argument makes it unsafe (the constant would follow the default context). Other literals
are reported without a fix.
"""
    VALID = [
        Valid(CLS.format("x + F.ones((1, 3))")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        k = np.array([1, 2])\n"
              "        return x * float(k.sum())\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x + nd.array([1, 2, 3])\n"),
    ]
    INVALID = [
        Invalid(CLS.format("x + nd.array([[1, 1, 1]])"), CLS.format("F.broadcast_add(x, F.ones((1, 3)))")),
        Invalid(CLS.format("x * mx.nd.array([[0.5, 0.5], [0.5, 0.5]])"), CLS.format("x * F.full((2, 2), 0.5)")),
        Invalid(CLS.format("x + mx.nd.array([[0, 0]], dtype='float32')"),
                CLS.format("F.broadcast_add(x, F.zeros((1, 2), dtype='float32'))")),
        Invalid(CLS.format("x + nd.array([[1, 2, 3]])")),
        Invalid(CLS.format("x + F.array([[1, 2, 3], [4, 5, 6]])")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        namespace, _, last = callee.rpartition(".")
        if last != "array" or not (namespace in ND_NAMES or namespace == ctx.f_name):
            return
        where = "does not exist in mxnet.symbol (AttributeError)" if namespace == ctx.f_name else \
            "is an NDArray that cannot enter the graph (TypeError: type NDArray not supported)"
        ctx.report(node, f"`{callee}(...)` inside a hybrid context: after hybridize() it {where}; "
                         f"create constants with {ctx.f_name}.full/ones/zeros or a constant parameter",
                   self._fix(node, ctx))

    def _fix(self, node: cst.Call, ctx) -> Optional[PendingFix]:
        if not node.args or node.args[0].keyword is not None:
            return None
        literal = node.args[0].value
        shape = nested_literal_shape(literal)
        numbers = _numbers(literal)
        if not shape or not numbers or len(set(numbers)) != 1:
            return None
        for arg in node.args[1:]:
            if arg.keyword is None or arg.keyword.value not in ("dtype", "ctx"):
                return None
        value = numbers[0]
        extra = [("dtype", keyword_value(node, "dtype"))] if keyword_value(node, "dtype") is not None else []
        shape_node = tuple_node([int_node(d) for d in shape])
        if value == 0:
            new = f_call(ctx.f_name, "zeros", [shape_node], extra)
        elif value == 1:
            new = f_call(ctx.f_name, "ones", [shape_node], extra)
        else:
            first = literal
            while isinstance(first, (cst.List, cst.Tuple)):
                first = first.elements[0].value
            new = f_call(ctx.f_name, "full", [shape_node, first], extra)
        applicability = Applicability.UNSAFE if keyword_value(node, "ctx") is not None else Applicability.SAFE
        return PendingFix(applicability, "Create the constant with " + ctx.code(new.func), [replace(node, new)])
