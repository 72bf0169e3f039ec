"""Shared by the HY6xx-HY9xx rules: example templates and small syntax helpers."""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Union

import libcst as cst

from hylint.analysis.module import ModuleInfo
from hylint.analysis.module import BLOCK_BASE_NAMES, ClassInfo, HYBRID_BASE_NAMES, derives_from, is_hybrid_class
from hylint.syntax.nodes import dotted_name
from hylint.analysis.values import Kind
from hylint.facts.layers import HYBRID_LAYERS, PLAIN_LAYERS
from hylint.syntax.walk import skipped_types, walk, walk_types

# a hybrid_forward body for examples: CLS.format("        return x\n")
CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{}"

ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
         cst.Tuple, cst.List)

RANDOM_OPS = {"Dropout", "dropout"}

# constructors known to build gluon blocks (namespaces and layer names)
BLOCK_NAMESPACES = ("nn.", "gluon.nn.", "mx.gluon.nn.", "mxnet.gluon.nn.", "rnn.", "gluon.rnn.", "mx.gluon.rnn.",
                    "contrib.nn.", "gluon.contrib.nn.", "mx.gluon.contrib.nn.")


def is_tensor(value) -> bool:
    return value.kind is Kind.TENSOR and value.certain


def paren(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` wrapped in parentheses unless it is an atom (or already parenthesized)."""
    if isinstance(node, ATOMS) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def is_pure(node: cst.CSTNode, f_name: str) -> bool:
    """True when evaluating ``node`` twice computes the same thing: names, literals, operators and
    F./tensor-method calls that are not random (no child blocks, no other calls)."""
    ok = [True]

    class _Check(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            callee = dotted_name(call.func) or ""
            short = callee.rsplit(".", 1)[-1]
            if callee.startswith(f_name + "."):
                if ".random." in f".{callee}." or short.startswith("random_") or short.startswith("sample_") \
                        or short in RANDOM_OPS:
                    ok[0] = False
                return
            if isinstance(call.func, cst.Attribute) and not callee.startswith("self."):
                return  # a fluent method of a tensor
            ok[0] = False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            ok[0] = False
            return False

        def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
            ok[0] = False
            return False

    walk(node, _Check())
    return ok[0]


def block_constructor(callee: str, cls_infos) -> Optional[str]:
    """'hybrid' / 'plain' for a call that builds a gluon block, else None."""
    short = callee.rsplit(".", 1)[-1]
    if not short or not short[0].isupper():
        return None
    info: Optional[ClassInfo] = cls_infos.get(short) if "." not in callee else None
    if info is not None:
        if is_hybrid_class(info, cls_infos):
            return "hybrid"
        if is_block_class(info, cls_infos):
            return "plain"
        return None
    from_gluon = callee.startswith(BLOCK_NAMESPACES)
    if short in PLAIN_LAYERS and (from_gluon or short in ("Sequential", "Lambda")):
        return "plain"
    if short in HYBRID_LAYERS and (from_gluon or "." not in callee):
        return "hybrid"
    return None


def is_block_class(info: Optional[ClassInfo], classes) -> bool:
    """A class deriving (in this module or by name) from any gluon Block."""
    return derives_from(info, classes, HYBRID_BASE_NAMES | BLOCK_BASE_NAMES)


def self_attr(node: cst.CSTNode) -> Optional[str]:
    """``self.name`` -> "name"."""
    name = dotted_name(node)
    if name and name.startswith("self.") and name.count(".") == 1:
        return name[5:]
    return None


def in_mode_branch(node: cst.CSTNode, ctx, mode: str) -> bool:
    """True when ``node`` sits in a branch of a mode guard that only runs in ``mode`` ('nd' or 'sym')."""
    if ctx.hybrid is None:
        return False
    guards = {g.node: g.mode for g in ctx.hybrid.guards}
    parents = ctx.hybrid.parents
    child, current = node, parents.get(node)
    while current is not None:
        if current in guards:
            guard_mode = guards[current]
            if child is current.body:
                return guard_mode == mode
            if child is current.orelse:
                return guard_mode != mode
        child, current = current, parents.get(current)
    return False


# calls that make their block arguments children of a container block
ADDING_METHODS = {"add", "register_child"}


def child_only_classes(module: cst.Module, info: ModuleInfo) -> Set[str]:
    """Classes of ``module`` that it instantiates only as children of other blocks.

    A construction ``Cls(...)`` counts as a child when it is written inside a method of a block class of
    the module (``self.x = Cls(...)``, ``stage.add(Cls(...))``, ``unit = Cls(...)`` then added) or is
    an argument of ``.add(...)`` / ``.register_child(...)``; anywhere else (module level, a plain
    function such as a model factory) it may be the outermost block. A subclass's constructions count
    for its bases (it inherits their hybrid_forward).
    """
    classes = info.classes
    block_classes = {name for name, cls in classes.items() if cls.hybrid_forward is not None or
                     any(base in classes or base.endswith("Block") or base in ("HybridSequential", "Sequential")
                         for base in cls.base_names)}
    uses: Dict[str, Set[str]] = {}

    class _Find(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list = []  # ("class", name) / ("def", None)
            self.adding = 0

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.stack.append(("class", node.name.value))

        def leave_ClassDef(self, node: cst.ClassDef) -> None:
            self.stack.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.stack.append(("def", None))

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.stack.pop()

        def _inside_block_method(self) -> bool:
            for index, (kind, name) in enumerate(self.stack):
                if kind == "class" and name in block_classes and index + 1 < len(self.stack):
                    return True
            return False

        def visit_Call(self, node: cst.Call) -> None:
            callee = dotted_name(node.func) or ""
            if callee.rsplit(".", 1)[-1] in ADDING_METHODS:
                self.adding += 1
            if callee in classes:
                child = self.adding > 0 or self._inside_block_method()
                uses.setdefault(callee, set()).add("child" if child else "root")

        def leave_Call(self, node: cst.Call) -> None:
            if (dotted_name(node.func) or "").rsplit(".", 1)[-1] in ADDING_METHODS:
                self.adding -= 1

    walk(module, _Find())  # read-only: libcst's visit() would rebuild the whole tree
    changed = True
    while changed:  # a subclass's constructions count for its bases
        changed = False
        for name, cls in classes.items():
            for base in cls.base_names:
                if base in classes and not uses.get(name, set()) <= uses.get(base, set()):
                    uses.setdefault(base, set()).update(uses[name])
                    changed = True
    return {name for name, kinds in uses.items() if kinds == {"child"}}


def child_only(ctx) -> Set[str]:
    """``child_only_classes`` of the module being linted, computed once and shared by the rules."""
    info = ctx.module_info
    return info.memo("child-only-classes", ctx.module, lambda module: child_only_classes(module, info))


class _Names(cst.CSTVisitor):
    """The plain names a node reads (``names_in``). Visitor classes are defined once, at module level: one
    defined per call was a class built (and its callbacks looked up) for every expression asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.names: Set[str] = set()
        self.attrs: Set[int] = set()

    def visit_Attribute(self, attr: cst.Attribute) -> None:
        self.attrs.add(id(attr.attr))

    def visit_Name(self, name: cst.Name) -> None:
        if id(name) not in self.attrs:
            self.names.add(name.value)


class _SelfCalls(cst.CSTVisitor):
    def __init__(self, dots: int) -> None:
        super().__init__()
        self.dots = dots
        self.called: List[str] = []

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func) or ""
        if name.startswith("self.") and name.count(".") == self.dots:
            self.called.append(name[5:])


def self_calls(node: cst.CSTNode, dots: int = 1) -> List[str]:
    """Names of the methods ``node`` calls as ``self.<name>(...)``, in order (with ``dots=2``:
    ``child.method`` for each ``self.<child>.<method>(...)``)."""
    visitor = _SelfCalls(dots)
    walk(node, visitor)
    return visitor.called


def names_in(node: cst.CSTNode) -> Set[str]:
    """Plain names ``node`` reads (not attribute names: ``self.lexicon`` reads ``self``)."""
    visitor = _Names()
    walk(node, visitor)
    return visitor.names - {"self", "None", "True", "False"}


def tests_around(fn: cst.FunctionDef, kind: type) -> Dict[int, List[Set[str]]]:
    """For each node of type ``kind`` in ``fn`` (by id): the names read by each test that decides whether it
    runs (the ``if`` and conditional expressions around it, and an earlier ``if`` that leaves the function:
    ``if ids is None: return ...``), one set per test."""
    tested: Dict[int, List[Set[str]]] = {}
    stack: List[List[Set[str]]] = [[]]

    def enter_test(node: Union[cst.If, cst.IfExp]) -> None:
        stack.append(stack[-1] + [names_in(node.test)])

    def leave_if(node: cst.If) -> None:
        stack.pop()
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        last = body[-1] if body else None
        if isinstance(last, cst.SimpleStatementLine) and last.body and \
                isinstance(last.body[-1], (cst.Return, cst.Raise)):
            stack[-1] = stack[-1] + [names_in(node.test)]  # what follows runs for one outcome only

    def record(node: cst.CSTNode) -> None:
        tested[id(node)] = list(stack[-1])

    # called by node type (a generic on_visit would be called on every node of the function)
    walk_types(fn.body, {cst.If: enter_test, cst.IfExp: enter_test, kind: record},
               {cst.If: leave_if, cst.IfExp: lambda node: stack.pop()},
               skipped_types(frozenset({"If", "IfExp", kind.__name__})))
    return tested
