"""A fast, read-only traversal of libcst trees for ``CSTVisitor``s.

``node.visit(visitor)`` in libcst rebuilds (and re-validates) every node of the tree even for a
read-only visitor; on real code that is most of the cost of a lint run. ``walk(node, visitor)``
calls the same ``on_visit``/``on_leave`` callbacks on the same node objects, in the same order, but
only reads the children: per node type, the child fields in the order libcst visits them are read
once from the constant pool of the type's ``_visit_and_replace_children`` (the field names it passes
to ``visit_required``/``visit_sequence``/...; first occurrence = visit order), falling back to the
dataclass field order.

Whitespace, comments and bracket/comma tokens are skipped unless the visitor has a
``visit_<Type>``/``leave_<Type>`` for one of them (or for any whitespace type) or overrides
``on_visit``/``on_leave`` itself (then nothing is skipped, unless the caller says what to skip), so
callbacks see exactly what libcst's own traversal would show them. Visitors that use per-attribute
callbacks (``visit_<Type>_<attribute>``) are handed to libcst's own traversal.
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import Dict, FrozenSet, Iterator, Tuple, Type

import libcst as cst

# Nodes that hold only whitespace, comments or punctuation (and their whitespace).
TRIVIA: FrozenSet[type] = frozenset({
    cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.TrailingWhitespace, cst.EmptyLine,
    cst.Comment, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual,
})
_TRIVIA_NAMES = frozenset(t.__name__ for t in TRIVIA)


def _subclasses(base: type) -> FrozenSet[type]:
    found, stack = set(), [base]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return frozenset(found)


# Expression nodes: no statement (import, assignment, def) is ever below one; a visitor that looks for
# statements only may skip them (TRIVIA | EXPRESSIONS)
EXPRESSIONS: FrozenSet[type] = _subclasses(cst.BaseExpression)

_FIELDS: Dict[type, Tuple[str, ...]] = {}
# visitor type -> (needs libcst's own traversal, what a traversal for it may skip); weak: rules define
# visitor classes inside functions, one per call, whose closures hold nodes of the tree being linted
# (a plain dict kept every such class, and with it parts of every tree, for the whole run)
_PROFILES: "weakref.WeakKeyDictionary[type, Tuple[bool, FrozenSet[type]]]" = weakref.WeakKeyDictionary()
_IS_NODE: Dict[type, bool] = {}


def child_fields(node_type: type) -> Tuple[str, ...]:
    """The fields of ``node_type`` that may hold child nodes, in libcst's visiting order."""
    fields = _FIELDS.get(node_type)
    if fields is None:
        names = [f.name for f in dataclasses.fields(node_type)]
        method = getattr(node_type, "_visit_and_replace_children", None)
        code = getattr(method, "__code__", None)
        ordered = []
        if code is not None:
            for const in code.co_consts:
                if isinstance(const, str) and const in names and const not in ordered:
                    ordered.append(const)
        ordered += [name for name in names if name not in ordered]
        fields = _FIELDS[node_type] = tuple(ordered)
    return fields


def _profile(visitor_type: type) -> Tuple[bool, FrozenSet[type]]:
    profile = _PROFILES.get(visitor_type)
    if profile is None:
        callbacks = list(_callbacks(visitor_type))
        needs_libcst = any(_has_attribute_suffix(name) for name in callbacks)
        overrides = any(name in vars(klass) for klass in visitor_type.__mro__
                        if klass.__module__.split(".", 1)[0] != "libcst" and klass is not object
                        for name in ("on_visit", "on_leave"))
        # a generic on_visit/on_leave may care about any node: skip nothing
        skip = frozenset() if overrides else skipped_types(frozenset(name.split("_", 1)[1] for name in callbacks))
        profile = _PROFILES[visitor_type] = (needs_libcst, skip)
    return profile


def _has_attribute_suffix(name: str) -> bool:
    """``visit_Call_func`` -> True; ``visit_Call`` / ``visit_ClassDef`` -> False."""
    rest = name.split("_", 1)[1]
    return "_" in rest and rest[0].isupper()


def _callbacks(visitor_type: type) -> Iterator[str]:
    """visit_*/leave_* methods defined by the visitor's own classes (libcst's stubs left out)."""
    for klass in visitor_type.__mro__:
        if klass.__module__.split(".", 1)[0] == "libcst" or klass is object:
            continue
        for name in vars(klass):
            if name.startswith(("visit_", "leave_")):
                yield name


def handled_types(visitor: object) -> FrozenSet[str]:
    """Node type names the visitor has a visit_/leave_ callback for."""
    return frozenset(name.split("_", 1)[1] for name in _callbacks(type(visitor)))


def skipped_types(handled: FrozenSet[str]) -> FrozenSet[type]:
    """The trivia types a traversal for these callbacks may skip (none if any is handled)."""
    return frozenset() if handled & _TRIVIA_NAMES else TRIVIA


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, skip: FrozenSet[type] = None) -> None:
    """``node.visit(visitor)`` for a read-only visitor, without rebuilding the tree."""
    needs_libcst, default_skip = _profile(type(visitor))
    if needs_libcst:
        node.visit(visitor)
        return
    if skip is None:
        skip = default_skip
    _walk(node, visitor.on_visit, visitor.on_leave, skip)


def _is_node(value_type: type) -> bool:
    known = _IS_NODE.get(value_type)
    if known is None:
        known = _IS_NODE[value_type] = issubclass(value_type, cst.CSTNode)
    return known


def _walk(node: cst.CSTNode, on_visit, on_leave, skip: FrozenSet[type]) -> None:
    if on_visit(node):
        fields = _FIELDS.get(type(node)) or child_fields(type(node))
        for name in fields:
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    item_type = type(item)
                    if item_type not in skip and (_IS_NODE.get(item_type) or _is_node(item_type)):
                        _walk(item, on_visit, on_leave, skip)
            elif value_type not in skip and (_IS_NODE.get(value_type) or _is_node(value_type)):
                _walk(value, on_visit, on_leave, skip)
    on_leave(node)


def iter_nodes(node: cst.CSTNode, skip: FrozenSet[type] = TRIVIA) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included) in visiting order, trivia skipped by default."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = []
        for name in _FIELDS.get(type(current)) or child_fields(type(current)):
            value = getattr(current, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                children.extend(item for item in value if type(item) not in skip and _is_node(type(item)))
            elif value_type not in skip and _is_node(value_type):
                children.append(value)
        stack.extend(reversed(children))
