"""The text prefilter: files that cannot hold anything the selected rules report are not parsed.

No libcst here, no parse: a substring test on the decoded text, done before anything else.

What the rules need, and so what the prefilter keys on (``keys_for(rules)``, the union over the
selected rules; a file is parsed when its text contains any of the keys):

* ``HYBRID_ONLY`` rules (most rules) report only inside a hybrid context. Every context is reached
  from a method *named* ``hybrid_forward`` of a class in the same file (``context.analyze_module``:
  the hybrid_forward methods, then the helpers they call with ``F``), so such a rule needs the word
  ``hybrid_forward`` (``CONTEXT_KEYS``).
* Structure rules (``HYBRID_ONLY = False``, with ``visit_*`` handlers) judge classes: a HybridBlock
  that overrides ``forward``, a non-hybrid child, blocks kept in a list. The analysis recognises a
  block class only by the names of its bases in the same file (``context.HYBRID_BASE_NAMES`` and
  ``BLOCK_BASE_NAMES``: HybridBlock, HybridSequential, SymbolBlock, Block, Sequential, ...), so they
  need a ``class`` statement whose base list names one of them: ``CLASS_KEYS`` (``Block`` covers
  HybridBlock and SymbolBlock, ``Sequential`` covers HybridSequential, ...) are looked for between
  the parentheses of every ``class Name(...)`` header, not anywhere in the text (files that only
  use or import blocks are not parsed for these rules).
* A rule that needs something else declares ``PREFILTER = ("word", ...)`` on its class, or
  ``PREFILTER = None``: every file is parsed when it is selected.
* Rules with no handlers (HY000 syntax-error, HY001 unreadable-file) add no key. HY000 is reported
  for the files that are parsed: a file that cannot hold anything hylint checks is not hylint's to
  parse (Python, flake8 and ruff report its syntax errors). HY001 is decided before the prefilter.

Not keys, because the analysis is per file and cannot use them: the names of the project's own
block classes defined in *other* files. A class deriving from a project HybridBlock imported from
another module, whose file has neither ``hybrid_forward`` nor a block base name, is not recognised
as a block by the analysis, so no rule reports in it with or without the prefilter; parsing it would
only cost time. If the analysis ever follows classes across files, key on the project's class names
in the same change. tests/lint/test_prefilter.py checks, on every rule's examples, the fixtures, renamed
variants of them, cross-file cases (and, marked slow, the benchmark corpus) that no file the
prefilter skips has a diagnostic when linted in full.

On the benchmark corpus (779 files) with the default rules, ``hybrid_forward`` keeps 131 files and the
class keys in class headers 10 more (141 files, 2.4 M characters); the class names anywhere in the
text would have kept 224 files (6.1 M characters): parsing is the largest cost of a cold run.
"""
from __future__ import annotations

import re
from typing import Iterable, List, Optional, Tuple

from hylint.lint.hooks import hooks_of

BASE = "class-base:"  # a key with this prefix must appear in the base list of a `class` statement
CONTEXT_KEYS: Tuple[str, ...] = ("hybrid_forward",)
CLASS_NAMES: Tuple[str, ...] = ("Block", "Sequential", "Lambda", "Concurrent", "RecurrentCell")
CLASS_KEYS: Tuple[str, ...] = tuple(BASE + name for name in CLASS_NAMES)
_CLASS_HEADER = re.compile(r"(?m)^[ \t]*class[\s\\]+\w+[\s\\]*\(")

Keys = Optional[Tuple[str, ...]]  # None: no prefilter, every file is parsed


def rule_keys(rule: type) -> Keys:
    """The words one of which a file must contain for ``rule`` to report in it (None: any file)."""
    if "PREFILTER" in dir(rule):
        declared = getattr(rule, "PREFILTER")
        return None if declared is None else tuple(declared)
    if not hooks_of(rule).visits_nodes:
        return ()
    if getattr(rule, "HYBRID_ONLY", True):
        return CONTEXT_KEYS
    return CONTEXT_KEYS + CLASS_KEYS


def keys_for(rules: Iterable[type]) -> Keys:
    keys = []
    for rule in rules:
        wanted = rule_keys(rule)
        if wanted is None:
            return None
        keys.extend(k for k in wanted if k not in keys)
    return tuple(keys)


def might_hold_hybrid_code(source: str, keys: Keys = CONTEXT_KEYS) -> bool:
    """False only when ``source`` holds none of ``keys`` (so no selected rule can report in it)."""
    if keys is None:
        return True
    bases: List[str] = []
    for key in keys:
        if key.startswith(BASE):
            bases.append(key[len(BASE):])
        elif key in source:
            return True
    if not bases or not any(name in source for name in bases):
        return False
    return any(any(name in header for name in bases) for header in class_headers(source))


def class_headers(source: str) -> Iterable[str]:
    """The text between the parentheses of every ``class Name(...)`` statement (comments and strings
    included: a key there only makes the prefilter keep the file). An unterminated header yields the
    rest of the text."""
    for match in _CLASS_HEADER.finditer(source):
        start = index = match.end()
        depth, end = 1, len(source)
        while index < end:
            char = source[index]
            if char == "#":
                newline = source.find("\n", index)
                index = end if newline < 0 else newline
            elif char in "\"'":
                quote = source[index:index + 3] if source[index:index + 3] in ('"""', "'''") else char
                close = source.find(quote, index + len(quote))
                index = end if close < 0 else close + len(quote) - 1
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        yield source[start:index]
