"""The check pipeline: typed options -> configuration -> rule selection -> the run -> the report -> exit code.

The command line (``hylint check``) only turns its flags into :class:`CheckOptions` and calls
:func:`run_check`. :func:`check_source` and :func:`fix_source` lint (or fix) one in-memory source with
the settings that apply to a given path, for an editor or language server; the stdin path uses them.
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, TextIO, Tuple

import click

from hylint.selection import RuleSelection, SelectionError, retired_warning, split_codes

if TYPE_CHECKING:
    from hylint.batch.runner import FileOutcome
    from hylint.config import Config
    from hylint.diagnostic import Diagnostic
    from hylint.lint.engine import LintResult

EXIT_OK, EXIT_DIAGNOSTICS, EXIT_ERROR = 0, 1, 2
HUMAN_FORMATS = ("full", "concise", "grouped")  # the others are read by programs: nothing extra in them


class UsageError(Exception):
    """A problem with the command line or configuration: message, exit 2."""


@dataclass(frozen=True)
class CheckOptions:
    """What ``hylint check`` was asked to do; None: the configuration (or the default) decides."""

    paths: Tuple[str, ...] = ()
    fix: Optional[bool] = None
    unsafe_fixes: Optional[bool] = None
    diff: bool = False
    show_fixes: bool = False
    exit_non_zero_on_fix: bool = False
    select: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    output_format: Optional[str] = None
    statistics: bool = False
    exit_zero: bool = False
    stdin_filename: Optional[str] = None
    config_path: Optional[str] = None
    force_exclude: Optional[bool] = None
    add_noqa: bool = False
    jobs: int = 0  # 0: one worker per CPU core
    no_cache: bool = False
    cache_dir: Optional[str] = None  # None: $HYLINT_CACHE_DIR, else .hylint_cache/ beside the configuration
    show_files: bool = False  # list the files that would be checked, check nothing
    # print the settings that apply to this file, check nothing ("": the first path, else the current folder)
    show_settings: Optional[str] = None
    quiet: bool = False  # -q: the diagnostics only; no summary lines, no "All checks passed!", no warnings
    output_file: Optional[str] = None  # -o: the report goes to this file instead of stdout


def load(options: CheckOptions) -> Config:
    """The configuration of a run (rule codes are checked later, only when the rules are needed)."""
    from hylint.config import ConfigError, load_config

    try:
        return load_config(Path(options.config_path) if options.config_path else None, check_codes=False)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def select(options: CheckOptions, config: Config) -> RuleSelection:
    """The options' selectors over the configuration's (``--select`` replaces, the others add)."""
    return RuleSelection(split_codes(options.select) or config.select,
                         config.extend_select + split_codes(options.extend_select),
                         config.ignore + split_codes(options.ignore), config.per_file_ignores, config.root,
                         (("--select", options.select), ("--extend-select", options.extend_select),
                          ("--ignore", options.ignore)), config)


def _resolved(selection: RuleSelection) -> RuleSelection:
    try:
        selection.rules()
    except SelectionError as error:
        raise UsageError(str(error)) from None
    return selection


# -- one in-memory source (an editor's buffer, stdin) ------------------------------------------
def check_source(text: str, path: str, options: CheckOptions = CheckOptions()) -> List[Diagnostic]:
    """The diagnostics of ``text`` as if it were the file ``path``: the rules of the configuration and
    options, less the per-file-ignores that match ``path``. Rows are those of ``text``. What a trace
    reaches in it: for a module of a package, from the package's files as saved with ``text`` as that module
    (the package as saved is read on the first call for it, and again when one of its files changed); for
    any other source, from ``text`` itself."""
    config = configs_for(options, (path,))[0][0]  # the nearest [tool.hylint] above path, or --config
    selection = _resolved(select(options, config))
    return selection.linter_for(path).lint_source(text, path, reach=_reach_of_source(text, path)).diagnostics


def fix_source(text: str, path: str, options: CheckOptions = CheckOptions()) -> LintResult:
    """``text`` fixed as ``hylint check --fix`` would fix the file ``path`` (unsafe fixes too when the
    options or configuration ask): ``.source`` is the fixed text, ``.diagnostics`` what remains.
    Raises ``hylint.lint.engine.FixLoopError`` when the fixes do not converge."""
    config = configs_for(options, (path,))[0][0]
    unsafe = options.unsafe_fixes if options.unsafe_fixes is not None else config.unsafe_fixes
    selection = _resolved(select(options, config))
    return selection.linter_for(path).fix_source(text, path, unsafe=bool(unsafe), reach=_reach_of_source(text, path))


_SOURCE_REACH = None  # hylint.batch.reach.ReachIndex of check_source/fix_source: packages read once, stat-ed again


def _reach_of_source(text: str, path: str):
    """What a trace reaches in ``text`` as the file ``path``: a module of a package gets the reach of the
    package's files as saved with ``text`` as that module (as ``--stdin-filename`` does), any other source
    the reach of its own text."""
    from hylint.batch.reach import ReachIndex, is_lone_module, reach_of_text
    from hylint.analysis.reach import FileReach

    if path.endswith(".py") and not is_lone_module(Path(path)):
        plain = _unsaved_reach(text, path)
        if plain is False:
            global _SOURCE_REACH
            if _SOURCE_REACH is None:
                _SOURCE_REACH = ReachIndex()
            plain = _SOURCE_REACH.for_file(Path(path), fresh=1.0)
    else:
        plain = reach_of_text(text)
    return FileReach.from_plain(plain) if plain else None


def _unsaved_reach(text, path: str):
    """The reach in ``path`` of its package with ``text`` (a str, or bytes as read from stdin) as that module,
    when it is not what the file holds (an editor's unsaved buffer, a module not yet on disk): the package's
    other files as saved. False when the file holds ``text`` (its package's reach as saved then applies, which
    a ReachIndex keeps), or when ``text`` cannot be decoded (reported as HY001 by the caller)."""
    from hylint.batch.files import SourceError, decode
    from hylint.batch.reach import reach_of_package

    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    try:
        with open(path, "rb") as file:
            if file.read() == raw:
                return False
    except OSError:
        pass
    try:
        source = text if isinstance(text, str) else decode(raw, path).text
    except SourceError:
        return False
    name = os.path.abspath(path)
    return reach_of_package(Path(name), {name: source}).get(name) or None


# -- a run -----------------------------------------------------------------------------------------
def configs_for(options: CheckOptions, paths: Tuple[str, ...]) -> List[Tuple[Config, Tuple[str, ...]]]:
    """Each checked path with its configuration: ``--config`` for all, else the nearest ``[tool.hylint]``
    above the path (for stdin, above ``--stdin-filename``; without it, above the current folder), so a
    run from another folder reads the project's settings. Paths sharing a configuration are one group,
    in the order of their first path."""
    if options.config_path:
        return [(load(options), paths)]
    from hylint.config import Config, ConfigError, find_config, load_config

    groups: Dict[Optional[Path], List[str]] = {}
    for raw in paths:
        if raw == "-":
            start = Path(options.stdin_filename).parent if options.stdin_filename else Path.cwd()
        else:
            start = Path(raw) if Path(raw).is_dir() else Path(raw).parent
        try:
            found = find_config(start)
        except ConfigError as error:
            raise UsageError(str(error)) from None
        groups.setdefault(found, []).append(raw)
    configs = []
    for found, members in groups.items():
        try:  # no [tool.hylint] above: the defaults, relative to the current folder
            config = load_config(found, check_codes=False) if found is not None else Config()
        except ConfigError as error:
            raise UsageError(str(error)) from None
        configs.append((config, tuple(members)))
    return configs


def run_check(options: CheckOptions) -> int:
    """Check (or fix) the options' paths, print the report; the exit code."""
    from hylint.report import FORMATS, HYPERLINK_FORMATS, Report, render

    paths = options.paths or (".",)
    if "-" in paths and len(paths) > 1:
        raise UsageError("`-` (stdin) cannot be combined with other paths")
    if options.show_settings is not None:
        return show_settings(options, options.show_settings or paths[0])
    groups = configs_for(options, paths)
    file_groups = [] if "-" in paths else _files_by_config(options, groups)
    if options.show_files:
        for _, files in file_groups:
            for path in files:
                click.echo(str(path))
        return EXIT_OK
    config = groups[0][0]  # the run's own settings (output, fixing) come from the first path's configuration
    fix_mode = options.fix if options.fix is not None else config.fix
    unsafe = options.unsafe_fixes if options.unsafe_fixes is not None else config.unsafe_fixes
    fmt = options.output_format or config.output_format or "full"
    if fmt not in FORMATS:
        raise UsageError(f"unknown output format {fmt!r} (choose from: {', '.join(FORMATS)})")
    from hylint.batch.runner import DIFF, FIX, LINT

    mode = DIFF if options.diff else FIX if fix_mode else LINT
    if options.add_noqa and (options.diff or fix_mode):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    configs = [group_config for group_config, _ in (file_groups or groups)]
    for code in sorted({code for group_config in configs for code in select(options, group_config).retired}):
        if not options.quiet:
            click.echo(retired_warning(code), err=True)
    stdin_raw = b""
    if "-" in paths:
        if options.add_noqa:
            raise UsageError("--add-noqa writes files; it cannot read stdin")
        stdin_raw = sys.stdin.buffer.read()
        reach_cache = None
        if not options.no_cache and config.cache:
            from hylint.batch.cache import cache_folder

            reach_cache = cache_folder(config.root, options.cache_dir)
        outcomes = [_check_stdin(stdin_raw, options.stdin_filename or "-", select(options, config), mode,
                                 bool(unsafe), reach_cache)]
    else:
        outcomes = []
        added: Optional[int] = 0 if options.add_noqa else None
        found_any = False
        for group_config, files in file_groups:
            selection, cache = _prepare(options, group_config, mode, bool(unsafe))
            found_any = found_any or bool(files)
            if added is not None:
                added += _add_noqa(files, selection)
                continue
            from hylint.batch.parallel import check_files
            from hylint.batch.progress import progress
            from hylint.batch.reach import ReachIndex

            linter_for = _guarded_linter_for(selection)
            # each file's package, traced; the files to check get their regions from the reach's parse (a fix
            # lints texts that change: it makes its own)
            reach = ReachIndex(cache.folder if cache is not None else None,
                               _regions_preparer(linter_for, cache) if mode != FIX else None)
            reach.prefetch(files, jobs_or_default(options.jobs))
            with progress(len(files)) as advance:
                outcomes += check_files(files, mode, bool(unsafe), lambda: linter_for(None),
                                        jobs_or_default(options.jobs), cache, linter_for=linter_for, advance=advance,
                                        reach_for=reach.for_file, prepared_for=reach.prepared_for)
            if cache is not None:
                cache.save()
                if cache.folder.is_dir():
                    reach.save()
        if not found_any and not options.quiet:
            click.echo("hylint: warning: no Python files found under the given paths", err=True)
        if added is not None:
            if not options.quiet:
                click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
            return EXIT_OK

    diagnostics, fixed_by_code, sources, cell_sources, changed = _collect(outcomes)

    stdin_fix = "-" in paths and mode == FIX
    if mode == DIFF:
        with _output(options.output_file, sys.stdout) as out:
            for outcome in outcomes:
                if outcome.diff:
                    out.write(outcome.diff)
        count = sum(1 for o in outcomes if o.diff)
        if not options.quiet:
            click.echo(f"Would fix {count} file{'s' if count != 1 else ''}." if count else "No fixes available.",
                       err=True)
        if any(outcome.failed for outcome in outcomes):
            return EXIT_ERROR
        return EXIT_DIAGNOSTICS if changed else EXIT_OK
    if stdin_fix:
        _write_fixed_stdin(outcomes[0], stdin_raw)

    terminal = sys.stdout.isatty() and options.output_file is None  # a file gets no colours nor links
    color = fmt == "full" and terminal and not os.environ.get("NO_COLOR")
    report = Report(diagnostics, sources, color, dict(fixed_by_code), options.show_fixes, unsafe, mode == FIX,
                    len(outcomes))
    report.hyperlinks = fmt in HYPERLINK_FORMATS and terminal and os.environ.get("TERM") != "dumb"
    report.cell_sources = cell_sources
    report.quiet = options.quiet
    with _output(options.output_file, sys.stderr if stdin_fix else sys.stdout) as out:
        if options.statistics:
            counts = Counter(d.code for d in diagnostics)
            names = {d.code: d.name for d in diagnostics}
            for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                out.write(f"{count:>5}\t{code}\t{names[code]}\n")
        else:
            render(fmt, report, out)
            if fmt in HUMAN_FORMATS and not diagnostics and not fixed_by_code and not options.quiet \
                    and not any(o.failed for o in outcomes):
                out.write("All checks passed!\n")  # as ruff: silence would not tell a clean run from none
        out.flush()
    if any(outcome.failed for outcome in outcomes):
        return EXIT_ERROR  # a file could not be checked or written (its message is on stderr)
    if options.exit_zero:
        return EXIT_OK
    if options.exit_non_zero_on_fix and fixed_by_code:
        return EXIT_DIAGNOSTICS
    return EXIT_DIAGNOSTICS if diagnostics else EXIT_OK


@contextmanager
def _output(path: Optional[str], default: TextIO) -> Iterator[TextIO]:
    """Where the report goes: ``default``, or the file ``-o/--output-file`` names (its folders made, as ruff)."""
    if path is None:
        yield default
        return
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "w", encoding="utf-8", errors="surrogateescape")
    except OSError as error:
        raise UsageError(f"{path}: cannot write the output file: {error.strerror or error}") from None
    with handle:
        yield handle


