from typing import Optional, Set, Tuple

import libcst as cst

from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import self_attr
from hylint.walk import walk

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.scale = 2.0\n"
       "        self.calls = 0\n\n{}")


def _written_attrs(fn: cst.FunctionDef) -> Set[str]:
    names: Set[str] = set()

    class _Find(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            attr = self_attr(node.target)
            if attr:
                names.add(attr)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            attr = self_attr(node.target)
            if attr:
                names.add(attr)

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "setattr" and node.args and \
                    isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == "self" and \
                    len(node.args) > 1 and isinstance(node.args[1].value, cst.SimpleString):
                names.add(node.args[1].value.evaluated_value)

    walk(fn.body, _Find())
    return names


class MutableSelfState(LintRule):
    CODE = "HY807"
    NAME = "mutable-self-state"
    MESSAGE = "Python state of `self` read or written in a hybrid context is frozen at trace time"
    DOC = """
## What it does
Warns, inside a hybrid context, about assignments to attributes of `self` (`self.calls += 1`,
`self.last = x`) and about reads of attributes that another method of the class (not `__init__`)
assigns (`x * self.scale` when `set_scale()` changes `self.scale`). Children and parameters are
not flagged.

## Why is this bad?
After `hybridize()` the body runs once, when the graph is traced: Python values read from `self`
become constants of the graph and Python side effects happen once. Measured on MXNet 1.9.1:
`return x * self.scale` keeps the old scale after `net.scale = 5.0`, and `self.calls += 1` counts
one call instead of three. No error.

## Example
```python
def set_scale(self, s):
    self.scale = s

def hybrid_forward(self, F, x):
    self.calls += 1
    return x * self.scale
```

## Use instead
A parameter (`self.scale = self.params.get('scale', grad_req='null', ...)` and `set_data`), side
effects outside `hybrid_forward`, or `hybridize()` again after changing the attribute.

## Fix safety
No fix.
"""
    VALID = [
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        return x * self.scale\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        if F is nd:\n            self.calls += 1\n        return x\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        self.calls += 1\n        return x\n"),
    ]
    INVALID = [
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        self.calls += 1\n        return x * 2\n")),
        Invalid(CLS.format("    def set_scale(self, s):\n        self.scale = s\n\n"
                           "    def hybrid_forward(self, F, x):\n        return x * self.scale\n")),
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        self.last = x\n        return x\n")),
    ]

    def __init__(self) -> None:
        self._cached: Tuple[Optional[cst.CSTNode], Set[str]] = (None, set())

    def _mutated_elsewhere(self, ctx) -> Set[str]:
        cls, fn = ctx.cls, ctx.hybrid.fn
        if self._cached[0] is not fn:  # one entry: the hybrid context being linted
            names: Set[str] = set()
            for name, method in cls.methods.items():
                if name != "__init__" and method is not fn:
                    names |= _written_attrs(method)
            self._cached = (fn, names - set(cls.children) - set(cls.params))
        return self._cached[1]

    def _write(self, target, node, ctx) -> None:
        attr = self_attr(target)
        if attr is not None and ctx.cls is not None:
            ctx.report(node, f"`self.{attr}` is written inside a hybrid context: after hybridize() this runs once, "
                             f"when the graph is traced, not on every call")

    def visit_AssignTarget(self, node: cst.AssignTarget, ctx) -> None:
        self._write(node.target, node, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:
        self._write(node.target, node, ctx)

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:
        attr = self_attr(node)
        if attr is None or ctx.cls is None:
            return
        parent = ctx.hybrid.parents.get(node)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign)):
            return
        if attr in self._mutated_elsewhere(ctx):
            ctx.report(node, f"`self.{attr}` is changed by another method, but after hybridize() its value is baked "
                             f"into the graph when it is traced: later changes are silently ignored")
