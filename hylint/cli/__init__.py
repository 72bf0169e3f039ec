"""The command line: wiring only (options -> Config -> runner -> report -> exit code).

Exit codes: 0 no diagnostics, 1 diagnostics (or a change with --diff / --exit-non-zero-on-fix),
2 usage, configuration or internal error (a one-line message, no traceback).
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import click

from hylint import __version__

EXIT_OK, EXIT_DIAGNOSTICS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or configuration: message, exit 2."""


def _guarded(command) -> int:
    """Run a command's body; turn every failure into a one-line message and an exit code (no traceback)."""
    try:
        return command()
    except UsageError as error:
        click.echo(f"hylint: error: {error}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        click.echo("hylint: interrupted", err=True)
        return 130
    except BrokenPipeError:
        # the reader went away (`hylint check | head`): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_DIAGNOSTICS
    except Exception as error:  # never a traceback for users; HYLINT_DEBUG=1 shows it
        if os.environ.get("HYLINT_DEBUG"):
            raise
        click.echo(f"hylint: internal error: {type(error).__name__}: {error} (set HYLINT_DEBUG=1 for details)",
                   err=True)
        return EXIT_ERROR


def _split_codes(values: Sequence[str]) -> Tuple[str, ...]:
    out: List[str] = []
    for value in values:
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(out)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hylint")
def main() -> None:
    """hylint: find and fix MXNet Gluon code that breaks under hybridize()."""


@main.command()
@click.argument("paths", nargs=-1, type=str)
@click.option("--fix/--no-fix", default=None, help="Apply safe fixes and write the files.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply (or show) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print a unified diff of what --fix would change; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List what was fixed.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when something was fixed.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (HY1, ALL); replaces the default set.")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--output-format", type=str, default=None,
              help="full, concise, grouped, json, json-lines, github, sarif, gitlab, junit, pylint.")
@click.option("--statistics", is_flag=True, help="Show the number of diagnostics per code.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are diagnostics.")
@click.option("--stdin-filename", type=str, default=None, help="The file name to report for `-` (stdin).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Use this pyproject.toml (or hylint.toml) instead of the nearest one.")
@click.option("--force-exclude", is_flag=True, default=None, help="Apply excludes to paths given explicitly too.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every line with a diagnostic; report nothing.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default="0: one per CPU core",
              help="Worker processes for the files that need analysis.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache (.hylint_cache/).")
def check(paths: Tuple[str, ...], fix: Optional[bool], unsafe_fixes: Optional[bool], diff: bool, show_fixes: bool,
          exit_non_zero_on_fix: bool, select: Tuple[str, ...], extend_select: Tuple[str, ...], ignore: Tuple[str, ...],
          output_format: Optional[str], statistics: bool, exit_zero: bool, stdin_filename: Optional[str],
          config_path: Optional[str], force_exclude: Optional[bool], add_noqa: bool, jobs: int = 0,
          no_cache: bool = False) -> None:
    """Check PATHS (default: the current folder; `-` reads stdin)."""
    sys.exit(_guarded(lambda: _check(
        paths, fix, unsafe_fixes, diff, show_fixes, exit_non_zero_on_fix, select, extend_select, ignore, output_format,
        statistics, exit_zero, stdin_filename, config_path, force_exclude, add_noqa, jobs=jobs, no_cache=no_cache)))


