"""One line a diagnostic, ``path:row:col: CODE [*] message``: the message's first sentence, at most
report._common.SHORT characters (json, sarif and the full format keep it whole)."""
from typing import TextIO

from hylint.report import Report, fixable, summary_lines
from hylint.report._common import hyperlink, short_message, where


def render(report: Report, out: TextIO) -> None:
    for d in report.diagnostics:
        mark = "[*] " if fixable(d, report.unsafe_fixes) else ""
        code = hyperlink(d.code, d.url, report.hyperlinks)
        out.write(f"{where(d)}:{d.start[0]}:{d.start[1]}: {code} {mark}{short_message(d.message)}\n")
    for line in summary_lines(report):
        out.write(line + "\n")
