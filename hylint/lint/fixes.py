"""Applying fixes: non-overlapping edits in position order, and the fix loop (lint, apply, again until
nothing changes; a fix whose result does not parse is dropped and named)."""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from hylint.diagnostic import Applicability, Diagnostic, Edit
from hylint.lint.result import LintResult

MAX_FIX_PASSES = 10


class FixLoopError(Exception):
    """The fix loop did not converge, or a fix broke the syntax."""


def fix_loop(lint: Callable[[str], LintResult], source: str, filename: str, unsafe: bool) -> LintResult:
    """Apply fixes until nothing changes; return the fixed source and what remains. ``lint``: lints one text
    of the file (``Linter.lint_source`` with the file's name and reach, lint/engine.py)."""
    allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
    fixed_by_code: Dict[str, int] = defaultdict(int)
    messages: List[str] = []
    discarded = set()  # fixes whose result did not parse: never retried
    current = source
    for passes in range(MAX_FIX_PASSES + 1):
        result = lint(current)
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
    final = lint(current)
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
    """Apply the fixes whose edits do not overlap an earlier fix's edits (in position order); an edit equal to one
    already taken (same span, same text) is made once."""
    ordered = sorted((d for d in diagnostics if d.fix is not None and d.fix.edits),
                     key=lambda d: (d.fix.edits[0].start_offset, d.code))
    taken: List[Tuple[int, int]] = []
    chosen: Set[Tuple[int, int, str]] = set()  # an edit two fixes share (the same helper inserted) is made once
    applied: List[Diagnostic] = []
    edits: List[Edit] = []
    for diagnostic in ordered:
        own = [e for e in diagnostic.fix.edits if (e.start_offset, e.end_offset, e.content) not in chosen]
        spans = [(e.start_offset, e.end_offset) for e in own]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        chosen.update((e.start_offset, e.end_offset, e.content) for e in own)
        edits.extend(own)
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