def _check(paths, fix, unsafe_fixes, diff, show_fixes, exit_non_zero_on_fix, select, extend_select, ignore,
           output_format, statistics, exit_zero, stdin_filename, config_path, force_exclude, add_noqa=False, jobs=0,
           no_cache=False) -> int:
    from hylint.config import ConfigError, load_config
    from hylint.batch.discovery import DEFAULT_EXCLUDE, PathError, discover, matches_any
    from hylint.report import FORMATS, HYPERLINK_FORMATS, Report, render

    try:
        config = load_config(Path(config_path) if config_path else None, check_codes=False)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    fix_mode = fix if fix is not None else config.fix
    unsafe = unsafe_fixes if unsafe_fixes is not None else config.unsafe_fixes
    fmt = output_format or config.output_format or "full"
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r} (choose from: {', '.join(FORMATS)})")
    selection = _Selection(_split_codes(select) or config.select, config.extend_select + _split_codes(extend_select),
                           config.ignore + _split_codes(ignore), config.per_file_ignores, config.root,
                           (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)),
                           config)
    from hylint.batch.runner import DIFF, FIX, LINT, process_stdin

    mode = DIFF if diff else FIX if fix_mode else LINT
    if add_noqa and (diff or fix_mode):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    outcomes = []
    paths = paths or (".",)
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("`-` (stdin) cannot be combined with other paths")
        if add_noqa:
            raise UsageError("--add-noqa writes files; it cannot read stdin")
        filename = stdin_filename or "-"
        stdin_raw = sys.stdin.buffer.read()
        outcomes.append(process_stdin(stdin_raw, filename, selection.linter_for(filename), mode, unsafe))
    else:
        from hylint.batch.parallel import check_files, default_jobs

        cache = None
        if not no_cache and config.cache:
            from hylint.batch.cache import ResultCache, cache_key

            cache = ResultCache.open(config.root, cache_key(
                mode=mode, unsafe=bool(unsafe), select=selection.select, extend_select=selection.extend_select,
                ignore=selection.ignore, per_file_ignores=selection.per_file_ignore_codes))
        if cache is None or cache.fresh:
            selection.rules()  # an unknown rule code is an error before any file is read
        excludes = tuple(config.exclude or DEFAULT_EXCLUDE) + config.extend_exclude
        try:
            files = discover(paths, excludes, config.root, force_exclude=bool(force_exclude or config.force_exclude))
        except PathError as error:
            raise UsageError(str(error)) from None
        if add_noqa:
            from hylint.batch.add_noqa import add_noqa_path

            added = 0
            for path in files:
                result = add_noqa_path(path, selection.linter_for(str(path)))
                added += result.added
                for message in result.messages:
                    click.echo(message, err=True)
            click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
            return EXIT_OK
        from hylint.batch.progress import progress

        with progress(len(files)) as advance:
            outcomes = check_files(files, mode, bool(unsafe), selection.linter, jobs or default_jobs(), cache,
                                   linter_for=selection.linter_for, advance=advance)
        if cache is not None:
            cache.save()
    per_file_ignores = selection.per_file_ignores() if config.per_file_ignores and any(
        o.diagnostics for o in outcomes) else []

    diagnostics = []
    fixed_by_code: Counter = Counter()
    sources = {}
    cell_sources = {}  # (notebook, cell) -> the cell's text
    changed = False
    for outcome in outcomes:
        for message in outcome.messages:
            click.echo(message, err=True)
        kept = outcome.diagnostics
        if per_file_ignores:
            path = Path(outcome.filename)
            for pattern, codes in per_file_ignores:
                if matches_any(path, [pattern], config.root):
                    kept = [d for d in kept if d.code not in codes]
        if outcome.text is not None and outcome.filename.endswith(".ipynb"):
            from hylint.batch.notebook import cell_texts, map_diagnostics

            kept = map_diagnostics(outcome.text, kept)  # rows of the notebook's cells
            cell_sources.update(((outcome.filename, n), t) for n, t in cell_texts(outcome.text).items())
        diagnostics.extend(kept)
        fixed_by_code.update(outcome.fixed_by_code)
        if outcome.text is not None:
            sources[outcome.filename] = outcome.text
        if outcome.fixed_text is not None:
            changed = True
    diagnostics.sort(key=lambda d: d.sort_key())

    stdin_fix = "-" in paths and mode == FIX
    if mode == DIFF:
        for outcome in outcomes:
            if outcome.diff:
                sys.stdout.write(outcome.diff)
        count = sum(1 for o in outcomes if o.diff)
        click.echo(f"Would fix {count} file{'s' if count != 1 else ''}." if count else "No fixes available.", err=True)
        if any(outcome.failed for outcome in outcomes):
            return EXIT_ERROR
        return EXIT_DIAGNOSTICS if changed else EXIT_OK
    if stdin_fix:
        outcome = outcomes[0]
        if outcome.filename.endswith(".ipynb"):  # the whole notebook, its cells fixed
            from hylint.batch.files import decode, encode

            fixed = stdin_raw if outcome.fixed_text is None else encode(decode(stdin_raw, outcome.filename),
                                                                        outcome.fixed_text)
            sys.stdout.flush()
            sys.stdout.buffer.write(fixed)
        else:
            sys.stdout.write(outcome.fixed_text if outcome.fixed_text is not None else
                             (outcome.text if outcome.text is not None else ""))

    color = fmt == "full" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    report = Report(diagnostics, sources, color, dict(fixed_by_code), show_fixes, unsafe, mode == FIX, len(outcomes))
    report.hyperlinks = fmt in HYPERLINK_FORMATS and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
    report.cell_sources = cell_sources
    out = sys.stderr if stdin_fix else sys.stdout
    if statistics:
        counts = Counter(d.code for d in diagnostics)
        names = {d.code: d.name for d in diagnostics}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            out.write(f"{count:>5}\t{code}\t{names[code]}\n")
    else:
        render(fmt, report, out)
    out.flush()
    if any(outcome.failed for outcome in outcomes):
        return EXIT_ERROR  # a file could not be checked or written (its message is on stderr)
    if exit_zero:
        return EXIT_OK
    if exit_non_zero_on_fix and fixed_by_code:
        return EXIT_DIAGNOSTICS
    return EXIT_DIAGNOSTICS if diagnostics else EXIT_OK


