"""`hylint verify`: run a block eagerly and hybridized, fix it in memory and prove the fix (the body as it
was in the command line module; hylint/verify/ does the work)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Tuple

import click

from hylint.check import EXIT_ERROR, EXIT_OK, UsageError
from hylint.cli.guard import guarded


@click.command()
@click.argument("target", required=False)
@click.option("--input", "inputs", multiple=True, metavar="[NAME=]SHAPE[:DTYPE[:LOW..HIGH]]",
              help="One input per --input, positional ones first: 16x1x28x28 (float32, seeded normal(0, 1)), "
                   "x=1x3x224x224:float32 (a keyword input: the forward argument x), "
                   "valid_length=2:int32:1..8 (integers drawn from [1, 8)).")
@click.option("--kwargs", "kwargs_json", default=None, metavar="JSON", help="Constructor arguments, a JSON object.")
@click.option("--backend", type=click.Choice(["numpy", "mxnet"]), default=None,
              help="numpy: hylint's reference runtime (default, no MXNet needed); mxnet: the installed MXNet.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the parameters and inputs.")
@click.option("--output-format", type=click.Choice(["full", "json"]), default="full", show_default=True)
@click.option("--fix", is_flag=True, help="Write what `hylint check --fix` would (unless running proved it harmful).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
              help="With --fix, also write the unsafe fixes that running proved on these inputs.")
@click.option("--train-mode", is_flag=True,
              help="Also call the hybridized block in train mode (autograd.train_mode()) and compare with an eager "
                   "train-mode call: a branch on the training mode is frozen when the graph is traced.")
@click.option("--save-outputs", type=click.Path(dir_okay=False), default=None, metavar="FILE.npz",
              help="Write the eager and hybridized outputs (NumPy .npz: eager/0, hybridized/0, ...).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="PATH: blocks run at once, each in its own process (default: one per core).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="PATH: seconds one block may take (building, feeding and verifying it); then it is killed.")
@click.option("--no-cache", is_flag=True, help="PATH: run every block, ignoring and not writing the result cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="PATH: the cache folder (default: $HYLINT_CACHE_DIR, else .hylint_cache/ beside the configuration).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Use this pyproject.toml (or hylint.toml) instead of the nearest one.")
def verify(target: Optional[str], inputs: Tuple[str, ...], kwargs_json: Optional[str], backend: Optional[str],
           seed: int, output_format: str, fix: bool, unsafe_fixes: Optional[bool], train_mode: bool,
           save_outputs: Optional[str], config_path: Optional[str], jobs: Optional[int] = None,
           timeout: float = 120.0, no_cache: bool = False, cache_dir: Optional[str] = None) -> None:
    """Run TARGET (path/to/file.py::Name or package.module:name) eagerly and hybridized, fix it in memory and
    prove the fix.

    TARGET may be a file or folder (PATH, no ::Name): every HybridBlock subclass defined there is built, fed
    and verified, each in its own process; one line per block, then a summary.
    Without TARGET, every [[tool.hylint.verify]] entry of pyproject.toml is run (a CI gate).
    Exit 0 when the block (or its fixed source) hybridizes with the eager output, 1 when not, 2 for errors."""
    from hylint.verify.openblas import restart_if_slow

    restart_if_slow(backend)  # numpy's OpenBLAS on a generic kernel: the command again, OPENBLAS_CORETYPE set
    if target is not None and "::" not in target and Path(target).exists():
        sys.exit(guarded(lambda: _verify_path(Path(target), inputs, kwargs_json, backend, seed, output_format, fix,
                                              unsafe_fixes, config_path, train_mode, save_outputs, jobs, timeout,
                                              no_cache, cache_dir)))
    sys.exit(guarded(lambda: _verify(target, inputs, kwargs_json, backend, seed, output_format, fix, unsafe_fixes,
                                      config_path, train_mode, save_outputs)))


def _verify_path(path, inputs, kwargs_json, backend, seed, output_format, fix, unsafe_fixes, config_path, train_mode,
                 save_outputs, jobs, timeout, no_cache, cache_dir) -> int:
    """`hylint verify PATH`: every HybridBlock subclass under PATH (hylint/verify/survey.py)."""
    import json

    from hylint import verify as verifier
    from hylint.batch.cache import cache_folder
    from hylint.batch.discovery import matches_any
    from hylint.batch.parallel import default_jobs
    from hylint.config import ConfigError, load_config
    from hylint.lint.engine import Linter
    from hylint.selection import UnknownRuleError, expand, select_rules
    from hylint.verify.survey import SurveyOptions, survey

    for flag, given in (("--input", inputs), ("--kwargs", kwargs_json is not None), ("--fix", fix),
                        ("--save-outputs", save_outputs)):
        if given:
            raise UsageError(f"{flag} needs a TARGET (file.py::Name); with a PATH every block is built and fed "
                             f"by hylint")
    try:
        config = load_config(Path(config_path) if config_path else None)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    try:
        rules = select_rules(config.select, config.extend_select, config.ignore)
        where = str(config.path) if config.path else "pyproject.toml"
        entries = verifier.targets_from_config(config.verify, config.root, where)
    except (verifier.VerifyError, UnknownRuleError) as error:
        raise UsageError(str(error)) from None
    if backend == "mxnet":
        try:
            with verifier.backend("mxnet"):  # not installed: a usage error now, not one per block
                pass
        except verifier.VerifyError as error:
            raise UsageError(str(error)) from None
    per_file_ignores = [(pattern, set().union(*(expand(c) for c in codes)) if codes else set())
                        for pattern, codes in config.per_file_ignores]
    linters: dict = {}

    def linter_for(filename: str) -> Linter:
        ignored = frozenset(code for pattern, codes in per_file_ignores
                            if matches_any(Path(filename), [pattern], config.root) for code in codes)
        if ignored not in linters:
            linters[ignored] = Linter([rule for rule in rules if rule.CODE not in ignored])
        return linters[ignored]

    linter_for(str(path))  # the rules imported before the children are forked
    options = SurveyOptions(
        backend=backend or "numpy", seed=seed,
        unsafe=unsafe_fixes if unsafe_fixes is not None else config.unsafe_fixes, train=train_mode,
        timeout=timeout, jobs=jobs or default_jobs(),
        cache=None if no_cache else cache_folder(config.root, cache_dir),
        entries={f"{Path(e.path).resolve()}::{e.name}": e for e in entries if e.path is not None},
        settings={"rules": sorted(rule.CODE for rule in rules), "per_file_ignores": repr(per_file_ignores)})
    echo = (lambda result: click.echo(verifier.survey_line(result))) if output_format == "full" else None
    found = survey(path, options, linter_for, echo)
    if output_format == "json":
        click.echo(json.dumps(found.results, indent=2))
    else:
        if not found.results:
            click.echo(f"no HybridBlock subclass defined under {path}")
        else:
            click.echo(verifier.survey_summary(found.results, found.seconds, found.cached))
    return found.exit_code


def _verify(target, inputs, kwargs_json, backend, seed, output_format, fix, unsafe_fixes, config_path,
            train_mode=False, save_outputs=None) -> int:
    import json

    from hylint import verify as verifier
    from hylint.config import ConfigError, load_config
    from hylint.selection import UnknownRuleError, expand, select_rules

    try:
        config = load_config(Path(config_path) if config_path else None)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    unsafe = unsafe_fixes if unsafe_fixes is not None else config.unsafe_fixes
    try:
        if target is not None:
            path, module, name = verifier.parse_target(target)
            if not inputs:
                raise UsageError("give the shape of each input with --input (e.g. --input 2x3)")
            kwargs = {}
            if kwargs_json is not None:
                try:
                    kwargs = json.loads(kwargs_json)
                except ValueError as error:
                    raise UsageError(f"--kwargs is not valid JSON: {error}") from None
                if not isinstance(kwargs, dict):
                    raise UsageError("--kwargs must be a JSON object, e.g. '{\"units\": 4}'")
            targets = [verifier.Target(path, name, verifier.parse_inputs(inputs), kwargs, backend or "numpy", seed,
                                       module=module, train=train_mode)]
        else:
            if inputs or kwargs_json is not None:
                raise UsageError("--input and --kwargs need a TARGET")
            if save_outputs:
                raise UsageError("--save-outputs needs a TARGET (one file holds one block's outputs)")
            where = str(config.path) if config.path else "pyproject.toml"
            targets = verifier.targets_from_config(config.verify, config.root, where)
            if not targets:
                raise UsageError("no TARGET given and no [[tool.hylint.verify]] entries in "
                                 + (str(config.path) if config.path else "a pyproject.toml [tool.hylint]"))
            for entry in targets:
                entry.seed = seed
                entry.backend = backend or entry.backend
                entry.train = entry.train or train_mode
        rules = select_rules(config.select, config.extend_select, config.ignore)
        per_file_ignores = [(pattern, set().union(*(expand(c) for c in codes)) if codes else set())
                            for pattern, codes in config.per_file_ignores]
    except verifier.VerifyError as error:
        raise UsageError(str(error)) from None
    except UnknownRuleError as error:
        raise UsageError(str(error)) from None

    from hylint.batch.discovery import matches_any
    from hylint.lint.engine import Linter
    from hylint.batch.files import SourceError, WriteError, read_source, write_atomic

    reports, failed = [], False
    for item in targets:
        ignored = {code for pattern, codes in per_file_ignores if item.path is not None
                   and matches_any(Path(item.path), [pattern], config.root) for code in codes}
        linter = Linter([rule for rule in rules if rule.CODE not in ignored])
        try:
            report = verifier.verify_target(item, linter, unsafe)
        except verifier.VerifyError as error:
            click.echo(f"hylint: error: {error}", err=True)
            details = getattr(error, "details", "")
            if details:
                click.echo(details, err=True)
            failed = True
            continue
        if fix and verifier.can_write(report):
            try:
                source = read_source(Path(item.path))
                write_atomic(source, report.write_source)
                report.written = True
            except (SourceError, WriteError) as error:
                click.echo(f"hylint: error: {item.path}: cannot write the fixes: {error}", err=True)
                failed = True
        elif fix and report.check_fix_source is not None:
            report.notes.append("not written: running the fixed source showed the fixes change its results")
        if fix and report.proven_unsafe and not unsafe:
            report.notes.append("the unsafe fixes proven here are written only with --fix --unsafe-fixes")
        if save_outputs:
            try:
                verifier.save_outputs(report, Path(save_outputs))
            except verifier.VerifyError as error:
                click.echo(f"hylint: error: {error}", err=True)
                failed = True
        reports.append(report)
        if output_format == "full":
            click.echo(verifier.render_full(report))
    if output_format == "json":
        click.echo(json.dumps([report.to_json() for report in reports], indent=2))
    if failed:
        return EXIT_ERROR
    return max((report.exit_code for report in reports), default=EXIT_OK)
