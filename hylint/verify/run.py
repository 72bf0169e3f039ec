"""One ``hylint verify`` target, start to end: import, build, eager run, hybridized runs, then fix proving."""
from __future__ import annotations

import linecache
from pathlib import Path
from typing import Any, Optional

from hylint.verify.backends import backend
from hylint.verify.compare import summarize
from hylint.verify.harness import build_block, call_block, in_train_mode, run_hybridized
from hylint.verify.outcomes import OK
from hylint.verify.phases import Phases
from hylint.verify.prove import fix_and_prove, fixed_filename
from hylint.verify.results import EAGER_ERROR, FAILS, NOT_HYBRID, OK_AS_IS, TargetReport
from hylint.verify.sandbox import in_backend_package, load_source, module_import_scope, quiet, user_import_scope
from hylint.verify.targets import (Target, check_signature, file_to_fix, module_factory, read_target_source,
                                  resolve_factory)


def verify_target(target: Target, linter: Any, unsafe: bool = False, source: Optional[str] = None) -> TargetReport:
    """Run ``target`` eagerly and hybridized; fix its source in memory with ``linter`` and prove the fix.

    Raises VerifyError (ImportFailure with a trimmed traceback) for what is a usage problem: an unreadable
    or failing module, an unknown name, a backend that is not available."""
    phases = Phases()
    specs, seed = list(target.inputs), target.seed
    if target.module is None:
        path = Path(target.path)
        if source is None:
            source = read_target_source(path)
        scope: Any = user_import_scope(path.parent)
    else:
        scope = module_import_scope(target.module, target.search or Path.cwd())
    with backend(target.backend) as mx, scope, quiet():
        with phases("import"):
            if target.module is None:
                linecache.checkcache(str(path))
                module = load_source(source, str(path), path)
                factory = resolve_factory(mx, module, target.name, target.label)
            else:
                factory = module_factory(mx, target.module, target.name, target.label)
        check_signature(factory, target)
        with phases("build"):
            built_block, built = build_block(mx, factory, specs, seed, target.kwargs)
        report = TargetReport(target, built, phases=phases)
        if getattr(mx, "__hylint_runtime__", False):
            from hylint.runtime.blas import slow_blas_note
            report.notes.extend(filter(None, [slow_blas_note()]))
        if target.module is None:
            report.notes.extend(module.__dict__.get("__hylint_notes__", ()))
        if built.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        with phases("eager"):
            report.eager = eager = call_block(mx, built_block, specs, seed)
        if eager.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        reference = eager.outputs
        train_expected = None
        if target.train:
            with phases("train-mode eager"):
                report.train_eager = in_train_mode(mx, built_block, specs, seed)
            if report.train_eager.status == OK:
                train_expected = report.train_eager.outputs
            else:
                report.notes.append(f"train mode not compared: the eager train-mode call fails: "
                                    f"{report.train_eager.describe()}")
        report.calls = run_hybridized(mx, factory, specs, reference, seed, target.kwargs, phases, train_expected,
                                      report.notes)
        report.hybridized = summarize(report.calls)
        if target.module is not None:
            path = None if in_backend_package(target.module) else file_to_fix(built_block, report.hybridized)
            if path is None:
                report.notes.append(f"{target.module} is part of MXNet: nothing to fix" if in_backend_package(
                    target.module) else f"{type(built_block).__name__} has no source file: nothing to fix")
                report.verdict = OK_AS_IS if report.hybridized.status == OK else FAILS
                return _plain_block(mx, report, built_block)
            target.path = path
            source = read_target_source(path)
        with phases("fixes"):
            fix_and_prove(mx, report, linter, source, path, reference, unsafe)
        return _plain_block(mx, _cell_positions(report, source, report.check_fix_source or source), built_block)


def _plain_block(mx: Any, report: TargetReport, block: Any) -> TargetReport:
    """A plain gluon.Block is never traced: hybridize() hybridizes only its HybridBlock children, so equal
    outputs prove nothing about the block itself. Say so, and do not call it HYBRIDIZES."""
    if isinstance(block, mx.gluon.HybridBlock):
        return report
    report.notes.append(f"{type(block).__name__} is a plain gluon.Block, not a HybridBlock: hybridize() builds no "
                        f"graph for it, so it runs eagerly either way (only its HybridBlock children are traced)")
    if report.verdict == OK_AS_IS:
        report.verdict = NOT_HYBRID
    return report


def _cell_positions(report: TargetReport, source: str, fixed_source: Optional[str] = None) -> TargetReport:
    """A notebook's rows are its cells' rows: the lines named in the report become `cell N` and a row in it."""
    if report.target.path is None or Path(report.target.path).suffix != ".ipynb":
        return report
    from hylint.batch.notebook import cell_of_row, map_diagnostics

    path = Path(report.target.path)
    texts = {str(path): source, fixed_filename(path): fixed_source or source}
    for outcome in (report.eager, report.hybridized, report.fixed):
        location = outcome.location if outcome is not None else None
        if location is not None and location.filename in texts:
            found = cell_of_row(texts[location.filename], location.line)
            if found is not None:
                location.filename, location.line = f"{location.filename}:cell {found[0]}", found[1]
    for fix in report.fixes:
        found = None if fix.evidence else cell_of_row(source, fix.line)
        if found is not None:
            fix.cell, fix.line = found
    report.remaining = map_diagnostics(texts[fixed_filename(path)], report.remaining)
    return report

