import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import CLS

CALLS = {"is_training", "is_recording"}
MODULES = ("autograd", "mx.autograd", "mxnet.autograd", "ag")


class AutogradStateInHybrid(LintRule):
    CODE = "HY806"
    NAME = "autograd-state-in-hybrid"
    MESSAGE = "autograd.is_training()/is_recording() is frozen at trace time after hybridize()"
    DOC = """
## What it does
Warns about `autograd.is_training()` and `autograd.is_recording()` (also `mx.autograd.` and
`mxnet.autograd.`) inside a hybrid context.

## Why is this bad?
The body of `hybrid_forward` runs once, when the graph is traced on the first call after
`hybridize()`; the Python value is baked into the graph. Measured on MXNet 1.9.1: a block traced in
predict mode keeps the predict branch during training (and the other way round), silently.

## Example
```python
def hybrid_forward(self, F, x):
    if autograd.is_training():
        x = x * self._keep
    return x
```

## Use instead
Mode-aware operators, which read the mode when the graph runs: `F.Dropout`, `F.BatchNorm`, or
`nn.Dropout` / `nn.BatchNorm` children. Or call `hybridize()` again after switching mode.

## Fix safety
No fix.
"""
    VALID = [
        Valid(CLS.format("        return F.Dropout(x, p=0.5)\n")),
        Valid(CLS.format("        if F is nd:\n            if autograd.is_training():\n                print('train')\n        return x\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        if autograd.is_training():\n            return x * 2\n        return x * 3\n")),
        Invalid(CLS.format("        scale = 2.0 if mx.autograd.is_recording() else 1.0\n        return x * scale\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        module, _, name = callee.rpartition(".")
        if name in CALLS and module in MODULES:
            ctx.report(node, f"`{callee}()` is read once after hybridize(): the branch it selects is frozen",
                       help="After hybridize() it is read once, when the graph is traced, and the branch it selects is "
                            "frozen for later calls in the other mode; use operators that read the mode on every call "
                            "(`F.Dropout`, `F.BatchNorm`), or call hybridize() again after switching the mode")
