"""Paths -> the Python files (and Jupyter notebooks) to check (walk folders, honour .gitignore and excludes)."""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

from hylint.patterns import _resolve, _resolve_dir, matches_any

DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
                   "node_modules", ".eggs", "*.egg-info", ".hylint_cache", ".mypy_cache", ".pytest_cache",
                   ".ruff_cache", "site-packages", "__pypackages__", ".ipynb_checkpoints")
SUFFIXES = (".py", ".pyi", ".ipynb")  # Jupyter notebooks too, as ruff (hylint/batch/notebook.py)


class PathError(Exception):
    """A path given on the command line that does not exist."""


@dataclass
class _IgnoreRule:
    regex: "re.Pattern[str]"
    negate: bool
    dir_only: bool


def _glob_to_regex(pattern: str) -> str:
    """A gitignore glob (relative to its folder) as a regex over '/'-separated relative paths."""
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.strip("/")
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.find("]", i)
            if end == -1:
                out.append(re.escape(pattern[i]))
                i += 1
            else:
                out.append(pattern[i:end + 1].replace("[!", "[^"))
                i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    body = "".join(out)
    return ("^" if anchored else "^(?:.*/)?") + body + "$"


class GitIgnore:
    """The rules of the .gitignore files met on the way down a tree."""

    def __init__(self) -> None:
        self.layers: List[Tuple[Path, List[_IgnoreRule]]] = []

    def add_file(self, folder: Path) -> bool:
        path = folder / ".gitignore"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        rules = []
        for line in text.splitlines():
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            dir_only = line.endswith("/")
            rules.append(_IgnoreRule(re.compile(_glob_to_regex(line)), negate, dir_only))
        if rules:
            self.layers.append((folder, rules))
            return True
        return False

    def ignored(self, path: Path, is_dir: bool) -> bool:
        verdict = False
        for folder, rules in self.layers:
            try:
                relative = path.relative_to(folder).as_posix()
            except ValueError:
                continue
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(relative):
                    verdict = not rule.negate
        return verdict


def excluded_explicitly(path: Path, exclude: Sequence[str], root: Path) -> bool:
    """--force-exclude for a path named on the command line: the path or one of its folders is excluded
    (only the folders below ``root``, or those written in the path when it lies outside ``root``)."""
    if matches_any(path, exclude, root):
        return True
    absolute = Path(os.path.abspath(path))
    resolved_root = root.resolve()
    try:
        folders = [resolved_root / part for part in
                   list(itertools.accumulate(absolute.relative_to(resolved_root).parts[:-1], os.path.join))]
    except ValueError:
        folders = [Path(p) for p in itertools.accumulate(path.parts[:-1], os.path.join)]
    return any(matches_any(folder, exclude, root) for folder in folders)


def discover(paths: Sequence[str], exclude: Sequence[str], root: Path, force_exclude: bool = False,
             respect_gitignore: bool = True) -> List[Path]:
    """Every Python file under ``paths``, each once, in a stable order."""
    _resolve_dir.cache_clear()  # folders are resolved once per run, not once per process
    files: List[Path] = []
    seen = set()

    def add(path: Path) -> None:
        # one file reached twice (the same path given twice, or a link to a file also found) is checked once
        key = os.path.normcase(_resolve(path))  # realpath, each folder resolved once
        if key not in seen:
            seen.add(key)
            files.append(path)

    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            raise PathError(f"{raw}: no such file or directory")
        if path.is_dir():
            if force_exclude and excluded_explicitly(path, exclude, root):
                continue
            for found in _walk(path, exclude, root, respect_gitignore):
                add(found)
        else:
            if force_exclude and excluded_explicitly(path, exclude, root):
                continue
            add(path)
    return files


def _walk(top: Path, exclude: Sequence[str], root: Path, respect_gitignore: bool) -> Iterable[Path]:
    ignore = GitIgnore()
    absolute_top = Path(os.path.abspath(top))
    if respect_gitignore:
        # the .gitignore files between the repository root and `top` apply too
        ancestors = list(absolute_top.parents)
        repo = next((p for p in [absolute_top] + ancestors if (p / ".git").exists()), None)
        if repo is not None and repo != absolute_top:
            for parent in reversed(ancestors):
                if parent == repo or repo in parent.parents:
                    ignore.add_file(parent)
    stack = [top]
    while stack:
        folder = stack.pop()
        if respect_gitignore:
            ignore.add_file(Path(os.path.abspath(folder)))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subfolders = []
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if matches_any(path, exclude, root):
                continue
            if respect_gitignore and ignore.layers and ignore.ignored(Path(os.path.abspath(path)), is_dir):
                continue
            if is_dir:
                subfolders.append(path)
            elif entry.name.endswith(SUFFIXES):
                if entry.is_symlink() and _points_outside(path, absolute_top):
                    continue  # like black: a link out of the folder being walked is not followed
                yield path
        stack.extend(reversed(subfolders))


def _points_outside(link: Path, top: Path) -> bool:
    """A symlink whose target lies outside ``top`` (a dangling or looping link does not: it gets HY001)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return False
    real_top = Path(os.path.realpath(top))
    return target != real_top and real_top not in target.parents
