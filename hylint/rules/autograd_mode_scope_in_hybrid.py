import libcst as cst

from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._autograd_scope import mode_dependent_call, scope_of, sets_mode

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
       "        self.drop = nn.Dropout(0.5)\n        self.bn = nn.BatchNorm()\n        self.dense = nn.Dense(3)\n\n"
       "    def hybrid_forward(self, F, x):\n{}")


class AutogradModeScopeInHybrid(LintRule):
    CODE = "HY812"
    NAME = "autograd-mode-scope-in-hybrid"
    MESSAGE = ("`with autograd.predict_mode()/train_mode()/record()` around Dropout or BatchNorm inside a hybrid "
               "context is ignored after hybridize()")
    DOC = """
## What it does
Flags `with autograd.predict_mode():`, `with autograd.train_mode():`, `with autograd.record():` (which
trains unless `train_mode=False`) and `with autograd.pause(train_mode=True):` inside a hybrid context
(outside `if F is nd:` guards) whose body calls something that computes differently in training and
in predict mode: `F.Dropout`, `F.BatchNorm`, `F.contrib.SyncBatchNorm`, or a child built as
`nn.Dropout`, `nn.BatchNorm`, `SyncBatchNorm` (or as a class of the module that holds one).

## Why is this bad?
Eagerly the scope sets the mode of the operators inside it. A hybridized block runs its graph in
the mode of the caller (`is_train` of the cached graph is the caller's `autograd.is_training()`), and
the scope only ran while the graph was traced: it is ignored. Measured on MXNet 1.9.1 (issue 43):
`with autograd.predict_mode(): y = self.drop(x)` (an `nn.Dropout(0.5)` child), called under
`autograd.record()`, returns `x` unchanged eagerly and a dropped-out `x` hybridized (gradient 1
eagerly, 0 or 2 hybridized); `with autograd.train_mode():` around it drops out in a predict-mode
call eagerly and not hybridized; the same with `nn.BatchNorm` (batch statistics against moving
statistics), with `record()` and with `pause(train_mode=True)`.

## Example
```python
def hybrid_forward(self, F, x):
    with autograd.predict_mode():
        x = self.bn(x)
    return x
```

## Use instead
Say the mode in the operator, which holds in both modes (measured on MXNet 1.9.1): a BatchNorm with
`use_global_stats=True` (`nn.BatchNorm(use_global_stats=True)`) normalizes with the moving statistics
as predict mode does; `F.Dropout(x, p=p, mode='always')` drops out in predict mode too; a dropout
meant to be off is left out. Or set the mode around the block's call, outside hybrid code.
```python
def hybrid_forward(self, F, x):
    return self.bn_global(x)     # nn.BatchNorm(use_global_stats=True)
```

## Fix safety
No fix: which mode the author meant the layer to run in decides the rewrite.
"""
    VALID = [
        Valid(CLS.format("        return self.bn(self.drop(x))\n")),
        Valid(CLS.format("        with autograd.predict_mode():\n            y = self.dense(x)\n        return y\n")),
        Valid(CLS.format("        if F is nd:\n            with autograd.predict_mode():\n                return self.bn(x)\n"
                         "        return self.bn(x)\n")),
        Valid("class N(Block):\n    def __init__(self):\n        super().__init__()\n        self.drop = nn.Dropout(0.5)\n\n"
              "    def forward(self, x):\n        with autograd.predict_mode():\n            return self.drop(x)\n"),
        Valid(CLS.format("        with autograd.record(train_mode=False):\n            y = self.dense(x)\n        return y\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        with autograd.predict_mode():\n            y = self.drop(x)\n        return y\n")),
        Invalid(CLS.format("        with mx.autograd.train_mode():\n            y = self.bn(x)\n        return y\n")),
        Invalid(CLS.format("        with autograd.record():\n            y = F.Dropout(x, p=0.5)\n        return y\n")),
        Invalid(CLS.format("        with autograd.pause(train_mode=True):\n            y = self.bn(x)\n        return y\n")),
        Invalid("class Body(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.drop = nn.Dropout(0.5)\n\n    def hybrid_forward(self, F, x):\n        return self.drop(x)\n\n"
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.body = Body()\n\n"
                "    def hybrid_forward(self, F, x):\n        with autograd.predict_mode():\n"
                "            return self.body(x)\n"),
    ]

    def visit_With(self, node: cst.With, ctx) -> None:
        for item in node.items:
            found = scope_of(item)
            if found is None:
                continue
            scope, call = found
            mode = sets_mode(scope, call)
            if mode is None:
                continue
            evidence = mode_dependent_call(node.body, ctx)
            if evidence is None:
                continue
            other = "predict" if mode == "training" else "training"
            code = ctx.code(call).strip()
            ctx.report(call, f"`with {code}:` is ignored after hybridize(): `{evidence}` follows the caller's mode",
                       help=f"Eagerly `{evidence}` runs in {mode} mode; after hybridize() the scope is ignored (it ran "
                            f"once, while the graph was traced) and `{evidence}` follows the caller's mode, so a call in "
                            f"{other} mode computes something else",
                       instead="say the mode in the operator (BatchNorm `use_global_stats=True` for predict mode, "
                               "`F.Dropout(..., mode='always')` for training mode, or no dropout), or set the mode "
                               "around the block's call")
