"""Mode guards: regions of a hybrid function that run only eagerly (``if F is nd:``) or only
hybridized, and functions that opt out of hybridization (``if F is sym: raise``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name

ND_NAMES = {"nd", "ndarray", "mx.nd", "mx.ndarray", "mxnet.nd", "mxnet.ndarray"}
SYM_NAMES = {"sym", "symbol", "mx.sym", "mx.symbol", "mxnet.sym", "mxnet.symbol"}
ND_TYPES = {"NDArray"}
SYM_TYPES = {"Symbol"}


def guard_mode(test: cst.BaseExpression, f_name: str) -> Optional[str]:
    """'nd' when ``test`` is true only eagerly, 'sym' when only hybridized, else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = guard_mode(test.expression, f_name)
        return {"nd": "sym", "sym": "nd"}.get(inner or "")
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left = dotted_name(test.left)
        comparison = test.comparisons[0]
        right = dotted_name(comparison.comparator)
        if left != f_name and right == f_name:
            left, right = right, left
        if left == f_name and right is not None:
            mode = "nd" if right in ND_NAMES else "sym" if right in SYM_NAMES else None
            if mode is None:
                return None
            if isinstance(comparison.operator, (cst.IsNot, cst.NotEqual)):
                return {"nd": "sym", "sym": "nd"}[mode]
            if isinstance(comparison.operator, (cst.Is, cst.Equal)):
                return mode
        return None
    if isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2:
        type_names = []
        type_node = test.args[1].value
        nodes = [e.value for e in type_node.elements] if isinstance(type_node, cst.Tuple) else [type_node]
        for node in nodes:
            name = dotted_name(node)
            if name:
                type_names.append(name.rsplit(".", 1)[-1])
        if type_names and all(t in ND_TYPES for t in type_names):
            return "nd"
        if type_names and all(t in SYM_TYPES for t in type_names):
            return "sym"
    return None


def ends_control_flow(block: cst.BaseSuite) -> Optional[str]:
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if not body:
        return None
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        last = last.body[-1]
    if isinstance(last, cst.Raise):
        return "raise"
    if isinstance(last, cst.Return):
        return "return"
    return None



@dataclass
class GuardRegion:
    node: cst.CSTNode  # the If statement
    mode: str  # 'nd' or 'sym'



PYTHON_CONTAINERS = {"list", "tuple", "dict", "List", "Tuple", "Dict", "Sequence", "Mapping"}


def python_container_test(test: cst.BaseExpression) -> Optional[str]:
    """The name ``test`` proves a Python container (``isinstance(x, (list, tuple))``), else None."""
    if not (isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2):
        return None
    subject = test.args[0].value
    type_node = test.args[1].value
    nodes = [e.value for e in type_node.elements] if isinstance(type_node, cst.Tuple) else [type_node]
    names = [(dotted_name(n) or "").rsplit(".", 1)[-1] for n in nodes]
    if isinstance(subject, cst.Name) and names and all(n in PYTHON_CONTAINERS for n in names):
        return subject.value
    return None