def show_settings(options: CheckOptions, filename: str) -> int:
    """``--show-settings [PATH]``: the configuration that applies to ``filename`` (a file or a folder) and
    the rules it is checked with; the excludes shown are those that apply (the defaults unless replaced)."""
    from hylint.batch.cache import cache_folder

    config, _ = configs_for(options, (filename,))[0]
    selection = _resolved(select(options, config))
    ignored = selection.ignored_for(filename)
    rules = [rule.CODE for rule in selection.rules() if rule.CODE not in ignored]
    lines = [
        f"file = {filename}",
        f"config = {config.path if config.path is not None else '(none: the defaults)'}",
        f"root = {config.root}",
        f"select = {list(selection.select)}",
        f"extend-select = {list(selection.extend_select)}",
        f"ignore = {list(selection.ignore)}",
        f"per-file-ignores = {dict((pattern, list(codes)) for pattern, codes in selection.per_file_ignore_codes)}",
        f"ignored-here = {sorted(ignored)}",
        f"exclude = {list(config.exclude or _default_excludes())}",
        f"extend-exclude = {list(config.extend_exclude)}",
        f"fix = {options.fix if options.fix is not None else config.fix}",
        f"unsafe-fixes = {options.unsafe_fixes if options.unsafe_fixes is not None else config.unsafe_fixes}",
        f"output-format = {options.output_format or config.output_format or 'full'}",
        f"cache = {'off' if options.no_cache or not config.cache else cache_folder(config.root, options.cache_dir)}",
        f"rules = {rules}",
    ]
    click.echo("\n".join(lines))
    return EXIT_OK


