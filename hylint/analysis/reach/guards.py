"""Tests of the mode: which comparisons and ``isinstance`` calls are true only eagerly or only in a trace.

Reads a test expression (``F is nd``, ``F is not mx.sym``, ``F.__name__ == 'mxnet.ndarray'``,
``isinstance(x, mx.nd.NDArray)``, their negation) and answers 'nd' (true only eagerly), 'sym' (true only
in a trace) or None. Whether a name holds F is the caller's to say (``holds_f``); a guard helper's body
is read with ``_static_mode`` (``_Package.guard_helper``), a reached function's branches by
``_Function._mode`` (body.py).
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from hylint.analysis.reach.syntax import _text
from hylint.facts.names import ND_MODULE_NAME, ND_NAMES, ND_TYPES, SYM_MODULE_NAME, SYM_NAMES, SYM_TYPES


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


def _compare_mode(test: ast.expr, holds_f: Callable[[ast.expr], bool]) -> Optional[str]:
    """The mode a comparison tests of F (``F is nd``, ``F is not mx.sym``, ``self.F is mx.nd`` where the
    attribute holds F, ``F.__name__ == 'mxnet.ndarray'``): `holds_f` says whether an expression (a name or
    an attribute) holds F."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))):
        return None
    sides = [test.left, test.comparators[0]]
    for holder, namespace in (sides, sides[::-1]):
        text = _text(namespace)
        mode = "nd" if text in ND_NAMES else "sym" if text in SYM_NAMES else None
        if mode is not None and isinstance(holder, (ast.Name, ast.Attribute)) and holds_f(holder):
            return {"nd": "sym", "sym": "nd"}[mode] if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) else mode
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
