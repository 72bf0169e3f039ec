"""The linter: prefilter, parse (the reduced regions, else the whole file), analyse once, run the selected
rules (lint/dispatch.py), collapse cascades, resolve positions and fixes, apply noqa; the fix loop is
lint/fixes.py."""
from __future__ import annotations

import ast
import gc
import hashlib
import io
import re
import tokenize
from contextlib import contextmanager
from typing import Callable, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Type

import libcst as cst

from hylint.analysis import analyze_module
from hylint.analysis.module import ModuleInfo
from hylint.analysis.reach import FileReach
from hylint.diagnostic import Diagnostic, Edit, Fix
from hylint.lint.cascades import _collapse_cascades, _fold_opted_out
from hylint.lint.dispatch import RuleContext, _FileLinter, _Report  # noqa: F401 (RuleContext: what rules see)
from hylint.lint.fixes import MAX_FIX_PASSES, FixLoopError, apply_fixes, fix_loop  # noqa: F401 (re-exported)
from hylint.lint.hooks import hooks_of
from hylint.lint.parse import SYNTAX_ERROR, parse_module, syntax_error_diagnostic, too_deeply_nested
from hylint.lint.positions import Positions, SourceText, _first_rows  # noqa: F401 (_first_rows: tests)
from hylint.lint.prefilter import keys_for, might_hold_hybrid_code
from hylint.lint.result import LintResult
from hylint.lint.regions import applies as regions_apply, reads_of, reduce_source
from hylint.rule import LintRule, Region, known_rule_codes
from hylint.syntax.noqa import file_noqa, parse_noqa
from hylint.syntax.python_tree import python_tree


class Reduction(NamedTuple):
    """What the regions pass made of a source (``Linter.prepare``), computed where its syntax tree already
    was: ``reduced`` is the text handed to libcst, None for the whole file. ``digest``: of the source it
    was made from, ``reads``: the regions its linter's rules read; a lint of another text, or by a linter
    whose rules read other regions (per-file-ignores), ignores it."""
    digest: bytes
    reads: FrozenSet[Region]
    reduced: Optional[str]


class Reuse(NamedTuple):
    """What a caller that lints like texts again and again (the language server, hylint/server/parsing.py)
    keeps from its earlier lints: ``parse``, libcst's tree of a text the lint parses (the source, or its
    regions), else None (the lint parses it); ``positions``, where the positions of statements are kept by
    node (``Positions``'s ``kept``), for the nodes ``parse`` gives again."""
    parse: Callable[[str], Optional[cst.Module]]
    positions: Optional[dict] = None


def _digest(source: str) -> bytes:
    return hashlib.blake2b(source.encode("utf-8", "surrogatepass"), digest_size=16).digest()


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


_NEWLINE = re.compile(r"\r\n|\r|\n")


def _same_layout(module: cst.Module, source: str) -> bool:
    """Whether ``module`` (parsed from a reduced ``source``) renders new code as the whole file's module
    would: the same default newline (the first line ending) and default indentation (the first INDENT
    token; the reduction may have blanked the block it came from). A fix's replacement statements and
    blocks are generated with them."""
    newline = _NEWLINE.search(source)
    if module.default_newline != (newline.group() if newline else "\n"):
        return False
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):  # stops at the first indent
            if token.type == tokenize.INDENT:
                return module.default_indent == token.string
    except (tokenize.TokenError, SyntaxError, ValueError):
        return False
    return module.default_indent == "    "  # libcst's default: no indented block in the file


def _usable(reach) -> Optional[FileReach]:
    """``reach`` as the linter reads it: None when it names nothing (plain tuples, as the batch layer
    passes it, made a ``FileReach``)."""
    if reach is not None and not isinstance(reach, FileReach):
        reach = FileReach.from_plain(reach)
    return reach if reach and (reach.functions or reach.resizers or reach.guards) else None


def _reached(reach: Optional[FileReach]) -> List[str]:
    return [function.qualname for function in reach.functions] if reach is not None else []


