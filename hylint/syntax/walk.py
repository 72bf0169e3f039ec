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
import sys
import typing
import weakref
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

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
# visitor type -> (needs libcst's own traversal, what a traversal for it may skip, its callbacks by node
# type when libcst's generic on_visit/on_leave would only look them up by name, else None); weak: rules
# define visitor classes inside functions, one per call, whose closures hold nodes of the tree being
# linted (a plain dict kept every such class, and with it parts of every tree, for the whole run)
_PROFILES: "weakref.WeakKeyDictionary[type, _Profile]" = weakref.WeakKeyDictionary()
_IS_NODE: Dict[type, bool] = {}
# node types with nothing but trivia below them (Name, Integer, operators): computed on first use
_LEAVES: Optional[FrozenSet[type]] = None
_SKIPPED: Dict[FrozenSet[str], FrozenSet[type]] = {}  # handled type names -> what a traversal skips
# skip set -> node type -> the child fields that can hold a node a traversal with that skip set visits
_PRUNED: Dict[FrozenSet[type], Dict[type, Tuple[str, ...]]] = {}


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


def _field_node_types(node_type: type) -> Optional[Dict[str, FrozenSet[type]]]:
    """Per field, the concrete node types its annotation allows (None: an annotation not understood)."""
    try:
        hints = typing.get_type_hints(node_type)
    except Exception:  # pragma: no cover - an annotation libcst's own module cannot resolve
        return None
    allowed: Dict[str, FrozenSet[type]] = {}
    for name in child_fields(node_type):
        found: set = set()
        stack = [hints.get(name, cst.CSTNode)]
        while stack:
            hint = stack.pop()
            args = typing.get_args(hint)
            if typing.get_origin(hint) is typing.Literal:
                continue
            if args:  # Sequence[X], Optional[X], Union[X, Y]
                stack.extend(args)
            elif isinstance(hint, type) and issubclass(hint, cst.CSTNode):
                found.update(t for t in (hint, *_subclasses(hint)) if _instantiable(t))
            elif isinstance(hint, type) or hint is type(None):
                continue  # str, MaybeSentinel, None
            else:
                return None  # a forward reference or anything else: no pruning for this type
        allowed[name] = frozenset(found)
    return allowed


def _instantiable(node_type: type) -> bool:
    """Not abstract, and the class its module exports: libcst's ``add_slots`` rebuilds each node class, so
    ``__subclasses__()`` also lists the originals, which no parse ever instantiates."""
    module = sys.modules.get(node_type.__module__)
    return not getattr(node_type, "__abstractmethods__", None) and \
        getattr(module, node_type.__name__, None) is node_type


def pruned_fields(node_type: type, skip: FrozenSet[type]) -> Tuple[str, ...]:
    """``child_fields`` of ``node_type`` without the fields whose annotation admits only skipped node types
    (or none at all): ``lpar``, ``whitespace_*``, ``comma``, ``Name.value``. The values read are the same
    nodes; the traversal just does not look where none can be."""
    table = _PRUNED.setdefault(skip, {})
    fields = table.get(node_type)
    if fields is None:
        allowed = _field_node_types(node_type)
        fields = child_fields(node_type) if allowed is None else tuple(
            name for name in child_fields(node_type) if any(t not in skip for t in allowed[name]))
        table[node_type] = fields
    return fields


_Callbacks = Tuple[Tuple[type, str], ...]
_Profile = Tuple[bool, FrozenSet[type], Optional[Tuple[_Callbacks, _Callbacks]]]


def _profile(visitor_type: type) -> _Profile:
    profile = _PROFILES.get(visitor_type)
    if profile is None:
        callbacks = list(_callbacks(visitor_type))
        needs_libcst = any(_has_attribute_suffix(name) for name in callbacks)
        overrides = any(name in vars(klass) for klass in visitor_type.__mro__
                        if klass.__module__.split(".", 1)[0] != "libcst" and klass is not object
                        for name in ("on_visit", "on_leave"))
        # a generic on_visit/on_leave may care about any node: skip nothing
        skip = frozenset() if overrides else skipped_types(frozenset(name.split("_", 1)[1] for name in callbacks))
        typed = None if overrides or needs_libcst else _typed_callbacks(callbacks)
        profile = _PROFILES[visitor_type] = (needs_libcst, skip, typed)
    return profile


def _typed_callbacks(callbacks: Sequence[str]) -> Optional[Tuple[_Callbacks, _Callbacks]]:
    """((node type, visit method name), ...), ((node type, leave method name), ...): what libcst's
    ``on_visit``/``on_leave`` would find by ``visit_<type name>``; None when a name is not a node type
    libcst exports (then the traversal asks libcst's callbacks)."""
    tables: Tuple[List[Tuple[type, str]], List[Tuple[type, str]]] = ([], [])
    for name in dict.fromkeys(callbacks):
        kind, type_name = name.split("_", 1)
        node_type = getattr(cst, type_name, None)
        if not (isinstance(node_type, type) and issubclass(node_type, cst.CSTNode)):
            return None
        tables[kind == "leave"].append((node_type, name))
    return tuple(tables[0]), tuple(tables[1])


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
    """The types a traversal for these callbacks may skip: the trivia (none if any is handled), and the
    leaves it has no callback for (``Name``, ``Integer``, operators: nothing but trivia below them)."""
    if handled & _TRIVIA_NAMES:
        return frozenset()
    skip = _SKIPPED.get(handled)
    if skip is None:
        global _LEAVES
        if _LEAVES is None:
            _LEAVES = frozenset(node_type for node_type in _subclasses(cst.CSTNode) if node_type not in TRIVIA
                                and _instantiable(node_type) and not pruned_fields(node_type, TRIVIA))
        skip = _SKIPPED[handled] = TRIVIA | frozenset(leaf for leaf in _LEAVES if leaf.__name__ not in handled)
    return skip


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, skip: FrozenSet[type] = None) -> None:
    """``node.visit(visitor)`` for a read-only visitor, without rebuilding the tree."""
    needs_libcst, default_skip, typed = _profile(type(visitor))
    if needs_libcst:
        node.visit(visitor)
        return
    if skip is None:
        skip = default_skip
    if typed is not None:
        # libcst's on_visit/on_leave would look `visit_<type>` up by name on every node: call the
        # visitor's own callbacks directly, by node type
        visits = {node_type: getattr(visitor, name) for node_type, name in typed[0]}
        leaves = {node_type: getattr(visitor, name) for node_type, name in typed[1]}
        _walk_typed(node, visits, leaves, skip, _PRUNED.setdefault(skip, {}))
        return
    _walk(node, visitor.on_visit, visitor.on_leave, skip, _PRUNED.setdefault(skip, {}))


