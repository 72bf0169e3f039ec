"""A JSON array with ruff's field names."""
import json
from typing import Any, Dict, Optional, TextIO

from hylint.diagnostic import Diagnostic
from hylint.report import Report


def _location(location) -> Dict[str, int]:
    return {"row": location[0], "column": location[1]}


def diagnostic_dict(d: Diagnostic) -> Dict[str, Any]:
    fix: Optional[Dict[str, Any]] = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability.value,
            "message": d.fix.message,
            "edits": [{"content": e.content, "location": _location(e.start), "end_location": _location(e.end)}
                      for e in d.fix.edits],
            # hylint's own fields: the facts the rewrite relies on, as the analysis answered them, and
            # for an unsafe fix the assumption it rests on
            "relies_on": [{"expression": c.expression, "fact": c.fact, "proven": c.proven, "evidence": c.evidence}
                          for c in d.fix.relies_on],
            "why_unsafe": d.fix.why_unsafe,
        }
    return {
        "code": d.code,
        "message": d.message,
        "filename": d.filename,
        "location": _location(d.start),
        "end_location": _location(d.end),
        "fix": fix,
        "url": d.url,
        "noqa_row": d.noqa_row,
        "cell": d.cell,  # ruff's field: the notebook cell the rows refer to (null outside notebooks)
        # hylint's own field: the longer explanation the message leaves out (what to write instead, how the
        # trace reaches the code, what follows from it), null when there is none
        "help": d.help,
    }


def render(report: Report, out: TextIO) -> None:
    json.dump([diagnostic_dict(d) for d in report.diagnostics], out, indent=2, ensure_ascii=False)
    out.write("\n")
