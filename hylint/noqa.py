"""``# noqa`` and ``# noqa: HY301,HY201`` comments (flake8/ruff semantics)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional

NOQA = re.compile(r"#\s*noqa(?::[ \t]*(?P<codes>[A-Za-z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Za-z]+[0-9]+)*))?", re.I)
CODE = re.compile(r"[A-Za-z]+[0-9]+")


@dataclass(frozen=True)
class Noqa:
    row: int
    codes: Optional[FrozenSet[str]]  # None: blanket noqa
    start: int  # column (0-based) of the comment directive on its line
    end: int

    def suppresses(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def parse_noqa(lines: List[str]) -> Dict[int, Noqa]:
    """Map 1-based row -> its noqa directive, for rows that have one.

    A ``#`` inside a string literal can fool this text scan only on lines that also contain the
    word ``noqa``; that is flake8's behaviour as well.
    """
    found: Dict[int, Noqa] = {}
    for row, line in enumerate(lines, start=1):
        if "noqa" not in line and "NOQA" not in line.upper():
            continue
        match = NOQA.search(line)
        if match is None:
            continue
        codes = match.group("codes")
        found[row] = Noqa(row, frozenset(c.upper() for c in CODE.findall(codes)) if codes else None,
                          match.start(), match.end())
    return found
