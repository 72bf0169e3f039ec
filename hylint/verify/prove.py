"""Fix proving: apply hylint's fixes in memory, run the fixed source, and keep only what running proves
(the safe fixes, runtime-evidence fixes of opt-in rules, unsafe fixes on the executed lines)."""
from __future__ import annotations

import ast
import contextlib
import linecache
import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from hylint.verify.compare import summarize
from hylint.verify.harness import build_block, call_block, run_factory
from hylint.verify.locate import NODE_IN_MESSAGE
from hylint.verify.outcomes import describe_outcome, DIFFERENT, ERROR, OK, Outcome, VerifyError
from hylint.verify.results import AppliedFix, FAILS, FIXED, NOT_HYBRID, OK_AS_IS, TargetReport
from hylint.verify.sandbox import forget_package, ImportFailure, load_source, source_override
from hylint.verify.targets import module_factory, resolve_factory, Target


MAX_EVIDENCE_ROUNDS = 8


# the elementwise (non-broadcasting) graph operators behind Symbol's tensor-tensor operators
ELEMENTWISE_OPS = {
    "_plus": "broadcast_add", "_minus": "broadcast_sub", "_mul": "broadcast_mul", "_div": "broadcast_div",
    "_mod": "broadcast_mod", "_power": "broadcast_power", "_equal": "broadcast_equal",
    "_not_equal": "broadcast_not_equal", "_greater": "broadcast_greater",
    "_greater_equal": "broadcast_greater_equal", "_lesser": "broadcast_lesser",
    "_lesser_equal": "broadcast_lesser_equal",
}


_SHAPE_MISMATCH = re.compile(r"expected \[[\d, ]*\], got \[")


def fixed_filename(path: Path, evidence: Sequence[str] = (), unsafe: bool = False) -> str:
    """The name a fixed source runs under (in tracebacks and locations); ``evidence``: the codes of the
    evidence fixes applied so far, one per fix."""
    kind = "fixed, unsafe" if unsafe else "fixed"
    codes = ", ".join(sorted(set(evidence)))
    return f"{path} ({kind})" if not evidence else f"{path} ({kind}, +{len(evidence)} {codes})"


def evidence_rules() -> List[Any]:
    """The opt-in rules with a fix. Off by default, their diagnostics are mostly false on real code (HY102
    flags every tensor operator whose operand shapes are not proven equal), so `hylint check --fix` does not
    apply them; but when the hybridized run fails with a shape mismatch at an operator one of them flags
    and its fix rewrites that operator into the broadcasting one, running has proven that diagnostic true."""
    from hylint.selection import all_rules

    return [rule for code, rule in sorted(all_rules().items()) if not rule.DEFAULT_ENABLED and rule.FIX_TITLE]


def _evidence_fix(outcome: Outcome, text: str, filename: str) -> Optional[Any]:
    """The diagnostic of an evidence rule (:func:`evidence_rules`) whose fix replaces the operator the
    hybridized run failed at, or None: a shape mismatch at an elementwise graph node created on a line where
    such a rule flags that operator."""
    if outcome.status != ERROR or outcome.phase != "graph" or outcome.location is None:
        return None
    if outcome.location.filename != filename or not _SHAPE_MISMATCH.search(outcome.message):
        return None
    node = NODE_IN_MESSAGE.search(outcome.message)
    op = None
    if node and node.group(1):
        for candidate in sorted(ELEMENTWISE_OPS, key=len, reverse=True):
            if re.search(re.escape(candidate) + r"\d+$", node.group(1)):
                op = ELEMENTWISE_OPS[candidate]
                break
    if op is None:
        return None
    from hylint.lint.engine import Linter

    diagnostics = [d for rule in evidence_rules()  # each rule alone: what it reports does not depend on others
                   for d in Linter([rule]).lint_source(text, filename).diagnostics]
    here = [d for d in diagnostics if d.start[0] == outcome.location.line and d.fix is not None
            and any(op + "(" in edit.content for edit in d.fix.edits)]
    # the innermost operator is created (and fails) first
    here.sort(key=lambda d: sum(e.end_offset - e.start_offset for e in d.fix.edits))
    return here[0] if here else None


