"""The nearest configuration (``.hylint.toml``, ``hylint.toml`` or ``[tool.hylint]`` of a pyproject.toml),
merged with command-line options, as one frozen Config."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """An invalid configuration: the message names the file and the key."""


LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
BOOL_KEYS = ("fix", "unsafe-fixes", "force-exclude", "cache")
STR_KEYS = ("output-format",)
# keys owned by other commands, validated where they are used
OTHER_KEYS = ("per-file-ignores", "verify")
KNOWN_KEYS = set(LIST_KEYS) | set(BOOL_KEYS) | set(STR_KEYS) | set(OTHER_KEYS)
# the files a folder's configuration may be in, first found wins (ruff's order: .ruff.toml, ruff.toml,
# pyproject.toml); the first two hold the settings at their top level and count even when empty, a
# pyproject.toml only when it has a [tool.hylint] table
CONFIG_NAMES = (".hylint.toml", "hylint.toml", "pyproject.toml")


@dataclass(frozen=True)
class Config:
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    force_exclude: bool = False
    cache: bool = True
    output_format: Optional[str] = None
    verify: Tuple[Dict[str, Any], ...] = ()
    path: Optional[Path] = None  # the file it came from
    root: Path = field(default_factory=Path.cwd)  # the folder relative paths are taken from

    def merged(self, **overrides: Any) -> "Config":
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


def find_config(start: Path, memo: Optional[Dict[str, Optional[Path]]] = None) -> Optional[Path]:
    """The nearest configuration file (from ``start`` upwards): a ``.hylint.toml`` or ``hylint.toml``, or a
    pyproject.toml that has a [tool.hylint] table (``CONFIG_NAMES``' order within a folder). ``memo``: what
    earlier calls found, per resolved folder (a run asks for every folder holding a checked file: each
    folder, and each pyproject.toml, is then read once)."""
    memo = {} if memo is None else memo
    walked = []
    folder = os.path.realpath(start)
    found: Optional[Path] = None
    while True:
        if folder in memo:
            found = memo[folder]
            break
        walked.append(folder)
        found = _config_in(folder)
        if found is not None:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for folder in walked:
        memo[folder] = found
    return found


find_pyproject = find_config  # its name before hylint.toml was looked for


def _config_in(folder: str) -> Optional[Path]:
    for name in CONFIG_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and (name != "pyproject.toml"
                                          or "hylint" in _read_toml(Path(candidate)).get("tool", {})):
            return Path(candidate)
    return None


def _read_toml(path: Path) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: not valid UTF-8 ({error.reason})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None


def load_config(explicit: Optional[Path] = None, start: Optional[Path] = None,
                check_codes: bool = True) -> Config:
    path = explicit
    if path is None:
        path = find_config(start or Path.cwd())
        if path is None:
            return Config()
    elif not path.is_file():
        raise ConfigError(f"{path}: configuration file not found")
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        return parse_table(data.get("tool", {}).get("hylint", {}), path, check_codes)
    # hylint.toml (or any other file given with --config): the settings at the top level, as in ruff.toml;
    # a [tool.hylint] table there is read too
    table = data.get("tool", {}).get("hylint") if isinstance(data.get("tool"), dict) else None
    return parse_table(data if table is None else table, path, check_codes, top_level=table is None)


def parse_table(table: Dict[str, Any], path: Path, check_codes: bool = True, top_level: bool = False) -> Config:
    where = f"{path}" if top_level else f"{path}: [tool.hylint]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    values: Dict[str, Any] = {}
    for key, value in table.items():
        if key not in KNOWN_KEYS:
            raise ConfigError(f"{where}: unknown key `{key}` (known: {', '.join(sorted(KNOWN_KEYS))})")
        attr = key.replace("-", "_")
        if key in LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: `{key}` must be a list of strings, got {value!r}")
            values[attr] = tuple(value)
        elif key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: `{key}` must be true or false, got {value!r}")
            values[attr] = value
        elif key in STR_KEYS:
            if not isinstance(value, str):
                raise ConfigError(f"{where}: `{key}` must be a string, got {value!r}")
            values[attr] = value
            if key == "output-format":
                from hylint.report import FORMATS

                if value not in FORMATS:
                    raise ConfigError(f"{where}: `output-format`: unknown output format {value!r} "
                                      f"(choose from: {', '.join(FORMATS)})")
        elif key == "per-file-ignores":
            if not isinstance(value, dict) or not all(
                    isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()):
                raise ConfigError(f"{where}: `per-file-ignores` must map glob patterns to lists of codes")
            values[attr] = tuple((pattern, tuple(codes)) for pattern, codes in value.items())
        elif key == "verify":
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ConfigError(f"{where}: `verify` must be an array of tables ([[tool.hylint.verify]])")
            values[attr] = tuple(value)
    if check_codes:  # else a run's RuleSelection checks them, only when it needs the rules
        _check_codes(values, where)
    return Config(path=path, root=path.parent.resolve(), **values)


def _check_codes(values: Dict[str, Any], where: str) -> None:
    """Unknown rule codes in select / extend-select / ignore / per-file-ignores: an error naming the key."""
    from hylint.codes import unknown_code_in

    message = unknown_code_in(values, where)
    if message is not None:
        raise ConfigError(message)
