from typing import Dict, Optional, Tuple

import libcst as cst

from hylint.analysis.syntax import dotted_name
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import self_attr
from hylint.walk import walk

# the template of the examples: an mx.autograd.Function, then a block using it
SIGN = ("import mxnet as mx\n\n\nclass Sign(mx.autograd.Function):\n    def forward(self, x):\n"
        "        return x.sign()\n\n    def backward(self, dy):\n        return dy\n\n\n")
FORWARD = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{}"
IN_INIT = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.sign = Sign()\n\n"
           "    def hybrid_forward(self, F, x):\n{}")
# attributes that a Symbol lacks, and NDArray namespaces: a forward using them fails on a Symbol
NDARRAY_ONLY = {"shape", "context", "ctx", "asnumpy", "asscalar", "size", "ndim", "dtype"}
ND_PREFIXES = ("mx.nd.", "mxnet.nd.", "nd.", "mx.ndarray.", "mxnet.ndarray.", "ndarray.")


def function_classes(module: cst.Module) -> Dict[str, cst.ClassDef]:
    """Classes of the module deriving from MXNet's ``autograd.Function`` (directly, through a name
    imported from ``mxnet.autograd``, or through another such class of the module)."""
    mxnet_names, autograd_names, function_names = {"mxnet"}, set(), set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    name = dotted_name(alias.name)
                    local = alias.asname.name.value if alias.asname is not None else None
                    if name == "mxnet" and local:
                        mxnet_names.add(local)
                    elif name == "mxnet.autograd" and local:
                        autograd_names.add(local)
            elif isinstance(small, cst.ImportFrom) and small.module is not None and \
                    not isinstance(small.names, cst.ImportStar):
                source = dotted_name(small.module)
                for alias in small.names:
                    local = alias.asname.name.value if alias.asname is not None else alias.name.value
                    if source == "mxnet" and alias.name.value == "autograd":
                        autograd_names.add(local)
                    elif source == "mxnet.autograd" and alias.name.value == "Function":
                        function_names.add(local)
    bases = {f"{m}.autograd.Function" for m in mxnet_names} | {f"{a}.Function" for a in autograd_names} | function_names
    found: Dict[str, cst.ClassDef] = {}
    classes = [s for s in module.body if isinstance(s, cst.ClassDef)]
    changed = True
    while changed:  # subclasses of the module's own Function classes too
        changed = False
        for cls in classes:
            if cls.name.value not in found and any(dotted_name(b.value) in bases or dotted_name(b.value) in found
                                                   for b in cls.bases):
                found[cls.name.value] = cls
                changed = True
    return found


