"""What a lint of one text gives: its diagnostics and source, and, after the fix loop (lint/fixes.py),
how many fixes it applied and the problems it met. Made by the engine (lint/engine.py), read by the fix
loop, the runner and the reports."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List

from hylint.diagnostic import Diagnostic


@dataclass
class LintResult:
    diagnostics: List[Diagnostic]
    source: str
    # set by fix_source
    fixed: int = 0
    fixed_by_code: Dict[str, int] = field(default_factory=dict)
    messages: List[str] = field(default_factory=list)  # problems met while fixing
