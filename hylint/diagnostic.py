"""Plain data types shared by the engine, the rules and the reporters."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional, Tuple

# The project's public home is not decided yet; these two constants are the only place that names it.
# Every diagnostic's `url` points at the rule's section (anchor) in docs/rules.md, which
# scripts/gen_rule_docs.py generates from the rules' own DOC (tests/rules/test_rule_docs.py keeps it current).
HOME_URL = "https://github.com/hylint/hylint"
DOCS_URL = HOME_URL + "/blob/main/docs/rules.md#{anchor}"


class Applicability(str, Enum):
    """ruff's three fix applicabilities."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


# (row, column), both 1-based, column counted in characters
Location = Tuple[int, int]


@dataclass(frozen=True)
class Edit:
    content: str
    start: Location
    end: Location
    # absolute character offsets into the decoded source, used to apply the edit
    start_offset: int = field(default=0, compare=False)
    end_offset: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: Tuple[Edit, ...]


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    filename: str
    start: Location
    end: Location
    fix: Optional[Fix] = None
    noqa_row: Optional[int] = None
    # a notebook's diagnostic: its cell (1-based over all cells, as Jupyter shows them; rows are the
    # cell's) and the row of that line in the notebook file (hylint/batch/notebook.py)
    cell: Optional[int] = None
    file_row: Optional[int] = None

    @property
    def url(self) -> str:
        return rule_url(self.code, self.name)

    def sort_key(self):
        return (self.filename, self.cell or 0, self.start, self.code)


def rule_url(code: str, name: str) -> str:
    return DOCS_URL.format(anchor=f"{code.lower()}-{name}")
