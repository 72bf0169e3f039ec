import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.analysis.values import Kind
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import CLS


class PrintInHybrid(LintRule):
    CODE = "HY805"
    NAME = "print-in-hybrid"
    MESSAGE = "print() of a tensor runs once, at trace time, after hybridize()"
    DOC = """
## What it does
Warns about `print(...)` calls with a tensor argument inside a hybrid context (outside `if F is nd:`
guards).

## Why is this bad?
Eagerly it prints the values on every call. After `hybridize()` the body runs once, to build the
graph: the first call prints `<Symbol data>`, later calls print nothing. No error, but the output
is not what the author meant to see.

## Example
```python
def hybrid_forward(self, F, x):
    print(x)
    return x * 2
```

## Use instead
```python
def hybrid_forward(self, F, x):
    if F is nd:
        print(x)     # eager debugging only
    return x * 2
```

## Fix safety
No fix: deleting the print changes what the program outputs.
"""
    VALID = [
        Valid(CLS.format("        if F is nd:\n            print(x)\n        return x\n")),
        Valid(CLS.format("        print('building', self._units)\n        return x\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        print(x)\n        return x * 2\n")),
        Invalid(CLS.format("        y = F.relu(x)\n        print('y =', y)\n        return y\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if dotted_name(node.func) != "print":
            return
        if any(ctx.value(a.value).kind in (Kind.TENSOR, Kind.CHILD) for a in node.args):
            ctx.report(node, "print() of a tensor prints a Symbol, once, after hybridize()",
                       help="Eagerly it prints the values on every call; after hybridize() it runs once, while the graph "
                            "is traced, and prints a Symbol; remove it, or print only eagerly under `if F is mx.nd:`")
