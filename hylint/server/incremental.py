"""Re-linting only what an edit can change: a buffer's top-level definitions split into independent
groups, each linted on its own (the same Linter, on the buffer without the other groups and without
the module-level statements the group does not read) and its diagnostics kept until what it reads
changes.

A keystroke in a 500-line model file changes one class; linting the file again parses, analyses and
positions all of it. Here the buffer is cut, with CPython's ``ast`` (fast), into top-level
statements:

* *definitions*: a top-level ``class`` or ``def`` alone on its lines;
* *context*: every other statement (imports, module-level assignments and calls, the docstring). A
  buffer whose context defines a class or function (``if``/``try`` blocks holding them) is linted whole.

Definitions that name each other (a word of one, anywhere in its text, is the name another defines:
bases, helpers, children, factories, duplicate definitions) are one *group*. A group reads the context
statements that bind a name it uses or use a name it binds, and those every group reads (a module-level
call, a star import: ``hylint/server/bindings.py``). A group's own run lints the buffer with only its
definitions, the context statements it reads and the lines between statements; its diagnostics are
kept under what the run reads (the group's definitions, and of each context statement it reads: an
import's bindings of the names of interest, another statement's code without its comments; and the
noqa directives outside the definitions), with rows relative to each definition, and reused, moved
to where the definition now starts, while that stays the same. So an edit of an import re-lints the
groups that use a name whose binding changed, and a comment re-lints nothing. The first check of a
buffer is a whole check (the quickest answer on open); its diagnostics are shared out to the groups
without fixes, and the others are linted alone while the editor is idle (``GroupCache.warm``).

The diagnostics are those of a whole check of the buffer (``tests/server/test_incremental.py``
compares them over sequences of edits, of definitions and of the statements around them, and each
group's own run with the whole file on the benchmark corpus). Where a group's run could differ, the
buffer is linted whole instead (``None``):

* a diagnostic or fix edit outside the group's definitions (on the context or between statements);
* a syntax error (CPython's or libcst's: each new context statement is parsed by libcst, since no run
  may read it), a file-level ``# hylint: noqa``, a lone carriage return or lines ended in two ways (the
  first line ending, which fixes copy, may be left out of a run), a buffer without a final newline,
  fewer than two groups;
* a fix that writes, as a name or in a string, a word only the units left out of its run hold (a fix
  choosing a fresh name reads every name the module takes: HY402's constant parameter), or a module
  whose default indentation (libcst's: the first indented block's, which fixes copy) would differ
  without them; a word of a diagnostic's message or fix bound outside the definitions otherwise than
  when it was made (a fix spelling a name through an import). These are checked again each time a
  kept entry is reused.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from hylint.diagnostic import Diagnostic, Edit
from hylint.lint.parse import parse_module
from hylint.server.bindings import Facts, facts, relevant, seen_by, signatures
from hylint.server.parsing import StatementCache
from hylint.syntax.noqa import file_noqa
from hylint.syntax.python_tree import python_tree

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_WORD = re.compile(r"\w+")
# the words a fix writes as names or in strings, not as attributes (`F.broadcast_add`): where a fix's
# fresh name can be (HY402's constant parameter `c` is a parameter and a string)
_NAME_WORD = re.compile(r"(?<![\w.])\w+")
_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class _Unit:
    first: int  # rows, 1-based, decorators included
    last: int
    text: str
    name: Optional[str]  # a definition's name; None: context
    facts: Optional[Facts] = None  # context: what it binds and reads (hylint/server/bindings.py)


@dataclass
class Plan:
    """A buffer cut into context and groups of definitions (indices into ``units``)."""

    lines: List[str]
    units: List[_Unit]
    groups: List[List[int]]
    noqa: Tuple[str, ...] = ()  # the lines outside the definitions with a noqa directive
    _runs: Dict[Tuple[int, ...], Tuple[List[int], Set[str]]] = field(default_factory=dict)

    def run(self, group: Sequence[int]) -> Tuple[List[int], Set[str]]:
        """The units of a group's run, in the buffer's order: its definitions and the context statements it
        reads (``bindings.relevant``); and the names of interest there."""
        key = tuple(group)
        if key not in self._runs:
            context = [index for index, unit in enumerate(self.units) if unit.name is None]
            words = frozenset().union(*(_words(self.units[index].text) for index in group))
            chosen, interest = relevant([self.units[index].facts for index in context], words,
                                        frozenset(self.units[index].name for index in group))
            self._runs[key] = (sorted(set(group) | {context[number] for number in chosen}), interest)
        return self._runs[key]

    def key(self, group: Sequence[int]) -> Tuple:
        """What a group's run reads: the group's definitions and what it sees of the context statements it
        reads, in the buffer's order, and the noqa directives outside the definitions."""
        units, interest = self.run(group)
        return tuple((unit.name, unit.text) if unit.name is not None else (None, seen_by(unit.facts, interest))
                     for unit in (self.units[index] for index in units)) + (self.noqa,)

    def reduced(self, group: Sequence[int]) -> Tuple[str, Dict[int, int]]:
        """The buffer with only the units of the group's run (the others' lines left out: blank lines would
        cost libcst as much as code), and the rows each of the group's definitions moved up by (its index)."""
        lines: List[str] = []
        kept = set(self.run(group)[0])
        moved: Dict[int, int] = {}
        row = 0  # the last row taken
        for index, unit in enumerate(self.units):
            if index not in kept:
                lines.extend(self.lines[row:unit.first - 1])
                row = unit.last
            elif unit.name is not None:
                moved[index] = row - len(lines)
        lines.extend(self.lines[row:])
        return "".join(lines), moved


