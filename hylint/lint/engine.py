"""Parse once, analyse once, run every selected rule in one traversal; the fix loop.

Positions are the expensive part of libcst metadata, so they are computed only for the top-level
statements that hold a reported node, on a one-statement module, and shifted by the number of
lines before that statement.
"""
from __future__ import annotations

import ast
import gc
import re
import warnings
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hylint.analysis import analyze_module
from hylint.analysis.interpreter import HybridContext
from hylint.analysis.module import ClassInfo, ModuleInfo
from hylint.syntax.nodes import blocks_of
from hylint.analysis.values import UNKNOWN, Value
from hylint.diagnostic import Applicability, Diagnostic, Edit, Fix
from hylint.syntax.noqa import Noqa, parse_noqa
from hylint.lint.prefilter import keys_for, might_hold_hybrid_code
from hylint.lint.regions import applies as regions_apply, reads_of, reduce_source
from hylint.rule import LintRule, PendingEdit, PendingFix
from hylint.syntax.walk import skipped_types, walk

MAX_FIX_PASSES = 10
NEWLINE = re.compile(r"\r\n|\r|\n")


class FixLoopError(Exception):
    """The fix loop did not converge, or a fix broke the syntax."""


@dataclass
class _Report:
    rule: LintRule
    node: cst.CSTNode
    message: str
    fix: Optional[PendingFix]
    statement: int  # index of the top-level statement holding node
    hybrid: Optional[HybridContext] = None  # the hybrid context the rule was called in
    function: Optional[cst.FunctionDef] = None  # the outermost function the rule was called in


class RuleContext:
    """What a rule sees when the engine calls it."""

    def __init__(self, linter: "_FileLinter") -> None:
        self._linter = linter
        self.module: cst.Module = linter.module
        self.module_info: ModuleInfo = linter.module_info
        self.hybrid: Optional[HybridContext] = None
        self.cls: Optional[ClassInfo] = None
        self.eager_only = False  # inside an `if F is nd:` guard of the current hybrid context
        self.function: Optional[cst.FunctionDef] = None
        self.outer_function: Optional[cst.FunctionDef] = None  # where positions are computed (Positions)
        self._rule: Optional[LintRule] = None

    @property
    def f_name(self) -> str:
        return self.hybrid.f_name if self.hybrid is not None else "F"

    def value(self, node: cst.CSTNode) -> Value:
        return self.hybrid.value(node) if self.hybrid is not None else UNKNOWN

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def report(self, node: cst.CSTNode, message: Optional[str] = None, fix: Optional[PendingFix] = None) -> None:
        rule = self._rule
        assert rule is not None
        if self.hybrid is not None and not self.hybrid.takes_f:
            fix = None  # a helper without F: a rewrite to `F.<op>` would name nothing there
            # messages name the F a fix would use; here that is the F the helper should be given
            message = (message or rule.MESSAGE).replace(self.hybrid.f_name, "F")
        self._linter.reports.append(_Report(rule, node, message or rule.MESSAGE, fix, self._linter.statement_index,
                                            self.hybrid, self.outer_function))


