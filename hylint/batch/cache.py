"""The result cache: what checking a file gave, keyed by hylint's code, the configuration and the content.

Layout, under the project root (the folder of the pyproject.toml in use, else the current folder)::

    .hylint_cache/.gitignore                   "*": git ignores the whole folder
    .hylint_cache/CACHEDIR.TAG                 backup tools skip it
    .hylint_cache/<version>/<key>.json         one file per effective configuration

``<key>`` digests everything a file's result depends on besides its content: hylint's version and
a fingerprint of its own source files (so a changed checkout never reuses stale results), the rule
selection (``select``, ``extend-select``, ``ignore``, ``per-file-ignores``), the mode (check, fix,
diff) and ``unsafe-fixes``. Inside, one entry per file: the file's content hash (BLAKE2b) and the
result (diagnostics, fix messages, the diff). An entry is used only when the content hash matches;
to avoid reading and hashing unchanged files, the entry also keeps the file's size, mtime, ctime and
inode, and when all four are unchanged and the file was last modified more than two seconds before
it was hashed (git's "racy clean" rule: coarse timestamps cannot hide an edit), the hash recorded
then is taken as the file's hash now.

Safe under concurrent runs: the file is never edited in place; a run that changed entries re-reads
the current file, overlays its own entries and replaces it atomically (temporary file + rename), so
readers see a whole file and a concurrent writer's work is at worst recomputed later. A cache that
cannot be read or parsed, or an entry of the wrong shape, is treated as empty and rewritten; a
cache that cannot be written is skipped silently. Nothing here raises.

This module imports neither libcst nor the rules: a run where every file hits the cache never does.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from hylint import __version__
from hylint.diagnostic import Applicability, Diagnostic, Edit, FactCheck, Fix

CACHE_DIR = ".hylint_cache"
CACHE_DIR_ENV = "HYLINT_CACHE_DIR"
_TAG = "CACHEDIR.TAG"


def cache_folder(root: Path, cache_dir: Optional[str] = None) -> Path:
    """Where the cache of the project at ``root`` lives: ``--cache-dir``, else $HYLINT_CACHE_DIR, else
    ``root/.hylint_cache`` (never the current folder: a run from elsewhere finds the same cache)."""
    chosen = cache_dir or os.environ.get(CACHE_DIR_ENV)
    return Path(chosen).expanduser().resolve() if chosen else Path(root) / CACHE_DIR


class CleanError(Exception):
    """The folder exists but is not a hylint cache: it is left alone."""


def clean(folder: Path) -> bool:
    """Remove a hylint cache folder (recognised by its CACHEDIR.TAG); False when there was none."""
    if not folder.exists():
        return False
    if not (folder / _TAG).is_file():
        raise CleanError(f"{folder}: not a hylint cache (no {_TAG}); left as it is")
    import shutil

    shutil.rmtree(folder)
    return True
FORMAT = 3  # 2: a fix keeps the facts it relies on and why it is unsafe; 3: a diagnostic's help
UNKNOWN_KEYS = object()  # ResultCache.prefilter_keys before any run recorded them
RACY_NS = 2_000_000_000  # a file modified this close to the time it was hashed is re-hashed next time
STALE_TEMP_SECONDS = 3600
STALE_CACHE_SECONDS = 30 * 24 * 3600  # cache files of other configurations not written for this long go


def replace_atomically(path: Path, payload: bytes) -> None:
    """Write ``payload`` to a temporary file beside ``path`` and rename it over ``path`` (readers see a
    whole file); the temporary file is removed if anything fails, and the error raised."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.chmod(temp, 0o644)  # mkstemp makes it 0600
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def content_digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


_FINGERPRINT: List[str] = []


def code_fingerprint() -> str:
    """hylint's version and the size/mtime of its own modules (cheap: one stat per module), once per process:
    the result cache and the reach index both key on it, and the code a process runs is the code it loaded."""
    if not _FINGERPRINT:
        _FINGERPRINT.append(_code_fingerprint())
    return _FINGERPRINT[0]


