"""`hylint check`: its flags, as CheckOptions, to the check pipeline (hylint/check.py)."""
from __future__ import annotations

import sys
from typing import Optional, Tuple

import click

from hylint.check import CheckOptions, run_check
from hylint.cli.guard import guarded


@click.command()
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
@click.option("--output-file", "-o", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Write the report to PATH instead of stdout (no colours; with --diff, the diff).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print the diagnostics only: no summary lines, no 'All checks passed!', no warnings.")
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
@click.option("--show-files", is_flag=True, help="List the files that would be checked; check nothing.")
@click.option("--show-settings", type=str, is_flag=False, flag_value="", default=None, metavar="[PATH]",
              help="Print the settings that apply to PATH (default: the first path given, else the current "
                   "folder): its nearest configuration, excludes and rules; check nothing.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, envvar="HYLINT_CACHE_DIR",
              help="Keep the result cache here (default: .hylint_cache/ beside the configuration; "
                   "or $HYLINT_CACHE_DIR).")
def check(paths: Tuple[str, ...], fix: Optional[bool], unsafe_fixes: Optional[bool], diff: bool, show_fixes: bool,
          exit_non_zero_on_fix: bool, select: Tuple[str, ...], extend_select: Tuple[str, ...], ignore: Tuple[str, ...],
          output_format: Optional[str], statistics: bool, exit_zero: bool, stdin_filename: Optional[str],
          config_path: Optional[str], force_exclude: Optional[bool], add_noqa: bool, jobs: int = 0,
          no_cache: bool = False, cache_dir: Optional[str] = None, show_files: bool = False,
          show_settings: Optional[str] = None, quiet: bool = False, output_file: Optional[str] = None) -> None:
    """Check PATHS (default: the current folder; `-` reads stdin)."""
    options = CheckOptions(
        paths=paths, fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, show_fixes=show_fixes,
        exit_non_zero_on_fix=exit_non_zero_on_fix, select=select, extend_select=extend_select, ignore=ignore,
        output_format=output_format, statistics=statistics, exit_zero=exit_zero, stdin_filename=stdin_filename,
        config_path=config_path, force_exclude=force_exclude, add_noqa=add_noqa, jobs=jobs, no_cache=no_cache,
        cache_dir=cache_dir, show_files=show_files, show_settings=show_settings, quiet=quiet, output_file=output_file)
    sys.exit(guarded(lambda: run_check(options)))
