"""Calling the rules: the context a rule sees, the dispatcher that calls each rule's hooks on the nodes it
asks for, and the per-file run that visits, for each rule, only where it can report (hybrid contexts,
the methods a structure rule names, or the whole module)."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from hylint.analysis.interpreter import HybridContext
from hylint.analysis.module import ClassInfo, ModuleInfo
from hylint.analysis.values import UNKNOWN, Value
from hylint.lint.hooks import hooks_of
from hylint.lint.soundness import settle
from hylint.rule import LintRule, PendingFix
from hylint.syntax.nodes import blocks_of
from hylint.syntax.walk import skipped_types, walk, walk_types


@dataclass
class _Report:
    rule: LintRule
    node: cst.CSTNode
    message: str
    fix: Optional[PendingFix]
    statement: int  # index of the top-level statement holding node
    hybrid: Optional[HybridContext] = None  # the hybrid context the rule was called in
    function: Optional[cst.FunctionDef] = None  # the outermost function the rule was called in
    help: str = ""  # the diagnostic's help: what to write instead, how the trace gets here, what follows


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
        # rules ask for the code of the same operands (a code generation each); nodes never change
        codes = self._linter.codes
        code = codes.get(node)
        if code is None:
            code = codes[node] = node.value if type(node) is cst.Name and not node.lpar else \
                self.module.code_for_node(node)
        return code

    def report(self, node: cst.CSTNode, message: Optional[str] = None, fix: Optional[PendingFix] = None,
               instead: Optional[str] = None, help: Optional[str] = None) -> None:
        """``message``: what is wrong, short (one line of a concise report); ``help``: the longer explanation,
        shown by the full format and the editor's hover; ``instead``: what to write by hand, said in the help
        when there is no fix to apply."""
        rule = self._rule
        assert rule is not None
        if fix is not None and fix.relies_on:
            fix = settle(fix, self.value, self.code)
        message = message or rule.MESSAGE
        notes = [help] if help else []
        withheld = None
        if self.hybrid is not None and not self.hybrid.takes_f:
            withheld, fix = fix, None  # a helper without F: a rewrite to `F.<op>` would name nothing
            # messages name the F a fix would use; here that is the F the helper should be given
            message = message.replace(self.hybrid.f_name, "F")
            notes = [note.replace(self.hybrid.f_name, "F") for note in notes]
        if self.hybrid is not None and self.hybrid.reach_chain and fix is not None and \
                not self.hybrid.f_bound_at(node):
            # code a trace reaches from elsewhere in the package: the rewrite uses the name the function
            # gives F (`F = self.F`); where no name holds F at the node there is none to write
            withheld, fix = fix, None
        if withheld is not None:  # what the fix would have done is what to write by hand
            advice = _advice(message, notes, withheld.message.replace(self.hybrid.f_name, "F"))
            notes += [advice] if advice else []
        elif fix is None and instead is not None:
            if self.hybrid is not None and not self.hybrid.takes_f:
                instead = instead.replace(self.hybrid.f_name, "F")
            notes.append(f"Write instead: {instead}")
        if self.hybrid is not None and self.hybrid.reach_chain:
            # how the trace gets here: the calls in the message (the first and the last of a longer chain), the
            # whole chain from its root in the help
            calls = self.hybrid.reach_chain.partition(" via ")[2].split(" -> ")
            message = f"{message} (via {' -> '.join(calls if len(calls) < 3 else [calls[0], '…', calls[-1]])})"
            notes.append(self.hybrid.reach_chain)
        self._linter.reports.append(_Report(rule, node, message, fix, self._linter.statement_index,
                                            self.hybrid, self.outer_function, join_help(notes)))


def join_help(notes: Sequence[str]) -> str:
    """The help's notes as sentences: each begun with a capital and ended by a full stop."""
    return " ".join(note[:1].upper() + note[1:] + ("" if note.endswith((".", "!", "?")) else ".")
                    for note in notes if note)


def _advice(message: str, notes: Sequence[str], fix_title: str) -> str:
    """The withheld fix's title as what to write, unless the message or the help says so already ('')."""
    quoted = re.findall(r"`([^`]+)`", fix_title)
    said = " ".join([message, *notes])
    if "write instead" in said.lower() or quoted and all(f"`{code}`" in said for code in quoted):
        return ""
    return f"Write instead: {fix_title[:1].lower()}{fix_title[1:]}"


