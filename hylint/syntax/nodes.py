"""Small syntax helpers over libcst nodes: dotted names, literals, call arguments, parents."""
from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from hylint.syntax.walk import TRIVIA, parents, walk


def dotted_name(node: cst.CSTNode) -> Optional[str]:
    """``mx.nd.array`` -> "mx.nd.array"; None for anything that is not a plain dotted name."""
    # `type(node) is`: libcst's node classes are ABCs, whose isinstance() runs Python code, and the rules ask
    # this of every call they visit (Attribute and Name have no subclasses)
    if type(node) is cst.Name:
        return node.value
    parts: List[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def literal_int(node: cst.CSTNode) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return _int_value(node)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_int(node.expression)
        return None if inner is None else -inner
    return None


def _int_value(node: cst.Integer) -> int:
    """``node.evaluated_value``, without the ``ast.literal_eval`` libcst runs for it (a compile, and four
    closures in cycles per call): ``int(text, 0)`` reads every form of an integer literal (``0x1F``,
    ``0o17``, ``0b1``, ``1_000``, ``00``) as Python does."""
    return int(node.value, 0)


def literal_number(node: cst.CSTNode) -> Optional[float]:
    if isinstance(node, cst.Integer):
        return _int_value(node)
    if isinstance(node, cst.Float):
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_number(node.expression)
        if inner is None:
            return None
        return -inner if isinstance(node.operator, cst.Minus) else inner
    return None


def literal_shape(node: Optional[cst.CSTNode]) -> Optional[Tuple[Optional[int], ...]]:
    """``(1, k)`` -> (1, None); ``3`` -> (3,); None when it is not a tuple/list/int literal."""
    if node is None:
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        dims: List[Optional[int]] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            dims.append(literal_int(element.value))
        return tuple(dims)
    value = literal_int(node)
    if value is not None:
        return (value,)
    return None


def call_arg(call: cst.Call, position: Optional[int], keyword: Optional[str]) -> Optional[cst.Arg]:
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None if position is not None and positional <= position else None
        if position is not None and positional == position:
            return arg
        positional += 1
    return None


def keyword_value(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    arg = call_arg(call, None, keyword)
    return arg.value if arg is not None else None


PARAM_FACTORIES = {"get", "get_constant"}


def is_parameter_factory(callee: str) -> bool:
    """``self.params.get(...)``, ``self.params.get_constant(...)``, ``gluon.Parameter(...)``, ``Constant(...)``."""
    last = callee.rsplit(".", 1)[-1]
    return last in PARAM_FACTORIES and ".params." in f".{callee}" or callee.endswith("Parameter") or \
        callee.endswith("Constant")


def is_true(node: Optional[cst.CSTNode]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def param_names(fn: cst.FunctionDef) -> List[cst.Param]:
    params = fn.params
    return list(params.posonly_params) + list(params.params)



def parent_map(root: cst.CSTNode) -> Dict[cst.CSTNode, cst.CSTNode]:
    return parents(root, TRIVIA)  # no node below a whitespace or punctuation node is anything else



def nested_literal_shape(node: cst.CSTNode) -> Optional[Tuple[int, ...]]:
    """Shape of a nested list/tuple literal of numbers; () for a bare number."""
    if literal_number(node) is not None:
        return ()
    if isinstance(node, (cst.List, cst.Tuple)):
        if not node.elements:
            return None
        shapes = [nested_literal_shape(e.value) for e in node.elements]
        if any(s is None for s in shapes) or len(set(shapes)) != 1:
            return None
        return (len(node.elements),) + shapes[0]
    return None


def returns_tuple(fn: cst.FunctionDef) -> bool:
    found = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Return(self, node: cst.Return) -> None:
            found.append(isinstance(node.value, (cst.Tuple, cst.List)))

    walk(fn, _Returns())
    return any(found)



def blocks_of(stmt: cst.CSTNode) -> Iterable[Sequence[cst.CSTNode]]:
    if isinstance(stmt, cst.If):
        yield stmt.body.body
        if stmt.orelse is not None:
            yield from blocks_of(stmt.orelse) if isinstance(stmt.orelse, cst.If) else [stmt.orelse.body.body]
    elif isinstance(stmt, cst.Try):
        yield stmt.body.body
        for handler in stmt.handlers:
            yield handler.body.body
    elif isinstance(stmt, cst.With):
        yield stmt.body.body
    elif isinstance(stmt, cst.Else):
        yield stmt.body.body



def name_reads(node: cst.CSTNode) -> List[cst.Name]:
    """The ``Name`` nodes under ``node`` that name a variable: not the attribute of ``obj.name`` nor the
    keyword of ``f(name=...)`` (assignment targets are included)."""
    found: List[cst.Name] = []

    class _Find(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attr: cst.Attribute) -> bool:
            walk(attr.value, self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            walk(arg.value, self)
            return False

    walk(node, _Find())
    return found


def target_names(target: cst.BaseExpression) -> Iterator[str]:
    """The plain names a binding target binds (``a``, ``a, (b, *c)``); attributes and items bind none."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def bound_names(fn: cst.FunctionDef) -> Set[str]:
    """Names (re)bound anywhere in the body of ``fn``."""
    names: Set[str] = set()

    class _Find(cst.CSTVisitor):
        def _add(self, target) -> None:
            names.update(target_names(target))

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._add(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._add(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._add(node.target)

        def visit_For(self, node: cst.For) -> None:
            self._add(node.target)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self._add(node.target)

        def visit_WithItem(self, node: cst.WithItem) -> None:
            if node.asname is not None:
                self._add(node.asname.name)

    walk(fn.body, _Find())
    return names
