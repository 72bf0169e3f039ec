from typing import Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS, is_tensor

NUMPY = ("np", "numpy", "onp")
# numpy functions that dispatch to the tensor's own method and behave the same in both modes (measured)
DISPATCHING = {"sum", "max", "min", "prod", "amax", "amin", "argmax", "argmin", "clip", "round", "around", "squeeze"}
# elementwise numpy functions with an F operator of the same name and meaning
UNARY = {"exp", "log", "log1p", "expm1", "sqrt", "square", "abs", "sign", "tanh", "sin", "cos", "tan", "arcsin",
         "arccos", "arctan", "sinh", "cosh", "floor", "ceil", "negative", "reciprocal", "log2", "log10", "exp2"}
BINARY_SCALAR = {"maximum", "minimum"}


class NumpyOnTensor(LintRule):
    CODE = "HY804"
    NAME = "numpy-on-tensor"
    MESSAGE = "numpy function applied to a tensor"
    FIX_TITLE = "Use the F operator"
    DOC = """
## What it does
Flags `np.<function>(...)` inside a hybrid context when an argument is a tensor: `np.exp(x)`,
`np.maximum(x, 0)`, `np.concatenate([x, y])`, `np.mean(x)`. Not flagged: numpy on numpy arrays and
Python numbers, and the reductions that numpy hands back to the tensor's own method, which work in
both modes (`np.sum`, `np.max`, `np.min`, `np.prod`, `np.argmax`, `np.clip`, `np.round`, `np.squeeze`,
measured on MXNet 1.9.1).

## Why is this bad?
NDArray has no `__array__`, so numpy treats it as a nested sequence: eagerly `np.exp(x)` does not
raise but returns a numpy *object* array of `(1,)`-NDArrays with 32 dimensions (not an NDArray).
After `hybridize()` it fails (`ValueError: ... output must be (nested) list of Symbol or NDArray`,
or `NotImplementedForSymbol` for `np.maximum`). `np.mean(x)` fails in both modes.

## Example
```python
def hybrid_forward(self, F, x):
    return np.tanh(x) + np.maximum(x, 0)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.tanh(x) + F.maximum(x, 0)
```

## Fix safety
Unsafe: the rewrite returns an NDArray eagerly where the original returned a numpy object array
(the values are the same). Offered for one-argument elementwise functions with an F operator of the
same name, and `np.maximum/minimum` of a tensor and a number.
"""
    VALID = [
        Valid(CLS.format("        k = np.sqrt(2.0)\n        return x * k\n")),
        Valid(CLS.format("        return np.sum(x) + x\n")),
        Valid(CLS.format("        a = np.ones((2, 3))\n        return x * float(np.exp(a).sum())\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return np.tanh(x)\n"), CLS.format("        return F.tanh(x)\n"), unsafe=True),
        Invalid(CLS.format("        return np.maximum(x, 0)\n"), CLS.format("        return F.maximum(x, 0)\n"), unsafe=True),
        Invalid(CLS.format("        return np.concatenate([x, x])\n")),
        Invalid(CLS.format("        return np.mean(x, axis=1)\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        root, _, name = callee.partition(".")
        if root not in NUMPY or not name or name in DISPATCHING:
            return
        tensors = [a for a in node.args if is_tensor(ctx.value(a.value)) or
                   isinstance(a.value, (cst.List, cst.Tuple)) and
                   any(is_tensor(ctx.value(e.value)) for e in a.value.elements)]
        if not tensors:
            return
        ctx.report(node, f"`{callee}(...)` on a tensor fails after hybridize(): use `{ctx.f_name}.` operators",
                   self._fix(node, ctx, name),
                   help="numpy treats an NDArray as a nested sequence (an object array eagerly) and fails on a Symbol")

    def _fix(self, node: cst.Call, ctx, name: str) -> Optional[PendingFix]:
        args = node.args
        if any(a.keyword is not None or a.star for a in args):
            return None
        if name in UNARY and len(args) == 1:
            new = f_call(ctx.f_name, name, [args[0].value])
        elif name in BINARY_SCALAR and len(args) == 2 and is_tensor(ctx.value(args[0].value)) and \
                isinstance(args[1].value, (cst.Integer, cst.Float)):
            new = f_call(ctx.f_name, name, [args[0].value, args[1].value])
        else:
            return None
        return PendingFix(Applicability.UNSAFE, f"Use `{ctx.f_name}.{name}`", [replace(node, new)])