def fix_and_prove(mx: Any, report: TargetReport, linter: Any, source: str, path: Path,
                  reference: Sequence[np.ndarray], unsafe: bool) -> None:
    """hylint's safe fixes (exactly `hylint check --fix`'s), run; when they are not enough, the unsafe fixes
    on lines this run executes, each proven by running: the fixed block's eager and hybridized outputs must
    equal the original's eager output."""
    from hylint.lint.engine import FixLoopError

    filename = str(path)
    try:
        result = linter.fix_source(source, filename, unsafe=False)
    except FixLoopError as error:
        report.notes.append(f"fixing failed: {error}")
        result = None
    text = source
    if result is not None:
        original = linter.lint_source(source, filename).diagnostics
        safe = [d for d in original if d.fix is not None and d.fix.applicability.value == "safe"]
        report.fixes = [AppliedFix(d.code, d.name, d.start[0], d.message, d.fix.applicability.value,
                                   code_line=linecache.getline(filename, d.start[0]).strip())
                        for d in _run_by_target(mx, safe, source, filename, path, report.target)]
        report.remaining = list(result.diagnostics)
        report.notes.extend(result.messages)
        if result.source != source:
            report.check_fix_source = report.write_source = result.source
            text = result.source
    current = report.hybridized
    if text != source:
        current = _run_fixed(mx, text, fixed_filename(path), path, report.target, reference)
    text, current, rounds = _evidence_rounds(mx, report, text, source, current, path, reference)
    if text != source:
        report.fixed = current
    if rounds and current.status == OK:
        report.write_source = text  # the evidence fixes, proven by this run, are written with the others
    if report.hybridized.status != OK and current.status != OK and result is not None:
        _try_unsafe(mx, report, linter, report.check_fix_source or source, source, path, reference, unsafe)
    if report.hybridized.status == OK:
        report.verdict = OK_AS_IS
        if report.fixed is not None and report.fixed.status != OK:
            report.notes.append("hylint's fixes break this block, which hybridizes as it is")
    elif report.fixed is not None and report.fixed.status == OK:
        report.verdict = FIXED
    else:
        report.verdict = FAILS


def _run_by_target(mx: Any, diagnostics: List[Any], source: str, filename: str, path: Path,
                   target: Target) -> List[Any]:
    """The diagnostics on lines the target runs when built and called eagerly: the fixes of a file's other
    blocks are written by ``--fix`` like `hylint check --fix`'s, but they are not this target's to list."""
    own = _class_lines(source, target.name)
    if all(d.start[0] in own for d in diagnostics):
        return diagnostics  # all in the target's own class: no run needed to tell them apart
    try:
        executed = _executed_lines(mx, source, filename, path, target)
    except VerifyError:
        return diagnostics  # (the run that failed says why; the listing stays whole)
    return [d for d in diagnostics if executed.intersection(range(d.start[0], d.end[0] + 1))]


def _class_lines(source: str, name: str) -> range:
    """The lines of the module-level class ``name`` (its last dotted part) in ``source``, else none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return range(0)
    short = name.rsplit(".", 1)[-1]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == short:
            return range(node.lineno, (node.end_lineno or node.lineno) + 1)
    return range(0)


def _evidence_rounds(mx: Any, report: TargetReport, text: str, source: str, current: Outcome, path: Path,
                     reference: Sequence[np.ndarray], unsafe_step: bool = False) -> Tuple[str, Outcome, int]:
    """The evidence rules' fixes at the operators the hybridized run fails at, one per round."""
    from hylint.lint.engine import apply_fixes

    rounds, codes = 0, []
    while rounds < MAX_EVIDENCE_ROUNDS:
        fixed_name = fixed_filename(path, codes, unsafe_step) if text != source else str(path)
        diagnostic = _evidence_fix(current, text, fixed_name)
        if diagnostic is None:
            break
        text, applied = apply_fixes(text, [diagnostic])
        rounds += 1
        codes.append(diagnostic.code)
        report.fixes.append(AppliedFix(diagnostic.code, diagnostic.name, diagnostic.start[0], diagnostic.message,
                                       diagnostic.fix.applicability.value, evidence=True, proven=unsafe_step,
                                       code_line=linecache.getline(fixed_name, diagnostic.start[0]).strip()))
        current = _run_fixed(mx, text, fixed_filename(path, codes, unsafe_step), path, report.target, reference)
    if rounds:
        names = sorted(set(codes))
        report.notes.append(f"{rounds} {', '.join(names)} fix{'es' if rounds > 1 else ''} applied because "
                            f"the hybridized run failed at {'their' if rounds > 1 else 'its'} operator; "
                            f"`hylint check --fix` does not make {'them' if rounds > 1 else 'it'} (retired "
                            f"or opt-in: without a failing run, such diagnostics were false on real code); "
                            f"`hylint verify --fix` writes {'them' if rounds > 1 else 'it'}")
    return text, current, rounds


