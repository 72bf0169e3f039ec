import libcst as cst

from hylint.syntax.nodes import call_arg, dotted_name
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS


def _with_axis(node: cst.Call) -> cst.Call:
    args = list(node.args)
    new = cst.Arg(keyword=cst.Name("axis"), value=cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer("1")),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if args:
        last = args[-1]
        trailing = last.comma if isinstance(last.comma, cst.Comma) else None
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        if trailing is not None:
            new = new.with_changes(comma=trailing)
    return node.with_changes(args=args + [new])


class SortWithoutAxis(LintRule):
    CODE = "HY901"
    LOCAL_FIX = True
    NAME = "sort-without-axis"
    MESSAGE = "`sort` without `axis` fails in a hybridized graph (MXNet bug)"
    FIX_TITLE = "Pass `axis=-1` (the default)"
    DOC = """
## What it does
Flags `F.sort(x)` and `x.sort()` on a tensor inside a hybrid context when no `axis` is given.

## Why is this bad?
An MXNet 1.x bug: the Symbol's default axis is serialised as `''`, and the cached graph's backward
node fails to parse it, even for inference: `MXNetError: Invalid Parameter format for axis expect
int or None but value='', in operator _backward_topk`. Eagerly it works.

## Example
```python
def hybrid_forward(self, F, x):
    return F.sort(x) + x.sort()
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.sort(x, axis=-1) + x.sort(axis=-1)
```

## Fix safety
Safe: `-1` is the default axis of `sort`, so eager results are unchanged.
"""
    VALID = [
        Valid(CLS.format("        return F.sort(x, axis=-1) + x.sort(axis=0) + F.sort(x, 1)\n")),
        Valid(CLS.format("        a = [3, 1]\n        a.sort()\n        return x\n")),
        Valid(CLS.format("        return F.argsort(x)\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return F.sort(x)\n"), CLS.format("        return F.sort(x, axis=-1)\n")),
        Invalid(CLS.format("        return F.relu(x).sort(is_ascend=False)\n"),
                CLS.format("        return F.relu(x).sort(is_ascend=False, axis=-1)\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        if callee == f"{ctx.f_name}.sort":
            if call_arg(node, 1, "axis") is not None or any(a.star for a in node.args):
                return
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "sort":
            if ctx.value(node.func.value).kind is not Kind.TENSOR or call_arg(node, 0, "axis") is not None:
                return
            if any(a.star for a in node.args):
                return
        else:
            return
        ctx.report(node, "`sort` without `axis` fails after hybridize(): pass axis=-1",
                   PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(node, _with_axis(node))]),
                   help="After hybridize() the graph fails (Invalid Parameter format for axis ... value='' in "
                        "_backward_topk, an MXNet bug)")
