"""One JSON object per line (the fields of the json format), for streaming consumers."""
import json
from typing import TextIO

from hylint.report import Report
from hylint.report.json_format import diagnostic_dict


def render(report: Report, out: TextIO) -> None:
    for d in report.diagnostics:
        out.write(json.dumps(diagnostic_dict(d), ensure_ascii=False) + "\n")
