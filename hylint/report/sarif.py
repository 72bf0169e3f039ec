"""SARIF 2.1.0 for GitHub code scanning (``github/codeql-action/upload-sarif``).

One run; ``tool.driver.rules`` describes every hylint rule (the results point at them with
``ruleIndex``); each result has a repository-relative location (``uriBaseId`` ``%SRCROOT%``), a full
region (columns counted in Unicode code points, end column exclusive, as SARIF defines it), the fix
when there is one, and ``partialFingerprints`` that do not depend on line numbers.
"""
import json
from pathlib import Path
from typing import Any, Dict, List, TextIO
from urllib.parse import quote

from hylint import __version__
from hylint.diagnostic import Diagnostic, Location, docs_base, rule_url
from hylint.report import Report
from hylint.report._common import docs_reference, fingerprints, relative_path, repository_root

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "hylint/v1"
# unused-noqa is housekeeping; every other rule reports code that breaks or changes under hybridize()
WARNING_RULES = {"HY090"}


def level(code: str) -> str:
    return "warning" if code in WARNING_RULES else "error"


def _uri(filename: str, root: Path) -> Dict[str, str]:
    relative = relative_path(filename, root)
    if relative is None:
        return {"uri": Path(filename).resolve().as_uri()}
    return {"uri": quote(relative, safe="/"), "uriBaseId": "%SRCROOT%"}


def _region(start: Location, end: Location) -> Dict[str, int]:
    return {"startLine": start[0], "startColumn": start[1], "endLine": end[0], "endColumn": end[1]}


def _rules() -> List[Dict[str, Any]]:
    from hylint.selection import all_rules

    out = []
    for code, rule in all_rules().items():
        url = rule_url(code, rule.NAME)
        see = url or f"`hylint rule {code}`"
        out.append({
            "id": code,
            "name": rule.NAME,
            "shortDescription": {"text": rule.summary()},
            "fullDescription": {"text": rule.DOC.strip(), "markdown": rule.DOC.strip()},
            "help": {"text": f"{rule.summary()}. See {see}",
                     "markdown": f"[{code} {rule.NAME}]({url})" if url else f"{code} {rule.NAME}: {see}"},
            **({"helpUri": url} if url else {}),  # only an address that leads somewhere
            "defaultConfiguration": {"level": level(code), "enabled": bool(rule.DEFAULT_ENABLED)},
        })
    return out


def _result(d: Diagnostic, index: Dict[str, int], root: Path, fingerprint: str) -> Dict[str, Any]:
    location = _uri(d.filename, root)
    result: Dict[str, Any] = {
        "ruleId": d.code,
        "level": level(d.code),
        "message": {"text": f"{d.message}{'. ' + d.help if d.help else ''} ({docs_reference(d)})"},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": _region(d.start, d.end)}}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.cell is not None:
        # a notebook: the region is the row of the JSON file a reader finds the line on (columns there are
        # not the cell's); the cell position is carried as a property and in the message
        result["locations"][0]["physicalLocation"]["region"] = {"startLine": d.file_row or 1}
        result["message"]["text"] = f"cell {d.cell}:{d.start[0]}:{d.start[1]}: {result['message']['text']}"
        result["properties"] = {"cell": d.cell, "cellRegion": _region(d.start, d.end)}
        if d.fix is not None:
            result["properties"]["fixApplicability"] = d.fix.applicability.value
        return result
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [{
            "description": {"text": d.fix.message},
            "artifactChanges": [{
                "artifactLocation": location,
                "replacements": [{"deletedRegion": _region(e.start, e.end), "insertedContent": {"text": e.content}}
                                 for e in d.fix.edits],
            }],
        }]
        result["properties"] = {"fixApplicability": d.fix.applicability.value}
    return result


def render(report: Report, out: TextIO) -> None:
    root = repository_root()
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    paths = {d.filename: relative_path(d.filename, root) or d.filename for d in report.diagnostics}
    prints = fingerprints(report.diagnostics, report.sources, paths, report.cell_sources)
    log = {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": "hylint",
                "version": __version__,
                "semanticVersion": __version__,
                **({"informationUri": docs_base()} if docs_base() else {}),
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(d, index, root, fp) for d, fp in zip(report.diagnostics, prints)],
        }],
    }
    json.dump(log, out, indent=2, ensure_ascii=False)
    out.write("\n")
