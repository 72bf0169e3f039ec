import libcst as cst

from hylint.syntax.nodes import call_arg, is_true
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS


class AstypeCopyArgument(LintRule):
    CODE = "HY903"
    LOCAL_FIX = True
    NAME = "astype-copy-argument"
    MESSAGE = "`astype(..., copy=...)`: Symbol.astype has no `copy` argument"
    FIX_TITLE = "Drop the `copy` argument"
    DOC = """
## What it does
Flags `x.astype(dtype, copy=...)` on a tensor inside a hybrid context.

## Why is this bad?
`NDArray.astype(dtype, copy=True)` takes `copy`; `Symbol.astype` passes its arguments to the `Cast`
operator, which has none: after `hybridize()` it raises `MXNetError: Cannot find argument 'copy'`.

## Example
```python
def hybrid_forward(self, F, x):
    return x.astype('float16', copy=False)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x.astype('float16')
```

## Fix safety
Safe for `copy=True` (the default). Unsafe for `copy=False` or a non-literal: NDArray then returns
`x` itself when the dtype is already right, and the rewrite returns a copy (same values; only code
that mutates the result in place could tell).
"""
    VALID = [
        Valid(CLS.format("        return x.astype('float16')\n")),
        Valid(CLS.format("        a = np.ones(2)\n        return x * float(a.astype('float32', copy=False).sum())\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return x.astype('float16', copy=True)\n"), CLS.format("        return x.astype('float16')\n")),
        Invalid(CLS.format("        return x.astype('float16', copy=False)\n"), CLS.format("        return x.astype('float16')\n"),
                unsafe=True),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "astype":
            return
        if ctx.value(node.func.value).kind is not Kind.TENSOR:
            return
        copy = call_arg(node, 1, "copy")
        if copy is None or any(a.star for a in node.args):
            return
        args = [a for a in node.args if a is not copy]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        safe = is_true(copy.value)
        ctx.report(node, "`astype(..., copy=...)`: after hybridize() Symbol.astype raises MXNetError (Cannot find "
                         "argument 'copy'); drop it",
                   PendingFix(Applicability.SAFE if safe else Applicability.UNSAFE, self.FIX_TITLE,
                              [replace(node, node.with_changes(args=args))]))
