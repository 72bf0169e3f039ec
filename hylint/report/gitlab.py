"""GitLab Code Quality (a subset of the Code Climate issue format): a JSON array of issues with
repository-relative paths and fingerprints that do not depend on line numbers."""
import json
from typing import TextIO

from hylint.report import Report
from hylint.report._common import fingerprints, relative_path, repository_root, where

SEVERITY = {"HY090": "minor"}  # everything else: "major" (code that breaks or changes under hybridize())


def render(report: Report, out: TextIO) -> None:
    root = repository_root()
    paths = {d.filename: relative_path(d.filename, root) or d.filename for d in report.diagnostics}
    prints = fingerprints(report.diagnostics, report.sources, paths, report.cell_sources)
    issues = []
    for d, fingerprint in zip(report.diagnostics, prints):
        begin, end = {"line": d.start[0], "column": d.start[1]}, {"line": d.end[0], "column": d.end[1]}
        description = f"{d.code} {d.message}"
        if d.cell is not None:  # a notebook: the row in its JSON file; the cell position in the description
            begin = end = {"line": d.file_row or 1}
            description = f"{d.code} {where(d)}:{d.start[0]}:{d.start[1]}: {d.message}"
        issues.append({
            "type": "issue",
            "check_name": d.code,
            "description": description,
            "content": {"body": f"[{d.code} {d.name}]({d.url})" if d.url else f"{d.code} {d.name}: `hylint rule {d.code}`"},
            "categories": ["Bug Risk"],
            "severity": SEVERITY.get(d.code, "major"),
            "fingerprint": fingerprint,
            "location": {
                "path": paths[d.filename],
                "positions": {"begin": begin, "end": end},
            },
            **({"url": d.url} if d.url else {}),
        })
    json.dump(issues, out, indent=2, ensure_ascii=False)
    out.write("\n")