class _Dispatcher(cst.CSTVisitor):
    def __init__(self, linter: "_FileLinter", rules: Sequence[LintRule]) -> None:
        super().__init__()
        self.linter = linter
        self.ctx = RuleContext(linter)
        self.visit_handlers: Dict[str, List[Tuple[LintRule, Callable]]] = defaultdict(list)
        self.leave_handlers: Dict[str, List[Tuple[LintRule, Callable]]] = defaultdict(list)
        for rule in rules:
            hooks = hooks_of(type(rule))
            for node_type, method in hooks.visit:
                self.visit_handlers[node_type].append((rule, getattr(rule, method)))
            for node_type, method in hooks.leave:
                self.leave_handlers[node_type].append((rule, getattr(rule, method)))
        self.hybrid_stack: List[Optional[HybridContext]] = []
        self.function_stack: List[Optional[cst.FunctionDef]] = []
        self.class_stack: List[Optional[ClassInfo]] = []
        self.plain_methods: Set[cst.FunctionDef] = set()
        self.eager_depth = 0

    def _call(self, handlers: List[Tuple[LintRule, Callable]], node: cst.CSTNode) -> None:
        ctx = self.ctx
        in_hybrid = ctx.hybrid is not None and self.eager_depth == 0
        reached = ctx.hybrid is not None and bool(ctx.hybrid.reach_chain)
        for rule, handler in handlers:
            if rule.HYBRID_ONLY and not in_hybrid or reached and not rule.REACHED:
                continue
            ctx._rule = rule
            handler(node, ctx)

    def walker(self, skip: FrozenSet[type]) -> Callable[[cst.CSTNode], None]:
        """What visits a node and what is below it (but ``skip``) with the rules' hooks. Without eager-only
        regions in the module (``if F is nd:``), only the nodes that have hooks (and the classes and
        functions, which set the context) are called back, by type; with them, every node is, to count
        the regions the traversal is in. (The callbacks refer to the dispatcher: kept by it, they would
        make a cycle, and the tree would wait for the cyclic garbage collector.)"""
        if not self.linter.eager_free:
            return lambda node: walk(node, self, skip)
        visits, leaves = self._typed_callbacks()
        return lambda node: walk_types(node, visits, leaves, skip)

    def _typed_callbacks(self) -> Tuple[Dict[type, Callable], Dict[type, Callable]]:
        visits: Dict[type, Callable] = {getattr(cst, name): partial(self._call, handlers)
                                        for name, handlers in self.visit_handlers.items()}
        leaves: Dict[type, Callable] = {getattr(cst, name): partial(self._call, handlers)
                                        for name, handlers in self.leave_handlers.items()}
        visits[cst.ClassDef] = _then(self._enter_class, visits.get(cst.ClassDef))
        visits[cst.FunctionDef] = _then(self._enter_function, visits.get(cst.FunctionDef))
        leaves[cst.ClassDef] = _then(leaves.get(cst.ClassDef), self._leave_class)
        leaves[cst.FunctionDef] = _then(leaves.get(cst.FunctionDef), self._leave_function)
        return visits, leaves

    def on_visit(self, node: cst.CSTNode) -> bool:
        # `type(node) is`: libcst's node classes are ABCs, whose isinstance() runs Python code
        ctx = self.ctx
        node_type = type(node)
        if node_type is cst.ClassDef:
            self._enter_class(node)
        elif node_type is cst.FunctionDef:
            self._enter_function(node)
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
            self._leave_function(original_node)
        elif node_type is cst.ClassDef:
            self._leave_class(original_node)

    def _enter_class(self, node: cst.ClassDef) -> None:
        self.class_stack.append(self.linter.module_info.classes.get(node.name.value))
        self.ctx.cls = self.class_stack[-1]

    def _leave_class(self, node: cst.ClassDef) -> None:
        self.class_stack.pop()
        self.ctx.cls = self.class_stack[-1] if self.class_stack else None

    def _enter_function(self, node: cst.FunctionDef) -> None:
        ctx = self.ctx
        hybrid = self.linter.module_info.contexts.get(node)
        if hybrid is not None and hybrid.opted_out:
            hybrid = None
        if hybrid is None and ctx.hybrid is not None:
            hybrid = None  # a nested def inside a hybrid context is not traced with F
        self.hybrid_stack.append(hybrid)
        self.function_stack.append(node)
        if hybrid is not None and hybrid.reach_chain and hybrid.cls is None and ctx.cls is not None:
            # a method of a plain object a trace reaches (a distribution): its attributes are no
            # block's state, so the rules see no class
            self.class_stack.append(None)
            self.plain_methods.add(node)
            ctx.cls = None
        ctx.hybrid = hybrid
        ctx.function = node
        ctx.outer_function = self.function_stack[0]

    def _leave_function(self, node: cst.FunctionDef) -> None:
        ctx = self.ctx
        if node in self.plain_methods:
            self.plain_methods.discard(node)
            self.class_stack.pop()
            ctx.cls = self.class_stack[-1] if self.class_stack else None
        self.hybrid_stack.pop()
        self.function_stack.pop()
        ctx.hybrid = self.hybrid_stack[-1] if self.hybrid_stack else None
        ctx.function = self.function_stack[-1] if self.function_stack else None
        ctx.outer_function = self.function_stack[0] if self.function_stack else None


