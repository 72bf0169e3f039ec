from typing import Optional

import libcst as cst

from hylint.analysis.module import is_hybrid_class
from hylint.facts.layers import HYBRID_NAME
from hylint.syntax.nodes import dotted_name
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import block_constructor, self_attr
from hylint.syntax.walk import walk

INIT = "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n{}\n    def hybrid_forward(self, F, x):\n        return x * 2\n"


class _Adds(cst.CSTVisitor):
    """Arguments of every ``self.<attr>.add(...)`` in a class."""

    def __init__(self, attr: str) -> None:
        self.attr = attr
        self.args = []
        self.other_use = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and dotted_name(node.func.value) == f"self.{self.attr}":
            if node.func.attr.value == "add":
                self.args.extend(node.args)
            elif node.func.attr.value not in ("name_scope", "hybridize", "initialize", "collect_params"):
                self.other_use = True


class NonHybridChild(LintRule):
    CODE = "HY701"
    NAME = "non-hybrid-child"
    MESSAGE = "A HybridBlock's child must be a HybridBlock"
    FIX_TITLE = "Use the hybrid container (`nn.HybridSequential`, `nn.HybridLambda`)"
    HYBRID_ONLY = False
    METHODS = ("__init__",)  # ctx.cls.methods["__init__"] is ctx.function, or nothing is reported
    DOC = """
## What it does
Flags, in `__init__` of a HybridBlock, a child attribute built from a block that is not hybrid:
`nn.Sequential()`, `nn.Lambda(...)`, `contrib.nn.Concurrent()`, or a `Block` subclass of the module.

## Why is this bad?
Gluon refuses it when the block is built: `ValueError: Children of HybridBlock must also be
HybridBlock, but Sequential(...) has type <class '...Sequential'>`. (The converse, a plain
`nn.Sequential` holding hybrid layers, hybridizes only each hybrid child on its own, silently, and
cannot be exported.)

## Example
```python
def __init__(self):
    super().__init__()
    self.body = nn.Sequential()
    self.body.add(nn.Dense(8), nn.Dense(4))
    self.act = nn.Lambda('tanh')
```

## Use instead
```python
def __init__(self):
    super().__init__()
    self.body = nn.HybridSequential()
    self.body.add(nn.Dense(8), nn.Dense(4))
    self.act = nn.HybridLambda('tanh')
```

## Fix safety
`nn.Sequential` -> `nn.HybridSequential` (and `Concurrent` -> `HybridConcurrent`) is safe when every
child the class adds to it is a known hybrid layer: both containers run their children in order.
`nn.Lambda('name')` -> `nn.HybridLambda('name')` is safe (both look the name up in F). A Lambda of a
Python function is rewritten to take F (`lambda x: ...` -> `lambda F, x: ...`) as an unsafe fix: the
body may use NDArray-only code. Bare imported names (`Sequential()`) are reported without a fix.
"""
    VALID = [
        Valid(INIT.format("        self.body = nn.HybridSequential()\n        self.body.add(nn.Dense(3))\n")),
        Valid(INIT.format("        self.act = nn.HybridLambda('tanh')\n")),
        Valid("class N(Block):\n    def __init__(self):\n        super().__init__()\n        self.body = nn.Sequential()\n\n"
              "    def forward(self, x):\n        return self.body(x)\n"),
        Valid("net = nn.Sequential()\nnet.add(nn.Dense(3))\n"),
    ]
    INVALID = [
        Invalid(INIT.format("        self.body = nn.Sequential()\n        self.body.add(nn.Dense(3), nn.Activation('relu'))\n"),
                INIT.format("        self.body = nn.HybridSequential()\n        self.body.add(nn.Dense(3), nn.Activation('relu'))\n")),
        Invalid(INIT.format("        self.act = nn.Lambda('tanh')\n"), INIT.format("        self.act = nn.HybridLambda('tanh')\n")),
        Invalid(INIT.format("        self.act = nn.Lambda(lambda x: x * 2)\n"),
                INIT.format("        self.act = nn.HybridLambda(lambda F, x: x * 2)\n"), unsafe=True),
        Invalid(INIT.format("        self.body = nn.Sequential()\n        self.body.add(Custom())\n")),
        Invalid("class Plain(Block):\n    def forward(self, x):\n        return x\n\n\n" + INIT.format("        self.p = Plain()\n")),
    ]

    def visit_Assign(self, node: cst.Assign, ctx) -> None:
        fn = ctx.function
        if fn is None or fn.name.value != "__init__" or ctx.cls is None or ctx.cls.methods.get("__init__") is not fn:
            return
        if not is_hybrid_class(ctx.cls, ctx.module_info.classes):
            return
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        attr = self_attr(node.targets[0].target)
        callee = dotted_name(node.value.func) or ""
        if attr is None or block_constructor(callee, ctx.module_info.classes) != "plain":
            return
        short = callee.rsplit(".", 1)[-1]
        ctx.report(node.value, f"`{callee}` is not hybrid: a HybridBlock's child `self.{attr}` must be",
                   fix=self._fix(node.value, ctx, attr, callee, short),
                   help="Building the block raises ValueError (Children of HybridBlock must also be HybridBlock)",
                   instead=(f"`{HYBRID_NAME[short]}`" if short in HYBRID_NAME else
                            f"`{short}` derived from HybridBlock") + ", or make this block a Block")

    def _fix(self, call: cst.Call, ctx, attr: str, callee: str, short: str) -> Optional[PendingFix]:
        if "." not in callee or short not in HYBRID_NAME or not isinstance(call.func, cst.Attribute):
            return None
        new_func = call.func.with_changes(attr=cst.Name(HYBRID_NAME[short]))
        title = f"Use `{HYBRID_NAME[short]}`"
        if short in ("Sequential", "Concurrent"):
            adds = _Adds(attr)
            walk(ctx.cls.node, adds)
            if adds.other_use or any(a.star or not isinstance(a.value, cst.Call) or
                                     block_constructor(dotted_name(a.value.func) or "", ctx.module_info.classes) != "hybrid"
                                     for a in adds.args):
                return None
            return PendingFix(Applicability.SAFE, title, [replace(call.func, new_func)])
        # Lambda
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        function = call.args[0].value
        if isinstance(function, cst.SimpleString):
            return PendingFix(Applicability.SAFE, title, [replace(call.func, new_func)])
        if isinstance(function, cst.Lambda) and len(function.params.params) == 1 and \
                not isinstance(function.params.star_arg, cst.Param):
            params = function.params.with_changes(params=[
                cst.Param(name=cst.Name("F"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                + list(function.params.params))
            new_call = call.with_changes(func=new_func, args=[call.args[0].with_changes(
                value=function.with_changes(params=params))])
            return PendingFix(Applicability.UNSAFE, title + " taking F", [replace(call, new_call)])
        return None