def _code_at(module: cst.Module, node: cst.CSTNode, line: str) -> str:
    """The code of a replacement node written on ``line``: the new lines a fix makes inside brackets
    (libcst's indented continuation lines) take the indentation of the block they are in, as the code
    around them does, instead of starting at the left margin."""
    code = module.code_for_node(node)
    if "\n" not in code and "\r" not in code:
        return code
    from libcst._nodes.internal import CodegenState  # (Module.code_for_node's state, with the block's indent)

    indent = line[:len(line) - len(line.lstrip(" \t"))]
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=[indent] if indent else [])
    node._codegen(state)
    return "".join(state.tokens)


def _statement_line(report: _Report, node: cst.CSTNode, positions: Positions, text: SourceText, start) -> str:
    """The first line of the statement holding ``node`` (whose indentation libcst's continuation lines
    are relative to), else the node's own first line."""
    row = start[0]
    stmt = report.hybrid.statement_of(node) if report.hybrid is not None else None
    if stmt is not None:
        try:
            row = positions.span(stmt, report.statement, report.function, _parents(report))[0][0]
        except KeyError:
            pass
    return text.lines[row - 1] if 0 < row <= len(text.lines) else ""


def _parents(report: _Report):
    """The parents of the nodes of the hybrid function a report was made in, when that function is the
    outermost one (where positions are computed statement by statement)."""
    hybrid = report.hybrid
    return hybrid.parents if hybrid is not None and hybrid.fn is report.function else None


