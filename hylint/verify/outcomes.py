"""What one run of a block gave (:class:`Outcome`: ok, error or different, and where it failed), the error
type every usage problem raises (:class:`VerifyError`), and an outcome described in words."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np


OK, ERROR, DIFFERENT = "ok", "error", "different"


TRAIN_PHASE = "train mode"


class VerifyError(Exception):
    """The module cannot be verified (no EXAMPLES, unknown block, backend unavailable): the message says why."""


@dataclass
class Location:
    """Where user code caused a failure: the file, the line and its text."""
    filename: str
    line: int
    code: str = ""

    def to_json(self) -> Dict[str, Any]:
        return {"file": self.filename, "line": self.line, "code": self.code}


@dataclass
class Outcome:
    status: str  # OK | ERROR | DIFFERENT
    error_type: str = ""
    message: str = ""
    outputs: List[np.ndarray] = field(default_factory=list, repr=False)
    # ERROR: when it failed ("eager", "construct", "trace", "graph", "cached graph", "hybridize") and where
    phase: str = ""
    location: Optional[Location] = None
    # DIFFERENT: the largest absolute difference (None when the shapes differ) and the shapes compared
    max_abs_diff: Optional[float] = None
    expected_shapes: List[Tuple[int, ...]] = field(default_factory=list)

    def describe(self) -> str:
        if self.status == ERROR:
            return f"{self.error_type}: {self.message}"
        return self.status if not self.message else f"{self.status} ({self.message})"


@dataclass
class BlockResult:
    name: str
    eager: Outcome
    hybrid: List[Outcome]  # one per hybridized call (two calls; empty if eager failed)

    @property
    def hybrid_status(self) -> str:
        """ERROR if any hybridized call raised, else DIFFERENT if any differed, else OK."""
        statuses = [o.status for o in self.hybrid]
        if not statuses:
            return ERROR
        return ERROR if ERROR in statuses else DIFFERENT if DIFFERENT in statuses else OK


def first_line(error: BaseException) -> str:
    """The line of an exception's message that says what failed (MXNet's start with a traceback banner)."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    chosen = next((line for line in lines if "Check failed" in line or "Error in operator" in line), None)
    if chosen is None:
        noise = ("Traceback", "File ", "[bt]", "Stack trace")
        useful = [line for line in lines if not line.startswith(noise)]
        if len(useful) == len(lines):  # a plain multi-line message (a block's repr inside it): all of it
            chosen = " ".join(lines)
        else:
            chosen = useful[-1] if useful else lines[0] if lines else ""
    # MXNet's C++ log prefix (`[06:42:26] ../src/.../elemwise_op_common.h:134: `) and its repeated type name
    chosen = re.sub(r"\[\d\d:\d\d:\d\d\] \S+:\d+: ", "", chosen)
    while chosen.startswith("MXNetError: "):
        chosen = chosen[len("MXNetError: "):]
    return chosen[:300]


def describe_outcome(outcome: Outcome, reference_shapes: Sequence[Tuple[int, ...]] = ()) -> List[str]:
    if outcome.status == OK:
        shapes = ", ".join(str(tuple(a.shape)) for a in outcome.outputs)
        gap = "" if outcome.max_abs_diff is None else f" (max |d| = {outcome.max_abs_diff:.2g})"
        return [f"ok: output {shapes}" + (f" equals the eager output{gap}" if outcome.phase != "eager" else "")]
    if outcome.status == DIFFERENT:
        got = ", ".join(str(tuple(a.shape)) for a in outcome.outputs)
        want = ", ".join(str(tuple(s)) for s in outcome.expected_shapes)
        lines = [f"silently different: {outcome.message}",
                 f"output shapes {got}, eager {want}" + (f"; max |d| = {outcome.max_abs_diff:.3g}"
                                                          if outcome.max_abs_diff is not None else "")]
        return lines
    lines = [f"error ({outcome.phase}): {outcome.error_type}: {outcome.message}"]
    if outcome.location is not None:
        lines.append(f"at {outcome.location.filename}:{outcome.location.line}")
        if outcome.location.code:
            lines.append(f"    {outcome.location.code}")
    return lines

