from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from hylint.analysis.module import ClassInfo, class_family, is_hybrid_class
from hylint.repairs.first_call_guard import FIX_TITLE, every_call_fix
from hylint.rule import Invalid, LintRule, SELF_ATTRIBUTE_METHODS, Valid
from hylint.rules._hazards import self_attr, self_calls
from hylint.syntax.nodes import dotted_name, param_names
from hylint.syntax.walk import EXPRESSIONS, TRIVIA, iter_nodes, walk

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.ready = False\n"
       "        self.basis = None\n{}")


def _method(family: List[ClassInfo], name: str) -> Optional[cst.FunctionDef]:
    for cls in family:
        if name in cls.methods:
            return cls.methods[name]
    return None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    found = [False]

    class _Find(cst.CSTVisitor):
        def visit_Name(self, inner: cst.Name) -> None:
            if inner.value == name:
                found[0] = True

    walk(node, _Find())
    return found[0]


def _built_with(fn: cst.CSTNode, f_name: str) -> Dict[str, cst.CSTNode]:
    """``self.<attr> = <value made with f_name>`` in ``fn``: attribute -> the assignment."""
    found: Dict[str, cst.CSTNode] = {}

    class _Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                attr = self_attr(target.target)
                if attr and _mentions(node.value, f_name):
                    found.setdefault(attr, node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    walk(fn, _Find())
    return found


class _SelfAttrs(cst.CSTVisitor):
    def __init__(self, written: bool) -> None:
        super().__init__()
        self.written = written
        self.found: Set[str] = set()

    def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
        if self.written and self_attr(target.target):
            self.found.add(self_attr(target.target))

    def visit_Attribute(self, inner: cst.Attribute) -> None:
        if not self.written and self_attr(inner):
            self.found.add(self_attr(inner))


def _self_attrs(node: cst.CSTNode, written: bool) -> Set[str]:
    """The attributes of self that ``node`` reads (``written=False``) or assigns (``written=True``)."""
    visitor = _SelfAttrs(written)
    walk(node, visitor)
    return visitor.found


def _first_call_guards(hybrid_forward: cst.FunctionDef, family: List[ClassInfo]) -> List[cst.If]:
    """The ``if`` statements of hybrid_forward whose body sets the state of self its test reads (``if not
    self.ready: ...; self.ready = True``, ``if self.basis is None: self.basis = ...``), there or in a method
    of self the body calls: the body runs on the first call only. A test on configuration (``if
    self.use_bias:``) that the body leaves alone runs on every call."""
    found: List[cst.If] = []
    for node in iter_nodes(hybrid_forward.body, TRIVIA | EXPRESSIONS):  # an `if` is a statement: never in an expression
        if type(node) is not cst.If:
            continue
        written = _self_attrs(node.body, written=True)
        for name in self_calls(node.body):
            method = _method(family, name)
            if method is not None:
                written |= _self_attrs(method.body, written=True)
        if _self_attrs(node.test, written=False) & written:
            found.append(node)
    return found


def cached_tensors(cls: ClassInfo, classes: Dict[str, ClassInfo]) -> Dict[str, Tuple[cst.CSTNode, cst.If, str]]:
    """Attributes of self that hybrid_forward (of the class or a base of the module) fills with a tensor
    made with its F, only under a guard on the state of self: attribute -> (the assignment, the guard,
    the method that builds it)."""
    family = class_family(cls, classes)
    hybrid_forward = _method(family, "hybrid_forward")
    params = param_names(hybrid_forward) if hybrid_forward is not None else []
    if len(params) < 2:
        return {}
    f_name = params[1].name.value
    cached: Dict[str, Tuple[cst.CSTNode, cst.If, str]] = {}
    for guard in _first_call_guards(hybrid_forward, family):
        for attr, assign in _built_with(guard.body, f_name).items():
            cached.setdefault(attr, (assign, guard, "hybrid_forward"))
        calls: List[cst.Call] = []

        class _Calls(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                calls.append(node)

        walk(guard.body, _Calls())
        for call in calls:
            name = dotted_name(call.func) or ""
            method = _method(family, name[5:]) if name.startswith("self.") and name.count(".") == 1 else None
            if method is None:
                continue
            receiving = [p.name.value for p in param_names(method)[1:]]
            for position, arg in enumerate(call.args):
                if isinstance(arg.value, cst.Name) and arg.value.value == f_name:
                    param = arg.keyword.value if arg.keyword is not None else \
                        receiving[position] if position < len(receiving) else None
                    if param is not None:
                        for attr, assign in _built_with(method.body, param).items():
                            cached.setdefault(attr, (assign, guard, method.name.value))
    return cached


def _takes_f(node: cst.Lambda, f_name: str) -> bool:
    params = list(node.params.params)
    return bool(params) and params[0].name.value in ("F", f_name)


def _reads_in(fn: cst.FunctionDef, attrs: Set[str], outside: Set[cst.CSTNode], traced_body: bool,
              f_name: str) -> List[cst.Attribute]:
    """Reads of ``self.<attr>`` in ``fn`` that run in a trace: in a lambda taking F (handed to a block such
    as nn.HybridLambda) and, when ``traced_body``, anywhere in ``fn`` outside the ``outside`` nodes."""
    found: List[cst.Attribute] = []

    class _Find(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.in_lambda = 0

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node in outside:
                return False
            if isinstance(node, cst.Lambda):
                if _takes_f(node, f_name):
                    self.in_lambda += 1
            if isinstance(node, cst.Attribute) and (traced_body or self.in_lambda) and self_attr(node) in attrs:
                found.append(node)
            return True

        def on_leave(self, node: cst.CSTNode) -> None:
            if isinstance(node, cst.Lambda) and _takes_f(node, f_name):
                self.in_lambda -= 1

    walk(fn, _Find())
    return found


class TensorCachedOnSelf(LintRule):
    CODE = "HY811"
    FIX_TITLE = FIX_TITLE
    NAME = "tensor-cached-on-self"
    MESSAGE = "A tensor built with one call's F is kept on self and used by later calls"
    HYBRID_ONLY = False
    METHODS = ("__init__", "hybrid_forward")  # where the traced reads are: lambdas given to blocks, the body
    READS = frozenset({SELF_ATTRIBUTE_METHODS})  # the method that builds the tensor
    DOC = """
## What it does
Flags the reads of an attribute of `self` that `hybrid_forward` fills with a tensor made with its `F`
only on the first call, under a guard whose body sets the state of `self` its test reads (`if not
self.basis_ready: ...; self.basis_ready = True`, or `if self.basis is None:`), directly or in a method it
passes `F` to (`self.build_basis(F)`); the reads flagged are those that run in a trace: in
`hybrid_forward` outside the guard, and in a lambda taking `F` (the function of an `nn.HybridLambda`
built in `__init__`). A guard on configuration (`if self.use_bias:`), whose body runs on every call, is
not one.

## Why is this bad?
The tensor is an NDArray when the first call is eager, a Symbol when it is traced, and the guard keeps
it for every later call, in whichever mode that runs. Measured on MXNet 1.9.1: a block whose
`hybrid_forward` does `if not self.basis_ready: self.basis = F.arange(4).reshape((1, 4))` and whose
`nn.HybridLambda(lambda F, t: F.dot(t, self.basis))` reads it runs eagerly, but once hybridized after
an eager call (Gluon's deferred initialisation makes one, and so does any eager use before
`hybridize()`) the trace raises `AssertionError: Argument rhs must be Symbol instances, but got
<NDArray 1x4>`; traced first, the Symbol it keeps breaks every later eager call instead.

## Example
```python
def build_basis(self, F):
    self.basis = F.arange(4).reshape((1, 4))

def hybrid_forward(self, F, x):
    if not self.basis_ready:
        self.build_basis(F)
        self.basis_ready = True
    return F.dot(x, self.basis)
```

## Use instead
Build the tensor on every call (`basis = F.arange(4).reshape((1, 4))` in `hybrid_forward`: it is
part of the graph and costs nothing once traced), or keep a NumPy array on `self` and make it a
constant parameter (`self.params.get_constant('basis', value)`), which `hybrid_forward` receives as
an argument in either mode.

## Fix safety
The fix is unsafe: it removes the guard, so its body runs on every call and builds the tensors from that
call's `F`. That computes the same eagerly only if the guarded code builds the same tensors each time (no
random op, nothing read from the inputs) and does nothing else that a second run changes; hylint does not
prove either. Offered only for a guard that is a statement of `hybrid_forward`'s body, without `else`.
"""
    VALID = [
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        basis = F.ones((1, 4))\n"
                         "        return F.dot(x, basis)\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        self.basis = F.ones((1, 4))\n"
                         "        return F.dot(x, self.basis)\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        if not self.ready:\n            self.ready = True\n"
                         "        return x * 2\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        if self.ready:\n            self.basis = F.ones((1, 4))\n"
                         "        return F.dot(x, self.basis)\n")),
    ]
    INVALID = [
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        if self.basis is None:\n"
                           "            self.basis = F.ones((1, 4))\n        return F.dot(x, self.basis)\n"),
                expected_fixed=CLS.format("    def hybrid_forward(self, F, x):\n        self.basis = F.ones((1, 4))\n"
                                          "        return F.dot(x, self.basis)\n"), unsafe=True),
        Invalid(CLS.format("    def build(self, F):\n        self.basis = F.ones((1, 4))\n\n"
                           "    def hybrid_forward(self, F, x):\n        if not self.ready:  # once\n"
                           "            self.build(F)\n\n            self.ready = True\n"
                           "        return F.dot(x, self.basis)\n"),
                expected_fixed=CLS.format("    def build(self, F):\n        self.basis = F.ones((1, 4))\n\n"
                                          "    def hybrid_forward(self, F, x):\n        # once\n        self.build(F)\n\n"
                                          "        self.ready = True\n        return F.dot(x, self.basis)\n"),
                unsafe=True),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        cls = ctx.cls
        if cls is None or node.name.value not in self.METHODS or cls.methods.get(node.name.value) is not node:
            return
        classes = ctx.module_info.classes
        if not is_hybrid_class(cls, classes):
            return
        cached = ctx.module_info.memo("tensor-cached-on-self", cls.node, lambda _: cached_tensors(cls, classes))
        if not cached:
            return
        hybrid_forward = _method(class_family(cls, classes), "hybrid_forward")
        f_name = param_names(hybrid_forward)[1].name.value
        guards = {guard for _, guard, _ in cached.values()}
        traced_body = node is hybrid_forward
        for read in _reads_in(node, set(cached), guards, traced_body, f_name):
            attr = self_attr(read)
            _, guard, builder = cached[attr]
            where = "in hybrid_forward" if builder == "hybrid_forward" else f"by `self.{builder}(F)`"
            ctx.report(read, f"`self.{attr}` keeps a tensor of the first call's F: it fails after hybridize()",
                       fix=every_call_fix(guard, class_family(cls, classes), ctx.module),
                       help=f"It is built {where} with the first call's F, under a guard on self, and kept for later "
                            f"calls: after an eager call the trace gets an NDArray where it needs a Symbol "
                            f"(AssertionError: Argument must be Symbol instances), and after a trace an eager call "
                            f"gets a Symbol",
                       instead="the tensor built on every call from that call's F, or a constant parameter made in "
                               "`__init__` (`self.params.get_constant`) and taken as an argument")
