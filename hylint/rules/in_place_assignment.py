from typing import Optional

import libcst as cst

from hylint.context import Kind, dotted_name, param_names
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace

IN_PLACE = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
            cst.DivideAssign: cst.Divide}
SYMBOLS = {cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=", cst.DivideAssign: "/="}
ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString, cst.Tuple,
         cst.List)
CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{}"


class InPlaceAssignment(LintRule):
    CODE = "HY501"
    NAME = "in-place-assignment"
    MESSAGE = "In-place assignment to a tensor"
    FIX_TITLE = "Rebind the name: `x = x + y`"
    DOC = """
## What it does
Flags augmented assignment to a tensor inside a hybrid context (`+=`, `-=`, `*=`, `/=`) and item
assignment (`x[...] = y`, `x[...] += y`). `%=` and `**=` are not flagged: Symbol has no `__imod__` or
`__ipow__`, so Python falls back to `x = x % y`, which works (measured). Augmented assignment to
Python numbers and lists is not flagged.

## Why is this bad?
Symbol's `__iadd__`, `__isub__`, `__imul__`, `__itruediv__` are stubs: after `hybridize()` the first
call raises `NotImplementedForSymbol` (an `MXNetError`). Item assignment raises `TypeError: 'Symbol'
object does not support item assignment`. Eagerly, in-place operators on an input also mutate the
caller's array.

## Example
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)
    y *= 2
    return y
```

## Use instead
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)
    y = y * 2
    return y
```

## Fix safety
`x op= y` -> `x = x op y` (then HY101 rewrites the operator if the shapes differ). Safe when `x` is a
fresh result of an `F.` operator or of arithmetic and no other name aliases it: then nobody can
observe the in-place write. Unsafe when `x` is an argument (eagerly, the caller's array is no longer
mutated) or may share memory with another array (a view, an alias). Item assignment has no fix.
"""
    VALID = [
        Valid(CLS.format("        n = 0\n        n += 1\n        return x * n\n")),
        Valid(CLS.format("        outs = []\n        outs += [x]\n        return outs[0]\n")),
        Valid(CLS.format("        y = F.relu(x)\n        y %= 3\n        y **= 2\n        return y\n")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        self.count += 1\n        return x\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        x += 1\n        return x\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        y = F.relu(x)\n        y *= 2\n        return y\n"),
                CLS.format("        y = F.relu(x)\n        y = y * 2\n        return y\n")),
        Invalid(CLS.format("        y = F.relu(x)\n        y -= x + 1\n        return y\n"),
                CLS.format("        y = F.relu(x)\n        y = y - (x + 1)\n        return y\n")),
        Invalid(CLS.format("        x += 1\n        return x\n"), CLS.format("        x = x + 1\n        return x\n"),
                unsafe=True),
        Invalid(CLS.format("        y = F.relu(x)\n        y *= F.ones((1, 4))\n        return y\n"),
                CLS.format("        y = F.relu(x)\n        y = F.broadcast_mul(y, F.ones((1, 4)))\n        return y\n")),
        Invalid(CLS.format("        x[0] = 1\n        return x\n")),
        Invalid(CLS.format("        x[:, 0] += 1\n        return x\n")),
    ]

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:
        if isinstance(node.target, cst.Subscript):
            self._item_assignment(node.target, node, ctx)
            return
        operator = type(node.operator)
        if operator not in IN_PLACE:
            return
        value = ctx.value(node.target)
        if value.kind is not Kind.TENSOR:
            return
        name = ctx.code(node.target).strip()
        ctx.report(node, f"`{name} {SYMBOLS[operator]} ...`: after hybridize() `{name}` is a Symbol, whose in-place "
                         f"operators raise NotImplementedForSymbol", self._fix(node, ctx))

    def visit_Assign(self, node: cst.Assign, ctx) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):
                self._item_assignment(target.target, node, ctx)

    def _item_assignment(self, target: cst.Subscript, node: cst.CSTNode, ctx) -> None:
        value = ctx.value(target.value)
        if value.kind is not Kind.TENSOR or not value.certain:
            return
        name = ctx.code(target.value).strip()
        ctx.report(node, f"item assignment to `{name}`: after hybridize() `{name}` is a Symbol, which does not "
                         f"support item assignment (TypeError)")

    def _fix(self, node: cst.AugAssign, ctx) -> Optional[PendingFix]:
        if not isinstance(node.target, cst.Name):
            return None
        value = node.value
        if not isinstance(value, ATOMS) or isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        operator = IN_PLACE[type(node.operator)]
        binary = cst.BinaryOperation(left=node.target, operator=operator(), right=value)
        new = cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=binary, semicolon=node.semicolon)
        safe = _is_fresh_unaliased(node.target.value, ctx)
        return PendingFix(Applicability.SAFE if safe else Applicability.UNSAFE,
                          f"Rebind `{node.target.value}` instead of writing in place", [replace(node, new)])


def _is_fresh_unaliased(name: str, ctx) -> bool:
    """True when every binding of ``name`` is a new array (an F op or arithmetic) and nothing aliases it."""
    fn = ctx.hybrid.fn
    if name in {p.name.value for p in param_names(fn)}:
        return False
    f_prefix = ctx.f_name + "."
    verdict = {"fresh": True}

    class _Scan(cst.CSTVisitor):
        def visit_Assign(self, assign: cst.Assign) -> None:
            for target in assign.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    v = assign.value
                    fresh = isinstance(v, cst.BinaryOperation) or isinstance(v, cst.Call) and \
                        (dotted_name(v.func) or "").startswith(f_prefix) and \
                        (dotted_name(v.func) or "") not in (f_prefix + "reshape",)
                    if not fresh:
                        verdict["fresh"] = False
                elif not isinstance(target.target, cst.Name):
                    verdict["fresh"] = False if _mentions(target.target, name) else verdict["fresh"]
            if _mentions_bare(assign.value, name):
                verdict["fresh"] = False  # another name (or a container) now refers to the same array

        def visit_For(self, loop: cst.For) -> None:
            if _mentions(loop.target, name):
                verdict["fresh"] = False

    fn.body.visit(_Scan())
    return verdict["fresh"]


def _mentions(node: cst.CSTNode, name: str) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == name:
                found.append(n)

    node.visit(_Find())
    return bool(found)


def _mentions_bare(value: cst.CSTNode, name: str) -> bool:
    """``y = x`` or ``y = [x, ...]`` / ``(x, ...)``: the same array under another name."""
    if isinstance(value, cst.Name):
        return value.value == name
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(_mentions_bare(e.value, name) for e in value.elements)
    return False
