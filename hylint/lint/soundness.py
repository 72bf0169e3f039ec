"""The one place that decides whether a fix is safe: a rule states the facts its rewrite relies on
(``PendingFix.relies_on``), the analysis answers each from evidence in the code, and a fix marked safe
stays safe only when every fact is proven. Otherwise it becomes unsafe, and ``why_unsafe`` names the
assumption (ruff's promise: a safe fix never changes what working code computes).

A proof that a compound expression is a tensor rests on its parts (`y * gamma.reshape(1, -1, 1)` is an
NDArray because `y` or `gamma` is one): those parts' facts are checked and recorded too (``grounds``), so
that what a fix relies on is stated down to the names it reads, and a part only assumed a tensor (an indexed
argument's `h.reshape(...)`) leaves the fix unsafe."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, List, Optional, Tuple

import libcst as cst

from hylint.analysis.values import Kind, Value, is_proven_tensor, why_not_proven
from hylint.diagnostic import Applicability, FactCheck
from hylint.rule import Fact, PendingFix, Reliance

PROOF = {
    Fact.TENSOR: "an operator's result, a declared Parameter, or an argument the code uses as a tensor",
    Fact.TENSOR_OR_NUMBER: "a tensor or a Python number by the analysis",
    Fact.NDARRAY: "an operator's result, a block's output, or an argument the code uses as a tensor",
    Fact.RANK: "the shape evidence of the analysis",
    Fact.RANK_ABOVE: "the shape evidence of the analysis",
    Fact.UNALIASED: "every binding is a new array, read before the write only where no reference is kept",
}
DOUBT = {Fact.TENSOR: "may not be a tensor", Fact.TENSOR_OR_NUMBER: "may be a list or a NumPy array",
         Fact.NDARRAY: "may be a NumPy array", Fact.RANK: "may have another rank",
         Fact.RANK_ABOVE: "may have no batch axis", Fact.UNALIASED: "may be aliased"}  # what an unproven fact leaves open
LABEL = {Fact.RANK: "rank {}", Fact.RANK_ABOVE: "rank above {}"}  # a fact with a rank, as hylint's JSON names it


def holds(fact: Fact, value: Value, rank: Optional[int] = None, against: Optional[str] = None) -> Tuple[bool, str]:
    """Whether the analysis proves ``fact`` of ``value``, and the evidence (or what is missing); ``against``:
    what the rule's reading found against a fact of the code around the node (Fact.UNALIASED)."""
    if fact is Fact.UNALIASED:
        return (False, against) if against else (True, PROOF[fact])
    if fact is Fact.RANK:
        if not is_proven_tensor(value):
            return False, why_not_proven(value)
        if value.shape.rank != rank:
            return False, f"its rank is {'unknown' if value.shape.rank is None else value.shape.rank}"
        return True, value.shape.why or PROOF[fact]
    if fact is Fact.RANK_ABOVE:  # of the rank only (whether it is a tensor is Fact.TENSOR's question)
        if value.kind is not Kind.TENSOR:
            return False, why_not_proven(value)
        if value.shape.rank is None or value.shape.rank <= rank:
            known = "unknown" if value.shape.rank is None else value.shape.rank
            return False, f"its rank is {known}"
        return True, value.shape.why or PROOF[fact]
    if fact is Fact.TENSOR:
        if is_proven_tensor(value):
            return True, value.shape.why or PROOF[fact]
        return False, why_not_proven(value)
    if fact is Fact.TENSOR_OR_NUMBER:
        # a tensor on any evidence but an assumption (`1 - lam` proves a number or a tensor), or a scalar
        if value.kind is Kind.TENSOR and value.certain and not value.assumed or value.kind is Kind.PY and not value.elements:
            return True, value.unproven or PROOF[fact]
        return False, why_not_proven(value)
    if fact is Fact.NDARRAY:
        if is_proven_tensor(value) or value.kind is Kind.CHILD:
            return True, value.shape.why or PROOF[fact]
        return False, why_not_proven(value)
    raise ValueError(f"unknown fact {fact!r}")


def grounds(node: cst.CSTNode, value_of: Callable[[cst.CSTNode], Value]) -> List[cst.CSTNode]:
    """The parts of ``node`` that the analysis's proof that it is a tensor rests on: the operands of an
    operator that are proven tensors (an NDArray operand makes the result an NDArray; all of its tensor operands
    when none is proven), the operand of a unary operator, the receiver of a tensor method (`gamma.reshape(...)`
    is a tensor because `gamma` is); none for an `F.<op>(...)` result, a name, an attribute or an index."""
    if isinstance(node, cst.BinaryOperation):
        parts = [part for part in (node.left, node.right) if value_of(part).kind is Kind.TENSOR]
        return [part for part in parts if is_proven_tensor(value_of(part))] or parts
    if isinstance(node, cst.UnaryOperation) and value_of(node.expression).kind is Kind.TENSOR:
        return [node.expression]
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            value_of(node.func.value).kind is Kind.TENSOR:
        return [node.func.value]
    return []


def settle(fix: PendingFix, value_of: Callable[[cst.CSTNode], Value],
           code_of: Callable[[cst.CSTNode], str]) -> PendingFix:
    """``fix`` with its applicability decided by its facts, and the facts as answered (``checked``)."""
    checks: List[FactCheck] = []
    missing: List[str] = []
    stated = list(fix.relies_on)
    while stated:
        reliance = stated.pop(0)
        node, fact_kind = reliance.node, reliance.fact
        proven, evidence = holds(fact_kind, value_of(node), reliance.rank, reliance.against)
        if not proven and reliance.otherwise:
            evidence = f"{evidence}; {reliance.otherwise}"
        expression = code_of(node).strip()
        fact = LABEL[fact_kind].format(reliance.rank) if fact_kind in LABEL else fact_kind.value
        check = FactCheck(expression, fact, proven, evidence)
        if check in checks:
            continue
        checks.append(check)
        if not proven:
            missing.append(f"`{expression}` {reliance.doubt or DOUBT[fact_kind]}: {evidence}")
        elif fact_kind is Fact.TENSOR:
            stated.extend(Reliance(part, Fact.TENSOR) for part in grounds(node, value_of))
    fix = replace(fix, checked=tuple(checks))
    if missing and fix.applicability is Applicability.SAFE:
        why = "; ".join(dict.fromkeys(missing))
        fix = replace(fix, applicability=Applicability.UNSAFE,
                      why_unsafe=f"{fix.why_unsafe}; {why}" if fix.why_unsafe else why)
    return fix
