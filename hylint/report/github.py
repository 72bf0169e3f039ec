"""GitHub Actions workflow commands: one ``::error`` annotation per diagnostic.

Escaping follows @actions/core (toolkit ``command.ts``): in the message ``%``, ``\\r``, ``\\n`` become
``%25``, ``%0D``, ``%0A``; in property values ``:`` and ``,`` also become ``%3A`` and ``%2C``.
Paths are relative to the repository root (where GitHub resolves annotation files); the message's
second line is the rule's documentation URL (``hylint rule CODE`` without one).
"""
from typing import TextIO

from hylint.report import Report
from hylint.report._common import docs_reference, relative_path, repository_root, where


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, out: TextIO) -> None:
    root = repository_root()
    for d in report.diagnostics:
        path = relative_path(d.filename, root) or d.filename
        properties = [("title", f"hylint ({d.code})"), ("file", path), ("line", str(d.start[0])),
                      ("col", str(d.start[1])), ("endLine", str(d.end[0])), ("endColumn", str(d.end[1]))]
        message = f"{d.code} {d.message}"
        if d.cell is not None:  # a notebook: the row in its JSON file; the cell position in the message
            properties = [("title", f"hylint ({d.code})"), ("file", path), ("line", str(d.file_row or 1))]
            message = f"{d.code} {where(d)}:{d.start[0]}:{d.start[1]}: {d.message}"
        joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        help_line = f"%0A{escape_data(d.help)}" if d.help else ""  # an annotation shows several lines
        out.write(f"::error {joined}::{escape_data(message)}{help_line}%0A{escape_data(docs_reference(d))}\n")