def _try_unsafe(mx: Any, report: TargetReport, linter: Any, text: str, source: str, path: Path,
                reference: Sequence[np.ndarray], unsafe: bool) -> None:
    """Apply the unsafe fixes whose lines the block executes (on ``text``, the safe-fixed source) and run:
    proven when the fixed block computes the original's eager output, eagerly and hybridized."""
    from hylint.lint.engine import FixLoopError, apply_fixes

    filename = fixed_filename(path) if text != source else str(path)
    candidates = [d for d in linter.lint_source(text, filename).diagnostics
                  if d.fix is not None and d.fix.applicability.value == "unsafe"]
    if not candidates:
        return
    try:
        executed = _executed_lines(mx, text, filename, path, report.target)
    except VerifyError as error:  # the safe-fixed source does not import or build: its run said so already
        report.notes.append(f"unsafe fixes not tried: {error}")
        return
    exercised = [d for d in candidates if executed.intersection(range(d.start[0], d.end[0] + 1))]
    if not exercised:
        return
    fixed_text, applied = apply_fixes(text, exercised)
    try:  # a safe fix the unsafe ones made possible
        fixed_text = linter.fix_source(fixed_text, filename, unsafe=False).source
    except FixLoopError:
        pass
    unsafe_name = fixed_filename(path, unsafe=True)
    outcome = _run_fixed(mx, fixed_text, unsafe_name, path, report.target, reference)
    proven_text, outcome, _ = _evidence_rounds(mx, report, fixed_text, source, outcome, path, reference, True)
    fixes = [AppliedFix(d.code, d.name, d.start[0], d.message, "unsafe",
                        code_line=linecache.getline(filename, d.start[0]).strip(),
                        proven=outcome.status == OK,
                        why_unsafe=unsafe_reason(d.code, " ".join(
                            [d.fix.message, *(e.content for e in d.fix.edits),
                             *(text[e.start_offset:e.end_offset] for e in d.fix.edits)])),
                        replacement=" / ".join(edit.content for edit in d.fix.edits),
                        replaced=" / ".join(text[edit.start_offset:edit.end_offset] for edit in d.fix.edits))
             for d in applied]
    names = ", ".join(f"{f.code} line {f.line}" for f in fixes)
    if outcome.status != OK:
        report.notes.append(f"tried the unsafe fix{'es' if len(fixes) > 1 else ''} {names} on the lines this run "
                            f"executes: not proven, {'; '.join(describe_outcome(outcome))}")
        return
    report.fixes.extend(fixes)
    report.fixed = outcome
    report.unsafe_source = proven_text  # with the evidence fixes this run applied after the unsafe ones
    # what remains on the lines this block runs (the module's other blocks are not this run's business)
    report.remaining = [d for d in linter.lint_source(proven_text, str(path)).diagnostics
                        if (d.fix is None or d.fix.applicability.value != "safe")
                        and executed.intersection(range(d.start[0], d.end[0] + 1))]
    if unsafe:
        report.write_source = proven_text
    report.notes.extend(unsafe_notes(fixes))


def unsafe_notes(fixes: List[AppliedFix]) -> List[str]:
    """A note per distinct unsafe rewrite proven on the inputs, quoting the code it replaces once: the
    diagnostics that share one rewrite (gluoncv's GroupNorm: five HY201, one block rewritten) are named
    together."""
    lines: Dict[tuple, List[str]] = {}
    for fix in fixes:
        rows = lines.setdefault((fix.code, fix.replaced, fix.replacement, fix.why_unsafe), [])
        if str(fix.line) not in rows:  # two diagnostics on one line (`x.context` twice) name it once
            rows.append(str(fix.line))
    return [f"{code} line{'s' if len(rows) > 1 else ''} {', '.join(rows)}, `{replaced}` -> `{replacement}`, is "
            f"unsafe in general (the rule's doc: \"{why}\"). Proven on these inputs: with it, the block's eager "
            f"and hybridized outputs equal the original's eager output"
            for (code, replaced, replacement, why), rows in lines.items()]


