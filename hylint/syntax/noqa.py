"""``# noqa`` and ``# noqa: HY301,HY201`` comments (flake8/ruff semantics).

Two readers:

- :func:`parse_noqa` (suppression): a text scan of each line, as flake8 does. Every directive on a
  line counts (a line may hold several comments' worth, e.g. ``# type: ignore  # noqa: HY301``).
- :func:`comment_directives` (editing: ``unused-noqa`` and ``--add-noqa``): only directives inside
  real comments (found with :mod:`tokenize`), with their exact spans, so an edit never touches a
  string literal that happens to contain ``# noqa``.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

NOQA = re.compile(r"#\s*noqa(?::[ \t]*(?P<codes>[A-Za-z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Za-z]+[0-9]+)*))?", re.I)
CODE = re.compile(r"[A-Za-z]+[0-9]+")
# a file-level exemption, a comment on a line of its own anywhere in the file (ruff's `# ruff: noqa`):
# `# hylint: noqa` skips the file, `# hylint: noqa: HY301, HY201` ignores those codes in all of it
FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*hylint[ \t]*:[ \t]*noqa"
                       r"(?:[ \t]*:[ \t]*(?P<codes>[A-Za-z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Za-z]+[0-9]+)*))?[ \t\r]*$",
                       re.I | re.M)


@dataclass(frozen=True)
class FileNoqa:
    """What the file-level directives of a file exempt: the whole file, or these codes."""

    whole_file: bool
    codes: FrozenSet[str]


def file_noqa(source: str) -> Optional[FileNoqa]:
    """The file-level ``# hylint: noqa`` directives of ``source`` merged (a blanket one wins); None: none."""
    if "hylint" not in source and "HYLINT" not in source.upper():
        return None
    codes: Set[str] = set()
    found = False
    for match in FILE_NOQA.finditer(source):
        found = True
        listed = match.group("codes")
        if not listed:
            return FileNoqa(True, frozenset())
        codes.update(c.upper() for c in CODE.findall(listed))
    return FileNoqa(False, frozenset(codes)) if found else None


@dataclass(frozen=True)
class Noqa:
    row: int
    codes: Optional[FrozenSet[str]]  # None: blanket noqa
    start: int  # column (0-based) of the comment directive on its line
    end: int

    def suppresses(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def parse_noqa(lines: List[str]) -> Dict[int, Noqa]:
    """Map 1-based row -> its noqa directive, for rows that have one.

    Several directives on one line merge (a blanket one wins). A ``#`` inside a string literal can
    fool this text scan only on lines that also contain the word ``noqa``; that is flake8's
    behaviour as well.
    """
    found: Dict[int, Noqa] = {}
    for row, line in enumerate(lines, start=1):
        if "noqa" not in line and "NOQA" not in line.upper():
            continue
        codes: Optional[Set[str]] = set()
        first = None
        for match in NOQA.finditer(line):
            if first is None:
                first = match
            listed = match.group("codes")
            if not listed:
                codes = None
            elif codes is not None:
                codes.update(c.upper() for c in CODE.findall(listed))
        if first is None:
            continue
        found[row] = Noqa(row, frozenset(codes) if codes is not None else None, first.start(), first.end())
    return found


@dataclass(frozen=True)
class CommentDirective:
    """A ``# noqa`` directive inside a real comment, with the spans an edit needs (columns 0-based)."""

    row: int
    comment_start: int  # the comment's `#`
    comment_end: int  # end of the comment (end of the line's text)
    start: int  # the directive's `#`
    end: int  # end of the directive (after its last code)
    codes: Optional[Tuple[str, ...]]  # as written (original spelling and order); None: blanket
    codes_start: int = -1  # column where the code list starts (-1 for blanket)


def comment_directives(source: str) -> Optional[List[CommentDirective]]:
    """Every noqa directive in a comment, in order; None when the source cannot be tokenized.

    Rows are counted like the engine counts them (``\\r\\n``, ``\\r`` and ``\\n`` all end a line).
    """
    if "noqa" not in source.lower():
        return []
    out: List[CommentDirective] = []
    try:
        # newline=None: universal newlines, so rows agree with the engine's line splitting
        for token in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            if token.type != tokenize.COMMENT:
                continue
            text = token.string
            row, col = token.start
            for match in NOQA.finditer(text):
                listed = match.group("codes")
                codes = tuple(CODE.findall(listed)) if listed else None
                codes_start = col + match.start("codes") if listed else -1
                out.append(CommentDirective(row, col, col + len(text), col + match.start(), col + match.end(),
                                            codes, codes_start))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return out


def line_end_columns(source: str) -> Optional[Dict[int, int]]:
    """Rows where a comment may be appended -> the column where the line's text ends.

    A row qualifies when it ends a line token-wise (NEWLINE or NL): not a row that ends inside a
    multi-line string, nor one continued with a backslash. None when the source cannot be tokenized.
    """
    ends: Dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source, newline=None).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL):
                ends[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return ends
