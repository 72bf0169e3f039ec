"""pylint's parseable shape, ``path:row: [CODE] message``, for tools that read pylint output."""
from typing import TextIO

from hylint.report import Report
from hylint.report._common import hyperlink, where


def render(report: Report, out: TextIO) -> None:
    for d in report.diagnostics:
        code = hyperlink(d.code, d.url, report.hyperlinks)
        out.write(f"{where(d)}:{d.start[0]}: [{code}] {d.message}\n")
