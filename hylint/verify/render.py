"""The human-readable report of a target (``--output-format full``)."""
from __future__ import annotations

from typing import Any, Dict, List

from hylint.verify.harness import argument_text
from hylint.verify.inputs import input_text
from hylint.verify.outcomes import describe_outcome, DIFFERENT, OK
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
            named = dict.fromkeys(f"{f.code} line {f.line}" for f in unsafe)  # a line with two diagnostics, once
            verdict += (f" ({codes}), with the unsafe fix{'es' if len(unsafe) > 1 else ''} "
                        + ", ".join(named) + " proven on these inputs")
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



# -- `hylint verify PATH`: one line per block, then a summary -----------------------------------------------
def _short(text: str, most: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= most else text[:most - 3] + "..."


def survey_kind(result: Dict[str, Any]) -> str:
    """HYBRIDIZES, FIXED, FAILS, DIFFERS or NOT RUN: the word a block's line starts with."""
    verdict = result.get("verdict")
    if verdict == OK_AS_IS:
        return "HYBRIDIZES"
    if verdict == FIXED:
        return "FIXED"
    if verdict == FAILS:
        hybridized = result.get("hybridized") or {}
        return "DIFFERS" if hybridized.get("status") == DIFFERENT else "FAILS"
    return "NOT RUN"


def survey_line(result: Dict[str, Any]) -> str:
    """One block's line: its verdict, where and how it fails, and what it was built and fed with."""
    kind = survey_kind(result)
    head = f"{result['target']}  {kind}"
    if kind == "NOT RUN":
        return f"{head}: {_short(result.get('reason', ''), 300)}"
    hybridized = result.get("hybridized") or {}
    if kind == "FIXED":
        head += " by " + ", ".join(f"{f['code']} line {f['line']}" for f in result.get("fixes", []))
        if result.get("gate_failure"):
            head += " (its [[tool.hylint.verify]] gate fails: it hybridizes only once fixed)"
    elif kind == "FAILS":
        location = hybridized.get("location")
        where = f" at {location['file']}:{location['line']}" if location else ""
        head += f"{where} ({hybridized.get('phase')}): {_short(hybridized.get('error_type', '') + ': ' + (hybridized.get('message') or ''))}"
        codes = result.get("check_codes")
        if codes:
            head += f"; confirmed by running ({', '.join(codes)} reported there by hylint check)"
        elif codes is not None:
            head += "; found by running only (no rule reports that line)"
    elif kind == "DIFFERS":
        gap = hybridized.get("max_abs_diff")
        head += f" by max |d| = {gap:.3g}" if gap is not None else f": {_short(hybridized.get('message') or '')}"
    smaller = result.get("smaller_input")
    if smaller:
        head += f" (it failed hybridized at the smaller input {_short(smaller, 160)}, which a larger one does not)"
    how = result.get("input_text")
    if how is not None:
        kwargs = result.get("kwargs") or {}
        built = ", ".join(f"{k}={argument_text(v)}" for k, v in kwargs.items())
        if result.get("factory"):
            built = f"built by {result['factory']}({built})"
        head += f"  [input {how or 'none'}" + (f"; {built}" if built else "") + "]"
    return head


def survey_summary(results: List[Dict[str, Any]], seconds: float, cached: int = 0) -> str:
    """``197 of 214 hybridize; 3 fixed, 5 fail, 2 differ, 7 not run (4 could not build, 3 no input found)``."""
    kinds = [survey_kind(r) for r in results]
    count = {kind: kinds.count(kind) for kind in ("HYBRIDIZES", "FIXED", "FAILS", "DIFFERS", "NOT RUN")}
    reasons: Dict[str, int] = {}
    for result, kind in zip(results, kinds):
        if kind == "NOT RUN":
            reason = str(result.get("reason", "")).split(":")[0].split(" after ")[0]
            reasons[reason] = reasons.get(reason, 0) + 1
    parts = [f"{count['FIXED']} fixed", f"{count['FAILS']} fail", f"{count['DIFFERS']} differ",
             f"{count['NOT RUN']} not run"
             + (" (" + ", ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda i: -i[1])) + ")"
                if reasons else "")]
    text = f"{count['HYBRIDIZES']} of {len(results)} hybridize; " + ", ".join(parts)
    return text + f" ({seconds:.1f} s" + (f", {cached} from the cache" if cached else "") + ")"
