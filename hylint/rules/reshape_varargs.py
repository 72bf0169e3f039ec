import libcst as cst

from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import tuple_node
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS


class ReshapeVarargs(LintRule):
    CODE = "HY902"
    LOCAL_FIX = True
    NAME = "reshape-varargs"
    MESSAGE = "`x.reshape(a, b, ...)` with several positional sizes"
    FIX_TITLE = "Pass the shape as one tuple"
    DOC = """
## What it does
Flags `x.reshape(a, b, ...)` on a tensor inside a hybrid context: more than one positional argument.

## Why is this bad?
`NDArray.reshape(*shape)` accepts the sizes as separate arguments. `Symbol.reshape` maps its
positional arguments to `shape, reverse, ...`: after `hybridize()` `x.reshape(0, -1)` passes `-1` as
`reverse` and raises `MXNetError: Invalid Parameter format for reverse expect boolean but
value='-1'`. (`x.reshape(-1)` with a single argument is fine.)

## Example
```python
def hybrid_forward(self, F, x):
    return x.reshape(0, -1)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x.reshape((0, -1))
```

## Fix safety
Safe: NDArray packs the arguments into exactly this tuple.
"""
    VALID = [
        Valid(CLS.format("        return x.reshape((0, -1))\n")),
        Valid(CLS.format("        return x.reshape(-1)\n")),
        Valid(CLS.format("        return x.reshape(shape=(0, -1))\n")),
        Valid(CLS.format("        a = np.ones(6)\n        return x * float(a.reshape(2, 3).sum())\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return x.reshape(0, -1)\n"), CLS.format("        return x.reshape((0, -1))\n")),
        Invalid(CLS.format("        return F.relu(x).reshape(-1, 2, 3)\n"),
                CLS.format("        return F.relu(x).reshape((-1, 2, 3))\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "reshape":
            return
        if ctx.value(node.func.value).kind is not Kind.TENSOR:
            return
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) < 2 or any(a.star for a in node.args) or len(positional) != len(node.args):
            return
        shape = tuple_node([a.value for a in positional])
        new = node.with_changes(args=[cst.Arg(value=shape)])
        ctx.report(node, "`reshape` with several positional sizes fails after hybridize(): pass one tuple",
                   PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(node, new)]),
                   help="After hybridize() Symbol.reshape reads the second size as `reverse` and raises MXNetError")