def unsafe_reason(code: str, fix_text: str = "") -> str:
    """Why a rule's fix is unsafe in general: the sentences of its doc's "Fix safety" section that say so.

    A rule with several rewrites has a sentence per rewrite: given the fix's text (what it replaces, its
    replacement and title), keep the sentences whose quoted code shares the most names with it."""
    from hylint.selection import all_rules

    rule = all_rules().get(code)
    doc = getattr(rule, "DOC", "") or ""
    section = doc.split("## Fix safety", 1)[1] if "## Fix safety" in doc else ""
    section = " ".join(section.split("\n## ", 1)[0].split())
    sentences = re.split(r"(?<=\.)\s+(?=[A-Z`])", section)
    chosen = []
    for index, sentence in enumerate(sentences):
        if "nsafe" in sentence:
            if sentence.startswith("Unsafe otherwise") and index:  # "otherwise" needs the sentence before
                chosen.append(sentences[index - 1] + " " + sentence)
            else:
                chosen.append(sentence)
    chosen = list(dict.fromkeys(chosen))
    if len(chosen) > 1 and fix_text:
        names = set(_NAME.findall(fix_text))
        shared = [len(names.intersection(_NAME.findall(" ".join(_QUOTED.findall(s))))) for s in chosen]
        if max(shared):
            chosen = [s for s, count in zip(chosen, shared) if count == max(shared)]
    return " ".join(chosen) or "it can change what the code computes in other uses."


_QUOTED = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _executed_lines(mx: Any, text: str, filename: str, path: Path, target: Target) -> set:
    """The lines of ``filename`` that building the block and one eager call execute."""
    lines: set = set()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == filename else None

    with _target_source(mx, text, filename, path, target) as factory:
        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            block, built = build_block(mx, factory, target.inputs, target.seed, target.kwargs)
            if built.status == OK:
                call_block(mx, block, target.inputs, target.seed)  # the eager call's lines
        finally:
            sys.settrace(previous)
    return lines


@contextlib.contextmanager
def _target_source(mx: Any, text: str, filename: str, path: Path, target: Target) -> Iterator[Any]:
    """The target's factory with ``path`` executing ``text`` (shown as ``filename``)."""
    if target.module is None:
        module = load_source(text, filename, path)
        yield resolve_factory(mx, module, target.name, f"{filename}::{target.name}")
        return
    with source_override(path, text, filename):
        forget_package(target.module)
        try:
            yield module_factory(mx, target.module, target.name, target.label)
        finally:
            forget_package(target.module)


def _run_fixed(mx: Any, text: str, filename: str, path: Path, target: Target,
               reference: Sequence[np.ndarray]) -> Outcome:
    """The fixed source, loaded from memory: eager (must equal the reference: fixes never change eager
    results) and hybridized, compared with the original's eager output."""
    try:
        with _target_source(mx, text, filename, path, target) as factory:
            result = run_factory(mx, factory, target.inputs, target.seed, target.kwargs, reference, target.name,
                                 target.train)
    except ImportFailure as error:
        return Outcome(ERROR, "ImportError", str(error), phase="import")
    if result.eager.status != OK:
        eager = result.eager
        eager.phase = "eager"
        eager.message = "the fixed source's eager run " + (
            "differs from the original's: " if eager.status == DIFFERENT else "fails: ") + eager.message
        return eager
    return summarize(result.hybrid)


def can_write(report: TargetReport) -> bool:
    """``--fix`` writes `hylint check --fix`'s output (with ``--unsafe-fixes``, plus the unsafe fixes proven on
    the inputs) unless running proved it harmful: the fixed source's eager run differs or fails, or the block
    hybridized as it was and the fixed one does not."""
    if report.write_source is None or report.fixed is None:
        return False
    if report.write_source == report.unsafe_source:
        return True  # proven: it ran and hybridized with the eager output
    if report.fixed.phase in ("eager", "import"):
        return False
    return not (report.verdict in (OK_AS_IS, NOT_HYBRID) and report.fixed.status != OK)

