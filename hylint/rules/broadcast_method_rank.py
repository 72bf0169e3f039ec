from typing import Optional

import libcst as cst

from hylint.syntax.nodes import call_arg, literal_shape
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.rule import Fact, Invalid, LintRule, PendingFix, Reliance, Valid, replace
from hylint.rules._hazards import CLS


def _expanded(f_name: str, node: cst.BaseExpression, times: int) -> cst.BaseExpression:
    for _ in range(times):
        node = f_call(f_name, "expand_dims", [node], [("axis", cst.Integer("0"))])
    return node


class BroadcastMethodRank(LintRule):
    CODE = "HY604"
    NAME = "broadcast-method-rank"
    MESSAGE = "`x.broadcast_to/broadcast_like` to a higher rank: only the NDArray method left-pads the rank"
    FIX_TITLE = "Add the leading axes with `F.expand_dims` and call the operator"
    DOC = """
## What it does
Flags the methods `x.broadcast_to(shape)` and `x.broadcast_like(y)` inside a hybrid context when
there is evidence that the target has more axes than `x` (known ranks, see HY101's evidence rules).

## Why is this bad?
`NDArray.broadcast_to` and `NDArray.broadcast_like` are Python methods that first reshape `x` to the
target rank by adding leading size-1 axes (`(1, 3)` -> `(1, 1, 3)`), the way numpy broadcasts.
`Symbol.broadcast_to/broadcast_like` forward to the operators, which require equal ranks: after
`hybridize()` the first call fails in shape inference (`Operand of shape [1,3] cannot be broadcasted
to [2,2,3]`). Calling `F.broadcast_to(x, ...)` directly is not a fix: it fails eagerly as well.

## Example
```python
def hybrid_forward(self, F, x):
    row = x.mean(axis=0)                  # rank 1
    return row.broadcast_to((4, 2, 3))
```

## Use instead
```python
def hybrid_forward(self, F, x):
    row = x.mean(axis=0)
    return F.broadcast_to(F.expand_dims(F.expand_dims(row, axis=0), axis=0), shape=(4, 2, 3))
```

## Fix safety
Safe when both ranks are known: adding the leading axes with `expand_dims` is exactly the reshape
the NDArray method does, and the operators then agree in both modes. Calls whose ranks are
unknown are not flagged.
"""
    VALID = [
        Valid(CLS.format("        return x.broadcast_to((2, 3))\n")),
        Valid(CLS.format("        m = x.reshape((2, 3)).mean(axis=1, keepdims=True)\n        return m.broadcast_to((2, 3))\n")),
        Valid(CLS.format("        return F.broadcast_like(F.ones((1, 3)), x)\n")),
        Valid(CLS.format("        a = np.ones((3,))\n        return x * float(np.broadcast_to(a, (2, 3)).sum())\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        c = F.ones((1, 3))\n        return c.broadcast_to((2, 2, 3))\n"),
                CLS.format("        c = F.ones((1, 3))\n        return F.broadcast_to(F.expand_dims(c, axis=0), shape=(2, 2, 3))\n")),
        Invalid(CLS.format("        y = x.reshape((2, 3))\n        c = y.sum(axis=0)\n        return c.broadcast_like(y)\n"),
                CLS.format("        y = x.reshape((2, 3))\n        c = y.sum(axis=0)\n        return F.broadcast_like(F.expand_dims(c, axis=0), y)\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in ("broadcast_to", "broadcast_like"):
            return
        receiver = node.func.value
        value = ctx.value(receiver)
        if value.kind is not Kind.TENSOR or value.shape.rank is None:
            return
        method = node.func.attr.value
        if method == "broadcast_to":
            arg = call_arg(node, 0, "shape")
            dims = literal_shape(arg.value) if arg is not None else None
            target = len(dims) if dims is not None else None
        else:
            arg = call_arg(node, 0, "other")
            other = ctx.value(arg.value) if arg is not None else None
            target = other.shape.rank if other is not None and other.kind is Kind.TENSOR else None
        if target is None or target <= value.shape.rank or len(node.args) != 1:
            return
        name = ctx.code(receiver).strip()
        ctx.report(node, f"`{name}.{method}(...)` from rank {value.shape.rank} to {target} fails after hybridize()",
                   self._fix(node, ctx, receiver, arg, target - value.shape.rank),
                   help=f"`{name}` has rank {value.shape.rank}, the target rank {target}; the NDArray method adds leading "
                        f"axes, the Symbol operator needs equal ranks and fails after hybridize()")

    def _fix(self, node: cst.Call, ctx, receiver, arg, missing: int) -> Optional[PendingFix]:
        method = node.func.attr.value
        padded = _expanded(ctx.f_name, receiver, missing)
        # the number of new axes is the ranks' difference: exact only on the ranks the analysis gives
        rank = ctx.value(receiver).shape.rank
        relies_on = [Reliance(receiver, Fact.RANK, rank)]
        if method == "broadcast_like":
            relies_on.append(Reliance(arg.value, Fact.RANK, rank + missing))
        if method == "broadcast_to":
            new = f_call(ctx.f_name, "broadcast_to", [padded], [("shape", arg.value)])
        else:
            new = f_call(ctx.f_name, "broadcast_like", [padded, arg.value])
        return PendingFix(Applicability.SAFE, f"Add {missing} leading axis(es) with `{ctx.f_name}.expand_dims`",
                          [replace(node, new)], relies_on=relies_on)
