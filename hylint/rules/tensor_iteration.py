import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import CLS, is_tensor

ITERATING = {"list", "tuple", "enumerate", "zip", "reversed", "sorted", "iter", "map", "filter", "set", "sum"}


class TensorIteration(LintRule):
    CODE = "HY801"
    NAME = "tensor-iteration"
    MESSAGE = "Iteration over a tensor: after hybridize() it yields the tensor itself, once"
    DOC = """
## What it does
Flags iteration over a tensor inside a hybrid context: `for row in x`, comprehensions over `x`,
`list(x)`, `tuple(x)`, `enumerate(x)`, `zip(x, ...)`, `sum(x)`, `map(f, x)`, `*x` in a call, and
unpacking `a, b = x`. (`len(x)` is HY201's; `F.split(...)` results and Python lists are not flagged.)

## Why is this bad?
An NDArray iterates over its rows. A Symbol iterates over its *outputs*: a one-output Symbol yields
itself once. No error: `F.stack(*[r * 2 for r in x])` silently returns shape `(1, 2, 3)` instead of
`(2, 3)`, `sum(x)` returns `x` instead of the sum of its rows, and `a, b = x` raises `ValueError`.

## Example
```python
def hybrid_forward(self, F, x):
    return F.stack(*[row * 2 for row in x])
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x * 2          # vectorise, or F.contrib.foreach, or
    # F.split(x, num_outputs=self._n, axis=0, squeeze_axis=True) with a static row count
```

## Fix safety
No fix: the number of rows is not known when the graph is built.
"""
    VALID = [
        Valid(CLS.format("        parts = F.split(x, num_outputs=2, axis=0)\n        return F.stack(*[p * 2 for p in parts])\n")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        for a in args:\n            x = x + a\n        return x\n"),
        Valid(CLS.format("        for i in range(3):\n            x = x * 2\n        return x\n")),
        Valid(CLS.format("        a, b = F.split(x, 2)\n        return a + b\n")),
        Valid(CLS.format("        mean, var = F.moments(x, axes=(1,), keepdims=True)\n        return F.broadcast_div(F.broadcast_sub(x, mean), var + 1)\n")),
        Valid(CLS.format("        q, lo, hi = F.contrib.quantize_v2(x)\n        return lo + hi\n")),
        Valid(CLS.format("        return sum([x, x])\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        h = x * 2\n        return F.stack(*[row for row in h])\n")),
        Invalid(CLS.format("        out = []\n        for row in F.relu(x):\n            out.append(row)\n        return F.stack(*out)\n")),
        Invalid(CLS.format("        a, b = F.relu(x)\n        return a + b\n")),
        Invalid(CLS.format("        return sum(x)\n")),
        Invalid(CLS.format("        return F.concat(*x.T, dim=0) + x.sum()\n")),
        Invalid(CLS.format("        return F.stack(*[r * 2 for r in x]) + x.mean()\n")),
    ]

    def _flag(self, node, iterated, ctx, how: str) -> None:
        if is_tensor(ctx.value(iterated)):
            name = ctx.code(iterated).strip()
            ctx.report(node, f"{how} `{name}` is silently wrong after hybridize(): it yields `{name}` itself, once",
                       help=f"Eagerly this iterates over the rows, but after hybridize() `{name}` is a Symbol and "
                            f"iterating yields its outputs (itself, once)",
                       instead=f"one operator over the whole tensor (`{ctx.f_name}.sum({name}, axis=0)`), or "
                               f"`{ctx.f_name}.split({name}, num_outputs=n, axis=0, squeeze_axis=True)` with `n` "
                               f"known when the block is built")

    def visit_For(self, node: cst.For, ctx) -> None:
        self._flag(node.iter, node.iter, ctx, "`for` over")

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:
        self._flag(node.iter, node.iter, ctx, "comprehension over")

    def visit_Call(self, node: cst.Call, ctx) -> None:
        name = dotted_name(node.func)
        if name in ITERATING and node.args:
            targets = node.args[1:] if name in ("map", "filter") else node.args
            if name == "sum":
                targets = node.args[:1]
            for arg in targets:
                if arg.keyword is None and not arg.star:
                    self._flag(node, arg.value, ctx, f"`{name}()` of")
        for arg in node.args:
            if arg.star == "*":
                self._flag(arg, arg.value, ctx, "`*` unpacking of")

    def visit_Assign(self, node: cst.Assign, ctx) -> None:
        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            self._flag(node, node.value, ctx, "unpacking")
