"""One diagnostic per root cause: the reports that follow, by data flow, from a statement where a hybrid
function leaves the graph are dropped, and the root's help says so. Independent hazards after it
are still reported (fixing the root cause would only reveal them)."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from hylint.analysis.guards import hybridize_opt_out
from hylint.analysis.interpreter import HybridContext
from hylint.analysis.module import ClassInfo, ModuleInfo
from hylint.lint.dispatch import _Report, join_help
from hylint.syntax.nodes import dotted_name, param_names
from hylint.syntax.walk import walk

RootKey = Tuple[HybridContext, int]  # a function and the order of its statement that leaves the graph
# what a root taints in one function: (the root, the order after which it holds, the names it taints)
Taint = Tuple[RootKey, int, FrozenSet[str]]


class _Names(cst.CSTVisitor):
    """The names an expression or statement reads: plain names and `self.<attribute>` chains."""

    def __init__(self) -> None:
        self.names: Set[str] = set()
        self._attrs: Set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._attrs.add(id(node.attr))
        dotted = dotted_name(node)
        if dotted is not None and dotted.startswith("self."):
            self.names.add(dotted)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._attrs:
            self.names.add(node.value)


def _reads(node: Optional[cst.CSTNode]) -> Set[str]:
    if node is None:
        return set()
    visitor = _Names()
    walk(node, visitor)
    return visitor.names


def _bound(target: cst.CSTNode) -> Set[str]:
    """The names an assignment target binds (a subscript or attribute target taints its base)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_bound(e.value) for e in target.elements)) if target.elements else set()
    if isinstance(target, cst.StarredElement):
        return _bound(target.value)
    if isinstance(target, cst.Attribute):
        dotted = dotted_name(target)
        return {dotted} if dotted is not None and dotted.startswith("self.") else set()
    if isinstance(target, cst.Subscript):
        return _bound(target.value)
    return set()


def _flows(stmt: cst.CSTNode) -> List[Tuple[Set[str], Set[str]]]:
    """(names read, names bound) of each assignment a statement makes at its own level; a compound
    statement's header (`for t in it`, `if test`) reads its iterable or test and binds its target."""
    if isinstance(stmt, cst.SimpleStatementLine):
        flows = []
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                flows.append((_reads(small.value), set().union(*(_bound(t.target) for t in small.targets))))
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and small.value is not None:
                reads = _reads(small.value) | (_reads(small.target) if isinstance(small, cst.AugAssign) else set())
                flows.append((reads, _bound(small.target)))
        return flows
    if isinstance(stmt, cst.For):
        return [(_reads(stmt.iter), _bound(stmt.target))]
    if isinstance(stmt, (cst.If, cst.While)):
        return [(_reads(stmt.test), set())]
    if isinstance(stmt, cst.With):
        return [(_reads(item.item), _bound(item.asname.name) if item.asname is not None else set())
                for item in stmt.items]
    return []


def _taint(hybrid: HybridContext, seeds: Set[str], after: int, root: Optional[cst.CSTNode]) -> FrozenSet[str]:
    """The names that hold a value derived from ``seeds`` in the statements after order ``after``
    (and those ``root`` binds): assignments from a tainted value, and every name bound under a
    compound statement whose test or iterable is tainted. Repeated to a fixpoint for loops."""
    tainted = set(seeds)
    controlled: Set[cst.CSTNode] = set()
    if root is not None:
        for _, bound in _flows(root):
            tainted |= bound
        if not isinstance(root, cst.SimpleStatementLine):
            controlled.add(root)
    later = sorted((order, stmt) for stmt, order in hybrid.statement_order.items() if order > after) \
        if hybrid.statement_order else []
    for _ in range(4):
        size = len(tainted), len(controlled)
        for _, stmt in later:
            under = _under(hybrid, stmt, controlled)
            for reads, bound in _flows(stmt):
                if under or reads & tainted:
                    tainted |= bound
                    if not isinstance(stmt, cst.SimpleStatementLine):
                        controlled.add(stmt)
        if (len(tainted), len(controlled)) == size:
            break
    return frozenset(tainted)


