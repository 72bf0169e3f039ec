import libcst as cst

from hylint.analysis.values import shape_difference, shapes_proven_equal
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import broadcast_fix, describe, tensor_pairs


class UnprovenBroadcast(LintRule):
    CODE = "HY102"
    NAME = "unproven-broadcast"
    MESSAGE = "Tensor operator whose operand shapes are not proven equal"
    FIX_TITLE = "Use the explicit `F.broadcast_*` operator"
    DEFAULT_ENABLED = False
    DOC = """
## What it does
Off by default (`--extend-select HY102` or `--select ALL`). Flags every `+ - * / % ** < <= > >= == !=`
between two tensors in a hybrid context whose shapes hylint cannot prove equal, and that HY101 does
not already flag for evidence of different shapes. Shapes are proven equal when both operands derive
from the same tensor through shape-preserving operations, or both have the same literal shape.

## Why is this bad?
After `hybridize()` these operators require identical shapes; if the two tensors ever differ in
shape the block fails in shape inference, while it works eagerly (NDArray broadcasts). Most such
sites in real code are equal-shape residual adds, which is why this rule is opt-in: use it to audit
a block that fails with `Incompatible attr in node ...` (and `hylint verify` finds the exact one).

## Example
```python
def hybrid_forward(self, F, x, y):
    return x * y
```

## Use instead
```python
def hybrid_forward(self, F, x, y):
    return F.broadcast_mul(x, y)
```

## Fix safety
Safe: NDArray's operators already broadcast, so the explicit `broadcast_*` operator computes the
same values eagerly, and accepts any broadcastable shapes when hybridized.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.relu(x)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2 + 1\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.ones((2, 3)) + F.zeros((2, 3))\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return x * y\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return F.broadcast_mul(x, y)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + self.body(x)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_add(x, self.body(x))\n"),
    ]

    def _check(self, node, ctx) -> None:
        for symbol, left, right, lv, rv in tensor_pairs(node, ctx):
            if shapes_proven_equal(lv.shape, rv.shape) or shape_difference(lv.shape, rv.shape) is not None:
                continue
            message = (f"`{describe(left, ctx)} {symbol} {describe(right, ctx)}`: shapes not proven equal; after "
                       f"hybridize() `{symbol}` fails unless they are identical")
            ctx.report(node, message, broadcast_fix(node, ctx))
            return

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:
        self._check(node, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:
        self._check(node, ctx)
