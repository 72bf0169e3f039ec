import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS
from hylint.syntax.nodes import dotted_name


class OperatorOutArgument(LintRule):
    CODE = "HY502"
    NAME = "operator-out-argument"
    MESSAGE = "`out=` on an `F` operator writes in place eagerly and is ignored after hybridize()"
    FIX_TITLE = "Bind the result to the name instead of writing into it"
    DOC = """
## What it does
Flags an `F.<op>(..., out=y)` call inside a hybrid context (outside `if F is nd:` guards).

## Why is this bad?
Eagerly, `out=y` writes the result into the NDArray `y`. After `hybridize()` the Symbol operator
drops the argument without an error: `y` is not an input of the node and keeps what it held, so
the code that reads `y` afterwards silently computes something else. Measured on MXNet 1.9.1:
`y = F.zeros_like(x); F.relu(x - 0.5, out=y); return y + x` returns `relu(x - 0.5) + x` eagerly and
`x` hybridized (`mx.sym.relu(x, out=y).list_arguments()` is `['x']`).

## Example
```python
def hybrid_forward(self, F, x):
    y = F.zeros_like(x)
    F.relu(x - 0.5, out=y)
    return y + x
```

## Use instead
```python
def hybrid_forward(self, F, x):
    y = F.zeros_like(x)
    y = F.relu(x - 0.5)
    return y + x
```

## Fix safety
Unsafe: a call on a line of its own with `out=` a plain name becomes an assignment to that name
(`y = F.relu(x - 0.5)`). Eagerly, other references to the array `y` held (an alias, a list it was
appended to, the caller's array when `y` is an argument) saw the in-place write; after the rewrite
they keep the old values. Other calls (whose result is used, or with `out=` an attribute or
subscript) are reported without a fix.
"""
    VALID = [
        Valid(CLS.format("        y = F.relu(x - 0.5)\n        return y + x\n")),
        Valid(CLS.format("        y = F.zeros_like(x)\n        if F is nd:\n            nd.relu(x, out=y)\n"
                         "        return y\n")),
        Valid(CLS.format("        return F.Custom(x, op_type='scale', out_name='y')\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        y = F.zeros_like(x)\n        F.relu(x - 0.5, out=y)\n        return y + x\n"),
                CLS.format("        y = F.zeros_like(x)\n        y = F.relu(x - 0.5)\n        return y + x\n"),
                unsafe=True),
        Invalid(CLS.format("        y = F.zeros_like(x)\n        z = F.broadcast_add(x, x, out=y)\n"
                           "        return y + z\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        if not callee.startswith(ctx.hybrid.f_name + "."):
            return
        out = next((arg for arg in node.args if arg.keyword is not None and arg.keyword.value == "out"), None)
        if out is None:
            return
        target = ctx.code(out.value).strip()
        ctx.report(node, f"`{callee}(..., out={target})`: eagerly the result is written into `{target}`; after "
                         f"hybridize() the Symbol operator ignores `out=`, so `{target}` silently keeps its "
                         f"old value", self._fix(node, out, ctx),
                   instead=f"bind the result, `{target} = {callee}(...)` without `out=`")

    @staticmethod
    def _fix(node: cst.Call, out: cst.Arg, ctx):
        statement = ctx.hybrid.parents.get(node)
        if not isinstance(statement, cst.Expr) or statement.value is not node or not isinstance(out.value, cst.Name):
            return None
        args = [arg for arg in node.args if arg is not out]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        assignment = cst.Assign([cst.AssignTarget(cst.Name(out.value.value))], node.with_changes(args=args))
        return PendingFix(Applicability.UNSAFE, OperatorOutArgument.FIX_TITLE, [replace(statement, assignment)])
