import libcst as cst

from hylint.analysis.values import Kind, Shape, Value, shape_difference, shapes_proven_equal
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import broadcast_fix, describe, extra_input, tensor_pairs


class UnprovenBroadcast(LintRule):
    CODE = "HY102"
    LOCAL_FIX = True
    NAME = "unproven-broadcast"
    MESSAGE = "Tensor operator whose operand shapes are not proven equal"
    FIX_TITLE = "Use the explicit `F.broadcast_*` operator"
    DEFAULT_ENABLED = False
    DOC = """
## What it does
Retired (see above): no selector runs it; `hylint verify` applies its fix where a hybridized run
fails at the operator. It flagged every `+ - * / % ** < <= > >= == !=`
between two tensors in a hybrid context whose shapes hylint cannot prove equal, and that HY101 does
not already flag for evidence of different shapes. Shapes are proven equal when both operands derive
from the same tensor through shape-preserving operations, are outputs of one `split`, or both have the
same literal shape. It stays quiet where nothing suggests the shapes differ (a residual add
`x + self.body(x)`, a child's output, elements of lists and of multi-output results, the same pattern
of known sizes on both sides): it reports an extra input of the block (a mask, a weight row: its shape
is the caller's choice) against another tensor, and one operand with shape facts (a size-1 axis, a
known size, a fixed shape) the other does not share. A helper's parameter is what its caller passed
(an extra input passed in keeps its facts; a value the caller knows nothing of is no evidence), and a
rank alone (`reshape((-1, k))` with a variable `k`) is no shape fact.

## Why is this bad?
After `hybridize()` these operators require identical shapes; if the two tensors ever differ in
shape the block fails in shape inference, while it works eagerly (NDArray broadcasts). Most such
sites in real code are equal-shape residual adds, which is why this rule is opt-in: use it to audit
a block that fails with `Incompatible attr in node ...` (and `hylint verify` finds the exact one).

## Example
```python
def hybrid_forward(self, F, x):
    return x * F.arange(4)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_mul(x, F.arange(4))
```

## Fix safety
Safe when both operands are proven tensors: NDArray's operators already broadcast, so the explicit
`broadcast_*` operator computes the same values eagerly, and accepts any broadcastable shapes when
hybridized. Unsafe when an operand is a tensor by assumption only (it may be a Python number eagerly).
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.relu(x)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2 + 1\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.ones((2, 3)) + F.zeros((2, 3))\n"),
        # nothing suggests these differ: a residual add, siblings of one split, (N, 1) and (N, 1)
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + self.body(x)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a, b = F.split(x, 2)\n        return a * b\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"
              "        return x.reshape((-1, 1)) * y.reshape((-1, 1))\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * F.arange(4)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_mul(x, F.arange(4))\n",
                unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        x = F.relu(x)\n        return x * x[0]\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        x = F.relu(x)\n        return F.broadcast_mul(x, F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0))\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.ones((2, 3))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_add(x, F.ones((2, 3)))\n",
                unsafe=True),
    ]

    def _check(self, node, ctx) -> None:
        for symbol, left, right, lv, rv in tensor_pairs(node, ctx):
            if shapes_proven_equal(lv.shape, rv.shape) or shape_difference(lv.shape, rv.shape) is not None:
                continue
            if not _may_differ(lv, rv, ctx):
                continue
            message = (f"`{describe(left, ctx)} {symbol} {describe(right, ctx)}`: shapes not proven equal; after "
                       f"hybridize() `{symbol}` fails unless they are identical")
            ctx.report(node, message, broadcast_fix(node, ctx))
            return

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:
        self._check(node, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:
        self._check(node, ctx)


def _has_facts(shape: Shape) -> bool:
    """Facts that make a difference plausible: a size-1 axis, a fixed (parameter) shape, a known size.
    A rank alone, or `reshape((-1, k))` with a variable `k`, says nothing of the sizes."""
    return shape.unit_axis or shape.static or shape.indexed_from is not None or \
        any(d is not None for d in shape.dims or ())


def _may_differ(a: Value, b: Value, ctx) -> bool:
    """Something suggests the two shapes can differ: an extra input of the function (a mask, a weight
    row: its shape is the caller's choice) against another tensor, or shape facts on one side that the
    other does not share. Not a residual add (`x + self.body(x)`), a child's output, an element of a list
    or of a multi-output result: nothing is known of those shapes."""
    if a.kind is not Kind.TENSOR or b.kind is not Kind.TENSOR:
        return False
    if any(extra_input(v, ctx) for v in (a, b)) and a.shape.root != b.shape.root:
        return True  # the input itself (what is computed from it is reported once, here)
    if not (a.certain and b.certain):
        return False
    if not (_has_facts(a.shape) or _has_facts(b.shape)):
        return False
    # the same facts on both sides, e.g. two (N, 1) results of reductions; not when the rank is unknown
    # (`x.expand_dims(0)` and `x.expand_dims(0).expand_dims(0)` both have "a size-1 axis")
    known = a.shape.rank is not None or a.shape.dims is not None or a.shape.indexed_from is not None
    return not known or _facts(a.shape) != _facts(b.shape)


def _facts(shape: Shape):
    return shape.rank, shape.dims, shape.unit_axis, shape.static, shape.indexed_from