def _under(hybrid: HybridContext, stmt: cst.CSTNode, controlled: Set[cst.CSTNode]) -> bool:
    node = hybrid.parents.get(stmt)
    while node is not None:
        if node in controlled:
            return True
        node = hybrid.parents.get(node)
    return False


class _Cascades:
    """The roots of a file's reports and what each one taints."""

    def __init__(self, roots: Dict[HybridContext, List[int]]) -> None:
        self.roots = roots
        self._taints: Dict[Tuple[HybridContext, int], List[Taint]] = {}

    def taints(self, hybrid: HybridContext, depth: int = 0) -> List[Taint]:
        key = (hybrid, depth)
        if key in self._taints:
            return self._taints[key]
        self._taints[key] = []  # a helper calling itself
        found: List[Taint] = []
        by_order = {order: stmt for stmt, order in hybrid.statement_order.items()}
        for order in self.roots.get(hybrid, ()):
            found.append(((hybrid, order), order, _taint(hybrid, set(), order, by_order.get(order))))
        if depth <= 3 and hybrid.callers:
            inherited = self._from_callers(hybrid, depth)
            if inherited is not None:
                owner, params = inherited
                found.append((owner, -1, _taint(hybrid, params, -1, None)))
        self._taints[key] = found
        return found

    def _from_callers(self, helper: HybridContext, depth: int) -> Optional[Tuple[RootKey, Set[str]]]:
        """The parameters of a helper that every call reaching it passes a tainted value to, with the
        root of the first such call; None when some call passes none."""
        owner, common = None, None
        for caller, call in helper.callers:
            stmt = caller.statement_of(call)
            if stmt is None:
                return None
            order = caller.statement_order[stmt]
            params = set()
            for key, after, names in self.taints(caller, depth + 1):
                if order <= after:
                    continue
                for pname, arg in _arguments(helper.fn, call):
                    if _reads(arg) & names:
                        params.add(pname)
                        owner = owner or key
            common = params if common is None else common & params
            if not common:
                return None
        return (owner, common) if owner is not None and common else None

    def follows(self, hybrid: HybridContext, node: cst.CSTNode) -> Optional[RootKey]:
        """The root a report on ``node`` follows from by data flow, if any."""
        stmt = hybrid.statement_of(node)
        if stmt is None:
            return None
        order = hybrid.statement_order[stmt]
        taints = self.taints(hybrid)
        if not taints:
            return None
        reads = _reads(node)
        for key, after, names in taints:
            if order > after and reads & names:
                return key
        return None


