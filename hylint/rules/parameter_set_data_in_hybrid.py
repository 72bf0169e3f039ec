import libcst as cst

from hylint.analysis.values import Kind
from hylint.rule import Invalid, LintRule, Valid
from hylint.syntax.nodes import dotted_name

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
       "        self.scale = self.params.get('scale', shape=(1,), grad_req='null')\n        self.dense = nn.Dense(3)\n\n"
       "    def hybrid_forward(self, F, x, scale):\n{}")


class ParameterSetDataInHybrid(LintRule):
    CODE = "HY709"
    NAME = "parameter-set-data-in-hybrid"
    MESSAGE = "`Parameter.set_data()` inside a hybrid context: it fails on a Symbol, or runs once at trace time"
    DOC = """
## What it does
Flags `<parameter>.set_data(...)` inside a hybrid context (outside `if F is nd:` guards): a parameter
of the block (`self.scale.set_data(...)`), of a child (`self.bn.running_mean.set_data(...)`), or any
other receiver of a `set_data` call there (NDArray and Symbol have no `set_data`: the receiver is a
Gluon `Parameter`). A moving statistic updated in `hybrid_forward` is the usual case.

## Why is this bad?
`set_data` copies an NDArray into the parameter, in Python, when it is called; a graph cannot hold
that. Measured on MXNet 1.9.1 (issue 43, a scale updated with `self.scale.set_data(scale * 0.9 +
x.mean() * 0.1)` in `hybrid_forward`, called three times with `x` all 2.0):

- eagerly the outputs are 2.2, 2.38, 2.542 and the scale ends at 1.271;
- hybridized the first call raises `AttributeError: 'Symbol' object has no attribute 'shape'`
  (`set_data` reads `data.shape`, and the argument is a Symbol once traced).

With an argument that stays an NDArray (`self.scale.set_data(self.scale.data() * 0.5)`), the
hybridized block runs but the update happens once, while the graph is traced: the outputs are 1.0,
0.5, 0.25 eagerly and 1.0, 1.0, 1.0 hybridized (the scale is halved once, never again).

## Example
```python
def hybrid_forward(self, F, x, scale):
    self.scale.set_data(scale * 0.9 + x.mean() * 0.1)
    return F.broadcast_mul(x, scale)
```

## Use instead
Compute the new value in the graph, return it, and update the parameter outside the hybridized call:
```python
def hybrid_forward(self, F, x, scale):
    return F.broadcast_mul(x, scale), scale * 0.9 + x.mean() * 0.1

out, new_scale = net(x)
net.scale.set_data(new_scale)
```
or keep the update in a plain `Block`'s `forward`, which is never traced.

## Fix safety
No fix: where the update belongs (after the call, in the training loop) is the author's decision.
"""
    VALID = [
        Valid(CLS.format("        return F.broadcast_mul(x, scale)\n")),
        Valid(CLS.format("        if F is nd:\n            self.scale.set_data(scale * 0.9)\n"
                         "        return F.broadcast_mul(x, scale)\n")),
        Valid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.scale = self.params.get('scale', shape=(1,))\n        self.scale.set_data(nd.ones((1,)))\n\n"
              "    def hybrid_forward(self, F, x, scale):\n        return F.broadcast_mul(x, scale)\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        self.scale.set_data(self.scale.data() * 0.9)\n"
              "        return x * self.scale.data()\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        self.scale.set_data(scale * 0.9 + x.mean() * 0.1)\n"
                           "        return F.broadcast_mul(x, scale)\n")),
        Invalid(CLS.format("        self.scale.set_data(self.scale.data() * 0.5)\n"
                           "        return F.broadcast_mul(x, scale)\n")),
        Invalid(CLS.format("        y = self.dense(x)\n        self.dense.bias.set_data(y.mean(axis=0))\n        return y\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "set_data" or len(node.args) != 1:
            return
        receiver = func.value
        if ctx.value(receiver).kind in (Kind.TENSOR, Kind.MULTI, Kind.SEQ, Kind.NUMPY):
            return
        owner = dotted_name(receiver) or ctx.code(receiver).strip()
        argument = ctx.value(node.args[0].value)
        if argument.kind is Kind.TENSOR:
            what = (f"`{ctx.code(node.args[0].value).strip()}` is computed in the graph, so after hybridize() it is a "
                    f"Symbol and `set_data` raises AttributeError ('Symbol' object has no attribute 'shape') at trace "
                    f"time")
        else:
            what = ("after hybridize() it runs once, while the graph is traced, and later calls never update the "
                    "parameter")
        ctx.report(node, f"`{owner}.set_data(...)` in a hybrid context does not update the parameter after hybridize()",
                   help=f"Eagerly it updates the parameter on every call; {what}",
                   instead=f"return the new value from hybrid_forward and call `set_data` after the block's call "
                           f"(or update it in a plain Block's forward)")
