"""Helpers shared by the machine-readable formats: repository-relative paths, stable fingerprints,
terminal hyperlinks, source snippets."""
from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hylint.diagnostic import Diagnostic

_NEWLINE = re.compile(r"\r\n|\r|\n")
_SPACE = re.compile(r"\s+")


def repository_root(start: Optional[Path] = None) -> Path:
    """The enclosing git work tree of ``start`` (default: the current folder), else the folder itself."""
    here = (start or Path.cwd()).resolve()
    for folder in [here] + list(here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def relative_path(filename: str, root: Path) -> Optional[str]:
    """``filename`` relative to ``root`` with '/' separators, or None when it lies outside ``root``."""
    if filename == "-" or filename.startswith("<"):
        return filename
    try:
        return Path(os.path.abspath(filename)).relative_to(root).as_posix()
    except ValueError:
        try:
            return Path(filename).resolve().relative_to(root).as_posix()
        except (ValueError, OSError):
            return None


def where(d: Diagnostic) -> str:
    """The file as text formats show it: ``model.ipynb:cell 3`` for a notebook's diagnostic (its rows
    are the cell's), else the file name."""
    return d.filename if d.cell is None else f"{d.filename}:cell {d.cell}"


def source_of(d: Diagnostic, sources: Dict[str, str],
              cell_sources: Optional[Dict[Tuple[str, int], str]] = None) -> Optional[str]:
    """The text ``d``'s rows refer to: its notebook cell's, else its file's."""
    if d.cell is not None:
        return (cell_sources or {}).get((d.filename, d.cell))
    return sources.get(d.filename)


def snippet(d: Diagnostic, sources: Dict[str, str], cache: Dict[str, List[str]],
            cell_sources: Optional[Dict[Tuple[str, int], str]] = None) -> str:
    """The flagged source text with whitespace collapsed (the line's text for an empty span)."""
    source = source_of(d, sources, cell_sources)
    if source is None:
        return d.message
    lines = cache.get(where(d))
    if lines is None:
        lines = cache[where(d)] = _NEWLINE.split(source)
    (r1, c1), (r2, c2) = d.start, d.end
    if not 1 <= r1 <= len(lines) or not 1 <= r2 <= len(lines):
        return d.message
    if r1 == r2:
        text = lines[r1 - 1][c1 - 1:c2 - 1]
    else:
        text = "\n".join([lines[r1 - 1][c1 - 1:]] + lines[r1:r2 - 1] + [lines[r2 - 1][:c2 - 1]])
    if not text.strip():
        text = lines[r1 - 1]
    return _SPACE.sub(" ", text).strip()


def fingerprints(diagnostics: List[Diagnostic], sources: Dict[str, str], paths: Dict[str, str],
                 cell_sources: Optional[Dict[Tuple[str, int], str]] = None) -> List[str]:
    """One stable fingerprint per diagnostic: rule, file, the flagged text, and which occurrence of
    that same (rule, file, text) it is. Line numbers are left out, so edits elsewhere in the file
    (lines added above, other code changed) keep the fingerprint."""
    seen: Counter = Counter()
    cache: Dict[str, List[str]] = {}
    out = []
    for d in diagnostics:
        key: Tuple[str, str, str] = (d.code, paths.get(d.filename, d.filename), snippet(d, sources, cache,
                                                                                       cell_sources))
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\0".join(key + (str(occurrence),)).encode("utf-8", "surrogatepass"))
        out.append(digest.hexdigest())
    return out


SHORT = 160  # the longest message of a one-line text format (concise, grouped), its ellipsis included
_OPENERS, _CLOSERS = "([{", ")]}"
# a sentence ends with `.`, `!` or `?` and a space before a capital letter, but not after these
_NOT_SENTENCE_ENDS = ("..", "e.g.", "i.e.", "etc.", "vs.")
# how the trace reaches code outside a hybrid_forward, which the engine appends to the message
# (hylint/lint/dispatch.py): kept whole by short_message, it says where the hazard comes from
_CHAIN = re.compile(r" \(via .*\)\Z", re.DOTALL)


def short_message(message: str, limit: int = SHORT) -> str:
    """``message`` for a one-line format: its first sentence, and when that is longer than ``limit``, the
    clauses (ended by `;`) that fit whole if they keep at least half of it, else the words that fit; an
    ellipsis where anything was left out. Code in backticks and text in brackets are never cut inside
    (where another place to cut exists). A closing ``(via ...)`` chain is kept, within the limit
    as far as half of it leaves room. json, sarif and the full format keep the whole message."""
    chain = _CHAIN.search(message)
    if chain is not None and chain.start() > 0:
        body = _shortened(message[:chain.start()], max(limit - len(chain.group()), limit // 2))
        return body + chain.group()
    return _shortened(message, limit)


def _shortened(message: str, limit: int) -> str:
    sentence_end, clause_ends, spaces = None, [], []
    depth, code = 0, False
    for index, char in enumerate(message):
        if char == "`":
            code = not code
        elif code:
            continue
        elif char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(depth - 1, 0)
        elif depth == 0 and char == " " and index:
            if message[index - 1] in ".!?" and not message.endswith(_NOT_SENTENCE_ENDS, 0, index) \
                    and message[index + 1:index + 2].isupper():
                sentence_end = index - 1
                break
            (clause_ends if message[index - 1] == ";" else spaces).append(index)
    text = message if sentence_end is None else message[:sentence_end]
    if len(text) <= limit:
        return text if sentence_end is None else text + "…"
    room = limit - 1  # the ellipsis
    fitting = [end - 1 for end in clause_ends if end - 1 <= room]  # the `;` left out
    if fitting and fitting[-1] >= limit // 2:
        return text[:fitting[-1]] + "…"
    cuts = [space for space in spaces + clause_ends if space <= room] or \
        [index for index, char in enumerate(text[:room + 1]) if char == " "]
    cut = max(cuts) if cuts else room
    return text[:cut].rstrip(" ,;:") + "…"


def docs_reference(d: Diagnostic) -> str:
    """Where to read about ``d``'s rule: its docs URL, or ``hylint rule CODE`` where no page leads anywhere
    (a normal, not editable, install without HYLINT_DOCS_URL: ``d.url`` is None)."""
    return d.url or f"hylint rule {d.code}"


def hyperlink(text: str, url: Optional[str], enabled: bool) -> str:
    """``text`` as an OSC 8 terminal hyperlink to ``url`` when ``enabled`` (a terminal), else as is."""
    if not enabled or url is None:
        return text
    return f"\x1b]8;;{url}\x1b\\{text}\x1b]8;;\x1b\\"