def _arguments(fn: cst.FunctionDef, call: cst.Call) -> List[Tuple[str, cst.CSTNode]]:
    """(parameter name, argument) for the arguments of ``call`` that bind a parameter of ``fn``."""
    params = [p.name.value for p in param_names(fn)]
    offset = 1 if isinstance(call.func, cst.Attribute) and params and params[0] in ("self", "cls") else 0
    pairs = []
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for index, arg in enumerate(positional):
        if offset + index < len(params):
            pairs.append((params[offset + index], arg.value))
    pairs.extend((arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None)
    return pairs


def _collapse_cascades(reports: List[_Report]) -> List[_Report]:
    """One diagnostic per root cause: where a hybrid function leaves the graph (``.asnumpy()``,
    ``len(x)``, a Python loop over rows) and a rule reports there, hybridize() fails at that statement.
    The diagnostics of the later statements that read a value derived from it (the NumPy array, the
    Python number, the row) are consequences: they are dropped and the root's message counts them.
    Later hazards that do not follow from it are kept."""
    located: Dict[HybridContext, Set[int]] = defaultdict(set)
    for report in reports:
        hybrid = report.hybrid
        if hybrid is None or not hybrid.graph_exits:
            continue
        stmt = hybrid.statement_of(report.node)
        if stmt is not None:
            located[hybrid].add(hybrid.statement_order[stmt])
    roots: Dict[HybridContext, List[int]] = {}
    for hybrid, reported in located.items():
        exits = sorted({hybrid.statement_order[s] for s in map(hybrid.statement_of, hybrid.graph_exits)
                        if s is not None})
        found = [order for order in exits if order in reported]
        if found:
            roots[hybrid] = found
    if not roots:
        return reports
    cascades = _Cascades(roots)
    dropped: Dict[int, RootKey] = {}
    for report in reports:
        if report.hybrid is not None:
            key = cascades.follows(report.hybrid, report.node)
            if key is not None:
                dropped[id(report)] = key
    later_count: Dict[RootKey, int] = defaultdict(int)
    for key in dropped.values():
        later_count[key] += 1
    for report in reports:
        hybrid = report.hybrid
        if hybrid not in roots or id(report) in dropped:
            continue
        stmt = hybrid.statement_of(report.node)
        if stmt is None or hybrid.statement_order[stmt] not in roots[hybrid]:
            continue
        count = later_count[(hybrid, hybrid.statement_order[stmt])]
        report.help = join_help([report.help, f"`{hybrid.fn.name.value}` leaves the graph here, so the block cannot "
                                 f"hybridize" + (f" ({count} later diagnostic{'s follow' if count > 1 else ' follows'}"
                                                 f" from it, not shown)" if count else "")])
    return [report for report in reports if id(report) not in dropped]


def _fold_opted_out(reports: List[_Report], module_info: ModuleInfo) -> List[_Report]:
    """A block class that opts out of hybridize() gets at most one diagnostic, at the class: when its
    hybridize() raises, none (a hybridized parent raises too, so its code is never traced); when it
    does nothing, the first diagnostic of its code moves to the class, saying why and how many there
    are (the block runs eagerly when hybridized alone, but a hybridized parent traces it all the same)."""
    reasons: Dict[str, Optional[str]] = {}
    by_class: Dict[str, List[_Report]] = defaultdict(list)
    kept = []
    for report in reports:
        cls = _class_of(report, module_info)
        if cls is not None and cls.name not in reasons:
            reasons[cls.name] = hybridize_opt_out(cls, module_info.classes)
        if cls is None or reasons[cls.name] is None:
            kept.append(report)
        else:
            by_class[cls.name].append(report)
    for name, folded in by_class.items():
        if reasons[name] == "raises":
            continue
        cls, first = module_info.classes[name], folded[0]
        count = len(folded)
        message = (f"`{name}` overrides hybridize() without hybridizing, but a hybridized parent still "
                   f"traces it ({'1 diagnostic' if count == 1 else f'{count} diagnostics'})")
        applies = "its one diagnostic applies" if count == 1 else f"its {count} diagnostics apply"
        help_text = join_help([f"It runs eagerly when hybridized on its own, but a hybridized parent traces it with "
                               f"F = mxnet.sym, and then {applies} (the first, {first.rule.CODE}: {first.message})",
                               first.help, "Derive it from gluon.Block if it is eager-only"])
        kept.append(_Report(first.rule, cls.node.name, message, None, first.statement, None, None, help_text))
    return kept


def _class_of(report: _Report, module_info: ModuleInfo) -> Optional[ClassInfo]:
    """The block class whose code ``report`` is in: its own method, or a function of the module that
    only its methods call."""
    info = module_info.class_of.get(report.function) if report.function is not None else None
    if info is None and report.hybrid is not None and report.hybrid.callers:
        owners = {getattr(module_info.class_of.get(caller.fn), "name", None) for caller, _ in report.hybrid.callers}
        return module_info.classes.get(owners.pop()) if len(owners) == 1 and None not in owners else None
    return module_info.classes.get(info.name) if info is not None else None
