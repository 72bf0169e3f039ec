"""``hylint check --add-noqa``: write ``# noqa: CODE`` on every line that has a diagnostic.

For adopting hylint on a large codebase at once: every current diagnostic is suppressed where it
is, new code is checked from now on, and the suppressions can be worked off (and, with the opt-in
``unused-noqa`` rule, cleaned up once they are stale). Existing comments are kept: codes join an
existing ``# noqa: ...`` list on the line, otherwise the directive is appended after the line's
code and comment. A line that cannot take a comment (it ends inside a multi-line string, or with a
backslash continuation) is left alone and named on stderr. A file is written only when the result
parses.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Set, Tuple

import libcst as cst

from hylint.lint.engine import Linter
from hylint.batch.files import SourceError, WriteError, read_source, write_atomic
from hylint.syntax.noqa import comment_directives, line_end_columns

_NEWLINE = re.compile(r"\r\n|\r|\n")
# diagnostics a noqa comment cannot or should not answer
NOT_SUPPRESSIBLE = {"HY000", "HY001", "HY090"}


@dataclass
class AddNoqaOutcome:
    added: int = 0  # directives added or extended
    messages: List[str] = field(default_factory=list)


def add_noqa_source(source: str, filename: str, linter: Linter) -> Tuple[str, AddNoqaOutcome]:
    """The source with noqa directives added for ``linter``'s diagnostics, and what was done."""
    outcome = AddNoqaOutcome()
    result = linter.lint_source(source, filename)
    wanted: Dict[int, Set[str]] = defaultdict(set)
    for d in result.diagnostics:
        if d.code not in NOT_SUPPRESSIBLE and d.noqa_row is not None:
            wanted[d.noqa_row].add(d.code)
    if not wanted:
        return source, outcome
    ends = line_end_columns(source)
    directives = comment_directives(source)
    if ends is None or directives is None:
        outcome.messages.append(f"{filename}: cannot tokenize the file; no noqa directives added")
        return source, outcome
    by_row = {}
    for directive in directives:
        if directive.codes is not None:
            by_row.setdefault(directive.row, directive)  # extend the first code list on the line
    lines = _NEWLINE.split(source)
    line_starts = [0] + [m.end() for m in _NEWLINE.finditer(source)]
    edits: List[Tuple[int, int, str]] = []  # absolute offsets
    for row in sorted(wanted):
        codes = sorted(wanted[row])
        offset = line_starts[row - 1]
        directive = by_row.get(row)
        if directive is not None:
            existing = list(directive.codes)
            upper = {c.upper() for c in existing}
            merged = existing + [c for c in codes if c not in upper]
            edits.append((offset + directive.codes_start, offset + directive.end, ", ".join(merged)))
        elif row in ends:
            line = lines[row - 1]
            end = ends[row]
            start = len(line[:end].rstrip())
            edits.append((offset + start, offset + end, f"  # noqa: {', '.join(codes)}"))
        else:
            outcome.messages.append(f"{filename}:{row}: cannot add `# noqa: {', '.join(codes)}`: the line ends "
                                    f"inside a string or with a backslash continuation")
            continue
        outcome.added += 1
    pieces, cursor = [], 0
    for start, end, content in sorted(edits):
        pieces.append(source[cursor:start])
        pieces.append(content)
        cursor = end
    pieces.append(source[cursor:])
    new = "".join(pieces)
    try:
        cst.parse_module(new)
    except (cst.ParserSyntaxError, RecursionError):
        outcome.messages.append(f"{filename}: adding noqa directives would break the syntax; file left as it was")
        return source, AddNoqaOutcome(0, outcome.messages)
    return new, outcome


def add_noqa_path(path: Path, linter: Linter) -> AddNoqaOutcome:
    try:
        source = read_source(path)
    except SourceError as error:
        return AddNoqaOutcome(0, [f"{path}: cannot read: {error}"])
    new, outcome = add_noqa_source(source.text, str(path), linter)
    if source.notebook and outcome.messages:  # name the cell, not the row of the cells joined
        from hylint.batch.notebook import cell_message

        outcome.messages = [cell_message(source.text, str(path), message) for message in outcome.messages]
    if new != source.text:
        try:
            write_atomic(source, new)
        except WriteError as error:
            return AddNoqaOutcome(0, outcome.messages + [f"hylint: error: {path}: cannot write: {error}"])
    return outcome