def plan(text: str, tree: Optional[ast.Module] = None) -> Optional[Plan]:
    """The buffer's units and groups, or None when it is to be linted whole (see the module docstring).
    ``tree``: CPython's tree of ``text`` (``python_tree``), if the caller has it."""
    if not _plannable(text):
        return None
    if tree is None:
        tree = python_tree(text)
    if tree is None:
        return None
    lines = _LINE.findall(text)
    if lines and lines[-1] == "":
        lines.pop()
    spans: List[Tuple[int, int, List[ast.stmt]]] = []  # statements sharing a line are one unit
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        last = node.end_lineno or node.lineno
        if spans and first <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(last, spans[-1][1]), spans[-1][2] + [node])
        else:
            spans.append((first, last, [node]))
    units: List[_Unit] = []
    for first, last, nodes in spans:
        definition = len(nodes) == 1 and isinstance(nodes[0], _DEFINITIONS)
        if not definition and any(isinstance(inner, _DEFINITIONS) for node in nodes for inner in ast.walk(node)):
            return None  # a class or function in the context: every group would read it
        code = "".join(lines[first - 1:last])
        units.append(_Unit(first, last, code, nodes[0].name) if definition else
                     _Unit(first, last, code, None, facts(nodes, code)))
    groups = _groups(units)
    if len(groups) < 2:
        return None
    inside = set()
    for unit in units:
        if unit.name is not None:
            inside.update(range(unit.first - 1, unit.last))
    noqa = tuple(line for row, line in enumerate(lines) if row not in inside and "noqa" in line.lower())
    return Plan(lines, units, groups, noqa)


def _plannable(text: str) -> bool:
    """Whether the text itself allows groups (see the module docstring)."""
    crlf = text.count("\r\n")
    return text.endswith("\n") and text.count("\r") == crlf and crlf in (0, text.count("\n")) and \
        file_noqa(text) is None


def lint_alone(found: Plan, group: Sequence[int], filename: str, linter,
               parser: Optional[StatementCache] = None) -> Optional[List[Diagnostic]]:
    """The diagnostics of a group's own run, at the buffer's rows; None when one is not in the group's
    definitions (the buffer is then linted whole). ``parser``: the statements parsed before."""
    text, moved = found.reduced(group)
    tree = python_tree(text)  # read by the parser and by the positions
    reuse = parser.reuse(text, tree) if parser is not None else None
    diagnostics = []
    for d in linter.lint_source(text, filename, tree=tree, reuse=reuse).diagnostics:
        rows = next((rows for index, rows in moved.items()
                     if found.units[index].first <= d.start[0] + rows <= found.units[index].last), None)
        if rows is None:
            return None
        diagnostics.append(_shift(d, rows))
    return diagnostics


