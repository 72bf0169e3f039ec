"""The one place that decides whether a fix is safe: a rule states the facts its rewrite relies on
(``PendingFix.relies_on``), the analysis answers each from evidence in the code, and a fix marked safe
stays safe only when every fact is proven. Otherwise it becomes unsafe, and ``why_unsafe`` names the
assumption (ruff's promise: a safe fix never changes what working code computes)."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, List, Optional, Tuple

import libcst as cst

from hylint.analysis.values import Kind, Value, is_proven_tensor, why_not_proven
from hylint.diagnostic import Applicability, FactCheck
from hylint.rule import Fact, PendingFix

PROOF = {
    Fact.TENSOR: "an operator's result, a declared Parameter, or an argument the code uses as a tensor",
    Fact.NOT_LIST: "a tensor or a Python number by the analysis",
    Fact.NDARRAY: "an operator's result, a block's output, or an argument the code uses as a tensor",
    Fact.RANK: "the shape evidence of the analysis",
    Fact.RANK_ABOVE: "the shape evidence of the analysis",
}
DOUBT = {Fact.TENSOR: "may not be a tensor", Fact.NOT_LIST: "may be a list", Fact.NDARRAY: "may be a NumPy array",
         Fact.RANK: "may have another rank", Fact.RANK_ABOVE: "may have no batch axis"}  # what an unproven fact leaves open
LABEL = {Fact.RANK: "rank {}", Fact.RANK_ABOVE: "rank above {}"}  # a fact with a rank, as hylint's JSON names it


def holds(fact: Fact, value: Value, rank: Optional[int] = None) -> Tuple[bool, str]:
    """Whether the analysis proves ``fact`` of ``value``, and the evidence (or what is missing)."""
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
            return False, (f"its rank is {known}; with rank {rank} the operator needs no broadcast and the code "
                           f"hybridizes as written")
        return True, value.shape.why or PROOF[fact]
    if fact is Fact.TENSOR:
        if is_proven_tensor(value):
            return True, value.shape.why or PROOF[fact]
        return False, why_not_proven(value)
    if fact is Fact.NOT_LIST:
        # a tensor on any evidence but an assumption (`1 - lam` proves a number or a tensor), or a scalar
        if value.kind is Kind.TENSOR and value.certain and not value.assumed or value.kind is Kind.PY and not value.elements:
            return True, value.unproven or PROOF[fact]
        return False, why_not_proven(value)
    if fact is Fact.NDARRAY:
        if is_proven_tensor(value) or value.kind is Kind.CHILD:
            return True, value.shape.why or PROOF[fact]
        return False, why_not_proven(value)
    raise ValueError(f"unknown fact {fact!r}")


def settle(fix: PendingFix, value_of: Callable[[cst.CSTNode], Value],
           code_of: Callable[[cst.CSTNode], str]) -> PendingFix:
    """``fix`` with its applicability decided by its facts, and the facts as answered (``checked``)."""
    checks: List[FactCheck] = []
    missing: List[str] = []
    for reliance in fix.relies_on:
        proven, evidence = holds(reliance.fact, value_of(reliance.node), reliance.rank)
        expression = code_of(reliance.node).strip()
        fact = LABEL[reliance.fact].format(reliance.rank) if reliance.fact in LABEL else reliance.fact.value
        checks.append(FactCheck(expression, fact, proven, evidence))
        if not proven:
            missing.append(f"`{expression}` {DOUBT[reliance.fact]}: {evidence}")
    fix = replace(fix, checked=tuple(checks))
    if missing and fix.applicability is Applicability.SAFE:
        why = "; ".join(dict.fromkeys(missing))
        fix = replace(fix, applicability=Applicability.UNSAFE,
                      why_unsafe=f"{fix.why_unsafe}; {why}" if fix.why_unsafe else why)
    return fix