class Linter:
    """Runs a fixed set of rules over sources."""

    def __init__(self, rules: Sequence[Type[LintRule]], known_codes: Optional[Iterable[str]] = None) -> None:
        """``known_codes``: every rule code there is (a noqa directive naming another is unknown); by
        default the codes of the rules imported so far."""
        self.rule_types = list(rules)
        self.rules = [rule() for rule in rules]
        self.codes = {rule.CODE for rule in rules}
        self.known_codes = frozenset(known_codes) if known_codes is not None else known_rule_codes()
        self.prefilter = True  # skip files in which no selected rule can report (hylint/lint/prefilter.py)
        self.prefilter_keys = keys_for(self.rule_types)
        # rules that judge the noqa directives once suppression is done (unused-noqa)
        self.noqa_rules = [rule for rule in self.rules if hooks_of(type(rule)).checks_noqa]
        self._noqa_codes = frozenset(rule.CODE for rule in self.noqa_rules)
        # parse only the statements that can hold a diagnostic (hylint/lint/regions.py); HYLINT_WHOLE_FILE=1: never
        self.regions = regions_apply(self.rule_types)
        self.reads = reads_of(self.rule_types)  # what the rules read beyond their hybrid functions
        # rules whose fixes the regions pass finds as the whole file would (LintRule.LOCAL_FIX)
        self.local_fixes = frozenset(rule.CODE for rule in self.rule_types if rule.LOCAL_FIX)

    # -- linting ---------------------------------------------------------------------------
    def lint_source(self, source: str, filename: str = "<stdin>", reach: Optional[FileReach] = None,
                    tree: Optional[ast.Module] = None, reduction: Optional[Reduction] = None,
                    reuse: Optional[Reuse] = None) -> LintResult:
        """``reach``: the functions of the file that a trace of its package reaches (hylint/batch/reach.py):
        checked as hybrid code: no prefilter, and the regions keep them (``reduce_source``'s ``reached``).
        ``tree``: CPython's tree of ``source`` (``python_tree``), when the caller has parsed it already;
        ``reduction``: what ``prepare`` made of it, when the caller has that; ``reuse``: what the caller keeps
        from its earlier lints of like texts (``Reuse``: the language server)."""
        exempt = file_noqa(source)  # `# hylint: noqa` on a line of its own
        if exempt is not None and exempt.whole_file:
            return LintResult([], source)
        with _gc_relaxed():
            usable = reduction is not None and reduction.reads == self.reads and reduction.digest == _digest(source)
            result = self._lint_source(source, filename, _usable(reach), tree, reduction if usable else None, reuse)
        if exempt is not None:
            result.diagnostics = [d for d in result.diagnostics if d.code not in exempt.codes]
        return result

    def prepare(self, source: str, tree: ast.Module, reach=None) -> Optional[Reduction]:
        """What the regions pass of ``lint_source(source, reach=reach)`` will make of ``source``, given its
        syntax tree: for a caller that parsed the source already (the reach, in another process); None
        when that lint will not reduce it (a file left out by the prefilter, or regions off)."""
        reach = _usable(reach)
        if not (self.regions and self.prefilter) or file_noqa(source) is not None or \
                reach is None and not might_hold_hybrid_code(source, self.prefilter_keys):
            return None
        return Reduction(_digest(source), self.reads, reduce_source(source, self.reads, tree, _reached(reach)))

    def _lint_source(self, source: str, filename: str, reach: Optional[FileReach],
                     tree: Optional[ast.Module] = None, reduction: Optional[Reduction] = None,
                     reuse: Optional[Reuse] = None) -> LintResult:
        if self.prefilter and reach is None and not might_hold_hybrid_code(source, self.prefilter_keys):
            return LintResult(self._check_noqa(source, filename, set()), source)
        if self.regions and self.prefilter:  # regions are a finer prefilter: off with it
            if tree is None and reduction is None:
                tree = python_tree(source)  # read by the regions, and by the positions of a whole-file run
            diagnostics = self._lint_regions(source, filename, tree, reach, reduction, reuse)
            if diagnostics is not None:
                return LintResult(diagnostics, source)
        try:
            module = (reuse.parse(source) if reuse is not None else None) or parse_module(source)
        except cst.ParserSyntaxError as error:
            diagnostics = [syntax_error_diagnostic(error, filename, source)] if SYNTAX_ERROR in self.codes else []
            return LintResult(diagnostics, source)
        except RecursionError:
            return LintResult([too_deeply_nested(filename)], source)
        return LintResult(self._lint_module(module, source, filename, reach=reach, tree=tree, reuse=reuse), source)

    def _lint_regions(self, source: str, filename: str, tree: Optional[ast.Module],
                      reach: Optional[FileReach] = None,
                      reduction: Optional[Reduction] = None,
                      reuse: Optional[Reuse] = None) -> Optional[List[Diagnostic]]:
        """The diagnostics of a run on the reduced source, or None where the whole file must be linted:
        no reduction, libcst rejects the reduced source, or a diagnostic carries a fix that may read the
        whole module (``needs_whole_file``)."""
        reduced = reduction.reduced if reduction is not None else \
            reduce_source(source, self.reads, tree, _reached(reach))
        if reduced is None:
            return None
        try:
            module = (reuse.parse(reduced) if reuse is not None else None) or parse_module(reduced)
        except (cst.ParserSyntaxError, RecursionError):
            return None
        diagnostics = self._lint_module(module, source, filename, reduced, reach, reuse=reuse)
        if any(d.fix is not None for d in diagnostics) and (
                self.needs_whole_file(diagnostics) or not _same_layout(module, source)):
            del module
            gc.collect(1)  # the analysis's cycles would keep this tree alive beside the whole file's
            return None
        return diagnostics

    def needs_whole_file(self, diagnostics: Sequence[Diagnostic]) -> bool:
        """Whether one of ``diagnostics`` has a fix that may read the whole module (a rule without
        LOCAL_FIX; the noqa rules' fixes edit only comments), so a reduced run cannot give it."""
        return any(d.fix is not None and d.code not in self.local_fixes and d.code not in self._noqa_codes
                   for d in diagnostics)

    def _lint_module(self, module: cst.Module, source: str, filename: str, module_source: Optional[str] = None,
                     reach: Optional[FileReach] = None, tree: Optional[ast.Module] = None,
                     reuse: Optional[Reuse] = None) -> List[Diagnostic]:
        """``module_source``: the text ``module`` was parsed from, when not ``source`` (regions); ``tree``:
        CPython's tree of ``source``, if parsed already."""
        module_info = analyze_module(module, reach)
        try:
            return self._diagnostics(module, module_info, source, filename, module_source, tree,
                                     reuse.positions if reuse is not None else None)
        finally:
            module_info.release()

    def _diagnostics(self, module: cst.Module, module_info: ModuleInfo, source: str, filename: str,
                     module_source: Optional[str], tree: Optional[ast.Module],
                     kept: Optional[dict] = None) -> List[Diagnostic]:
        file_linter = _FileLinter(module, module_info)
        file_linter.run(self.rules)
        file_linter.reports = _fold_opted_out(_collapse_cascades(file_linter.reports), module_info)
        for report in file_linter.reports if module_info.stand_ins else ():
            # a report at a node made for a reached lambda's stand-in def: at the lambda's own node
            report.node = module_info.stand_ins.get(report.node, report.node)
            report.function = module_info.lambdas.get(report.function, report.function)
        if not file_linter.reports:
            return self._check_noqa(source, filename, set())
        wanted = [report.node for report in file_linter.reports] + \
            [pending.node for report in file_linter.reports if report.fix is not None for pending in report.fix.edits]
        positions = Positions(module, source if module_source is None else module_source,
                              tree if module_source is None else None, wanted, kept)
        text = SourceText(source)
        noqa = parse_noqa(text.lines)
        diagnostics = []
        seen = set()
        used = set()  # (row, code) of the noqa directives that suppressed something
        for report in file_linter.reports:
            start, end = positions.span(report.node, report.statement, report.function, _parents(report))
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
                (start[0], start[1] + 1), (end[0], end[1] + 1), fix, noqa_row=start[0], help=report.help or None))
        diagnostics.extend(self._check_noqa(source, filename, used))
        diagnostics.sort(key=Diagnostic.sort_key)
        return diagnostics

    def _check_noqa(self, source: str, filename: str, used: set) -> List[Diagnostic]:
        if not self.noqa_rules or "noqa" not in source.lower():
            return []
        return [d for rule in self.noqa_rules
                for d in rule.check_noqa(source, filename, used, self.codes, self.known_codes)]

    def _resolve_fix(self, report: _Report, positions: Positions, text: SourceText, module: cst.Module) -> Fix:
        edits = []
        for pending in report.fix.edits:
            start, end = positions.span(pending.node, report.statement, report.function, _parents(report))
            content = pending.replacement if isinstance(pending.replacement, str) \
                else _code_at(module, pending.replacement, _statement_line(report, pending.node, positions, text, start))
            if pending.mode == "insert_before":
                end = start
            elif pending.mode == "insert_after":
                start = end
            elif pending.mode == "delete_lines" and start[0] < len(text.lines) and end[0] < len(text.lines) and \
                    not text.lines[start[0] - 1][:start[1]].strip() and \
                    text.lines[end[0] - 1][end[1]:].strip()[:1] in ("", "#"):
                # a statement alone on its lines: remove the lines, indentation, its own comment and newline
                start, end, content = (start[0], 0), (end[0] + 1, 0), ""
            elif pending.mode == "delete_lines" and start[0] > 1 and end[0] == len(text.lines) and \
                    not text.lines[start[0] - 1][:start[1]].strip() and not text.lines[end[0] - 1][end[1]:].strip():
                # the same on the last line of a file without a final newline: take the newline before it
                start, end, content = (start[0] - 1, len(text.lines[start[0] - 2])), \
                    (end[0], len(text.lines[end[0] - 1])), ""
            edits.append(Edit(content, (start[0], start[1] + 1), (end[0], end[1] + 1),
                              text.offset(*start), text.offset(*end)))
        edits.sort(key=lambda e: (e.start_offset, e.end_offset))
        return Fix(report.fix.applicability, report.fix.message, tuple(edits), report.fix.checked,
                   report.fix.why_unsafe)

    # -- fixing ----------------------------------------------------------------------------
    def fix_source(self, source: str, filename: str = "<stdin>", unsafe: bool = False,
                   reach: Optional[FileReach] = None) -> LintResult:
        """Apply fixes until nothing changes; return the fixed source and what remains (lint/fixes.py)."""
        return fix_loop(lambda text: self.lint_source(text, filename, reach), source, filename, unsafe)
