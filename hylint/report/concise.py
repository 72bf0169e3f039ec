from typing import TextIO

from hylint.report import Report, fixable, summary_lines
from hylint.report._common import hyperlink, where


def render(report: Report, out: TextIO) -> None:
    for d in report.diagnostics:
        mark = "[*] " if fixable(d, report.unsafe_fixes) else ""
        out.write(f"{where(d)}:{d.start[0]}:{d.start[1]}: {hyperlink(d.code, d.url, report.hyperlinks)} {mark}{d.message}\n")
    for line in summary_lines(report):
        out.write(line + "\n")
