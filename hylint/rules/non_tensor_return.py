from collections import defaultdict
from typing import Dict, List, Optional, Set

import libcst as cst

from hylint.analysis.module import class_family
from hylint.syntax.nodes import dotted_name, param_names
from hylint.analysis.values import Kind
from hylint.analysis.ops import NDARRAY_ONLY_ATTRS, NDARRAY_ONLY_METHODS
from hylint.rule import Invalid, LintRule, Valid, block_constructions
from hylint.syntax.walk import iter_nodes, skipped_types, walk, walk_types
from hylint.rules._hazards import ADDING_METHODS, CLS, child_only, names_in, tests_around
from hylint.rules._binary import describe


RETURN_INSTEAD = ("tensors only, one or a tuple of them: leave None and Python values out of the outputs, or make a "
                  "number a tensor (`{F}.full((1,), c)`)")


class NonTensorReturn(LintRule):
    CODE = "HY907"
    READS = frozenset({block_constructions(ADDING_METHODS)})  # child-only classes
    NAME = "non-tensor-return"
    MESSAGE = "hybrid_forward returns a Python value (None, a number, a dict)"
    DOC = """
## What it does
Flags, in `hybrid_forward` (not in helpers), a bare `return`, and returned values (or elements of a
returned tuple/list) that are `None`, Python numbers, strings, dicts or numpy arrays; and an argument
that defaults to `None` returned as it came (`def hybrid_forward(self, F, x, scale=None): return x,
scale`), when the function reads it nowhere else but in tests, never rebinds it, and no test on it
guards the return (`if scale is None: return x` before it is fine); also through a name bound once to it
and nowhere else (`s = scale; return x, s`). What it cannot see: the argument passed through a container,
an attribute or a call before it is returned.

## Why is this bad?
A hybridized block's outputs must be (nested lists of) Symbols. Eagerly anything can be returned;
after `hybridize()` the first call raises `ValueError: When hybridized, the input of HybridBlock
output must be (nested) list of Symbol or NDArray, but got 0 of type <class 'int'>` (for `None`:
`TypeError: Expected a list of symbols as input`).

A `None` default passed through is `None` whenever the caller leaves the argument out; so is the output
of a child that returns one, returned whole by a parent that leaves the argument out (`return
self.child(x)`). Measured on
MXNet 1.9.1 with `hybrid_forward(self, F, x, scale=None): return x * 2, scale`: eagerly `net(x)` returns
`((2, 3), None)`; hybridized, `net(x)` and `net(x, None)` raise `TypeError: Expected a list of symbols as
input`, and `net(x, s)` returns two `(2, 3)` tensors; a hybridized parent that unpacks that child's
outputs and returns one (`y, s = self.child(x); return y + 1`) runs, one that returns them whole
(`return self.child(x)`) raises the same TypeError. hylint does not see how the block is called: one
that is always given the argument hybridizes.

Only the outermost hybridized block is affected: measured on MXNet 1.9.1, a child whose
`hybrid_forward` returns `(x * 2, None)` inside a hybridized parent that unpacks it computes the eager
output, while the same child hybridized on its own raises that TypeError. So a class that the module
builds only as a child of other blocks (`self.x = Cls(...)`, `.add(Cls(...))`, a construction inside a
block's method; the mechanism HY908 uses) is not flagged. What it cannot see: a class built as the
outermost block in another file.

## Example
```python
def hybrid_forward(self, F, x):
    return x * 2, 0
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x * 2
```
(return Python values from a method that is not hybridized, or as tensors).

## Fix safety
No fix: the callers unpack the outputs.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        if scale is None:\n"
              "            return x\n        return x * 2, scale\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, x0=None):\n"
              "        return F.concat(x, x0, dim=1), x0\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        s = scale\n"
              "        if scale is None:\n            return x\n        return x * 2, s\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        s = scale\n"
              "        if self.double:\n            s = x * 2\n        return x, s\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        s = scale\n"
              "        return x * scale, s\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, h=None):\n        if h is None:\n"
              "            h = x * 0\n        return x, h\n"),
        Valid(CLS.format("        return x * 2, [x, x * 3]\n")),
        Valid(CLS.format("        outputs = [x, x * 2]\n        return tuple(outputs)\n")),
        Valid(CLS.format("        self.outputs = [x]\n        return self.outputs\n")),
        Valid(CLS.format("        extra = []\n        extra.append(x * 2)\n        return x, extra\n")),
        Valid(CLS.format("        if F is nd:\n            return None\n        return x\n")),
        Valid("def _helper(F, x):\n    return 0\n\n\n" + CLS.format("        return x * _helper(F, x)\n")),
        Valid(CLS.format("        return x * 2, None\n") + "\n\nclass P(HybridBlock):\n    def __init__(self):\n"
              "        super().__init__()\n        self.n = N()\n\n    def hybrid_forward(self, F, x):\n"
              "        y, _ = self.n(x)\n        return y\n"),
        Valid("class C(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        return x * 2, scale\n\n\n"
              "class P(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.c = C()\n\n"
              "    def hybrid_forward(self, F, x):\n        return self.c(x, x)\n"),
    ]
    INVALID = [
        Invalid("class C(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        return x * 2, scale\n\n\n"
              "class P(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.c = C()\n\n"
              "    def hybrid_forward(self, F, x):\n        return self.c(x)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        return x * 2, scale\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask=None):\n        if self.double:\n"
                "            return x * 2, mask\n        return x, mask\n"),
        Invalid(CLS.format("        return x * 2, 0\n")),
        Invalid(CLS.format("        return x * 2, None\n")),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        s = scale\n"
                "        return x * 2, s\n"),
        Invalid(CLS.format("        return {'out': x * 2}\n")),
        Invalid(CLS.format("        x = x * 2\n        return\n")),
        Invalid(CLS.format("        count = 0\n        return x * 2, count\n")),
    ]

    def _bad(self, node: cst.BaseExpression, ctx) -> bool:
        if isinstance(node, (cst.Dict, cst.DictComp)) or \
                isinstance(node, cst.Call) and dotted_name(node.func) == "dict":
            return True
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
            return True
        if isinstance(node, (cst.Tuple, cst.List)):
            return False
        if _reads_ndarray_only(node, ctx):
            return False  # `return y.asnumpy()`, `return y.shape[0]`: HY401 / HY201 report the cause, once
        if isinstance(node, cst.Name):
            # a name counts only when every binding in the function is a literal Python value:
            # `tuple(outputs)`, lists of tensors and `self.<attr>` may well hold Symbols
            return _bound_only_to_literals(node.value, ctx)
        return False

    def _python_values(self, node: cst.BaseExpression, ctx) -> List[cst.BaseExpression]:
        if isinstance(node, (cst.Tuple, cst.List)):
            return [found for element in node.elements for found in self._python_values(element.value, ctx)]
        return [node] if self._bad(node, ctx) else []

    def visit_Return(self, node: cst.Return, ctx) -> None:
        if ctx.hybrid.is_helper or ctx.function is not ctx.hybrid.fn:
            return
        found = [node] if node.value is None else self._python_values(node.value, ctx)
        optional = _returned_none_defaults(node, ctx) if node.value is not None else []
        passed = _child_none_output(node.value, ctx) if isinstance(node.value, cst.Call) else None
        if not (found or optional or passed) or ctx.cls is not None and ctx.cls.name in child_only(ctx):
            return  # a child's outputs reach its parent's Python code, never the graph's outputs
        if passed:
            ctx.report(node.value, f"`{ctx.code(node.value.func)}(...)` returns None in its outputs: it fails after "
                                   f"hybridize()",
                       help=f"It returns {passed}, None as this call leaves it out: hybridized, this block's outputs "
                            f"then hold None and the call raises TypeError (Expected a list of symbols as input)",
                       instead="the argument passed in this call, or only the tensor outputs of the child returned")
        reported = ctx.module_info.memo("none-defaults-reported", ctx.hybrid.fn, lambda fn: set())
        aliases = ctx.module_info.memo("none-default-aliases", ctx.hybrid.fn, _none_default_aliases)
        for value in optional:
            argument = aliases.get(value.value, value.value)
            if argument in reported:
                continue  # once per argument: its other returns fail alike
            reported.add(argument)
            held = f"`{value.value}`, which holds `{argument}`," if argument != value.value else f"`{argument}`,"
            ctx.report(value, f"hybrid_forward returns {held} an argument that defaults to None: it may fail after "
                              f"hybridize()",
                       help="It only passes the argument through: called hybridized without it, the block returns "
                            "None and the call raises TypeError (Expected a list of symbols as input)",
                       instead=f"outputs without `{argument}` (the caller has it already), or `{argument}` "
                               f"passed on every call")
        if node.value is None:
            ctx.report(node, "bare `return` in hybrid_forward returns None: it fails after hybridize()",
                       instead=RETURN_INSTEAD.format(F=ctx.f_name),
                       help="After hybridize() the call raises TypeError (Expected a list of symbols)")
            return
        for value in found:
            ctx.report(value, f"hybrid_forward returns `{describe(value, ctx)}`, a Python value: it fails after hybridize()",
                       help="After hybridize() outputs must be Symbols and the call raises ValueError/TypeError",
                       instead=RETURN_INSTEAD.format(F=ctx.f_name))


def _returned_none_defaults(node: cst.Return, ctx) -> List[cst.Name]:
    """The returned names (alone or in a returned tuple/list) that are arguments of hybrid_forward defaulting
    to None, read nowhere else in it but in tests (`if scale is None:`) and never rebound, on a return that
    no test on them guards: passed through, they are None whenever the caller leaves them out."""
    fn = ctx.hybrid.fn
    defaults = ctx.module_info.memo("none-defaults", fn, _none_default_reads)
    if not defaults:
        return []
    elements = [e.value for e in node.value.elements] if isinstance(node.value, (cst.Tuple, cst.List)) else [node.value]
    returned = [e for e in elements if isinstance(e, cst.Name) and defaults.get(e.value) == 0]
    if not returned:
        return []
    aliases = ctx.module_info.memo("none-default-aliases", fn, _none_default_aliases)
    tested = set().union(*ctx.module_info.memo("return-tests", fn, lambda f: tests_around(f, cst.Return)).get(id(node), []))
    tested |= {alias for alias, param in aliases.items() if param in tested or alias in tested}
    tested |= {aliases[name] for name in tested if name in aliases}
    # an alias passes its argument on only when the argument is itself read nowhere else
    return [name for name in returned if name.value not in tested
            and (name.value not in aliases or defaults.get(aliases[name.value]) == 0)]


def _child_none_output(call: cst.Call, ctx) -> Optional[str]:
    """For ``return self.<child>(...)``: the argument of the child's hybrid_forward that it always returns as
    it came (a return no test decides) and that this call leaves out or passes as None, described."""
    callee = dotted_name(call.func) or ""
    if ctx.cls is None or not callee.startswith("self.") or callee.count(".") != 1:
        return None
    classes = ctx.module_info.classes
    constructor = next((owner.children[callee[5:]] for owner in class_family(ctx.cls, classes)
                        if callee[5:] in owner.children), None)
    child = classes.get(constructor.rsplit(".", 1)[-1]) if constructor else None
    fn = child.hybrid_forward if child is not None else None
    if fn is None or any(arg.star for arg in call.args):
        return None
    defaults = ctx.module_info.memo("none-defaults", fn, _none_default_reads)
    tests = ctx.module_info.memo("return-tests", fn, lambda f: tests_around(f, cst.Return))
    returned: Set[str] = set()
    for node in _returns(fn):
        if node.value is not None and not tests.get(id(node)):
            elements = [e.value for e in node.value.elements] if isinstance(node.value, (cst.Tuple, cst.List)) \
                else [node.value]
            returned.update(e.value for e in elements if isinstance(e, cst.Name) and defaults.get(e.value) == 0)
    params = [p.name.value for p in param_names(fn)[2:]]  # after self and F
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    for position, name in enumerate(params):
        if name not in returned:
            continue
        given = positional[position] if position < len(positional) else keywords.get(name)
        if given is None or isinstance(given, cst.Name) and given.value == "None":
            return f"`{name}` of `{child.name}.hybrid_forward` as it came"
    return None


def _returns(fn: cst.FunctionDef) -> List[cst.Return]:
    found: List[cst.Return] = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

    walk(fn, _Returns())
    return found


def _none_default_params(fn: cst.FunctionDef) -> Set[str]:
    return {p.name.value for p in fn.params.params + fn.params.kwonly_params
            if p.default is not None and isinstance(p.default, cst.Name) and p.default.value == "None"}


def _none_default_aliases(fn: cst.FunctionDef) -> Dict[str, str]:
    """Names of ``fn`` bound once, by ``alias = <an argument defaulting to None>``, and nowhere else (no other
    assignment, loop, ``with``, walrus or comprehension binds them) -> that argument."""
    params = _none_default_params(fn)
    if not params:
        return {}
    candidates: Dict[str, str] = {}
    bindings: Dict[str, int] = defaultdict(int)

    class _Bindings(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                    and isinstance(node.value, cst.Name) and node.value.value in params:
                candidates[node.targets[0].target.value] = node.value.value

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            for name in names_in(node.target):
                bindings[name] += 1

        def visit_AugAssign(self, node: cst.CSTNode) -> None:  # any other binding disqualifies a name
            for name in names_in(node.name if isinstance(node, cst.AsName) else node.target):
                bindings[name] += 2

        visit_AnnAssign = visit_For = visit_CompFor = visit_AsName = visit_NamedExpr = visit_AugAssign

    walk(fn.body, _Bindings())
    return {alias: param for alias, param in candidates.items()
            if bindings[alias] == 1 and alias not in params and alias not in {p.name.value for p in param_names(fn)}}


def _none_default_reads(fn: cst.FunctionDef) -> Dict[str, int]:
    """Arguments of ``fn`` defaulting to None, and their aliases (``s = scale``, ``_none_default_aliases``)
    -> how often its body reads them other than in the tests of ``if``/``while``/conditional expressions, as
    a returned value (or element of a returned tuple or list), and an argument in the assignment that makes
    an alias of it; -1 when it rebinds them."""
    params = _none_default_params(fn)
    if not params:
        return {}
    aliases = _none_default_aliases(fn)
    reads = {name: 0 for name in params | set(aliases)}
    in_tests: Set[int] = set()  # the names read by tests and returned as they are, and aliased arguments

    class _Reads(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            value = node.value
            elements = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else [value]
            in_tests.update(id(e) for e in elements if isinstance(e, cst.Name))

        def visit_If(self, node: cst.If) -> None:
            in_tests.update(_name_ids(node.test))

        visit_While = visit_If

        def visit_IfExp(self, node: cst.IfExp) -> None:
            in_tests.update(_name_ids(node.test))

        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                    and node.targets[0].target.value in aliases:
                in_tests.update((id(node.value), id(node.targets[0].target)))  # `s = scale`: passed on, not read

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            for name in names_in(node.target) & params:
                reads[name] = -1

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in reads and reads[node.value] >= 0 and id(node) not in in_tests:
                reads[node.value] += 1

    walk(fn.body, _Reads())
    return reads


def _name_ids(node: cst.CSTNode) -> Set[int]:
    found: Set[int] = set()
    walk_types(node, {cst.Name: lambda name: found.add(id(name))}, {}, skipped_types(frozenset({"Name"})))
    return found


_NDARRAY_ONLY = NDARRAY_ONLY_ATTRS | NDARRAY_ONLY_METHODS


def _reads_ndarray_only(node: cst.CSTNode, ctx) -> bool:
    """Whether the expression reads an NDArray-only attribute or method of a tensor."""
    return any(type(attr) is cst.Attribute and attr.attr.value in _NDARRAY_ONLY
               and ctx.value(attr.value).kind in (Kind.TENSOR, Kind.CHILD) for attr in iter_nodes(node))


LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Dict)


class _Bindings(cst.CSTVisitor):
    """Per plain name, the values a function body binds it to (None: unpacked, augmented, a loop target)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: Dict[str, List[Optional[cst.BaseExpression]]] = defaultdict(list)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.values[target.target.value].append(node.value)
            elif isinstance(target.target, (cst.Tuple, cst.List)):
                for name in {e.value.value for e in target.target.elements if isinstance(e.value, cst.Name)}:
                    self.values[name].append(None)  # unpacked: unknown

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.values[node.target.value].append(None)

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name):
            self.values[node.target.value].append(None)


def _bindings(fn: cst.FunctionDef) -> Dict[str, List[Optional[cst.BaseExpression]]]:
    finder = _Bindings()
    walk(fn.body, finder)
    return finder.values


def _bound_only_to_literals(name: str, ctx) -> bool:
    values = ctx.module_info.memo("bindings", ctx.hybrid.fn, _bindings).get(name, ())
    if any(p.name.value == name for p in ctx.hybrid.fn.params.params):
        return False
    return bool(values) and all(
        isinstance(v, LITERALS) or isinstance(v, cst.Name) and v.value in ("None", "True", "False") for v in values)
