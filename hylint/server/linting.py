"""The server's one way into the linter: the settings of a file and the calls that lint, fix and add noqa.

It builds what ``hylint check`` builds for a file (hylint/check.py): the nearest ``[tool.hylint]``
of the file (``hylint.config``) and its ``RuleSelection`` (rules, per-file-ignores applied per file),
kept per folder so a keystroke does not re-read the configuration or re-import the rules.

Settings are re-read when any configuration file (``pyproject.toml``, ``hylint.toml``, ``.hylint.toml``)
between the file and the root appears, disappears or changes (size or mtime): a stat per folder on each check, no restart and no file watcher needed.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hylint.config import CONFIG_NAMES, Config, ConfigError, load_config
from hylint.diagnostic import Diagnostic
from hylint.server.incremental import GroupCache
from hylint.server.parsing import StatementCache


@dataclass
class Outcome:
    diagnostics: List[Diagnostic]
    error: Optional[str] = None  # a configuration problem or an internal error, for the user's log


@dataclass
class _Settings:
    config: Config
    error: Optional[str]  # the config could not be read: defaults are used
    selection: Optional[object] = None  # hylint.selection.RuleSelection
    whole_file: Dict[int, object] = field(default_factory=dict)  # id(linter) -> its variant without regions


def _stamp(folder: Path) -> Tuple:
    """What decides the settings of files in ``folder``: every configuration file above it, with size and mtime."""
    stamp = []
    for parent in [folder] + list(folder.parents):
        for name in CONFIG_NAMES:
            try:
                info = os.stat(parent / name)
            except OSError:
                continue
            stamp.append((str(parent / name), info.st_mtime_ns, info.st_size))
    return tuple(stamp)


class Checker:
    """Lints buffers with the settings of the file they will be saved as."""

    def __init__(self, default_folder: Optional[Path] = None) -> None:
        self.default_folder = (default_folder or Path.cwd()).resolve()
        self._settings: Dict[Path, Tuple[Tuple, _Settings]] = {}  # folder -> (stamp, settings)
        self._fixable: Dict[str, bool] = {}  # file -> its last check had a fix only a whole-file run gives
        self._groups: Dict[str, GroupCache] = {}  # file -> its groups' diagnostics (hylint/server/incremental.py)
        self._reach = None  # hylint.server.reach.BufferReach, made on the first check of a file on disk
        self._parser = StatementCache()  # libcst's trees of the statements of earlier buffers

    # -- settings --------------------------------------------------------------------------------
    def settings(self, path: Optional[Path]) -> _Settings:
        folder = path.parent if path is not None else self.default_folder
        stamp = _stamp(folder)
        cached = self._settings.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            settings = _Settings(load_config(start=folder), None)
            self._select(settings)  # an unknown rule code is a config error too
        except ConfigError as error:  # told to the user; the defaults keep the editor useful meanwhile
            settings = _Settings(Config(root=folder), str(error))
            self._select(settings)
        if len(self._settings) > 256:  # folders seen in a long session: keep memory bounded
            self._settings.clear()
        self._settings[folder] = (stamp, settings)
        return settings

    @staticmethod
    def _select(settings: _Settings) -> None:
        from hylint.selection import RuleSelection, SelectionError

        config = settings.config
        selection = RuleSelection(config.select, config.extend_select, config.ignore, config.per_file_ignores,
                                  config.root, (), config)
        try:
            selection.rules()  # an unknown code in the configuration is a configuration error
        except SelectionError as error:
            raise ConfigError(str(error)) from None
        settings.selection = selection

    def linter(self, path: Optional[Path], whole_file: bool = False):
        """The linter for the file, as ``hylint check`` builds it (per-file-ignores deselect rules).

        ``whole_file``: without the regions pass (``linter.regions = False``, which tests/lint/test_regions.py
        proves gives the same diagnostics); the engine lints a file again whole when a diagnostic has a
        fix that may read the whole module (``Linter.needs_whole_file``), so for a buffer that had one on
        the last keystroke the first pass is waste.
        """
        from hylint.lint.engine import Linter

        settings = self.settings(path)
        linter = settings.selection.linter_for(str(path)) if path is not None else settings.selection.linter()
        if whole_file and linter.regions:
            if id(linter) not in settings.whole_file:
                variant = Linter(linter.rule_types, linter.known_codes)
                variant.regions = False
                settings.whole_file[id(linter)] = variant
            linter = settings.whole_file[id(linter)]
        return linter

    # -- the calls -------------------------------------------------------------------------------
    def check(self, text: str, path: Optional[Path]) -> Outcome:
        """Diagnostics of ``text``; an unparsable one gives HY000 (the engine's own)."""
        filename = str(path) if path is not None else "<untitled>"
        settings = self.settings(path)
        try:
            reach = self._reach_for(path, text)
            if reach:  # a module the package's traces reach: checked whole with that reach, as `hylint check` does
                diagnostics = self.linter(path, True).lint_source(text, filename, reach=reach,
                                                                  reuse=self._parser.reuse()).diagnostics
            else:
                diagnostics = self._by_groups(text, filename, path)
            if diagnostics is None:
                diagnostics = self.linter(path, self._fixable.get(filename, False)).lint_source(
                    text, filename, reuse=self._parser.reuse()).diagnostics
        except Exception as error:  # a bug in a rule must not take the editor's linter down
            return Outcome([], f"hylint: internal error on {filename}: {type(error).__name__}: {error}")
        if len(self._fixable) > 1024:
            self._fixable.clear()
        self._fixable[filename] = self.linter(path).needs_whole_file(diagnostics)
        return Outcome(list(diagnostics), settings.error)

    def _reach_for(self, path: Optional[Path], text: str):
        """What a trace of the package reaches in ``path``, from the open buffers of the package and the
        other files as saved (hylint/server/reach.py: the reach last computed, at once; ``refresh_reach``
        computes it again once the editor is idle); for a notebook or a buffer with no file, which have no
        package, what a trace reaches in ``text`` itself."""
        if path is None or path.suffix == ".ipynb":
            from hylint.batch.reach import reach_of_text

            return reach_of_text(text)
        if path.suffix != ".py" or not path.parent.is_dir():
            return None
        if self._reach is None:
            from hylint.server.reach import BufferReach

            self._reach = BufferReach()
        return self._reach.for_file(path, text)

    def refresh_reach(self) -> List[Path]:
        """Compute again the reach of the packages checked since the last call, from the open buffers; the
        open files whose reach changed since their latest check (to be checked again)."""
        if self._reach is None:
            return []
        return [Path(name) for name in self._reach.refresh()]

    def reach_pending(self) -> bool:
        return self._reach is not None and bool(self._reach.stale)

    def reach_cost(self) -> float:
        """Seconds the latest computation of a package's reach from unsaved buffers took."""
        return self._reach.cost if self._reach is not None else 0.0

    def _by_groups(self, text: str, filename: str, path: Optional[Path]) -> Optional[List[Diagnostic]]:
        """The diagnostics of ``text`` group by group, each group linted again only when its text changed;
        None: lint it whole. Groups are linted without the regions pass (each is a small part already)."""
        cache = self._groups.get(filename)
        if cache is None:
            if len(self._groups) > 64:  # files seen in a long session: keep memory bounded
                self._groups.clear()
            cache = self._groups[filename] = GroupCache(self._parser)
        return cache.check(text, filename, self.linter(path, whole_file=True))

    def warm(self, path: Optional[Path]) -> bool:
        """Prepare one more group of the file's latest check for the next edit; whether more remain."""
        cache = self._groups.get(str(path) if path is not None else "<untitled>")
        try:
            return cache is not None and cache.warm()
        except Exception:  # a bug in a rule shows on the next check, not here
            cache.pending = []
            return False

    def forget(self, path: Optional[Path]) -> None:
        """Drop what is kept for a closed file."""
        filename = str(path) if path is not None else "<untitled>"
        self._groups.pop(filename, None)
        self._fixable.pop(filename, None)
        if path is not None and self._reach is not None:
            self._reach.forget(path)

    def check_notebook(self, cells: Sequence[Tuple[bool, str]], path: Optional[Path]) -> Outcome:
        """Diagnostics of a notebook the editor holds as cells, ``(is_code, text)`` in order, as
        ``hylint check`` reads the notebook file: ``cell`` is a diagnostic's 1-based cell, its rows the
        cell's (hylint/batch/notebook.py; cell magics and shell escapes are left out as there)."""
        from hylint.batch.files import SourceError, decode_notebook
        from hylint.batch.notebook import map_diagnostics

        document = {"cells": [{"cell_type": "code", "metadata": {}, "source": text, "outputs": [],
                               "execution_count": None} if code else
                              {"cell_type": "markdown", "metadata": {}, "source": text} for code, text in cells],
                    "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
        filename = str(path) if path is not None else "<untitled>.ipynb"
        try:
            virtual = decode_notebook(json.dumps(document).encode("utf-8"), filename).text
        except SourceError as error:
            return Outcome([], f"hylint: {filename}: {error}")
        outcome = self.check(virtual, path)
        outcome.diagnostics = map_diagnostics(virtual, outcome.diagnostics)
        return outcome

    def fix_all(self, text: str, path: Optional[Path], unsafe: bool = False) -> str:
        """``text`` with every (safe) fix applied, as ``hylint check --fix`` would write it."""
        filename = str(path) if path is not None else "<untitled>"
        try:
            return self.linter(path).fix_source(text, filename, unsafe=unsafe).source
        except Exception:  # FixLoopError or a bug: no edit rather than a failed request
            return text

    def add_noqa(self, text: str, path: Optional[Path], only: Optional[Diagnostic] = None) -> str:
        """``text`` with ``# noqa: CODE`` added as ``hylint check --add-noqa`` does: for every diagnostic,
        or for ``only`` (a diagnostic of this same text)."""
        from hylint.batch.add_noqa import add_noqa_source

        filename = str(path) if path is not None else "<untitled>"
        linter = self.linter(path) if only is None else _Given([only])
        try:
            new, _ = add_noqa_source(text, filename, linter)
        except Exception:  # no edit rather than a failed request
            return text
        return new


@dataclass
class _Given:
    """A stand-in linter that reports given diagnostics: add_noqa_source for one diagnostic."""

    diagnostics: List[Diagnostic]

    def lint_source(self, source: str, filename: str) -> "_Given":
        return self