def _code_fingerprint() -> str:
    package = Path(__file__).resolve().parent.parent  # the hylint package
    parts: List[str] = [__version__]
    stack = [package]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__" and not entry.name.startswith("."):
                    stack.append(Path(entry.path))
            elif entry.name.endswith(".py"):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                parts.append(f"{os.path.relpath(entry.path, package)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _keyed(digest: str, reach: str) -> str:
    """The digest an entry stores: the content's, and the reach summary's after a colon when there is one
    (so entries of files without reach read as before)."""
    return f"{digest}:{reach}" if reach else digest


def _reach_part(stored: str) -> str:
    return str(stored).partition(":")[2]


def cache_key(**settings: Any) -> str:
    """The digest of the code fingerprint and the given settings (JSON-serialisable values)."""
    text = json.dumps({"format": FORMAT, "code": code_fingerprint(), **settings}, sort_keys=True, default=list)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# -- (de)serialisation of results -------------------------------------------------------------
def _diagnostic_to_json(d: Diagnostic) -> list:
    fix = None
    if d.fix is not None:
        fix = [d.fix.applicability.value, d.fix.message,
               [[e.content, list(e.start), list(e.end), e.start_offset, e.end_offset] for e in d.fix.edits],
               [[c.expression, c.fact, c.proven, c.evidence] for c in d.fix.relies_on], d.fix.why_unsafe]
    return [d.code, d.name, d.message, list(d.start), list(d.end), fix, d.noqa_row, d.help]


def _diagnostic_from_json(data: list, filename: str) -> Diagnostic:
    code, name, message, start, end, fix, noqa_row, help_text = data
    if fix is not None:
        applicability, fix_message, edits, relies_on, why_unsafe = fix
        fix = Fix(Applicability(applicability), str(fix_message),
                  tuple(Edit(str(content), (int(s[0]), int(s[1])), (int(e[0]), int(e[1])), int(so), int(eo))
                        for content, s, e, so, eo in edits),
                  tuple(FactCheck(str(x), str(f), bool(p), str(w)) for x, f, p, w in relies_on),
                  None if why_unsafe is None else str(why_unsafe))
    return Diagnostic(str(code), str(name), str(message), filename, (int(start[0]), int(start[1])),
                      (int(end[0]), int(end[1])), fix, None if noqa_row is None else int(noqa_row),
                      help=None if help_text is None else str(help_text))


class CachedResult:
    """A file's result as stored: diagnostics, messages, fixes applied, diff and fixed text."""

    __slots__ = ("diagnostics", "messages", "fixed_by_code", "diff", "fixed_text")

    def __init__(self, diagnostics: List[Diagnostic], messages: List[str], fixed_by_code: Dict[str, int],
                 diff: str, fixed_text: Optional[str]) -> None:
        self.diagnostics = diagnostics
        self.messages = messages
        self.fixed_by_code = fixed_by_code
        self.diff = diff
        self.fixed_text = fixed_text

    def to_json(self) -> dict:
        data: Dict[str, Any] = {"d": [_diagnostic_to_json(d) for d in self.diagnostics]}
        if self.messages:
            data["m"] = list(self.messages)
        if self.fixed_by_code:
            data["x"] = dict(self.fixed_by_code)
        if self.diff:
            data["diff"] = self.diff
        if self.fixed_text is not None:
            data["t"] = self.fixed_text
        return data

    @classmethod
    def from_json(cls, data: dict, filename: str) -> "CachedResult":
        diagnostics = [_diagnostic_from_json(d, filename) for d in data["d"]]
        messages = [str(m) for m in data.get("m", [])]
        fixed_by_code = {str(k): int(v) for k, v in data.get("x", {}).items()}
        diff = str(data.get("diff", ""))
        fixed_text = data.get("t")
        if fixed_text is not None and not isinstance(fixed_text, str):
            raise ValueError("fixed text is not a string")
        return cls(diagnostics, messages, fixed_by_code, diff, fixed_text)


# -- the cache ---------------------------------------------------------------------------------
class Stat(tuple):
    """(size, mtime_ns, ctime_ns, inode) of a file."""

    @classmethod
    def of(cls, st: os.stat_result) -> "Stat":
        return cls((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))


class ResultCache:
    """Entries of one configuration; ``lookup`` before checking a file, ``store`` after, ``save`` at the end."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.path = folder / __version__ / f"{key}.json"
        self.entries: Dict[str, list] = {}
        self.updated: Dict[str, list] = {}
        self.fresh = True  # no readable cache existed for this configuration
        # the prefilter's keys for this configuration (hylint/lint/prefilter.py), so that a run whose
        # changed files are all ruled out by the prefilter does not import the rules to learn them
        self.prefilter_keys: object = UNKNOWN_KEYS
        self._loaded_stat: Optional[Stat] = None
        self._load()

    @classmethod
    def open(cls, root: Path, key: str, cache_dir: Optional[str] = None) -> "ResultCache":
        return cls(cache_folder(root, cache_dir), key)

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                self._loaded_stat = Stat.of(os.fstat(handle.fileno()))
                data = json.loads(handle.read())
            entries = data["entries"]
            if data.get("format") != FORMAT or not isinstance(entries, dict):
                raise ValueError("unexpected cache layout")
        except FileNotFoundError:
            return
        except Exception:  # corrupt, truncated, wrong shape, unreadable: start afresh, rewrite on save
            self.entries = {}
            self.updated = {}
            self.fresh = True
            self._rewrite = True
            return
        self.entries = entries
        self.fresh = False
        if "prefilter" in data:
            keys = data["prefilter"]
            if keys is None or (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
                self.prefilter_keys = None if keys is None else tuple(keys)

    _rewrite = False

    # -- per file --------------------------------------------------------------------------
    @staticmethod
    def _name(path: Path) -> str:
        return os.path.abspath(path)

    def unchanged(self, path: Path) -> bool:
        """Whether a result of ``path`` is cached for the file as it is now, by its stat (``lookup`` decides
        whether it is used: the reach's digest, the name shown, a modification too recent to trust)."""
        entry = self.entries.get(self._name(path))
        try:
            return entry is not None and Stat(entry[1:5]) == Stat.of(os.stat(path))
        except (OSError, TypeError, ValueError):
            return False

    def lookup(self, path: Path, filename: str, st: os.stat_result,
               reach: str = "") -> Tuple[Optional[CachedResult], bool]:
        """(the cached result or None, whether it is trusted without reading the file).

        ``(result, False)``: an entry exists but the file must be hashed and compared
        (``verify``); ``(None, False)``: no usable entry. ``reach``: the digest of what a trace of the
        file's package reaches in it (hylint/batch/reach.py); an entry made with another is not used.
        """
        entry = self.entries.get(self._name(path))
        if entry is None:
            return None, False
        try:
            shown, size, mtime_ns, ctime_ns, inode, hashed_ns, digest, data = entry
            if shown != filename or _reach_part(digest) != reach:
                return None, False
            result = CachedResult.from_json(data, filename)
            same = Stat((size, mtime_ns, ctime_ns, inode)) == Stat.of(st)
            return result, bool(same and int(mtime_ns) + RACY_NS <= int(hashed_ns))
        except Exception:
            return None, False

    def verify(self, path: Path, raw: bytes, st: os.stat_result, reach: str = "") -> bool:
        """True when the entry's content hash is that of ``raw`` (and then refresh its file stat)."""
        name = self._name(path)
        entry = self.entries.get(name)
        try:
            if entry is None or entry[6] != _keyed(content_digest(raw), reach):
                return False
            refreshed = [entry[0], *Stat.of(st), time.time_ns(), entry[6], entry[7]]
        except Exception:
            return False
        self.entries[name] = self.updated[name] = refreshed
        return True

    def store(self, path: Path, filename: str, raw: bytes, st: os.stat_result, result: CachedResult,
              reach: str = "") -> None:
        name = self._name(path)
        entry = [filename, *Stat.of(st), time.time_ns(), _keyed(content_digest(raw), reach), result.to_json()]
        self.entries[name] = self.updated[name] = entry

    # -- saving ----------------------------------------------------------------------------
    def save(self) -> None:
        """Merge this run's entries into the cache file on disk, atomically; silently skip on failure."""
        if not self.updated and not self._rewrite:
            return
        try:
            self._ensure_folder()
            entries = self._current_entries()
            entries.update(self.updated)
            document: Dict[str, Any] = {"format": FORMAT, "hylint": __version__, "entries": entries}
            if self.prefilter_keys is not UNKNOWN_KEYS:
                document["prefilter"] = None if self.prefilter_keys is None else list(self.prefilter_keys)
            payload = json.dumps(document,
                                 separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            replace_atomically(self.path, payload)
            self._remove_stale_temporaries()
        except Exception:
            return

    def _current_entries(self) -> Dict[str, list]:
        """The entries on disk now (another run may have saved since we loaded)."""
        try:
            with open(self.path, "rb") as handle:
                if self._loaded_stat is not None and Stat.of(os.fstat(handle.fileno())) == self._loaded_stat:
                    entries = dict(self.entries)
                else:
                    data = json.loads(handle.read())
                    entries = data["entries"] if data.get("format") == FORMAT else {}
                    if not isinstance(entries, dict):
                        entries = {}
        except Exception:
            entries = {} if self._rewrite or self._loaded_stat is None else dict(self.entries)
        # entries of files that no longer exist are dropped
        return {name: entry for name, entry in entries.items() if name in self.updated or os.path.exists(name)}

    def _ensure_folder(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# created by hylint: the result cache is not for version control\n*\n"),
                           (_TAG, "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# This file is a cache directory tag created by hylint.\n")):
            marker = self.folder / name
            if not marker.exists():
                try:
                    with open(marker, "x", encoding="utf-8") as handle:
                        handle.write(text)
                except FileExistsError:
                    pass

    def _remove_stale_temporaries(self) -> None:
        """Temporary files left by runs killed while saving; cache files of long-unused configurations."""
        now = time.time()
        try:
            for entry in os.scandir(self.path.parent):
                age = now - entry.stat().st_mtime
                if entry.name.endswith(".tmp") and age > STALE_TEMP_SECONDS or \
                        entry.name.endswith(".json") and age > STALE_CACHE_SECONDS:
                    os.unlink(entry.path)
        except OSError:
            pass
