"""Shared by the two tensor-tensor operator rules (HY101, HY102): finding the operands and the fix."""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from hylint.analysis.values import Kind, Value
from hylint.diagnostic import Applicability
from hylint.facts.operators import BROADCAST
from hylint.syntax.rewrite import f_call
from hylint.rule import Fact, PendingFix, Reliance, replace

OPERATOR_SYMBOLS = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.Modulo: "%", cst.Power: "**",
    cst.Equal: "==", cst.NotEqual: "!=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
    cst.LessThan: "<", cst.LessThanEqual: "<=",
}


def extra_input(value: Value, ctx) -> Optional[str]:
    """The name of the block input ``value`` is, when it is an input other than the first data argument
    (a mask, a floor: its shape is the caller's choice), else None. A helper's parameters are not inputs
    of the block: they hold what the caller passed."""
    hybrid = ctx.hybrid
    if hybrid is None or hybrid.is_helper or value.name is None or value.shape.root != value.name:
        return None
    param = hybrid.params.get(value.name)
    if param is None or param.kind is not Kind.TENSOR or value.name == hybrid.first_data_param:
        return None
    return value.name


def is_tensor_operand(value: Value) -> bool:
    return value.kind in (Kind.TENSOR, Kind.CHILD)


def tensor_pairs(node: cst.CSTNode, ctx) -> Iterator[Tuple[str, cst.BaseExpression, cst.BaseExpression, Value, Value]]:
    """(symbol, left, right, left value, right value) for each tensor-tensor operator of ``node``."""
    if isinstance(node, cst.BinaryOperation):
        symbol = OPERATOR_SYMBOLS.get(type(node.operator))
        if symbol is None:
            return
        left, right = ctx.value(node.left), ctx.value(node.right)
        if is_tensor_operand(left) and is_tensor_operand(right) and Kind.TENSOR in (left.kind, right.kind):
            yield symbol, node.left, node.right, left, right
    elif isinstance(node, cst.Comparison):
        previous = node.left
        for comparison in node.comparisons:
            symbol = OPERATOR_SYMBOLS.get(type(comparison.operator))
            if symbol is not None:
                left, right = ctx.value(previous), ctx.value(comparison.comparator)
                if is_tensor_operand(left) and is_tensor_operand(right) and Kind.TENSOR in (left.kind, right.kind):
                    yield symbol, previous, comparison.comparator, left, right
            previous = comparison.comparator


def describe(node: cst.BaseExpression, ctx) -> str:
    code = " ".join(ctx.code(node).split())
    return code if len(code) <= 40 else code[:37] + "..."


def broadcast_fix(node: cst.CSTNode, ctx) -> Optional[PendingFix]:
    """``a + b`` -> ``F.broadcast_add(a, b)``: exact, since NDArray operators broadcast already."""
    if isinstance(node, cst.BinaryOperation):
        symbol = OPERATOR_SYMBOLS[type(node.operator)]
        between = (node.operator.whitespace_before, node.operator.whitespace_after)
        left, right = node.left, node.right
    elif isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        comparison = node.comparisons[0]
        symbol = OPERATOR_SYMBOLS.get(type(comparison.operator))
        if symbol is None:
            return None
        between = (comparison.operator.whitespace_before, comparison.operator.whitespace_after)
        left, right = node.left, comparison.comparator
    else:
        return None
    op = BROADCAST[symbol]
    call = f_call(ctx.f_name, op, [left, right], between=between)
    # exact only on two tensors: `F.broadcast_mul` refuses the Python number `*` takes (`lam * loss`)
    return PendingFix(Applicability.SAFE, f"Replace `{symbol}` with `{ctx.f_name}.{op}`",
                      [replace(node, call)],  # (the span leaves the node's own parentheses in place)
                      relies_on=[Reliance(left, Fact.TENSOR), Reliance(right, Fact.TENSOR)])