class _Selection:
    """The rule selection, resolved (importing the rules, and libcst) only when a file needs analysis.

    A run whose files all hit the result cache never imports them: its cache file exists only if an
    earlier run validated this exact selection.
    """

    def __init__(self, select, extend_select, ignore, per_file_ignores, root: Path, options=(), config=None) -> None:
        self.config = config
        self.select, self.extend_select, self.ignore = tuple(select), tuple(extend_select), tuple(ignore)
        self.per_file_ignore_codes = tuple(per_file_ignores)
        self.root = root
        self.options = tuple((option, tuple(values)) for option, values in options)  # to name a bad one
        self._rules = None
        self._per_file_ignores = None
        self._linter = None

    def rules(self):
        if self._rules is None:
            from hylint.config import ConfigError, check_config_codes
            from hylint.selection import UnknownRuleError, expand, select_rules

            if self.config is not None:
                try:
                    check_config_codes(self.config)
                except ConfigError as error:
                    raise UsageError(str(error)) from None
            for option, values in self.options:
                for value in _split_codes(values):
                    try:
                        expand(value)
                    except UnknownRuleError as error:
                        raise UsageError(f"{option}: {error}") from None
            try:
                self._rules = select_rules(self.select, self.extend_select, self.ignore)
                self._per_file_ignores = [(pattern, set().union(*(expand(c) for c in codes)) if codes else set())
                                          for pattern, codes in self.per_file_ignore_codes]
            except UnknownRuleError as error:
                raise UsageError(str(error)) from None
        return self._rules

    def per_file_ignores(self):
        self.rules()
        return self._per_file_ignores

    def linter(self):
        if self._linter is None:
            from hylint.lint.engine import Linter

            self._linter = Linter(self.rules())
            self._linters = {frozenset(): self._linter}
        return self._linter

    def linter_for(self, filename: str):
        """The linter for one file: per-file-ignores deselect rules for it, so ignored diagnostics are
        neither reported nor fixed."""
        base = self.linter()
        if not self._per_file_ignores:
            return base
        from hylint.batch.discovery import matches_any
        from hylint.lint.engine import Linter

        ignored = frozenset(code for pattern, codes in self._per_file_ignores
                            if matches_any(Path(filename), [pattern], self.root) for code in codes)
        if ignored not in self._linters:
            self._linters[ignored] = Linter([rule for rule in self._rules if rule.CODE not in ignored])
        return self._linters[ignored]


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Show a rule's documentation, or list every rule with --all."""
    from hylint.selection import all_rules

    rules = all_rules()
    if show_all or code is None:
        click.echo(f"{'code':<6}  {'name':<34}  {'default':<7}  fixable")
        for rule_code, rule_type in rules.items():
            click.echo(f"{rule_code:<6}  {rule_type.NAME:<34}  {'on' if rule_type.DEFAULT_ENABLED else 'off':<7}  "
                       f"{'yes' if rule_type.fixable() else 'no'}")
        return
    rule_type = rules.get(code.upper())
    if rule_type is None:
        click.echo(f"hylint: error: unknown rule code {code!r} (see `hylint rule --all`)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"# {rule_type.NAME} ({rule_type.CODE})\n")
    click.echo(f"Default: {'on' if rule_type.DEFAULT_ENABLED else 'off'}. "
               f"Fix: {'available' if rule_type.fixable() else 'none'}.")
    click.echo(rule_type.DOC.rstrip())


@main.command()
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
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Use this pyproject.toml (or hylint.toml) instead of the nearest one.")
def verify(target: Optional[str], inputs: Tuple[str, ...], kwargs_json: Optional[str], backend: Optional[str],
           seed: int, output_format: str, fix: bool, unsafe_fixes: Optional[bool], train_mode: bool,
           save_outputs: Optional[str], config_path: Optional[str]) -> None:
    """Run TARGET (path/to/file.py::Name or package.module:name) eagerly and hybridized, fix it in memory and
    prove the fix.

    Without TARGET, every [[tool.hylint.verify]] entry of pyproject.toml is run (a CI gate).
    Exit 0 when the block (or its fixed source) hybridizes with the eager output, 1 when not, 2 for errors."""
    sys.exit(_guarded(lambda: _verify(target, inputs, kwargs_json, backend, seed, output_format, fix, unsafe_fixes,
                                      config_path, train_mode, save_outputs)))


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
