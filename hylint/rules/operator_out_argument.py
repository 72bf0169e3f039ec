import libcst as cst

from hylint.diagnostic import Applicability
from hylint.facts.operators import OUT_REFUSED_BY_BOTH, OUT_REFUSED_BY_ND_ONLY
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS
from hylint.syntax.nodes import dotted_name


class OperatorOutArgument(LintRule):
    CODE = "HY502"
    NAME = "operator-out-argument"
    MESSAGE = "`out=` on an `F` operator writes in place eagerly and is ignored after hybridize(), or raises"
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

A few operators have no `out` parameter at all (measured on MXNet 1.9.1, the list in
`hylint/facts/operators.py`): `F.maximum`, `F.minimum`, `F.power`, `F.arange`, `F.linspace`,
`F.split_v2` and `F.contrib.cond`/`foreach`/`while_loop` raise `TypeError: ... got an unexpected
keyword argument 'out'` eagerly and hybridized; `F.histogram` raises eagerly and drops `out=`
hybridized. The help says which of the three happens for the operator called.

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
subscript) are reported without a fix. For an operator that takes no `out=` (`F.maximum`, ...) the
rewrite replaces a TypeError raised in both modes with the binding.
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
        Invalid(CLS.format("        y = F.zeros_like(x)\n        F.maximum(x, 0.5, out=y)\n        return y\n"),
                CLS.format("        y = F.zeros_like(x)\n        y = F.maximum(x, 0.5)\n        return y\n"),
                unsafe=True),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        if not callee.startswith(ctx.hybrid.f_name + "."):
            return
        out = next((arg for arg in node.args if arg.keyword is not None and arg.keyword.value == "out"), None)
        if out is None:
            return
        target = ctx.code(out.value).strip()
        ctx.report(node, f"`{callee}(..., out={target})`: `out=` does not work after hybridize()",
                   self._fix(node, out, ctx), instead=f"bind the result, `{target} = {callee}(...)` without `out=`",
                   help=self._what_happens(callee, ctx.hybrid.f_name, target))

    @staticmethod
    def _what_happens(callee: str, f_name: str, target: str) -> str:
        parts = callee[len(f_name) + 1:].split(".")
        key = ("top", parts[0]) if len(parts) == 1 else tuple(parts)
        refused = f"`{parts[-1]}` takes no `out=`: it raises TypeError (unexpected keyword argument 'out')"
        if key in OUT_REFUSED_BY_BOTH:
            return f"{refused} eagerly and after hybridize()"
        if key in OUT_REFUSED_BY_ND_ONLY:
            return f"{refused} eagerly; after hybridize() the Symbol operator ignores `out=`"
        return (f"eagerly the result is written into `{target}`; after hybridize() the Symbol operator ignores "
                f"`out=`, so `{target}` silently keeps its old value")

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
