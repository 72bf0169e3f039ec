"""Output formats: one module per format, each with ``render(report, out)``."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Dict, List, TextIO, Tuple

from hylint.diagnostic import Diagnostic

# format name -> module in this package
FORMATS = {
    "full": "full",
    "concise": "concise",
    "json": "json_format",
    "json-lines": "json_lines",
    "github": "github",
    "sarif": "sarif",
    "gitlab": "gitlab",
    "junit": "junit",
    "grouped": "grouped",
    "pylint": "pylint",
}
# text formats whose rule codes become terminal hyperlinks (OSC 8) to the rule docs when stdout is a
# terminal; the others carry the URL as data (or text) and never get escape sequences
HYPERLINK_FORMATS = {"full", "concise", "grouped", "pylint"}


@dataclass
class Report:
    diagnostics: List[Diagnostic]
    sources: Dict[str, str] = field(default_factory=dict)  # filename -> text, for code frames
    color: bool = False
    fixed_by_code: Dict[str, int] = field(default_factory=dict)
    show_fixes: bool = False
    unsafe_fixes: bool = False  # --unsafe-fixes given: unsafe fixes count as available
    fix_mode: bool = False  # --fix given
    files_checked: int = 0
    hyperlinks: bool = False  # stdout is a terminal: rule codes link to their docs (OSC 8)
    cell_sources: Dict[Tuple[str, int], str] = field(default_factory=dict)  # (notebook, cell) -> cell text
    quiet: bool = False  # -q: no summary lines (ruff's --quiet: the diagnostics, nothing else)


def render(name: str, report: Report, out: TextIO) -> None:
    module = importlib.import_module(f"hylint.report.{FORMATS[name]}")
    module.render(report, out)


def fixable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    if diagnostic.fix is None:
        return False
    return diagnostic.fix.applicability.value == "safe" or unsafe and diagnostic.fix.applicability.value == "unsafe"


def summary_lines(report: Report) -> List[str]:
    """ruff's closing lines: fixed counts, found counts, what --fix / --unsafe-fixes would do (none with -q)."""
    lines: List[str] = []
    if report.quiet:
        return lines
    fixed = sum(report.fixed_by_code.values())
    remaining = len(report.diagnostics)
    if report.show_fixes and report.fixed_by_code:
        lines.append("Fixed:")
        for code, count in sorted(report.fixed_by_code.items()):
            lines.append(f"  {count:>4} × {code}")
    if fixed and remaining:
        lines.append(f"Found {fixed + remaining} error{'s' if fixed + remaining != 1 else ''} "
                     f"({fixed} fixed, {remaining} remaining).")
    elif fixed:
        lines.append(f"Found {fixed} error{'s' if fixed != 1 else ''} ({fixed} fixed, 0 remaining).")
    elif remaining:
        lines.append(f"Found {remaining} error{'s' if remaining != 1 else ''}.")
    safe = sum(1 for d in report.diagnostics if fixable(d, False))
    unsafe = sum(1 for d in report.diagnostics if d.fix is not None and d.fix.applicability.value == "unsafe")
    if safe and not report.fix_mode:
        lines.append(f"[*] {safe} fixable with the `--fix` option"
                     + (f" ({unsafe} more with `--unsafe-fixes`)." if unsafe and not report.unsafe_fixes else "."))
    elif unsafe and not report.unsafe_fixes:
        lines.append(f"No fixes available ({unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with "
                     f"the `--unsafe-fixes` option).")
    elif unsafe and report.unsafe_fixes and not report.fix_mode:
        lines.append(f"[*] {unsafe} fixable with `--fix --unsafe-fixes`.")
    return lines