def symbol_failure(cls: cst.ClassDef) -> Optional[str]:
    """The first use in ``forward`` of what a Symbol lacks (``x.shape``, ``mx.nd.<op>``), as code."""
    forward = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"), None)
    if forward is None:
        return None
    found = []
    training = []  # the `if autograd.is_training():` bodies being visited

    class _Find(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            test = cst.Module([]).code_for_node(node.test)
            training.append("is_training()" in test or "is_recording()" in test)

        def leave_If(self, node: cst.If) -> None:
            training.pop()

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            name = dotted_name(node) or ""
            if not found and (node.attr.value in NDARRAY_ONLY and not name.startswith("self.") or
                              name.startswith(ND_PREFIXES)):
                code = cst.Module([]).code_for_node(node)
                found.append(f"`{code}` (in training)" if any(training) else f"`{code}`")
                return False
            return True

    walk(forward.body, _Find())
    return found[0] if found else None


class AutogradFunctionInHybrid(LintRule):
    CODE = "HY809"
    NAME = "autograd-function-in-hybrid"
    MESSAGE = "An `mx.autograd.Function` is called in a hybrid context: it cannot be part of a graph"
    DOC = """
## What it does
Flags a call of an `mx.autograd.Function` subclass of the module inside a hybrid context: an instance
made on the spot (`Binarize()(weight)`, or `f = Binarize()` then `f(weight)`) or one made in
`__init__` and kept in an attribute (`self.cov_pool = CovPool()`, then `self.cov_pool(x)`). One
diagnostic per call site, none inside the Function's own `forward`.

## Why is this bad?
`autograd.Function` is an imperative, NDArray-only mechanism: `__call__` runs `forward` in Python and
records the custom `backward` on the NDArrays. A graph has no place for it. Measured on MXNet 1.9.1:
- after `hybridize()` `forward` runs once, on Symbols, when the graph is traced: a forward that reads
  `x.shape` fails with `AttributeError: 'Symbol' object has no attribute 'shape'`, one that calls
  `mx.nd.*` with `AssertionError: Argument data must have NDArray type, but got <Symbol ...>`;
- when `forward` does trace (only Symbol-compatible operators), predict mode gives the eager output,
  but under `autograd.record()` the hybridized call kills the process (segmentation fault): the custom
  backward is recorded on Symbol handles. Outside a recording scope the custom backward is never used;
- an instance kept in an attribute can be called only once: the block's second call raises
  `AssertionError: Each Function instance can only be called once` eagerly, and hybridized the trace
  is that second call when the block ran eagerly before.

## Example
```python
class Binarize(mx.autograd.Function):
    def forward(self, x):
        return math.sqrt(2.0 / x.shape[1]) * x.sign()

    def backward(self, dy):
        return dy

class Conv1bit(nn.Conv2D):
    def hybrid_forward(self, F, x, weight, bias=None):
        return super().hybrid_forward(F, x, weight=Binarize()(weight), bias=bias)
```

## Use instead
The forward with `F` operators, and a custom gradient written in the graph: the straight-through
estimator above is `x + F.BlockGrad(f(x) - x)` (forward `f(x)`, gradient 1); sizes come from
`__init__`'s arguments. Or a registered `mx.operator.CustomOp`, which a graph can hold.
```python
class Conv1bit(nn.Conv2D):
    def __init__(self, in_channels, channels, kernel_size, **kwargs):
        super().__init__(channels, kernel_size, in_channels=in_channels, **kwargs)
        self._scale = math.sqrt(2.0 / in_channels)

    def hybrid_forward(self, F, x, weight, bias=None):
        binary = weight + F.BlockGrad(self._scale * F.sign(weight) - weight)
        return super().hybrid_forward(F, x, weight=binary, bias=bias)
```

## Fix safety
No fix: what replaces a Function depends on its forward and backward.
"""
    VALID = [
        Valid(SIGN + FORWARD.format("        return F.sign(x)\n")),
        Valid(SIGN + FORWARD.format("        if F is mx.nd:\n            return Sign()(x)\n        return F.sign(x)\n")),
        Valid(SIGN + "class N(Block):\n    def forward(self, x):\n        return Sign()(x)\n"),
        Valid("import torch\n\n\nclass Sign(torch.autograd.Function):\n    pass\n\n\n" +
              FORWARD.format("        return Sign()(x)\n")),
        Valid(SIGN + "def apply_sign(x):\n    return Sign()(x)\n"),
    ]
    INVALID = [
        Invalid(SIGN + FORWARD.format("        return Sign()(x) * 2\n")),
        Invalid(SIGN + FORWARD.format("        sign = Sign()\n        return sign(x)\n")),
        Invalid(SIGN + IN_INIT.format("        return self.sign(x)\n")),
        Invalid(SIGN.replace("import mxnet as mx\n", "from mxnet import autograd\n").replace(
            "mx.autograd.Function", "autograd.Function") + FORWARD.format("        return Sign()(x)\n")),
        Invalid(SIGN.replace("import mxnet as mx\n", "from mxnet.autograd import Function\n").replace(
            "mx.autograd.Function", "Function") + "class Sign2(Sign):\n    pass\n\n\n" +
            FORWARD.format("        return Sign2()(x)\n")),
    ]

    def __init__(self) -> None:
        self._classes: Tuple[Optional[cst.Module], Dict[str, cst.ClassDef]] = (None, {})
        self._locals: Tuple[Optional[cst.FunctionDef], Dict[str, str]] = (None, {})

    def _functions(self, ctx) -> Dict[str, cst.ClassDef]:
        if self._classes[0] is not ctx.module:  # one entry: the module being linted
            self._classes = (ctx.module, function_classes(ctx.module))
        return self._classes[1]

    def _local_instances(self, ctx, functions) -> Dict[str, str]:
        """Names the current function binds to a new Function instance (``f = Binarize()``)."""
        if self._locals[0] is not ctx.function:
            bound: Dict[str, str] = {}

            class _Bindings(cst.CSTVisitor):
                def visit_Assign(self, node: cst.Assign) -> None:
                    made = _made_function(node.value, functions)
                    for target in node.targets:
                        if isinstance(target.target, cst.Name) and made:
                            bound[target.target.value] = made

            if ctx.function is not None:
                walk(ctx.function.body, _Bindings())
            self._locals = (ctx.function, bound)
        return self._locals[1]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        functions = self._functions(ctx)
        if not functions:
            return
        made = _made_function(node.func, functions)
        attr = self_attr(node.func)
        stored = ""
        if made is not None:
            what = f"`{ctx.code(node.func)}` makes an mx.autograd.Function ({made}) in a hybrid context"
        elif attr and ctx.cls is not None and ctx.cls.children.get(attr, "").rsplit(".", 1)[-1] in functions:
            made = ctx.cls.children[attr].rsplit(".", 1)[-1]
            what = f"`self.{attr}` is one {made} instance (an mx.autograd.Function) made in __init__"
            stored = ("an instance can be called only once, so the block's second call raises AssertionError "
                      "(eagerly too); ")
        elif isinstance(node.func, cst.Name) and node.func.value in self._local_instances(ctx, functions):
            made = self._local_instances(ctx, functions)[node.func.value]
            what = f"`{node.func.value}` is an mx.autograd.Function ({made}) called in a hybrid context"
        else:
            return
        failure = symbol_failure(functions[made])
        traced = (f"its forward uses {failure}, which fails on a Symbol" if failure else
                  "under autograd.record() the hybridized call crashes the process (its backward cannot be "
                  "recorded on Symbols)")
        ctx.report(node, f"{what}: {stored}after hybridize() its forward runs once on Symbols, when the graph is "
                         f"traced, and {traced}; write it with `{ctx.f_name}` operators (a custom gradient as "
                         f"`x + {ctx.f_name}.BlockGrad(f(x) - x)`) or as a CustomOp")


def _made_function(node: cst.BaseExpression, functions) -> Optional[str]:
    """The Function class that ``node`` instantiates (``Binarize()``), else None."""
    if isinstance(node, cst.Call):
        name = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
        if name in functions and isinstance(node.func, cst.Name):
            return name
    return None

