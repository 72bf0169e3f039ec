"""Tests of the mode: which comparisons and ``isinstance`` calls are true only eagerly or only in a trace.

Reads a test expression (``F is nd``, ``F is not mx.sym``, ``F.__name__ == 'mxnet.ndarray'``,
``isinstance(x, mx.nd.NDArray)``, their negation) and answers 'nd' (true only eagerly), 'sym' (true only
in a trace) or None. Whether a name holds F is the caller's to say (``holds_f``); a guard helper's body
is read with ``_static_mode`` (``_Package.guard_helper``), a reached function's branches by
``_Function._mode`` (body.py). Also the tests of self that a class's ``__init__`` declares true only for a
block built not to be hybridized (``declared_opt_outs``, ``opt_out_test``: ``if self.hybridizable:``).
"""
from __future__ import annotations

import ast
import re
from types import MappingProxyType
from typing import AbstractSet, Callable, Dict, FrozenSet, Mapping, Optional, Tuple

from hylint.analysis.reach.syntax import _text
from hylint.facts.names import (HYBRIDIZABLE_FLAG, ND_MODULE_NAME, ND_TYPES, SYM_MODULE_NAME, SYM_TYPES,
                                namespace_mode, negated_mode)


def _module_name_mode(holder: ast.expr, other: ast.expr, op: ast.cmpop) -> Optional[str]:
    """The mode `<holder> <op> <other>` tests when `holder` is `<name>.__name__` and `other` the namespace's
    module name as a string (None otherwise; whether `<name>` holds F is the caller's to say)."""
    if not (isinstance(holder, ast.Attribute) and holder.attr == "__name__" and isinstance(other, ast.Constant)):
        return None
    mode = "nd" if other.value == ND_MODULE_NAME else "sym" if other.value == SYM_MODULE_NAME else None
    if mode is None or not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        return None
    return {"nd": "sym", "sym": "nd"}[mode] if isinstance(op, (ast.NotEq, ast.IsNot)) else mode


def _static_mode(test: ast.expr, name: str) -> Optional[str]:
    """The mode `test` tests of the namespace held by the parameter `name` (a guard helper's body)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {"nd": "sym", "sym": "nd"}.get(_static_mode(test.operand, name) or "")
    return _compare_mode(test, lambda holder: isinstance(holder, ast.Name) and holder.id == name)


def _compare_mode(test: ast.expr, holds_f: Callable[[ast.expr], bool],
                  aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[str]:
    """The mode a comparison tests of F (``F is nd``, ``F is not mx.sym``, ``self.F is mx.nd`` where the
    attribute holds F, ``F.__name__ == 'mxnet.ndarray'``): `holds_f` says whether an expression (a name or
    an attribute) holds F; `aliases`: the module's names for mxnet (``F == _mx.sym``)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    sides = [test.left, test.comparators[0]]
    for holder, namespace in (sides, sides[::-1]):
        mode = namespace_mode(_text(namespace), aliases)
        if mode is not None and isinstance(holder, (ast.Name, ast.Attribute)) and holds_f(holder):
            return negated_mode(_text(namespace), aliases) if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) \
                else mode
        mode = _module_name_mode(holder, namespace, test.ops[0])  # `F.__name__ == 'mxnet.ndarray'`
        if mode is not None and holds_f(holder.value):
            return mode
    return None


def _isinstance_mode(test: ast.expr) -> Optional[str]:
    """'nd' when ``test`` is true only eagerly (``isinstance(x, mx.nd.NDArray)``, ``not isinstance(x,
    mx.sym.Symbol)``), 'sym' when only in a trace, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {"nd": "sym", "sym": "nd"}.get(_isinstance_mode(test.operand) or "")
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    names = {kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "") for kind in kinds}
    if names and names <= ND_TYPES:
        return "nd"
    if names and names <= SYM_TYPES:
        return "sym"
    return None


def declared_opt_outs(init: Optional[ast.AST]) -> FrozenSet[Tuple[str, str]]:
    """What a class's ``__init__`` declares true only of a block built not to be hybridized, as
    analysis/guards.py's ``declared_opt_outs`` reads it (there on libcst, here on CPython ``ast``):
    ``("not", attr)`` for a ``hybridizable``-like switch kept on self and for an option asserted with it
    (``assert (use_nms or not hybridizable)``), ``("is None", attr)`` for ``assert (size is not None) or
    not hybridizable``."""
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return frozenset()
    kept: Dict[str, str] = {}  # parameter -> attribute of self
    switches = set()
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) \
                and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "self":
            attr = stmt.targets[0].attr
            if isinstance(stmt.value, ast.Name):
                kept[stmt.value.id] = attr
            if re.fullmatch(HYBRIDIZABLE_FLAG, attr):
                switches.add(attr)
    found = {("not", attr) for attr in switches}
    asserted = [s.test for s in init.body if isinstance(s, ast.Assert) and isinstance(s.test, ast.BoolOp)
                and isinstance(s.test.op, ast.Or) and len(s.test.values) == 2]
    for first, second in ((a, b) for test in asserted for a, b in (test.values, test.values[::-1])):
        negated = second.operand if isinstance(second, ast.UnaryOp) and isinstance(second.op, ast.Not) else None
        if not (isinstance(negated, ast.Name) and kept.get(negated.id) in switches):
            continue
        if isinstance(first, ast.Name) and first.id in kept:
            found.add(("not", kept[first.id]))
        elif isinstance(first, ast.Compare) and isinstance(first.left, ast.Name) and first.left.id in kept and \
                [type(op) for op in first.ops] == [ast.IsNot] and _text(first.comparators[0]) == "None":
            found.add(("is None", kept[first.left.id]))
    return frozenset(found)


def opt_out_test(test: ast.expr, declared: AbstractSet[Tuple[str, str]]) -> Optional[bool]:
    """True when ``test`` holds only for a block built not to be hybridized (``declared_opt_outs``), False
    when its negation does (``if self.hybridizable: return y``), else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = opt_out_test(test.operand, declared)
        return None if inner is None else not inner
    text = _text(test)
    if text.startswith("self.") and text.count(".") == 1 and ("not", text[5:]) in declared:
        return False
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _text(test.comparators[0]) == "None":
        subject = _text(test.left)
        if subject.startswith("self.") and ("is None", subject[5:]) in declared:
            return {ast.Is: True, ast.IsNot: False}.get(type(test.ops[0]))
    return None
