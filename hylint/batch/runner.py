"""Check (or fix) one file: read, lint or fix, write back. The command line calls this per file."""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional

from hylint.diagnostic import Diagnostic
from hylint.batch.files import SourceError, SourceFile, WriteError, decode, encode, read_source, write_atomic

if TYPE_CHECKING:  # the engine (and libcst) is imported only when a file is analysed
    from hylint.analysis.reach import FileReach
    from hylint.lint.engine import Linter, Reduction

LINT, FIX, DIFF = "lint", "fix", "diff"


@dataclass
class FileOutcome:
    filename: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    text: Optional[str] = None  # the source the diagnostics refer to
    fixed_by_code: Dict[str, int] = field(default_factory=dict)
    diff: str = ""  # unified diff (DIFF mode)
    fixed_text: Optional[str] = None  # the fixed source, when it differs
    messages: List[str] = field(default_factory=list)  # problems to tell the user (stderr)
    failed: bool = False  # an error (hylint failed on the file, fix loop did not converge, file not writable): exit 2


def unreadable(filename: str, reason: str) -> Diagnostic:
    return Diagnostic("HY001", "unreadable-file", f"Cannot read the file: {reason}", filename, (1, 1), (1, 1))


def process_source(source: SourceFile, filename: str, linter: Linter, mode: str, unsafe: bool,
                   write: bool, reach: Optional[FileReach] = None, own_reach: bool = False,
                   reduction: Optional[Reduction] = None) -> FileOutcome:
    """``reach``: what a trace of the file's package reaches in it (hylint/batch/reach.py). A source with no
    package (a notebook; with ``own_reach``, stdin without a name or a lone module's buffer) gets the reach
    of its own text, unsaved edits included. ``reduction``: the regions of the source, made where its
    syntax tree was (``Linter.prepare``)."""
    from hylint.lint.engine import FixLoopError

    if reach is None and (own_reach or source.notebook):
        from hylint.batch.reach import reach_of_text

        reach = reach_of_text(source.text)
    outcome = FileOutcome(filename)
    if mode == LINT:
        result = linter.lint_source(source.text, filename, reach, reduction=reduction)
        outcome.diagnostics, outcome.text = result.diagnostics, source.text
        return outcome
    try:
        result = linter.fix_source(source.text, filename, unsafe=unsafe, reach=reach)
    except FixLoopError as error:
        outcome.messages.append(f"hylint: error: {error}; the file was left as it was")
        outcome.failed = True
        result = linter.lint_source(source.text, filename, reach)
        outcome.diagnostics, outcome.text = result.diagnostics, source.text
        return outcome
    outcome.messages.extend(result.messages)
    if source.notebook and result.messages:  # name the cell, not the row of the cells joined
        from hylint.batch.notebook import cell_message

        outcome.messages = [cell_message(source.text, filename, message) for message in outcome.messages]
    outcome.diagnostics, outcome.text = result.diagnostics, result.source
    if result.source != source.text:
        outcome.fixed_text = result.source
        outcome.fixed_by_code = result.fixed_by_code
        if mode == DIFF:
            if source.notebook:  # cell by cell
                from hylint.batch.notebook import cell_diff

                outcome.diff = cell_diff(source.text, result.source, filename)
            else:
                outcome.diff = "".join(difflib.unified_diff(
                    source.text.splitlines(keepends=True), result.source.splitlines(keepends=True),
                    fromfile=f"a/{filename}", tofile=f"b/{filename}"))
            # in diff mode nothing is fixed: report the original's diagnostics
            original = linter.lint_source(source.text, filename, reach, reduction=reduction)
            outcome.diagnostics, outcome.text = original.diagnostics, source.text
            outcome.fixed_by_code = {}
        elif write:
            try:
                write_atomic(source, result.source)
                if source.notebook:  # the notebook file's rows moved: read them from what was written
                    outcome.text = decode(encode(source, result.source), filename).text
            except WriteError as error:
                outcome.messages.append(f"hylint: error: {filename}: cannot write the fixes: {error}")
                outcome.failed = True
                original = linter.lint_source(source.text, filename, reach)
                outcome.diagnostics, outcome.text = original.diagnostics, source.text
                outcome.fixed_by_code, outcome.fixed_text = {}, None
    return outcome


def process_path(path: Path, linter: Linter, mode: str, unsafe: bool, reach=None) -> FileOutcome:
    try:
        return _process_path(path, linter, mode, unsafe, reach)
    except Exception as error:  # one file must not stop the run; HYLINT_DEBUG=1 shows the traceback
        return _internal_error(str(path), error)


def _internal_error(filename: str, error: Exception) -> FileOutcome:
    if os.environ.get("HYLINT_DEBUG"):
        raise error
    reason = "too deeply nested" if isinstance(error, RecursionError) else f"{type(error).__name__}: {error}"
    outcome = FileOutcome(filename, failed=True)
    outcome.messages.append(f"hylint: error: {filename}: internal error, file not checked ({reason}); "
                            f"set HYLINT_DEBUG=1 for details")
    return outcome


def _process_path(path: Path, linter: Linter, mode: str, unsafe: bool, reach=None) -> FileOutcome:
    filename = str(path)
    try:
        source = read_source(path)
    except SourceError as error:
        outcome = FileOutcome(filename)
        if "HY001" in linter.codes:
            outcome.diagnostics.append(unreadable(filename, str(error)))
        return outcome
    return process_source(source, filename, linter, mode, unsafe, write=(mode == FIX), reach=reach)


def process_stdin(raw: bytes, filename: str, linter: Linter, mode: str, unsafe: bool,
                  reach: Optional[FileReach] = None, own_reach: bool = False) -> FileOutcome:
    """``own_reach``: the text is a module of its own (no file name, a lone module): ``process_source``."""
    try:
        source = decode(raw, filename)
    except SourceError as error:
        outcome = FileOutcome(filename)
        outcome.diagnostics.append(unreadable(filename, str(error)))
        return outcome
    try:
        return process_source(source, filename, linter, mode, unsafe, write=False, reach=reach, own_reach=own_reach)
    except Exception as error:
        return _internal_error(filename, error)
