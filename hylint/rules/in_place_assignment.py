from typing import Dict, List, Optional, Set

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.analysis.layers import FRESH_OUTPUT_LAYERS
from hylint.rule import Fact, Invalid, LintRule, PendingFix, Reliance, SELF_ATTRIBUTE_METHODS, Valid, replace
from hylint.rules._hazards import BLOCK_NAMESPACES, self_attr
from hylint.syntax.walk import TRIVIA, walk

IN_PLACE = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
            cst.DivideAssign: cst.Divide}
SYMBOLS = {cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=", cst.DivideAssign: "/="}
ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString, cst.Tuple,
         cst.List)
CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{}"


class InPlaceAssignment(LintRule):
    CODE = "HY501"
    READS = frozenset({SELF_ATTRIBUTE_METHODS})  # the fresh children other methods assign
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
`x op= y` -> `x = x op y` (then HY101 rewrites the operator if the shapes differ). Safe when nothing
can observe that the write was in place: `x` is not an argument, every binding of `x` is a new array
(an `F.<op>(...)` result or arithmetic: measured, every `F.` op allocates its output; or the output of
a child that is always a built-in layer with a fresh output, `self.fc = nn.Dense(...)`: measured on
MXNet 1.9.1, `Dense`, `Conv*`, pooling, normalization, `Dropout` (predict mode too), `Flatten` (2-D
input too), activations and `Embedding` return a new array eagerly and hybridized, while `Identity`,
`HybridLambda`/`Lambda` and an empty `HybridSequential`/`Sequential` can return the input itself or an
array sharing its memory: hylint/analysis/layers.py), and before the
write (or anywhere in a loop around it) `x` is only read as an operand, an `F.<op>` argument, or the
receiver of a method that does not return a view. Unsafe otherwise: eagerly, an argument's in-place
write mutates the caller's array, and `z = x`, `outs.append(x)`, `x[0]`, `x.reshape(...)`,
`x.detach()` or a child block may share its memory; why_unsafe names the use that may. The rewrite relies on
two facts it states (`tensor-or-number`: a list extends itself and a NumPy array stays one in place;
`unaliased`). Item assignment has no fix.
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
        Invalid(CLS.format("        y = F.relu(x)\n        z = y\n        y += 1\n        return y + z\n"),
                CLS.format("        y = F.relu(x)\n        z = y\n        y = y + 1\n        return y + z\n"), unsafe=True),
        Invalid(CLS.format("        y = F.relu(x)\n        outs = [y.reshape((-1,))]\n        y *= 2\n        return y, outs\n"),
                CLS.format("        y = F.relu(x)\n        outs = [y.reshape((-1,))]\n        y = y * 2\n        return y, outs\n"),
                unsafe=True),
        Invalid(CLS.format("        y = F.relu(x)\n        for _ in range(2):\n            out = y\n            y += 1\n"
                           "        return out\n"),
                CLS.format("        y = F.relu(x)\n        for _ in range(2):\n            out = y\n            y = y + 1\n"
                           "        return out\n"), unsafe=True),
        Invalid(CLS.format("        y = x * 2 + F.relu(x)\n        y /= 2\n        s = y.sum(axis=0)\n        return y - s\n"),
                CLS.format("        y = x * 2 + F.relu(x)\n        y = y / 2\n        s = y.sum(axis=0)\n        return y - s\n")),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc = nn.Dense(4)\n\n    def hybrid_forward(self, F, x):\n        y = self.fc(x)\n"
                "        y += 1\n        return y\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc = nn.Dense(4)\n\n    def hybrid_forward(self, F, x):\n        y = self.fc(x)\n"
                "        y = y + 1\n        return y\n"),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.skip = nn.HybridSequential()\n\n    def hybrid_forward(self, F, x):\n        y = self.skip(x)\n"
                "        y += 1\n        return y\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.skip = nn.HybridSequential()\n\n    def hybrid_forward(self, F, x):\n        y = self.skip(x)\n"
                "        y = y + 1\n        return y\n", unsafe=True),
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
        ctx.report(node, f"`{name} {SYMBOLS[operator]} ...` fails after hybridize(): a Symbol has no in-place operators",
                   self._fix(node, ctx), help=f"After hybridize() `{name}` is a Symbol, whose in-place operators raise "
                                              f"NotImplementedForSymbol")

    def visit_Assign(self, node: cst.Assign, ctx) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):
                self._item_assignment(target.target, node, ctx)

    def _item_assignment(self, target: cst.Subscript, node: cst.CSTNode, ctx) -> None:
        value = ctx.value(target.value)
        if value.kind is not Kind.TENSOR or not value.certain:
            return
        name = ctx.code(target.value).strip()
        ctx.report(node, f"item assignment to `{name}` fails after hybridize(): a Symbol cannot be written",
                   help=f"After hybridize() `{name}` is a Symbol, which does not support item assignment (TypeError); "
                        f"build a new tensor instead: `F.where(mask, value, {name})`, or `F.concat` of slices around "
                        f"the written part")

    def _fix(self, node: cst.AugAssign, ctx) -> Optional[PendingFix]:
        if not isinstance(node.target, cst.Name):
            return None
        value = node.value
        if not isinstance(value, ATOMS) or isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        operator = IN_PLACE[type(node.operator)]
        binary = cst.BinaryOperation(left=node.target, operator=operator(), right=value)
        new = cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=binary, semicolon=node.semicolon)
        # a list extends itself in place (`xs += (a,)`), where `xs = xs + (a,)` raises, and a NumPy array stays
        # one: a tensor or a number; and no other reference sees the write (lint/soundness.py decides)
        return PendingFix(Applicability.SAFE, f"Rebind `{node.target.value}` instead of writing in place",
                          [replace(node, new)],
                          relies_on=[Reliance(node.target, Fact.TENSOR_OR_NUMBER),
                                     Reliance(node.target, Fact.UNALIASED, against=_alias_of(node, ctx))])


