"""One diagnostic per root cause: the reports that follow from a statement where a hybrid function leaves
the graph are dropped, and the root's message says so."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Tuple

import libcst as cst

from hylint.analysis.interpreter import HybridContext
from hylint.lint.dispatch import _Report


def _collapse_cascades(reports: List[_Report]) -> List[_Report]:
    """One diagnostic per root cause: where a hybrid function leaves the graph (``.asnumpy()``,
    ``x.shape``, a Python loop over rows) and a rule reports there, hybridize() fails at that statement,
    so the diagnostics of the statements after it are consequences; they are dropped and the root's
    message says so."""
    by_context: Dict[HybridContext, List[Tuple[_Report, int]]] = defaultdict(list)
    for report in reports:
        hybrid = report.hybrid
        if hybrid is None or not hybrid.graph_exits:
            continue
        stmt = hybrid.statement_of(report.node)
        if stmt is not None:
            by_context[hybrid].append((report, hybrid.statement_order[stmt]))
    if not by_context:
        return reports
    dropped: set = set()
    roots: Dict[HybridContext, int] = {}
    for hybrid, located in by_context.items():
        reported = {order for _, order in located}
        exits = sorted(hybrid.statement_order[s] for s in map(hybrid.statement_of, hybrid.graph_exits) if s is not None)
        root = next((order for order in exits if order in reported), None)
        if root is not None:
            roots[hybrid] = root
    later_count: Dict[HybridContext, int] = defaultdict(int)
    for report in reports:
        hybrid = report.hybrid
        if hybrid is None:
            continue
        owner, order = _root_owner(hybrid, report.node, roots)
        if owner is not None and order > roots[owner]:
            dropped.add(id(report))
            later_count[owner] += 1
    for report in reports:
        hybrid = report.hybrid
        if hybrid in roots and id(report) not in dropped:
            stmt = hybrid.statement_of(report.node)
            if stmt is not None and hybrid.statement_order[stmt] == roots[hybrid]:
                name = hybrid.fn.name.value
                count = later_count[hybrid]
                report.message += (f"; `{name}` leaves the graph here, so the block cannot hybridize"
                                   + (f" ({count} later diagnostic{'s follow' if count > 1 else ' follows'} from it, "
                                      f"not shown)" if count else ""))
    return [report for report in reports if id(report) not in dropped]


def _root_owner(hybrid: HybridContext, node: cst.CSTNode, roots: Dict[HybridContext, int],
                depth: int = 0) -> Tuple[Optional[HybridContext], int]:
    """The function whose root cause ``node`` may follow from, with the order of the statement holding
    it there: the function itself, or (for a helper reached only through calls) the caller."""
    stmt = hybrid.statement_of(node)
    if stmt is None:
        return None, -1
    if depth <= 3 and hybrid.callers:
        owners = {_root_owner(caller, call, roots, depth + 1) for caller, call in hybrid.callers}
        if len(owners) == 1:
            owner, order = owners.pop()
            if owner is not None and order > roots[owner]:
                return owner, order  # every call comes after the caller's root cause
    if hybrid in roots:
        return hybrid, hybrid.statement_order[stmt]
    return None, -1