def _then(first: Optional[Callable], second: Optional[Callable]) -> Callable:
    """A callback calling ``first`` then ``second`` (either may be None)."""
    if first is None or second is None:
        return first or second

    def both(node: cst.CSTNode) -> None:
        first(node)
        second(node)

    return both


class _FileLinter:
    def __init__(self, module: cst.Module, module_info: ModuleInfo) -> None:
        self.module = module
        self.module_info = module_info
        self.reports: List[_Report] = []
        self.statement_index = 0
        self.codes: Dict[cst.CSTNode, str] = {}  # node -> its code (RuleContext.code)
        # no eager-only region (`if F is nd:`) in any hybrid context: the rules' hooks can be called by type
        self.eager_free = not any(context.eager_only for context in module_info.contexts.values())

    def run(self, rules: Sequence[LintRule]) -> None:
        """Visit, for each rule, only where it can report: hybrid rules in the hybrid contexts, structure
        rules that name their ``METHODS`` in those methods of the module's classes, any other rule
        everywhere (then every rule is called in one pass over the whole module)."""
        active = [rule for rule in rules if hooks_of(type(rule)).visits_nodes]
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
            visit = dispatcher.walker(skipped_types(frozenset(dispatcher.visit_handlers) |
                                                    frozenset(dispatcher.leave_handlers)))
            for index, stmt in enumerate(self.module.body):
                self.statement_index = index
                visit(stmt)
            if hybrid and self.module_info.lambdas:
                self._visit(hybrid, self._lambdas())  # not in the module: the pass above did not meet them
            return
        if hybrid:
            # only hybrid contexts can report anything: visit just their functions, with the class the
            # full traversal would have on its stack
            contexts = {fn: None for fn, context in self.module_info.contexts.items() if not context.opted_out}
            self._visit(hybrid, [(index, fn, self._class_of(fn)) for index, fn in _functions_in(self.module, contexts)]
                        + self._lambdas())
        if structure:
            self._visit(structure, [(index, fn, wanted[fn]) for index, fn in methods])

    def _lambdas(self) -> List[Tuple[int, cst.FunctionDef, Optional[ClassInfo]]]:
        """The stand-in defs of reached lambdas (analysis/traced.py), each with the top-level statement of
        the function holding it; no class: a lambda's `self` is a closure's, no block state the rules know."""
        lambdas = self.module_info.lambdas
        if not lambdas:
            return []
        where = {fn: index for index, fn in _functions_in(self.module, {outer: None for outer in lambdas.values()})}
        return [(where[outer], stand_in, None) for stand_in, outer in lambdas.items()
                if outer in where and stand_in in self.module_info.contexts
                and not self.module_info.contexts[stand_in].opted_out]

    def _class_of(self, fn: cst.FunctionDef) -> Optional[ClassInfo]:
        info = self.module_info.class_of.get(fn)
        return self.module_info.classes.get(info.name) if info is not None else None

    def _visit(self, rules: Sequence[LintRule], functions: Sequence[Tuple[int, cst.FunctionDef, Optional[ClassInfo]]]) -> None:
        """Walk each function with ``rules``, with the class the whole module's traversal would have on its
        stack there (``ModuleInfo.classes`` by the name of the class defining it)."""
        dispatcher = _Dispatcher(self, rules)
        visit = dispatcher.walker(skipped_types(frozenset(dispatcher.visit_handlers) |
                                                frozenset(dispatcher.leave_handlers)))
        for index, fn, cls in functions:
            self.statement_index = index
            dispatcher.class_stack = [cls]
            dispatcher.ctx.cls = cls
            visit(fn)
        dispatcher.ctx.cls = None


def _functions_in(module: cst.Module, wanted: Dict[cst.FunctionDef, object]) -> List[Tuple[int, cst.FunctionDef]]:
    """(top-level statement index, function) of each wanted function, in source order, where the analysis
    finds functions (module-level blocks, class bodies, function bodies; a wanted function's own body is
    not searched)."""
    found: List[Tuple[int, cst.FunctionDef]] = []
    if wanted:
        for index, stmt in enumerate(module.body):
            _scan((stmt,), index, wanted, found)
    return found


def _scan(body: Sequence[cst.CSTNode], index: int, wanted: Dict[cst.FunctionDef, object],
          found: List[Tuple[int, cst.FunctionDef]]) -> None:
    # a function, not a closure calling itself: that would be a cycle holding the tree until the collector runs
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            if stmt in wanted:
                found.append((index, stmt))
            elif isinstance(stmt.body, cst.IndentedBlock):
                _scan(stmt.body.body, index, wanted, found)  # a class defined inside a function
        elif isinstance(stmt, cst.ClassDef):
            _scan(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else (), index, wanted, found)
        elif isinstance(stmt, (cst.If, cst.Try, cst.With)):
            for block in blocks_of(stmt):
                _scan(block, index, wanted, found)
