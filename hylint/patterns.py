"""Path patterns as ruff's exclude reads them: a pattern matches a file's or folder's name, or its path
relative to the root (``**/`` also matching no folder), each folder resolved once per run. Read by file
discovery (batch/discovery.py) and by per-file-ignores (selection.py, cli/verify_command.py)."""
from __future__ import annotations

import fnmatch
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Tuple


def matches_any(path: Path, patterns: Iterable[str], root: Path) -> bool:
    """ruff-style exclude: a pattern matches the file/folder name or its path relative to ``root``."""
    patterns = tuple(patterns)
    if not patterns:
        return False
    whole, relative_re = _compiled(patterns)
    resolved = _resolve(path)
    root_text = _resolve_dir(os.fspath(root))
    if resolved == root_text:
        relative = "."
    elif resolved.startswith(root_text.rstrip("/") + "/"):
        relative = resolved[len(root_text.rstrip("/")) + 1:]
    else:
        relative = path.as_posix()
    return bool(whole.match(path.name) or relative_re.match(relative) or whole.match(path.as_posix()))


@lru_cache(maxsize=64)
def _compiled(patterns: Tuple[str, ...]) -> Tuple["re.Pattern[str]", "re.Pattern[str]"]:
    """One regex for ``fnmatchcase(x, p)`` over all patterns; one adding ``p + "/*"``."""
    stripped = []
    for pattern in patterns:
        # `**/` also matches no folder at all (`tests/**/*.py` matches `tests/a.py`)
        for variant in (pattern.rstrip("/"), pattern.rstrip("/").replace("**/", "")):
            if variant not in stripped:
                stripped.append(variant)
    whole = "|".join(f"(?:{fnmatch.translate(p)})" for p in stripped)
    relative = "|".join(f"(?:{fnmatch.translate(p)})|(?:{fnmatch.translate(p + '/*')})" for p in stripped)
    return re.compile(whole), re.compile(relative)


@lru_cache(maxsize=4096)
def _resolve_dir(path: str) -> str:
    return os.path.realpath(path)


def _resolve(path: Path) -> str:
    """``str(path.resolve())``, resolving each folder once per run."""
    text = os.path.abspath(path)
    if os.path.islink(text):
        return os.path.realpath(text)
    parent, name = os.path.split(text)
    if not name:
        return _resolve_dir(text)
    return os.path.join(_resolve_dir(parent), name)