def run_clean(config_path: Optional[str] = None, cache_dir: Optional[str] = None) -> int:
    """``hylint clean``: remove the result cache of the project (of its configuration, or the current folder)."""
    from hylint.batch.cache import CleanError, cache_folder, clean

    folder = cache_folder(load(CheckOptions(config_path=config_path)).root, cache_dir)
    try:
        removed = clean(folder)
    except CleanError as error:
        raise UsageError(str(error)) from None
    click.echo(f"Removed {folder}" if removed else f"No cache at {folder}", err=True)
    return EXIT_OK


def jobs_or_default(jobs: int) -> int:
    from hylint.batch.parallel import default_jobs

    return jobs or default_jobs()


def _regions_preparer(linter_for, cache):
    """For ``ReachIndex``: a factory, called before the first package's reach is computed (it builds the
    run's linter here, so processes forked for the reach inherit libcst and the rules), of the function
    that makes a checked file's regions from the tree the reach parsed (``Linter.prepare``). A file with a
    result cached for it as it is is left alone (it is likely not linted), and so is one whose text is not
    its bytes in UTF-8 (the tree was parsed from the bytes)."""
    def factory():
        from hylint.batch.files import SourceError, decode

        linter_for(None)

        def prepare(path: Path, raw: bytes, tree, reach):
            if cache is not None and cache.unchanged(path):
                return None
            try:
                text = decode(raw, str(path)).text
            except SourceError:
                return None
            if text.encode("utf-8") != raw:
                return None
            return linter_for(str(path)).prepare(text, tree, reach)
        return prepare
    return factory


