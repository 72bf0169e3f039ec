import libcst as cst

from hylint.analysis.values import Kind
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._autograd_scope import scope_of
from hylint.rules._hazards import CLS
from hylint.syntax.walk import iter_nodes


class AutogradPauseInHybrid(LintRule):
    CODE = "HY813"
    NAME = "autograd-pause-in-hybrid"
    MESSAGE = "`with autograd.pause():` inside a hybrid context stops gradients only eagerly"
    DEFAULT_ENABLED = False
    DOC = """
## What it does
Flags `with autograd.pause():` (also `mx.autograd.pause()`) inside a hybrid context (outside `if F
is nd:` guards) whose body computes tensors. Off by default (see below); enable it with
`--extend-select HY813`.

## Why is this bad?
Eagerly nothing computed inside `pause()` is recorded, so no gradient flows back through it. A
hybridized block's graph is recorded as one operation when its caller records, and the scope ran
only while the graph was traced: it is ignored, and the gradient flows through what it held.
Measured on MXNet 1.9.1 (issue 43): `with autograd.pause(): y = x * 2` then `return x + y`, called
under `autograd.record()` and back-propagated, gives `x` the gradient 1 eagerly and 3 hybridized.
`F.stop_gradient(x * 2)` gives 1 in both modes.

Off by default because on real code the scope mostly holds operators that pass no gradient anyway
(gluoncv's proposal and target generators: `box_nms`, comparisons, `zeros_like`), or results that
are passed through `F.stop_gradient`/`BlockGrad` afterwards, or runs only in prediction (gluonts'
distributions' `sample`, reached from `DeepARPredictionNetwork`), and then eager and hybridized
results agree: of its 13 diagnostics on the zoo sources (10 gluoncv, 3 gluonts) and 10 on the corpus
(gluoncv), none changes what a model computes, and 5 stand on lines that models MXNet labelled OK
(hybridized output equal to the eager one) ran while tracing (benchmarks/zoo/labels).

## Example
```python
def hybrid_forward(self, F, x):
    with autograd.pause():
        y = x * 2
    return x + y
```

## Use instead
```python
def hybrid_forward(self, F, x):
    y = F.stop_gradient(x * 2)
    return x + y
```

## Fix safety
No fix: which values must not pass a gradient (those the scope computes and the code reads later)
is the author's decision.
"""
    VALID = [
        Valid(CLS.format("        y = F.stop_gradient(x * 2)\n        return x + y\n")),
        Valid(CLS.format("        with autograd.pause():\n            k = 2\n        return x * k\n")),
        Valid(CLS.format("        if F is nd:\n            with autograd.pause():\n                y = x * 2\n"
                         "            return x + y\n        return x + F.stop_gradient(x * 2)\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        with autograd.pause():\n            y = x * 2\n"
              "        return x + y\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        with autograd.pause():\n            y = x * 2\n        return x + y\n")),
        Invalid(CLS.format("        with mx.autograd.pause():\n            y = F.relu(x)\n        return x + y\n")),
    ]

    def visit_With(self, node: cst.With, ctx) -> None:
        for item in node.items:
            found = scope_of(item)
            if found is None or found[0] != "pause":
                continue
            tensors = [n for n in iter_nodes(node.body) if isinstance(n, (cst.Call, cst.BinaryOperation))
                       and ctx.value(n).kind in (Kind.TENSOR, Kind.MULTI, Kind.CHILD)]
            if not tensors:
                continue
            code = ctx.code(found[1]).strip()
            ctx.report(found[1], f"`with {code}:` is ignored after hybridize(): gradients flow through it",
                       help="Eagerly the tensors computed inside pass no gradient; after hybridize() the scope is ignored "
                            "(it ran once, while the graph was traced) and gradients flow through them",
                       instead=f"`{ctx.f_name}.stop_gradient(...)` around the values computed inside")