class _Dispatcher(cst.CSTVisitor):
    def __init__(self, linter: "_FileLinter", rules: Sequence[LintRule]) -> None:
        super().__init__()
        self.linter = linter
        self.ctx = RuleContext(linter)
        self.visit_handlers: Dict[str, List[Tuple[LintRule, Callable]]] = defaultdict(list)
        self.leave_handlers: Dict[str, List[Tuple[LintRule, Callable]]] = defaultdict(list)
        for rule in rules:
            for attr in _handler_names(type(rule)):
                if attr.startswith("visit_"):
                    self.visit_handlers[attr[6:]].append((rule, getattr(rule, attr)))
                else:
                    self.leave_handlers[attr[6:]].append((rule, getattr(rule, attr)))
        self.hybrid_stack: List[Optional[HybridContext]] = []
        self.function_stack: List[Optional[cst.FunctionDef]] = []
        self.class_stack: List[Optional[ClassInfo]] = []
        self.eager_depth = 0

    def _call(self, handlers: List[Tuple[LintRule, Callable]], node: cst.CSTNode) -> None:
        ctx = self.ctx
        in_hybrid = ctx.hybrid is not None and self.eager_depth == 0
        for rule, handler in handlers:
            if rule.HYBRID_ONLY and not in_hybrid:
                continue
            ctx._rule = rule
            handler(node, ctx)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # `type(node) is`: libcst's node classes are ABCs, whose isinstance() runs Python code
        ctx = self.ctx
        node_type = type(node)
        if node_type is cst.ClassDef:
            self.class_stack.append(self.linter.module_info.classes.get(node.name.value))
            ctx.cls = self.class_stack[-1]
        elif node_type is cst.FunctionDef:
            hybrid = self.linter.module_info.contexts.get(node)
            if hybrid is not None and hybrid.opted_out:
                hybrid = None
            if hybrid is None and ctx.hybrid is not None:
                hybrid = None  # a nested def inside a hybrid context is not traced with F
            self.hybrid_stack.append(hybrid)
            self.function_stack.append(node)
            ctx.hybrid = hybrid
            ctx.function = node
            ctx.outer_function = self.function_stack[0]
        if ctx.hybrid is not None and ctx.hybrid.eager_only and node in ctx.hybrid.eager_only:
            self.eager_depth += 1
        ctx.eager_only = self.eager_depth > 0
        handlers = self.visit_handlers.get(node_type.__name__)
        if handlers:
            self._call(handlers, node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        ctx = self.ctx
        handlers = self.leave_handlers.get(type(original_node).__name__)
        if handlers:
            self._call(handlers, original_node)
        if ctx.hybrid is not None and ctx.hybrid.eager_only and original_node in ctx.hybrid.eager_only:
            self.eager_depth -= 1
        ctx.eager_only = self.eager_depth > 0
        node_type = type(original_node)
        if node_type is cst.FunctionDef:
            self.hybrid_stack.pop()
            self.function_stack.pop()
            ctx.hybrid = self.hybrid_stack[-1] if self.hybrid_stack else None
            ctx.function = self.function_stack[-1] if self.function_stack else None
            ctx.outer_function = self.function_stack[0] if self.function_stack else None
        elif node_type is cst.ClassDef:
            self.class_stack.pop()
            ctx.cls = self.class_stack[-1] if self.class_stack else None


class Positions:
    """Lazily resolved (line, column) spans, one top-level statement, or one method of a top-level
    class, at a time.

    libcst computes positions by generating code, so a span is computed on a module holding just the
    unit (a class keeps its header around the one method) and moved to the unit's row in the file,
    which CPython's ``ast`` gives (the row of its keyword, as libcst's own position). Without that row
    (a source CPython does not parse, statements it groups differently) the unit is the top-level
    statement, moved down by the lines of the code generated for the statements before it.
    """

    def __init__(self, module: cst.Module, source: Optional[str] = None) -> None:
        self.module = module
        self.source = source
        self._line_offsets: Optional[List[int]] = None
        self._resolved: Dict[int, Dict[cst.CSTNode, object]] = {}
        self._first_rows: Optional[Dict[cst.CSTNode, int]] = None
        self._units: Dict[cst.CSTNode, Tuple[Dict[cst.CSTNode, object], int]] = {}

    def _rows(self) -> Dict[cst.CSTNode, int]:
        """First row of each top-level statement and of each statement of a top-level class's body,
        from CPython's ``ast``; {} when it cannot tell."""
        if self._first_rows is None:
            self._first_rows = _first_rows(self.module, self.source) if self.source is not None else {}
        return self._first_rows

    def _unit(self, unit: cst.CSTNode, cls: Optional[cst.ClassDef]) -> Tuple[Dict[cst.CSTNode, object], int]:
        """Positions in a module holding only ``unit`` (inside ``cls``'s header), and the rows to add."""
        found = self._units.get(unit)
        if found is None:
            body = [unit] if cls is None else [cls.with_changes(body=cls.body.with_changes(body=[unit]))]
            computed = _positions(self.module.with_changes(body=body, header=[], footer=[]))
            found = self._units[unit] = (computed, self._rows()[unit] - computed[unit].start.line)
        return found

    def _in_unit(self, node: cst.CSTNode, statement: int,
                 function: Optional[cst.FunctionDef]) -> Optional[Tuple[object, int]]:
        rows = self._rows()
        stmt = self.module.body[statement] if statement < len(self.module.body) else None
        if stmt is None or stmt not in rows:
            return None
        if function is not None and function is not stmt and isinstance(stmt, cst.ClassDef) and function in rows:
            positions, shift = self._unit(function, stmt)  # a method of the top-level class
        else:
            positions, shift = self._unit(stmt, None)
        code_range = positions.get(node)
        return (code_range, shift) if code_range is not None else None

    def _offset(self, index: int) -> int:
        """Lines before top-level statement ``index`` (generating the code of the statements before it
        only, once)."""
        if self._line_offsets is None:
            self._line_offsets = [len(self.module.header)]
        offsets = self._line_offsets
        while len(offsets) <= index:
            stmt = self.module.body[len(offsets) - 1]
            offsets.append(offsets[-1] + _count_newlines(self.module.code_for_node(stmt)))
        return offsets[index]

    def _statement(self, index: int) -> Dict[cst.CSTNode, object]:
        if index not in self._resolved:
            stmt = self.module.body[index]
            mini = self.module.with_changes(body=[stmt], header=[], footer=[])
            self._resolved[index] = _positions(mini)
        return self._resolved[index]

    def span(self, node: cst.CSTNode, statement: int,
             function: Optional[cst.FunctionDef] = None) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        """((row, col), (row, col)), rows 1-based, columns 0-based; ``function``: the outermost function
        the node was reported in, if any (its unit is computed alone when it is a method)."""
        located = self._in_unit(node, statement, function)
        if located is not None:
            code_range, shift = located
            return ((code_range.start.line + shift, code_range.start.column),
                    (code_range.end.line + shift, code_range.end.column))
        positions = self._statement(statement)
        code_range = positions.get(node)
        if code_range is None:
            for index in range(len(self.module.body)):
                code_range = self._statement(index).get(node)
                if code_range is not None:
                    statement = index
                    break
        if code_range is None:
            raise KeyError("node is not part of this module")
        shift = self._offset(statement)
        return ((code_range.start.line + shift, code_range.start.column),
                (code_range.end.line + shift, code_range.end.column))


def _positions(mini: cst.Module) -> Dict[cst.CSTNode, object]:
    try:
        # what MetadataWrapper.resolve(PositionProvider) runs, without its batched visit of the whole
        # tree (PositionProvider needs none: it is one code generation)
        provider = PositionProvider()
        provider._gen_impl(mini)
        return provider._computed
    except AttributeError:  # pragma: no cover - a libcst without these internals
        return MetadataWrapper(mini, unsafe_skip_copy=True).resolve(PositionProvider)


def _first_rows(module: cst.Module, source: str) -> Dict[cst.CSTNode, int]:
    """libcst statement -> the row its syntactic position starts on (its keyword, after any decorators), for the
    top-level statements and the statements of top-level classes' indented bodies, read from CPython's
    ``ast`` of the same source. A libcst line of simple statements (``a = 1; b = 2``) is one statement
    there, several in ``ast``: a statement starting on a row the one before it ends on belongs to it.
    {} when CPython does not parse the source or the two do not pair up one for one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return {}
    rows: Dict[cst.CSTNode, int] = {}

    def pair(statements: Sequence[cst.CSTNode], nodes: Sequence[ast.stmt], nested: bool) -> bool:
        groups = _groups(nodes)
        if len(groups) != len(statements):
            return False
        for stmt, node in zip(statements, groups):
            rows[stmt] = node.lineno  # where libcst's position of the statement starts too: its keyword
            if not nested and isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                if not isinstance(node, ast.ClassDef) or not pair(stmt.body.body, node.body, True):
                    return False
        return True

    return rows if pair(module.body, tree.body, False) else {}


def _groups(nodes: Sequence[ast.stmt]) -> List[ast.stmt]:
    """The first ``ast`` statement of each libcst statement (see ``_first_rows``)."""
    groups: List[ast.stmt] = []
    last_end = 0
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        if first > last_end:  # rows start at 1: the first statement always starts a group
            groups.append(node)
        last_end = max(last_end, node.end_lineno or node.lineno)
    return groups


def _count_newlines(text: str) -> int:
    return len(NEWLINE.findall(text))


class SourceText:
    """Line starts of a decoded source, to turn (row, col) into offsets."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.line_starts = [0] + [m.end() for m in NEWLINE.finditer(source)]
        self.lines = NEWLINE.split(source)

    def offset(self, row: int, col: int) -> int:
        return self.line_starts[row - 1] + col


class _FileLinter:
    def __init__(self, module: cst.Module, module_info: ModuleInfo) -> None:
        self.module = module
        self.module_info = module_info
        self.reports: List[_Report] = []
        self.statement_index = 0

    def run(self, rules: Sequence[LintRule]) -> None:
        """Visit, for each rule, only where it can report: hybrid rules in the hybrid contexts, structure
        rules that name their ``METHODS`` in those methods of the module's classes, any other rule
        everywhere (then every rule is called in one pass over the whole module)."""
        active = [rule for rule in rules if _has_handlers(rule)]
        hybrid = [rule for rule in active if rule.HYBRID_ONLY]
        structure = [rule for rule in active if not rule.HYBRID_ONLY]
        wanted: Dict[cst.FunctionDef, Optional[ClassInfo]] = {}
        if all(rule.METHODS is not None for rule in structure):
            names = {name for rule in structure for name in rule.METHODS}
            for cls in self.module_info.classes.values():
                for name in names:
                    method = cls.methods.get(name)
                    if method is not None:
                        wanted[method] = cls
        methods = _functions_in(self.module, wanted) if wanted else []
        if structure and (not wanted or len(methods) != len(wanted)):
            # a rule looks everywhere (or a method was not found where the analysis found it): one pass
            dispatcher = _Dispatcher(self, active)
            skip = skipped_types(frozenset(dispatcher.visit_handlers) | frozenset(dispatcher.leave_handlers))
            for index, stmt in enumerate(self.module.body):
                self.statement_index = index
                walk(stmt, dispatcher, skip)
            return
        if hybrid:
            # only hybrid contexts can report anything: visit just their functions, with the class the
            # full traversal would have on its stack
            contexts = {fn: None for fn, context in self.module_info.contexts.items() if not context.opted_out}
            self._visit(hybrid, [(index, fn, self._class_of(fn)) for index, fn in _functions_in(self.module, contexts)])
        if structure:
            self._visit(structure, [(index, fn, wanted[fn]) for index, fn in methods])

    def _class_of(self, fn: cst.FunctionDef) -> Optional[ClassInfo]:
        info = self.module_info.class_of.get(fn)
        return self.module_info.classes.get(info.name) if info is not None else None

    def _visit(self, rules: Sequence[LintRule], functions: Sequence[Tuple[int, cst.FunctionDef, Optional[ClassInfo]]]) -> None:
        """Walk each function with ``rules``, with the class the whole module's traversal would have on its
        stack there (``ModuleInfo.classes`` by the name of the class defining it)."""
        dispatcher = _Dispatcher(self, rules)
        skip = skipped_types(frozenset(dispatcher.visit_handlers) | frozenset(dispatcher.leave_handlers))
        for index, fn, cls in functions:
            self.statement_index = index
            dispatcher.class_stack = [cls]
            dispatcher.ctx.cls = cls
            walk(fn, dispatcher, skip)
        dispatcher.ctx.cls = None


_HANDLER_NAMES: Dict[type, Tuple[str, ...]] = {}


def _handler_names(rule_type: type) -> Tuple[str, ...]:
    """The rule's visit_*/leave_* methods, in dir() order (computed once per rule class)."""
    names = _HANDLER_NAMES.get(rule_type)
    if names is None:
        names = _HANDLER_NAMES[rule_type] = tuple(
            attr for attr in dir(rule_type) if attr.startswith(("visit_", "leave_")))
    return names


def _has_handlers(rule: LintRule) -> bool:
    return bool(_handler_names(type(rule)))


def _functions_in(module: cst.Module, wanted: Dict[cst.FunctionDef, object]) -> List[Tuple[int, cst.FunctionDef]]:
    """(top-level statement index, function) of each wanted function, in source order, where the analysis
    finds functions (module-level blocks, class bodies, function bodies; a wanted function's own body is
    not searched)."""
    found: List[Tuple[int, cst.FunctionDef]] = []

    def scan(body: Sequence[cst.CSTNode], index: int) -> None:
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                if stmt in wanted:
                    found.append((index, stmt))
                elif isinstance(stmt.body, cst.IndentedBlock):
                    scan(stmt.body.body, index)  # a class defined inside a function
            elif isinstance(stmt, cst.ClassDef):
                scan(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else (), index)
            elif isinstance(stmt, (cst.If, cst.Try, cst.With)):
                for block in blocks_of(stmt):
                    scan(block, index)

    if wanted:
        for index, stmt in enumerate(module.body):
            scan((stmt,), index)
    return found


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


@dataclass
class LintResult:
    diagnostics: List[Diagnostic]
    source: str
    # set by fix_source
    fixed: int = 0
    fixed_by_code: Dict[str, int] = field(default_factory=dict)
    messages: List[str] = field(default_factory=list)  # problems met while fixing


def syntax_error_diagnostic(error: Exception, filename: str, source: Optional[str] = None) -> Diagnostic:
    python = _python_syntax_error(source) if source is not None else None
    if python is not None:  # CPython's own message and position are clearer than the parser's token list
        row, col, message = python
        return Diagnostic("HY000", "syntax-error", message, filename, (row, col), (row, col))
    if isinstance(error, cst.ParserSyntaxError):
        row, col = error.raw_line, error.raw_column
        message = f"SyntaxError: {error.message}"
    else:  # pragma: no cover - libcst raises ParserSyntaxError for syntax errors
        row, col, message = 1, 0, f"SyntaxError: {error}"
    return Diagnostic("HY000", "syntax-error", message, filename, (row, col + 1), (row, col + 1))


def _python_syntax_error(source: str) -> Optional[Tuple[int, int, str]]:
    """(row, column 1-based, message) of the error CPython reports for ``source``, if it reports one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            compile(source, "<hylint>", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except SyntaxError as error:
        name = type(error).__name__  # SyntaxError, IndentationError, TabError
        return max(error.lineno or 1, 1), max(error.offset or 1, 1), f"{name}: {error.msg}"
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _no_validation(node: cst.CSTNode) -> None:
    return None


def parse_module(source: str) -> cst.Module:
    """``libcst.parse_module`` without re-validating each node as the parser builds it: every node's
    ``__post_init__`` runs its ``_validate()``, which checks what the parser has just guaranteed
    (libcst notes the cost itself in ``CSTNode.__post_init__``); a fifth of the parse. Nodes built
    anywhere else (fixes) are still validated."""
    validate = cst.CSTNode.__post_init__
    cst.CSTNode.__post_init__ = _no_validation  # type: ignore[assignment]
    try:
        return cst.parse_module(source)
    finally:
        cst.CSTNode.__post_init__ = validate  # type: ignore[assignment]


@contextmanager
def _gc_relaxed():
    """libcst builds a few hundred thousand objects per file, all alive until the file is linted: the
    cyclic garbage collector's young collections, every 700 allocations, would traverse them again
    and again (a third of the time of a lint). During a lint they run every 100,000 allocations:
    each object is traversed about once, and cyclic garbage is still freed as the lint goes."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], 100_000), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


class Linter:
    """Runs a fixed set of rules over sources."""

    def __init__(self, rules: Sequence[Type[LintRule]]) -> None:
        self.rule_types = list(rules)
        self.rules = [rule() for rule in rules]
        self.codes = {rule.CODE for rule in rules}
        self.prefilter = True  # skip files in which no selected rule can report (hylint/lint/prefilter.py)
        self.prefilter_keys = keys_for(self.rule_types)
        # rules that judge the noqa directives once suppression is done (unused-noqa)
        self.noqa_rules = [rule for rule in self.rules if hasattr(rule, "check_noqa")]
        # parse only the statements that can hold a diagnostic (hylint/lint/regions.py); HYLINT_WHOLE_FILE=1: never
        self.regions = regions_apply(self.rule_types)
        self.reads = reads_of(self.rule_types)  # what the rules read beyond their hybrid functions

    # -- linting ---------------------------------------------------------------------------
    def lint_source(self, source: str, filename: str = "<stdin>") -> LintResult:
        with _gc_relaxed():
            return self._lint_source(source, filename)

    def _lint_source(self, source: str, filename: str) -> LintResult:
        if self.prefilter and not might_hold_hybrid_code(source, self.prefilter_keys):
            return LintResult(self._check_noqa(source, filename, set()), source)
        if self.regions and self.prefilter:  # regions are a finer prefilter: off with it
            diagnostics = self._lint_regions(source, filename)
            if diagnostics is not None:
                return LintResult(diagnostics, source)
        try:
            module = parse_module(source)
        except cst.ParserSyntaxError as error:
            diagnostics = [syntax_error_diagnostic(error, filename, source)] if "HY000" in self.codes else []
            return LintResult(diagnostics, source)
        except RecursionError:
            return LintResult([Diagnostic("HY000", "syntax-error", "SyntaxError: too deeply nested to parse",
                                          filename, (1, 1), (1, 1))], source)
        return LintResult(self._lint_module(module, source, filename), source)

    def _lint_regions(self, source: str, filename: str) -> Optional[List[Diagnostic]]:
        """The diagnostics of a run on the reduced source, or None where the whole file must be linted:
        no reduction, libcst rejects the reduced source, or a diagnostic carries a fix (a fix may read
        the whole module)."""
        reduced = reduce_source(source, self.reads)
        if reduced is None:
            return None
        try:
            module = parse_module(reduced)
        except (cst.ParserSyntaxError, RecursionError):
            return None
        noqa_codes = {rule.CODE for rule in self.noqa_rules}
        diagnostics = self._lint_module(module, source, filename, reduced)
        if any(d.fix is not None and d.code not in noqa_codes for d in diagnostics):
            del module
            gc.collect(1)  # the analysis's cycles would keep this tree alive beside the whole file's
            return None
        return diagnostics

    def _lint_module(self, module: cst.Module, source: str, filename: str,
                     module_source: Optional[str] = None) -> List[Diagnostic]:
        """``module_source``: the text ``module`` was parsed from, when not ``source`` (regions)."""
        module_info = analyze_module(module)
        file_linter = _FileLinter(module, module_info)
        file_linter.run(self.rules)
        file_linter.reports = _collapse_cascades(file_linter.reports)
        if not file_linter.reports:
            return self._check_noqa(source, filename, set())
        positions = Positions(module, source if module_source is None else module_source)
        text = SourceText(source)
        noqa = parse_noqa(text.lines)
        diagnostics = []
        seen = set()
        used = set()  # (row, code) of the noqa directives that suppressed something
        for report in file_linter.reports:
            start, end = positions.span(report.node, report.statement, report.function)
            key = (report.rule.CODE, start, end)
            if key in seen:
                continue
            seen.add(key)
            directive = noqa.get(start[0])
            if directive is not None and directive.suppresses(report.rule.CODE):
                used.add((start[0], report.rule.CODE))
                continue
            fix = self._resolve_fix(report, positions, text, module) if report.fix is not None else None
            diagnostics.append(Diagnostic(
                report.rule.CODE, report.rule.NAME, report.message, filename,
                (start[0], start[1] + 1), (end[0], end[1] + 1), fix, noqa_row=start[0]))
        diagnostics.extend(self._check_noqa(source, filename, used))
        diagnostics.sort(key=Diagnostic.sort_key)
        return diagnostics

    def _check_noqa(self, source: str, filename: str, used: set) -> List[Diagnostic]:
        if not self.noqa_rules or "noqa" not in source.lower():
            return []
        return [d for rule in self.noqa_rules for d in rule.check_noqa(source, filename, used, self.codes)]

    def _resolve_fix(self, report: _Report, positions: Positions, text: SourceText, module: cst.Module) -> Fix:
        edits = []
        for pending in report.fix.edits:
            start, end = positions.span(pending.node, report.statement, report.function)
            content = pending.replacement if isinstance(pending.replacement, str) \
                else module.code_for_node(pending.replacement)
            if pending.mode == "insert_before":
                end = start
            elif pending.mode == "insert_after":
                start = end
            elif pending.mode == "delete_lines" and start[0] < len(text.lines) and end[0] < len(text.lines) and \
                    not text.lines[start[0] - 1][:start[1]].strip() and not text.lines[end[0] - 1][end[1]:].strip():
                # a statement alone on its lines: remove the lines, indentation and newline included
                start, end, content = (start[0], 0), (end[0] + 1, 0), ""
            elif pending.mode == "delete_lines" and start[0] > 1 and end[0] == len(text.lines) and \
                    not text.lines[start[0] - 1][:start[1]].strip() and not text.lines[end[0] - 1][end[1]:].strip():
                # the same on the last line of a file without a final newline: take the newline before it
                start, end, content = (start[0] - 1, len(text.lines[start[0] - 2])), \
                    (end[0], len(text.lines[end[0] - 1])), ""
            edits.append(Edit(content, (start[0], start[1] + 1), (end[0], end[1] + 1),
                              text.offset(*start), text.offset(*end)))
        edits.sort(key=lambda e: (e.start_offset, e.end_offset))
        return Fix(report.fix.applicability, report.fix.message, tuple(edits))

    # -- fixing ----------------------------------------------------------------------------
    def fix_source(self, source: str, filename: str = "<stdin>", unsafe: bool = False) -> LintResult:
        """Apply fixes until nothing changes; return the fixed source and what remains."""
        allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
        fixed_by_code: Dict[str, int] = defaultdict(int)
        messages: List[str] = []
        discarded = set()  # fixes whose result did not parse: never retried
        current = source
        for passes in range(MAX_FIX_PASSES + 1):
            result = self.lint_source(current, filename)
            fixable = [d for d in result.diagnostics if d.fix is not None and d.fix.applicability in allowed
                       and _fix_key(d, current) not in discarded]
            if not fixable:
                break
            if passes == MAX_FIX_PASSES:
                codes = ", ".join(sorted({d.code for d in fixable}))
                raise FixLoopError(f"{filename}: fixes did not converge after {MAX_FIX_PASSES} passes "
                                   f"(still fixable: {codes})")
            candidate, applied = apply_fixes(current, fixable)
            dropped = False
            if _parse_error(candidate) is not None:
                # keep the fixes that still parse together, drop (and name) the others
                kept: List[Diagnostic] = []
                for diagnostic in applied:
                    if _parse_error(apply_fixes(current, kept + [diagnostic])[0]) is None:
                        kept.append(diagnostic)
                    else:
                        discarded.add(_fix_key(diagnostic, current))
                        dropped = True
                        message = (f"{filename}:{diagnostic.start[0]}:{diagnostic.start[1]}: fix for {diagnostic.code} "
                                   f"({diagnostic.name}) was discarded: the result did not parse")
                        if message not in messages:
                            messages.append(message)
                candidate, applied = apply_fixes(current, kept)
            if not applied or candidate == current:
                if dropped:
                    continue  # the fixes that overlapped the discarded ones get their turn
                break
            for diagnostic in applied:
                fixed_by_code[diagnostic.code] += 1
            current = candidate
        final = self.lint_source(current, filename)
        final.fixed = sum(fixed_by_code.values())
        final.fixed_by_code = dict(fixed_by_code)
        final.messages = messages
        return final


def _fix_key(diagnostic: Diagnostic, source: str) -> Tuple:
    """A fix's identity across passes (positions shift as other fixes apply): what it replaces, by what."""
    return (diagnostic.code, diagnostic.fix.message,
            tuple((edit.content, source[edit.start_offset:edit.end_offset]) for edit in diagnostic.fix.edits))


def _parse_error(source: str) -> Optional[Exception]:
    try:
        cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError) as error:
        return error
    return None


def apply_fixes(source: str, diagnostics: Iterable[Diagnostic]) -> Tuple[str, List[Diagnostic]]:
    """Apply the fixes whose edits do not overlap an earlier fix's edits (in position order)."""
    ordered = sorted((d for d in diagnostics if d.fix is not None and d.fix.edits),
                     key=lambda d: (d.fix.edits[0].start_offset, d.code))
    taken: List[Tuple[int, int]] = []
    applied: List[Diagnostic] = []
    edits: List[Edit] = []
    for diagnostic in ordered:
        spans = [(e.start_offset, e.end_offset) for e in diagnostic.fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        edits.extend(diagnostic.fix.edits)
        applied.append(diagnostic)
    pieces = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start_offset, e.end_offset)):
        pieces.append(source[cursor:edit.start_offset])
        pieces.append(edit.content)
        cursor = edit.end_offset
    pieces.append(source[cursor:])
    return "".join(pieces), applied


def _overlaps(a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # insertions conflict only when strictly inside the other span
        return b[0] < a[0] < b[1] or a[0] < b[0] < a[1]
    return a[0] < b[1] and b[0] < a[1]