def _guarded_linter_for(selection: RuleSelection):
    """``selection.linter_for`` (None: the run's linter), a bad selector a UsageError."""
    def linter_for(filename: Optional[str]):
        try:
            return selection.linter() if filename is None else selection.linter_for(filename)
        except SelectionError as error:
            raise UsageError(str(error)) from None
    return linter_for


def _check_stdin(raw: bytes, filename: str, selection: RuleSelection, mode: str, unsafe: bool,
                 reach_cache: Optional[Path] = None) -> FileOutcome:
    """``--stdin-filename`` names a module of a package: what the package's traces reach in it (read from
    the package's files on disk, as a run over the folder reads them, with stdin as that module: an editor's
    unsaved buffer is checked as ``hylint check`` will check it once saved) is checked as hybrid code. stdin
    without a name, or naming a lone module, is a module of its own: its reach is its text's."""
    from hylint.batch.reach import is_lone_module
    from hylint.batch.runner import process_stdin

    reach = None
    own = filename == "-" or filename.endswith(".py") and is_lone_module(Path(filename))
    if not own and filename.endswith(".py"):
        reach = _unsaved_reach(raw, filename)  # stdin is not what the file holds: the package with it
    if reach is False:
        from hylint.batch.reach import ReachIndex

        index = ReachIndex(reach_cache)
        reach = index.for_file(Path(filename))
        if reach_cache is not None and reach_cache.is_dir():  # a folder a run made: keep the package's reach
            index.save()
    outcome = process_stdin(raw, filename, _guarded_linter_for(selection)(filename), mode, unsafe, reach, own)
    if outcome.diagnostics:  # an unreadable stdin (HY001) is reported without a linter: ignore it here
        ignored = selection.ignored_for(filename)
        outcome.diagnostics = [d for d in outcome.diagnostics if d.code not in ignored]
    return outcome