# NDArray methods whose result shares memory with the receiver (measured on MXNet 1.9.1):
# `y.reshape(...)`, `y.astype(t, copy=False)`, `y.as_in_context(same ctx)`, `y.detach()`; `y[...]` too.
# Every `F.<op>(...)` result is a new array (measured: reshape, identity, Dropout, stop_gradient, cast,
# squeeze, expand_dims, flatten, reshape_like, slice_axis, relu).
VIEW_METHODS = {"reshape", "astype", "as_in_context", "detach", "copyto"}
LOOPS = (cst.For, cst.While)
SCOPES = (cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.ClassDef)


def _alias_of(aug: cst.AugAssign, ctx) -> Optional[str]:
    """None when nothing can observe that ``name op= v`` writes in place, so rebinding is exact; else why
    something may.

    That holds when ``name`` is not an argument of the function, every binding of it is a new array
    (an ``F.<op>(...)`` call or arithmetic), and no other reference to that array exists when the
    in-place write happens: before the write (or anywhere in a loop around it), ``name`` is only read
    as an operand of an operator, an argument of an ``F.<op>`` call, or the receiver of a method that
    does not return a view. Anything else (``z = y``, ``outs.append(y)``, ``y[0]``, ``y.reshape(..)``,
    ``self.child(y)``, a closure) may alias it.
    """
    name = aug.target.value
    hybrid = ctx.hybrid
    fn = hybrid.fn
    params = fn.params
    every_param = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every_param.append(star)
    if name in {p.name.value for p in every_param}:
        return f"`{name}` is an argument: the caller's array, which the write changes"
    parents = hybrid.parents
    f_prefix = ctx.f_name + "."
    fresh_children = fresh_output_children(ctx.cls, set(ctx.module_info.classes)) if ctx.cls is not None else set()

    def ancestors(node: cst.CSTNode):
        node = parents.get(node)
        while node is not None and node is not fn:
            yield node
            node = parents.get(node)

    aug_loops = {id(n) for n in ancestors(aug) if isinstance(n, LOOPS)}
    order: dict = {}

    class _Order(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            order[id(node)] = len(order)
            return True

    walk(fn.body, _Order(), TRIVIA)
    aug_index = order[id(aug)]
    bindings = 0
    names: List[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                names.append(node)

    walk(fn.body, _Names())
    for node in names:
        parent = parents.get(node)
        if node is aug.target:
            continue
        if any(isinstance(a, SCOPES) for a in ancestors(node)):
            return f"a closure or comprehension reads `{name}` at another time"
        if isinstance(parent, cst.AssignTarget):
            assign = parents.get(parent)
            if not _fresh(assign.value, f_prefix, fresh_children):
                return f"`{name}` is bound to `{ctx.code(assign.value).strip()[:40]}`, which may be an existing array"
            bindings += 1
            continue
        if isinstance(parent, cst.AnnAssign) and parent.target is node:
            if parent.value is None or not _fresh(parent.value, f_prefix, fresh_children):
                return f"`{name}` is bound to what may be an existing array"
            bindings += 1
            continue
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            continue  # another in-place write to the same array
        if _consumed(node, parent, parents, f_prefix, fresh_children):
            continue
        if _is_target(node, parent, parents) or isinstance(parent, (cst.NamedExpr, cst.Global, cst.Nonlocal)):
            # unpacking, loop variables, `with ... as y`, `y := ...`: bound without a fresh array
            return f"`{name}` is bound by unpacking, a loop or `as`: it may be an existing array"
        # any other use may keep a reference to the array: harmless only after the write, outside loops
        if order[id(node)] < aug_index or any(id(a) in aug_loops for a in ancestors(node)):
            statement = hybrid.statement_of(node) or parent
            where = ctx.code(statement).strip().splitlines()[0][:60]
            return f"`{where}` may keep a reference to `{name}` before the write"
    return None if bindings else f"no binding of `{name}` in the function makes a new array"


def fresh_output_children(cls, module_classes: Set[str]) -> Set[str]:
    """Attributes of ``self`` that hold a built-in gluon layer whose output is always a new array
    (hylint.analysis.layers): every assignment of the attribute, in any method, constructs one
    (``self.fc = nn.Dense(10)``); a class of the module with the same name does not count."""
    constructors: Dict[str, List[Optional[str]]] = {}

    class _Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                attr = self_attr(target.target)
                if attr is None:
                    continue
                callee = dotted_name(node.value.func) if isinstance(node.value, cst.Call) else None
                constructors.setdefault(attr, []).append(callee)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            attr = self_attr(node.target)
            if attr is not None:
                constructors.setdefault(attr, []).append(None)

    for method in cls.methods.values():
        walk(method.body, _Find())
    fresh = set()
    for attr, callees in constructors.items():
        if all(callee and callee.rsplit(".", 1)[-1] in FRESH_OUTPUT_LAYERS and
               (callee.startswith(BLOCK_NAMESPACES) or "." not in callee and callee not in module_classes)
               for callee in callees):
            fresh.add(attr)
    return fresh


def _fresh(value: cst.BaseExpression, f_prefix: str, fresh_children: Set[str]) -> bool:
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(value, cst.Call):
        callee = dotted_name(value.func) or ""
        return callee.startswith(f_prefix) or self_attr(value.func) in fresh_children
    return False


def _consumed(node: cst.Name, parent: cst.CSTNode, parents, f_prefix: str, fresh_children: Set[str]) -> bool:
    """``node`` is read in a position that cannot keep a reference to its array."""
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)):
        return True
    if isinstance(parent, cst.Arg):
        call = parents.get(parent)
        if not isinstance(call, cst.Call) or parent.star != "":
            return False
        return (dotted_name(call.func) or "").startswith(f_prefix) or self_attr(call.func) in fresh_children
    if isinstance(parent, cst.Attribute) and parent.value is node:
        call = parents.get(parent)
        if isinstance(call, cst.Call) and call.func is parent:
            return parent.attr.value not in VIEW_METHODS
        return True  # an attribute (`y.shape`, `y.T`: a Python value or a new array)
    return False


def _is_target(node: cst.Name, parent: cst.CSTNode, parents) -> bool:
    while parent is not None and isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        node, parent = parent, parents.get(parent)
    if isinstance(parent, cst.AsName):
        return parent.name is node
    return isinstance(parent, (cst.AssignTarget, cst.For, cst.CompFor)) and parent.target is node
