"""A target's result: the verdict, the fixes applied, the outcomes, and their JSON and ``.npz`` forms."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from hylint.verify.inputs import input_json
from hylint.verify.outcomes import DIFFERENT, ERROR, OK, Outcome, TRAIN_PHASE, VerifyError
from hylint.verify.phases import Phases
from hylint.verify.targets import Target


OK_AS_IS, FIXED, FAILS, EAGER_ERROR = "hybridizes", "fixed", "fails", "eager-error"
# a plain gluon.Block whose run gave the eager output: hybridize() traced nothing of the block itself
NOT_HYBRID = "not-hybrid"


@dataclass
class AppliedFix:
    code: str
    name: str
    line: int
    message: str
    applicability: str
    evidence: bool = False  # an opt-in rule's fix (HY102's), applied because the hybridized run failed at its operator
    code_line: str = ""
    proven: bool = False  # an unsafe fix on a line the block executes, proven by running on the given inputs
    why_unsafe: str = ""
    replacement: str = ""  # the fix's new text, and the text it replaces
    replaced: str = ""
    cell: Optional[int] = None  # in a notebook: the cell `line` is counted in

    def to_json(self) -> Dict[str, Any]:
        data = {"code": self.code, "name": self.name, "line": self.line, "message": self.message,
                "applicability": self.applicability, "evidence": self.evidence, "source": self.code_line,
                **({"cell": self.cell} if self.cell is not None else {})}
        if self.applicability == "unsafe":
            data.update(proven=self.proven, why_unsafe=self.why_unsafe, replaced=self.replaced,
                        replacement=self.replacement)
        return data


@dataclass
class TargetReport:
    target: Target
    eager: Outcome
    hybridized: Optional[Outcome] = None
    fixes: List[AppliedFix] = field(default_factory=list)
    fixed: Optional[Outcome] = None  # the fixed source, hybridized (or its eager run, when that differs)
    remaining: List[Any] = field(default_factory=list)  # diagnostics without an applied fix
    verdict: str = FAILS
    check_fix_source: Optional[str] = None  # what `hylint check --fix` writes (None: no change)
    notes: List[str] = field(default_factory=list)
    written: bool = False
    unsafe_source: Optional[str] = None  # the safe fixes plus the unsafe ones proven on the inputs
    write_source: Optional[str] = None  # what --fix writes: check_fix_source, or with --unsafe-fixes unsafe_source
    phases: Optional["Phases"] = None
    calls: List[Outcome] = field(default_factory=list)  # every hybridized call (train mode last, if run)
    train_eager: Optional[Outcome] = None  # the eager train-mode call (Target.train)

    @property
    def proven_unsafe(self) -> List["AppliedFix"]:
        return [fix for fix in self.fixes if fix.proven]

    @property
    def exit_code(self) -> int:
        """0 when it hybridizes as it is, or (outside the gate) its fixed source does; 2 when its constructor
        fails (a usage error, as a missing name is: wrong --kwargs, most often); else 1."""
        if self.verdict == EAGER_ERROR and self.eager.phase == "construct":
            return 2
        if self.verdict == FIXED:
            return 1 if self.gate_failure else 0
        return 0 if self.verdict == OK_AS_IS else 1

    @property
    def gate_failure(self) -> Optional[str]:
        """Why a ``[[tool.hylint.verify]]`` entry fails the gate although its fixed source hybridizes: the block
        as committed needs fixes (those ``--fix`` wrote in this run no longer count). None when it passes."""
        if not self.target.gate or self.verdict != FIXED:
            return None
        unsafe_written = self.written and self.write_source == self.unsafe_source
        needed = [fix for fix in self.fixes if not self.written or (fix.proven and not unsafe_written)]
        if not needed:
            return None
        flags = " --unsafe-fixes" if any(fix.proven for fix in needed) else ""
        return (f"fails: the gate needs the block to hybridize as committed, and it does only with the fixes "
                f"{_fix_list(needed)}; `hylint verify --fix{flags}` writes them")

    def to_json(self) -> Dict[str, Any]:
        return {
            "target": self.target.label, "file": str(self.target.path) if self.target.path else None,
            "backend": self.target.backend, "seed": self.target.seed,
            "inputs": [input_json(spec) for spec in self.target.inputs], "kwargs": self.target.kwargs,
            "verdict": self.verdict, "exit_code": self.exit_code,
            "eager": outcome_json(self.eager),
            "hybridized": outcome_json(self.hybridized) if self.hybridized else None,
            "fixes": [fix.to_json() for fix in self.fixes],
            "fixed": outcome_json(self.fixed) if self.fixed else None,
            "remaining": [{"code": d.code, "name": d.name, "line": d.start[0], "message": d.message,
                           **({"cell": d.cell} if getattr(d, "cell", None) is not None else {})}
                          for d in self.remaining],
            "train_mode": self.target.train,
            "train_eager": outcome_json(self.train_eager) if self.train_eager else None,
            "written": self.written, "notes": self.notes,
            "phases": self.phases.to_json() if self.phases is not None else [],
            **({"gate_failure": self.gate_failure} if self.target.gate else {}),
        }


def _fix_list(fixes: List[AppliedFix]) -> str:
    return ", ".join(f"{fix.code} {'' if fix.cell is None else f'cell {fix.cell} '}line {fix.line}" for fix in fixes)


def outcome_json(outcome: Outcome) -> Dict[str, Any]:
    return {
        "status": outcome.status, "phase": (outcome.phase or None) if outcome.status != OK else None,
        "error_type": outcome.error_type or None,
        "message": outcome.message or None,
        "location": outcome.location.to_json() if outcome.location else None,
        "max_abs_diff": outcome.max_abs_diff,
        "shapes": [list(a.shape) for a in outcome.outputs],
        "expected_shapes": [list(s) for s in outcome.expected_shapes] if outcome.status == DIFFERENT else None,
    }


def output_arrays(report: "TargetReport") -> Dict[str, np.ndarray]:
    """The outputs a run computed, for ``--save-outputs``: ``eager/<i>`` (the eager call), ``hybridized/<i>``
    (the last predict-mode hybridized call that returned, its outputs even when they differ), and with
    ``--train-mode`` ``train_eager/<i>`` and ``train_hybridized/<i>``. Absent when that call raised."""
    arrays: Dict[str, np.ndarray] = {}

    def add(kind: str, outcome: Optional[Outcome]) -> None:
        if outcome is not None and outcome.status != ERROR:
            arrays.update({f"{kind}/{index}": array for index, array in enumerate(outcome.outputs)})

    add("eager", report.eager)
    returned = [o for o in report.calls if o.phase != TRAIN_PHASE and o.status != ERROR and o.outputs]
    add("hybridized", returned[-1] if returned else None)
    add("train_eager", report.train_eager)
    add("train_hybridized", next((o for o in report.calls if o.phase == TRAIN_PHASE), None))
    return arrays


def save_outputs(report: "TargetReport", path: Path) -> None:
    """Write :func:`output_arrays` to ``path`` (a NumPy ``.npz``); VerifyError when it cannot be written."""
    try:
        with open(path, "wb") as handle:
            np.savez(handle, **output_arrays(report))
    except OSError as error:
        raise VerifyError(f"--save-outputs {path}: cannot write it: {error}") from None