def _add_noqa(files, selection: RuleSelection) -> int:
    """Add the noqa directives to ``files``; how many were added."""
    from hylint.batch.add_noqa import add_noqa_path

    linter_for = _guarded_linter_for(selection)
    added = 0
    for path in files:
        result = add_noqa_path(path, linter_for(str(path)))
        added += result.added
        for message in result.messages:
            click.echo(message, err=True)
    return added


def _prepare(options: CheckOptions, config: Config, mode: str, unsafe: bool):
    """The rule selection of ``config`` and its result cache (None: caching is off)."""
    selection = select(options, config)
    cache = None
    if not options.no_cache and config.cache:
        from hylint.batch.cache import ResultCache, cache_key

        cache = ResultCache.open(config.root, cache_key(
            mode=mode, unsafe=unsafe, select=selection.select, extend_select=selection.extend_select,
            ignore=selection.ignore, per_file_ignores=selection.per_file_ignore_codes), options.cache_dir)
    if cache is None or cache.fresh:
        _resolved(selection)  # an unknown rule code is an error before any file is read
    return selection, cache


def _default_excludes() -> Tuple[str, ...]:
    from hylint.batch.discovery import DEFAULT_EXCLUDE

    return DEFAULT_EXCLUDE


def _excludes(config: Config) -> Tuple[str, ...]:
    return tuple(config.exclude or _default_excludes()) + config.extend_exclude


