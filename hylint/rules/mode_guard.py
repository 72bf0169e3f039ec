import libcst as cst

from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import describe
from hylint.rules._hazards import CLS


class ModeGuard(LintRule):
    CODE = "HY803"
    NAME = "mode-guard"
    MESSAGE = "Mode guard: the eager and hybridized branches may compute different things"
    DEFAULT_ENABLED = False
    DOC = """
## What it does
Retired (see above). It listed every mode guard of a hybrid context:
`if F is nd:`, `if F is mx.sym:`, `if isinstance(x, nd.NDArray):`, `if not isinstance(x, Symbol):`.

## Why is this bad?
A guard is the deliberate way to keep NDArray-only code out of the graph, and the other rules honour
it (they skip the eager-only branch). But the condition flips when the block is hybridized: a
block whose two branches compute different things silently changes its results (`if F is nd:
return x * 2` / `return x * 3` measured on MXNet 1.9.1: different outputs, different gradients).
This rule lists the guards so that a block can be audited.

## Example
```python
def hybrid_forward(self, F, x):
    if F is nd:
        return x * 2
    return x * 3
```

## Use instead
One computation for both modes (`return x * 2`), or branches that provably compute the same values
(an eager-only shortcut, a debug print).

## Fix safety
No fix: which branch is right is the author's decision.
"""
    VALID = [
        Valid(CLS.format("        if self._debug:\n            x = x * 1\n        return x\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        if isinstance(x, nd.NDArray):\n            return x\n        return x\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        if F is nd:\n            return x * 2\n        return x * 3\n")),
        Invalid(CLS.format("        if isinstance(x, mx.nd.NDArray):\n            x = x * 2\n        return x\n")),
        Invalid(CLS.format("        if F is mx.sym:\n            return x\n        return x * 1\n")),
    ]

    def visit_If(self, node: cst.If, ctx) -> None:
        for guard in ctx.hybrid.guards:
            if guard.node is node:
                which = "eagerly (F = mxnet.ndarray)" if guard.mode == "nd" else "only after hybridize()"
                ctx.report(node.test, f"mode guard `{describe(node.test, ctx)}`: its branch runs {which}",
                           help="The other branch runs in the other mode; check that both compute the same values")
