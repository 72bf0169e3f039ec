"""Helpers reading CPython ``ast`` the way the reach needs: the statements of a function (not its
expressions), its parameters, whether an annotation is a Python scalar type, an expression's text for a
chain's label, and the attributes of self a class treats as lists.

Reads ``ast`` nodes only; answers plain names and nodes (no value, no package).
"""
from __future__ import annotations

import ast
from collections import deque
from typing import Iterable, List, Optional, Set


_STATEMENT_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _statements(node: ast.AST) -> Iterable[ast.AST]:
    """What ``ast.walk(node)`` yields, in its order, less the expressions and what is under them: an
    expression holds no statement (walking the expressions of every ``__init__`` was a fifth of the time of
    a package's reach)."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            if name in _STATEMENT_FIELDS:
                todo.extend(getattr(node, name))
        yield node


def _params(node) -> List[ast.arg]:
    args = node.args
    return list(args.posonlyargs) + list(args.args)


def _all_param_names(node) -> List[str]:
    args = node.args
    names = [a.arg for a in _params(node)] + [a.arg for a in args.kwonlyargs]
    return names + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


_SCALAR_TYPES = {"int", "float", "bool", "str"}


def _scalar_annotation(annotation: Optional[ast.expr]) -> bool:
    """``int``, ``float``, ``bool``, ``str`` or ``Optional[`` one of them ``]``."""
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) and \
            annotation.value.id == "Optional":
        annotation = annotation.slice
    return isinstance(annotation, ast.Name) and annotation.id in _SCALAR_TYPES


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 -- a label for messages, never worth failing the analysis
        return "<call>"


def _listlike_attrs(node: ast.ClassDef) -> Set[str]:
    """Attributes of self the class indexes with a variable or iterates over (`self.coeff[t]`, `for s in
    self.states`): lists of tensors, as far as the reach can tell (it does not tell them from tensors)."""
    found: Set[str] = set()
    stack = [node]  # every node under it, as ast.walk (whose generators were most of this time)
    while stack:
        sub = stack.pop()
        kind = type(sub)
        target = None
        if kind is ast.Subscript and not isinstance(sub.slice, (ast.Constant, ast.Slice, ast.Tuple)):
            target = sub.value
        elif kind is ast.For or kind is ast.comprehension:
            target = sub.iter
        if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
            found.add(target.attr)
        for name in sub._fields:
            value = getattr(sub, name)
            if type(value) is list:
                stack += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                stack.append(value)
    return found