def _files_by_config(options: CheckOptions, groups) -> List[Tuple[Config, List[Path]]]:
    """The files of each group's paths, under the configuration nearest to each file: a file found by
    walking a folder that holds a sub-project with its own ``[tool.hylint]`` is checked with that table
    (less its excludes), as a file named alone would be. ``--config`` applies one table to all."""
    from hylint.batch.discovery import PathError, discover, excluded_explicitly
    from hylint.config import ConfigError, find_config, load_config

    by_path: Dict[Optional[Path], Tuple[Config, List[Path]]] = {}
    nearest_of: Dict[Path, Optional[Path]] = {}  # folder -> its nearest configuration file
    looked_up: Dict[str, Optional[Path]] = {}  # the same per resolved folder, for find_config
    try:
        for config, paths in groups:
            force = bool(options.force_exclude or config.force_exclude)
            try:
                files = discover(paths, _excludes(config), config.root, force_exclude=force)
            except PathError as error:
                raise UsageError(str(error)) from None
            by_path.setdefault(config.path, (config, []))
            for path in files:
                nearest = config.path
                if not options.config_path:
                    folder = path.parent
                    if folder not in nearest_of:
                        nearest_of[folder] = find_config(folder, looked_up)
                    nearest = nearest_of[folder] or config.path
                if nearest not in by_path:
                    by_path[nearest] = (load_config(nearest, check_codes=False), [])
                owner = by_path[nearest][0]
                if nearest != config.path and excluded_explicitly(path, _excludes(owner), owner.root):
                    continue  # excluded by the sub-project's own table
                by_path[nearest][1].append(path)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    return list(by_path.values())


def _collect(outcomes: List[FileOutcome]):
    """The diagnostics of all outcomes in report order (notebook rows mapped to cells), fixes per code,
    the sources and notebook cells the report quotes, and whether any file changed; each outcome's
    messages go to stderr."""
    diagnostics = []
    fixed_by_code: Counter = Counter()
    sources = {}
    cell_sources = {}  # (notebook, cell) -> the cell's text
    changed = False
    for outcome in outcomes:
        for message in outcome.messages:
            click.echo(message, err=True)
        kept = outcome.diagnostics
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
    return diagnostics, fixed_by_code, sources, cell_sources, changed


def _write_fixed_stdin(outcome: FileOutcome, stdin_raw: bytes) -> None:
    """``--fix`` on stdin writes the fixed source to stdout (the report goes to stderr)."""
    if outcome.filename.endswith(".ipynb"):  # the whole notebook, its cells fixed
        from hylint.batch.files import decode, encode

        fixed = stdin_raw if outcome.fixed_text is None else encode(decode(stdin_raw, outcome.filename),
                                                                    outcome.fixed_text)
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed)
    else:
        sys.stdout.write(outcome.fixed_text if outcome.fixed_text is not None else
                         (outcome.text if outcome.text is not None else ""))
