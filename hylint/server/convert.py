"""hylint's diagnostics, fixes and rule docs as Language Server Protocol values.

hylint counts rows from 1 and columns from 1 in characters, splitting lines at ``\\r\\n``, ``\\r`` and
``\\n``; LSP counts both from 0, columns in the code units the client and server agreed on (UTF-16
unless the client offers another). Everything here is a pure function of the text.
"""
from __future__ import annotations

import bisect
import re
from typing import List, Optional, Sequence

from lsprotocol import types as lsp

from hylint.diagnostic import Applicability, Diagnostic, Edit

SOURCE = "hylint"
_NEWLINE = re.compile(r"\r\n|\r|\n")


class Text:
    """A buffer's lines, to turn hylint's (row, column) and offsets into LSP positions."""

    def __init__(self, text: str, encoding: str = lsp.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.encoding = encoding

    def _units(self, chars: str) -> int:
        if self.encoding == lsp.PositionEncodingKind.Utf32:
            return len(chars)
        if self.encoding == lsp.PositionEncodingKind.Utf8:
            return len(chars.encode("utf-8", "surrogatepass"))
        return len(chars.encode("utf-16-le", "surrogatepass")) // 2

    def position(self, row: int, column: int) -> lsp.Position:
        """hylint's 1-based (row, character column) -> an LSP position, clamped to the text."""
        line = min(max(row, 1), len(self.starts)) - 1
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        line_text = self.text[start:end].rstrip("\r\n")
        return lsp.Position(line, self._units(line_text[:max(column - 1, 0)]))

    def offset_position(self, offset: int) -> lsp.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return lsp.Position(line, self._units(self.text[self.starts[line]:offset]))

    def range(self, start, end) -> lsp.Range:
        return lsp.Range(self.position(*start), self.position(*end))

    def end(self) -> lsp.Position:
        return self.offset_position(len(self.text))


def severity(diagnostic: Diagnostic) -> lsp.DiagnosticSeverity:
    # a file hylint cannot parse or read is an error; every rule's finding breaks (or changes) hybridize()
    return lsp.DiagnosticSeverity.Error if diagnostic.code in ("HY000", "HY001") else lsp.DiagnosticSeverity.Warning


def to_lsp(diagnostic: Diagnostic, text: Text, documented: Sequence[str] = ()) -> lsp.Diagnostic:
    """``documented``: the codes whose rule has documentation to link to."""
    return lsp.Diagnostic(
        range=text.range(diagnostic.start, diagnostic.end),
        message=diagnostic.message,
        severity=severity(diagnostic),
        code=diagnostic.code,
        code_description=lsp.CodeDescription(href=diagnostic.url)
        if diagnostic.code in documented and diagnostic.url else None,  # a link only where the page exists
        source=SOURCE,
    )


def fix_title(diagnostic: Diagnostic) -> str:
    fix = diagnostic.fix
    title = f"hylint ({diagnostic.code}): {fix.message}"
    return title + " (unsafe fix)" if fix.applicability == Applicability.UNSAFE else title


def text_edits(edits: Sequence[Edit], text: Text) -> List[lsp.TextEdit]:
    return [lsp.TextEdit(text.range(edit.start, edit.end), edit.content) for edit in edits]


def minimal_edit(old: str, new: str, encoding: str = lsp.PositionEncodingKind.Utf16) -> Optional[lsp.TextEdit]:
    """One edit replacing only what differs between ``old`` and ``new`` (None when they are equal), so the
    editor keeps the cursor and the undo history readable; never splits a ``\\r\\n``."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start, old_end = prefix, len(old) - suffix
    if start > 0 and old[start - 1] == "\r" and old[start:start + 1] == "\n":
        start -= 1
    if old_end < len(old) and old[old_end] == "\n" and old_end > 0 and old[old_end - 1] == "\r":
        old_end += 1
    new_start, new_end = start, len(new) - (len(old) - old_end)
    text = Text(old, encoding)
    return lsp.TextEdit(lsp.Range(text.offset_position(start), text.offset_position(old_end)),
                        new[new_start:new_end])


_FIX_KIND = {Applicability.SAFE: "Fix", Applicability.UNSAFE: "Fix (unsafe: `--unsafe-fixes`)",
             Applicability.DISPLAY_ONLY: "Suggestion"}


def hover_markdown(diagnostic: Diagnostic, rule_type) -> str:
    """What hovering a diagnostic shows: its message and help, its fix's title, the rule's "What it does"
    section and where the whole page is (its link where the page exists, else `hylint rule CODE`), not the
    whole page."""
    parts = [f"**{diagnostic.code}** ({rule_type.NAME}): {diagnostic.message}"]
    if diagnostic.help:
        parts.append(diagnostic.help)
    if diagnostic.fix is not None:
        parts.append(f"{_FIX_KIND[diagnostic.fix.applicability]}: {diagnostic.fix.message}")
    what = doc_section(rule_type.DOC or "", "What it does")
    if what:
        parts.append(what)
    url = diagnostic.url if rule_type.DOC else None
    parts.append(f"More: [{diagnostic.code} {rule_type.NAME}]({url}), or `hylint rule {diagnostic.code}`" if url
                 else f"More: `hylint rule {diagnostic.code}`")
    return "\n\n".join(parts)


def doc_section(doc: str, title: str) -> str:
    """The text under ``## title`` of a rule's DOC, up to the next heading ('' without one)."""
    match = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", doc, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def contains(range_: lsp.Range, position: lsp.Position) -> bool:
    start, end = (range_.start.line, range_.start.character), (range_.end.line, range_.end.character)
    return start <= (position.line, position.character) <= end


def overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    return ((a.start.line, a.start.character) <= (b.end.line, b.end.character)
            and (b.start.line, b.start.character) <= (a.end.line, a.end.character))
