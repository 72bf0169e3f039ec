"""A check kept for eager calls only: an assert that reads what a Symbol lacks (HY201's unsafe fix), or a
check on a tensor (HY802's: ``assert c`` and ``if c: raise``), behind an eager-only guard.

``assert x.shape[2] % 32 == 0`` in ``hybrid_forward`` raises AttributeError when traced. Measured on MXNet
1.9.1 (the measured shape-free rewrites, and fixtures/HY201_3 on every run): ``if F is mx.nd:`` is
true eagerly (F is the ``mxnet.ndarray`` module, also in numpy mode) and false when traced, so

    if F is mx.nd: assert x.shape[2] % 32 == 0

runs the check on every eager call and never in the trace. The check is then dropped from the hybridized
block: a bad input that failed the assert eagerly passes silently. Hence unsafe.

The guard names MXNet's ndarray module through a binding the module already has (``import mxnet as mx``,
``import mxnet``, ``from mxnet import nd``/``ndarray``): a form hylint's guard analysis knows
(analysis/guards.py), so the guarded assert is not flagged again. The binding's name must also be used in the
hybrid function itself: then it is a word of the code the reduced parse keeps (lint/regions.py) and the
fix is offered the same way in both parses.

``if c: raise ...`` becomes ``if F is mx.nd and c: raise ...`` (``eager_only_condition``): ``and`` does not
evaluate ``c`` when ``F`` is the symbol module (measured on MXNet 1.9.1 by fixtures/HY802_2, and on gluonts'
``jitter_cholesky``).

Used by HY201 (rules/ndarray_only_attribute.py) and HY802 (rules/tensor_truth_value.py). Rests on (MXNet 1.9.1): mxnet-truth shape-free.md, the row
"`assert x.shape[2] % 32 == 0` in `hybrid_forward`" (the guard runs 2x eagerly, 0x traced; a bad input
is refused eagerly and passes hybridized); tests/repairs/test_eager_guard_mxnet.py and fixtures/HY201_3.
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from hylint.analysis.guards import ND_NAMES
from hylint.syntax.imports import top_level_imports
from hylint.syntax.nodes import bound_names, param_names
from hylint.syntax.walk import walk

_STOP = (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Lambda, cst.BaseComp)


def enclosing_assert(node: cst.CSTNode, parents: Dict[cst.CSTNode, cst.CSTNode]) -> Optional[cst.Assert]:
    """The assert statement ``node`` is part of, if any (not through a lambda or comprehension)."""
    current = parents.get(node)
    while current is not None and not isinstance(current, _STOP):
        current = parents.get(current)
    return current if isinstance(current, cst.Assert) else None


def _nd_names(module: cst.Module):
    """How the module's top-level imports name MXNet's ndarray module, in the forms guards.py knows."""
    for source, name, local in top_level_imports(module):
        if source == "mxnet" and name is None:
            yield (local or "mxnet") + ".nd"
        elif source == "mxnet" and name in ("nd", "ndarray"):
            yield local


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def eager_guard(assert_node: cst.Assert, parents: Dict[cst.CSTNode, cst.CSTNode], ctx) -> Optional[str]:
    """The guarded assert's text (``if F is mx.nd: assert ...``), or None when its conditions do not hold:
    the assert alone on its line (no semicolon), and an ndarray binding the hybrid function also uses."""
    line = parents.get(assert_node)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
            not isinstance(assert_node.semicolon, cst.MaybeSentinel):
        return None
    test = eager_test(ctx)
    return None if test is None else f"if {test}: {ctx.code(assert_node).strip()}"


# the tests `and` binds tighter than, which keep their meaning as its right operand without parentheses
_TIGHTER = (cst.Comparison, cst.Call, cst.Name, cst.Attribute, cst.Subscript, cst.UnaryOperation, cst.BinaryOperation)


def eager_only_condition(test: cst.BaseExpression, ctx) -> Optional[str]:
    """``F is mx.nd and <test>``: true exactly when ``test`` is, eagerly, and never evaluated when traced
    (``and`` does not evaluate its right operand when the left is false); None as for ``eager_guard``."""
    guard = eager_test(ctx)
    if guard is None:
        return None
    code = ctx.code(test).strip()
    bare = isinstance(test, _TIGHTER) or test.lpar  # else `F is nd and (a or b)`: `or` binds looser than `and`
    return f"{guard} and {code}" if bare else f"{guard} and ({code})"


def eager_test(ctx) -> Optional[str]:
    """``F is mx.nd`` with the ndarray binding of the module that the hybrid function also uses, else None."""
    fn = ctx.function
    if fn is None:
        return None
    used = _Names()
    walk(fn.body, used)
    local = bound_names(fn) | {p.name.value for p in param_names(fn)} | \
        {p.name.value for p in fn.params.kwonly_params}
    for name in _nd_names(ctx.module):
        root = name.split(".", 1)[0]
        if name in ND_NAMES and root in used.names and root not in local:
            return f"{ctx.f_name} is {name}"
    return None