def _groups(units: Sequence[_Unit]) -> List[List[int]]:
    """Definitions joined when one's words hold the other's name, in the order of their first member."""
    definers: Dict[str, List[int]] = {}
    for index, unit in enumerate(units):
        if unit.name is not None:
            definers.setdefault(unit.name, []).append(index)
    parent = {index: index for index, unit in enumerate(units) if unit.name is not None}

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for index in parent:
        for word in _words(units[index].text) & definers.keys():
            for other in definers[word]:
                a, b = root(index), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: Dict[int, List[int]] = {}
    for index in parent:
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())


@lru_cache(maxsize=4096)
def _words(text: str) -> FrozenSet[str]:
    """The words of a unit's text (the same texts come back edit after edit)."""
    return frozenset(_WORD.findall(text))


@lru_cache(maxsize=4096)
def _indent(text: str) -> Optional[str]:
    return first_indent([text])


def first_indent(texts: Sequence[str]) -> Optional[str]:
    """The whitespace of the first INDENT token of the texts in order (libcst's default indentation)."""
    for text in texts:
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.INDENT:
                    return token.string
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return ""  # not one libcst would tell: differs from any real indentation
    return None


@dataclass
class _Stored:
    """A group's diagnostics, each with the definition (index in the group) its rows are relative to, the
    words its fixes write (checked against the units left out of its run in each buffer it is used for),
    and what bound each word of its messages and fixes outside the definitions (checked the same way)."""

    diagnostics: List[Tuple[int, Diagnostic]]
    fix_words: FrozenSet[str]
    has_fix: bool
    bound: Dict[str, Tuple] = field(default_factory=dict)


def _shift(d: Diagnostic, rows: int, starts: Optional[List[int]] = None) -> Diagnostic:
    """``d`` moved down ``rows`` rows; with ``starts`` (the buffer's line starts) its edits' offsets too."""
    def at(location):
        return (location[0] + rows, location[1])

    def offset(location, old):
        if starts is None:
            return old
        row, column = at(location)
        return starts[min(row, len(starts)) - 1] + column - 1

    fix = d.fix
    if fix is not None:
        fix = replace(fix, edits=tuple(
            Edit(edit.content, at(edit.start), at(edit.end), offset(edit.start, edit.start_offset),
                 offset(edit.end, edit.end_offset)) for edit in fix.edits))
    return replace(d, start=at(d.start), end=at(d.end), fix=fix,
                   noqa_row=d.noqa_row + rows if d.noqa_row is not None else None)


