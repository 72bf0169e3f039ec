"""The human-readable report of a target (``--output-format full``)."""
from __future__ import annotations

from typing import Any, List

from hylint.verify.inputs import input_text
from hylint.verify.outcomes import describe_outcome, OK
from hylint.verify.results import EAGER_ERROR, FAILS, FIXED, NOT_HYBRID, OK_AS_IS, TargetReport


def _cell(item: Any) -> str:
    cell = getattr(item, "cell", None)
    return "" if cell is None else f"cell {cell} "


VERDICT_TEXT = {
    OK_AS_IS: "hybridizes as it is, with the eager output",
    NOT_HYBRID: "a plain gluon.Block, not a HybridBlock: hybridize() does not trace it, so nothing of the block "
                "itself was hybridized (its HybridBlock children, if any, give the eager output); make it a "
                "HybridBlock to hybridize it",
    FIXED: "the fixed source hybridizes and computes the eager output",
    FAILS: "does not hybridize correctly, fixed or not",
    EAGER_ERROR: "the block cannot be built or run eagerly: nothing to compare with (check --input and --kwargs)",
}


def render_full(report: TargetReport) -> str:
    t = report.target
    inputs = " ".join(input_text(spec) for spec in t.inputs)
    out = [f"{t.label}  (backend {t.backend}, seed {t.seed}, input {inputs})"]

    def section(title: str, lines: List[str]) -> None:
        out.append(f"  {title:<12}{lines[0]}")
        out.extend(f"  {'':<12}{line}" for line in lines[1:])

    section("eager", describe_outcome(report.eager))
    if report.hybridized is not None:
        section("hybridized", describe_outcome(report.hybridized))
    if report.fixes:
        section("fixes", [f"{f.code} {_cell(f)}line {f.line}{' (fixed source)' if f.evidence else ''}: {f.message}"
                          + ("" if f.applicability == "safe" else
                             " [unsafe, proven on these inputs]" if f.proven else f" [{f.applicability}]")
                          for f in report.fixes])
    elif report.hybridized is not None and report.hybridized.status != OK:
        section("fixes", ["none available"])
    if report.fixed is not None:
        section("fixed", describe_outcome(report.fixed))
    if report.remaining and report.verdict != OK_AS_IS:
        section("remaining", [f"{d.code} {_cell(d)}line {d.start[0]}: {d.message}" for d in report.remaining])
    for note in report.notes:
        section("note", [note])
    if report.gate_failure:
        section("gate", [report.gate_failure])
    verdict = VERDICT_TEXT[report.verdict]
    if report.verdict == FIXED:
        codes = ", ".join(sorted({f.code for f in report.fixes}))
        unsafe = report.proven_unsafe
        if unsafe:
            verdict += (f" ({codes}), with the unsafe fix{'es' if len(unsafe) > 1 else ''} "
                        + ", ".join(f"{f.code} line {f.line}" for f in unsafe) + " proven on these inputs")
        else:
            verdict += f" ({codes})"
        if report.written:
            verdict += "; written"
        elif unsafe and report.write_source != report.unsafe_source:
            verdict += "; run with --fix --unsafe-fixes to write it"
        else:
            verdict += "; run with --fix to write it"
    section("verdict", [f"{report.verdict.upper()}: {verdict}"])
    return "\n".join(out)