def walk_types(node: cst.CSTNode, visits: Dict[type, Callable], leaves: Dict[type, Callable],
               skip: FrozenSet[type]) -> None:
    """Call ``visits[type(n)](n)`` as the traversal enters each node ``n`` of a type it has, and ``leaves[...]``
    as it leaves it, in libcst's order, without ``skip``; a visit returning False leaves the children out."""
    _walk_typed(node, visits, leaves, skip, _PRUNED.setdefault(skip, {}))


def _is_node(value_type: type) -> bool:
    known = _IS_NODE.get(value_type)
    if known is None:
        known = _IS_NODE[value_type] = issubclass(value_type, cst.CSTNode)
    return known


def _walk(node: cst.CSTNode, on_visit, on_leave, skip: FrozenSet[type], fields_of: Dict[type, Tuple[str, ...]]) -> None:
    if on_visit(node):
        node_type = type(node)
        fields = fields_of.get(node_type)
        if fields is None:
            fields = pruned_fields(node_type, skip)
        for name in fields:
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    item_type = type(item)
                    if item_type not in skip and (_IS_NODE.get(item_type) or item_type not in _IS_NODE and _is_node(item_type)):
                        _walk(item, on_visit, on_leave, skip, fields_of)
            elif value_type not in skip and (_IS_NODE.get(value_type) or value_type not in _IS_NODE and _is_node(value_type)):
                _walk(value, on_visit, on_leave, skip, fields_of)
    on_leave(node)


def _walk_typed(node: cst.CSTNode, visits: Dict[type, Callable], leaves: Dict[type, Callable],
                skip: FrozenSet[type], fields_of: Dict[type, Tuple[str, ...]]) -> None:
    """``_walk`` with libcst's ``CSTVisitor.on_visit``/``on_leave`` semantics: a visit callback returning
    False leaves the children out; the leave callback is called either way. (The loop over the children
    is ``_walk``'s, written out again: a shared generator or callback would cost a call per node, on the
    hottest path of a run.)"""
    node_type = type(node)
    visit = visits.get(node_type)
    if visit is None or visit(node) is not False:
        fields = fields_of.get(node_type)
        if fields is None:
            fields = pruned_fields(node_type, skip)
        for name in fields:
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    item_type = type(item)
                    if item_type not in skip and (_IS_NODE.get(item_type) or item_type not in _IS_NODE and _is_node(item_type)):
                        _walk_typed(item, visits, leaves, skip, fields_of)
            elif value_type not in skip and (_IS_NODE.get(value_type) or value_type not in _IS_NODE and _is_node(value_type)):
                _walk_typed(value, visits, leaves, skip, fields_of)
    leave = leaves.get(node_type)
    if leave is not None:
        leave(node)


def iter_nodes(node: cst.CSTNode, skip: FrozenSet[type] = TRIVIA) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included) in visiting order, trivia skipped by default."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = []
        for name in pruned_fields(type(current), skip):
            value = getattr(current, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                children.extend(item for item in value if type(item) not in skip and _is_node(type(item)))
            elif value_type not in skip and _is_node(value_type):
                children.append(value)
        stack.extend(reversed(children))


def parents(root: cst.CSTNode, skip: FrozenSet[type] = TRIVIA) -> Dict[cst.CSTNode, cst.CSTNode]:
    """node -> its parent, for every node under ``root`` (trivia skipped by default), in visiting order: what
    a visitor keeping a stack of the nodes it is in records, without its two calls per node."""
    found: Dict[cst.CSTNode, cst.CSTNode] = {}
    _parents(root, found, skip, _PRUNED.setdefault(skip, {}))
    return found


def _parents(node: cst.CSTNode, found: Dict[cst.CSTNode, cst.CSTNode], skip: FrozenSet[type],
             fields_of: Dict[type, Tuple[str, ...]]) -> None:
    node_type = type(node)
    fields = fields_of.get(node_type)
    if fields is None:
        fields = pruned_fields(node_type, skip)
    for name in fields:
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            for item in value:
                item_type = type(item)
                if item_type not in skip and (_IS_NODE.get(item_type) or item_type not in _IS_NODE and _is_node(item_type)):
                    found[item] = node
                    _parents(item, found, skip, fields_of)
        elif value_type not in skip and (_IS_NODE.get(value_type) or value_type not in _IS_NODE and _is_node(value_type)):
            found[value] = node
            _parents(value, found, skip, fields_of)