class _Buffer:
    """One check's plan with what the checks of a group's diagnostics read: words and indentation."""

    def __init__(self, found: Plan) -> None:
        self.plan = found
        units = found.units
        self.unit_words = [_words(unit.text) for unit in units]
        inside = set()
        for unit in units:
            inside.update(range(unit.first - 1, unit.last))
        gaps = "".join(line for row, line in enumerate(found.lines) if row not in inside)
        self.gaps = frozenset(_WORD.findall(gaps))
        self.words = self.gaps.union(*self.unit_words)
        self.bound = signatures([unit.facts for unit in units if unit.name is None],
                                [unit.name for unit in units if unit.name is not None])
        self._indents: Dict[int, Optional[str]] = {}
        self.starts = [0]
        for line in found.lines:
            self.starts.append(self.starts[-1] + len(line))

    def _first_indent(self, indices: Sequence[int]) -> Optional[str]:
        for index in indices:
            if index not in self._indents:
                self._indents[index] = _indent(self.plan.units[index].text)
            if self._indents[index] is not None:
                return self._indents[index]
        return None

    def holds(self, group: Sequence[int], entry: _Stored) -> bool:
        """Whether ``entry`` is what a whole-buffer check gives for ``group`` here: every word of its messages
        and fixes is bound outside the definitions as when it was made (an import a fix spells a name by,
        added or removed), its fixes write no word that only the units left out of its run hold, and the
        module's default indentation (which fixes copy) is the same with or without them."""
        if any(self.bound.get(word, ()) != bound for word, bound in entry.bound.items()):
            return False
        if not entry.has_fix:
            return True
        run = self.plan.run(group)[0]
        kept = set(self.gaps).union(*(self.unit_words[index] for index in run))
        if any(word in self.words and word not in kept for word in entry.fix_words):
            return False
        return self._first_indent(range(len(self.plan.units))) == self._first_indent(run)

    def entry(self, group: Sequence[int], diagnostics: Sequence[Diagnostic]) -> Optional[_Stored]:
        """``diagnostics`` (of a run that held ``group``) as the group's entry, rows relative to their
        definitions; None when one is not inside a definition of the group (or is a syntax error)."""
        members = [self.plan.units[index] for index in group]
        stored = _Stored([], frozenset(), False)
        words, said = set(), set()
        for d in diagnostics:
            member = next((number for number, unit in enumerate(members) if unit.first <= d.start[0] <= unit.last),
                          None)
            if member is None or d.code == "HY000" or d.end[0] > members[member].last:
                return None
            unit = members[member]
            if d.fix is not None:
                stored.has_fix = True
                for edit in d.fix.edits:
                    if not (unit.first <= edit.start[0] <= unit.last and
                            (edit.end[0] <= unit.last or edit.end == (unit.last + 1, 1))):
                        return None
                    words.update(_NAME_WORD.findall(edit.content))
                    said.update(_WORD.findall(edit.content))
                said.update(_WORD.findall(f"{d.fix.message} {d.fix.why_unsafe or ''}"))
            said.update(_WORD.findall(d.message))
            said.update(_WORD.findall(d.help or ""))
            stored.diagnostics.append((member, _shift(d, 1 - unit.first)))
        stored.fix_words = frozenset(words)
        stored.bound = {word: self.bound.get(word, ()) for word in said}
        return stored


