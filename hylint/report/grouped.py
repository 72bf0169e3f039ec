"""Diagnostics grouped by file (ruff's `grouped`): the file name once, then `row:col CODE message` (the
message shortened as in the concise format)."""
from itertools import groupby
from typing import TextIO

from hylint.report import Report, fixable, summary_lines
from hylint.report._common import hyperlink, short_message


def render(report: Report, out: TextIO) -> None:
    for filename, group in groupby(report.diagnostics, key=lambda d: d.filename):
        items = list(group)
        width = max(len(_row_col(d)) for d in items)
        out.write(f"{filename}:\n")
        for d in items:
            mark = "[*] " if fixable(d, report.unsafe_fixes) else ""
            out.write(f"  {_row_col(d):<{width}} {hyperlink(d.code, d.url, report.hyperlinks)} {mark}{short_message(d.message)}\n")
        out.write("\n")
    for line in summary_lines(report):
        out.write(line + "\n")


def _row_col(d) -> str:
    return f"{d.start[0]}:{d.start[1]}" if d.cell is None else f"cell {d.cell}:{d.start[0]}:{d.start[1]}"