class GroupCache:
    """The diagnostics of each group of one buffer's latest check (the groups of older texts are dropped).

    Every entry kept is a group's own run (the other groups blanked), whose checks (``_Buffer.holds``)
    say when it is still what a whole check gives. A whole check shares its diagnostics out only to
    the groups without fixes: a fix's fresh name depends on every name the module takes, so which
    one the whole check chose says nothing once another group changes; those groups are ``pending``,
    linted alone by ``warm`` while the editor is idle.
    """

    def __init__(self, parser: Optional[StatementCache] = None) -> None:
        self.parser = parser  # libcst's trees of the statements of earlier buffers (hylint/server/parsing.py)
        self.linter = None
        self.stored: Dict[Tuple, _Stored] = {}
        self.refused: set = set()  # the key of a group its own run could not check
        self.pending: List[Tuple[Tuple, List[int]]] = []  # (key, group) of the latest check, not yet linted alone
        self._parsed: Set[str] = set()  # context statements libcst parses
        self._latest: Optional[Tuple[_Buffer, str]] = None

    def check(self, text: str, filename: str, linter) -> Optional[List[Diagnostic]]:
        """The diagnostics of ``text`` as ``linter`` gives them for the whole buffer, linting again only the
        groups whose text changed, or None when the buffer is to be linted whole (no groups, or a group's
        run that could differ). The first check of a buffer (an opened file), and one where most groups
        changed, lints it whole, the quickest answer; others lint each group that changed, or is still
        waiting to be prepared, alone."""
        first = not self.stored and not self.pending
        waiting = {key for key, _ in self.pending}  # not yet prepared, not changed
        self.pending, self._latest = [], None
        tree = python_tree(text) if _plannable(text) else None  # a whole check reads it too (positions)
        found = plan(text, tree) if tree is not None else None
        if found is None:  # the entries stay: a syntax error while typing does not cost the next check
            return None
        if linter is not self.linter:
            self.linter, self.stored, self.refused = linter, {}, set()
        if not self._parses(found):  # a statement libcst rejects: its HY000 comes from a whole check
            return None
        buffer = _Buffer(found)
        keys = [found.key(group) for group in found.groups]
        entries: List[Optional[_Stored]] = []
        for group, key in zip(found.groups, keys):
            entry = self.stored.get(key)
            entries.append(entry if entry is not None and buffer.holds(group, entry) else None)
        missing = [number for number, entry in enumerate(entries) if entry is None]
        if first or sum(keys[number] not in waiting for number in missing) * 2 > len(keys):
            # most groups changed (an edit of the imports, a paste): a whole check answers sooner than
            # each group alone, and the groups are prepared again while the editor is idle
            return self._whole(text, filename, linter, buffer, keys, tree)
        if any(keys[number] in self.refused for number in missing):
            return None
        for number in missing:
            entry = self._alone(buffer, found.groups[number], filename, linter, self.parser)
            if entry is None:  # this group is checked whole while its text stays
                self.refused = {keys[number]}
                return None
            entries[number] = entry
        self.stored = dict(zip(keys, entries))
        result = [_shift(d, found.units[group[member]].first - 1, buffer.starts)
                  for group, entry in zip(found.groups, entries) for member, d in entry.diagnostics]
        result.sort(key=Diagnostic.sort_key)
        return result

    def _parses(self, found: Plan) -> bool:
        """Whether libcst parses each context statement not seen before (no group's run may read it, and
        CPython accepts some code libcst does not)."""
        for unit in found.units:
            if unit.name is None and unit.text not in self._parsed:
                try:
                    parse_module(unit.text)
                except (cst.ParserSyntaxError, RecursionError):
                    return False
                if len(self._parsed) > 1024:
                    self._parsed.clear()
                self._parsed.add(unit.text)
        return True

    @staticmethod
    def _alone(buffer: _Buffer, group: List[int], filename: str, linter,
               parser: Optional[StatementCache]) -> Optional[_Stored]:
        """The group's own run, or None when it may differ from a whole check (``_Buffer.entry``, ``holds``)."""
        diagnostics = lint_alone(buffer.plan, group, filename, linter, parser)
        entry = buffer.entry(group, diagnostics) if diagnostics is not None else None
        return entry if entry is not None and buffer.holds(group, entry) else None

    def _whole(self, text: str, filename: str, linter, buffer: _Buffer, keys: List[Tuple],
               tree: Optional[ast.Module] = None) -> List[Diagnostic]:
        """Lint the buffer whole; keep the share of each group without fixes, and note the others to
        be linted alone (``warm``), when every diagnostic falls in a definition."""
        reuse = self.parser.reuse(text, tree) if self.parser is not None else None
        diagnostics = linter.lint_source(text, filename, tree=tree, reuse=reuse).diagnostics
        found = buffer.plan
        group_of = {index: number for number, group in enumerate(found.groups) for index in group}
        shares: List[List[Diagnostic]] = [[] for _ in found.groups]
        self.stored = {}
        for d in diagnostics:
            unit = next((index for index, unit in enumerate(found.units) if unit.first <= d.start[0] <= unit.last), None)
            if unit is None or unit not in group_of:
                return diagnostics
            shares[group_of[unit]].append(d)
        for group, key, share in zip(found.groups, keys, shares):
            entry = buffer.entry(group, share)
            if entry is None:
                self.pending = []
                return diagnostics
            if entry.has_fix:
                self.pending.append((key, group))
            else:
                self.stored[key] = entry
        self._latest = (buffer, filename)
        return diagnostics

    def warm(self) -> bool:
        """Lint one pending group of the latest check alone; whether more are pending."""
        if not self.pending or self._latest is None:
            return False
        key, group = self.pending.pop(0)
        buffer, filename = self._latest
        entry = self._alone(buffer, group, filename, self.linter, self.parser)
        if entry is not None:
            self.stored[key] = entry
        else:  # this group cannot be checked alone: edits are checked whole while its text stays
            self.refused, self.pending = {key}, []
        return bool(self.pending)
