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
  need one of those names or ``hybrid_forward``: ``CLASS_KEYS`` are substrings covering all of them
  (``Block`` covers HybridBlock and SymbolBlock, ``Sequential`` covers HybridSequential, ...).
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
in the same change. tests/test_prefilter.py checks, on every rule's examples, the fixtures, renamed
variants of them, cross-file cases (and, marked slow, the benchmark corpus) that no file the
prefilter skips has a diagnostic when linted in full.

On the benchmark corpus (779 files), ``hybrid_forward`` keeps 131 files; the class keys would keep 27
more (0.9 MB).
"""
from __future__ import annotations

from typing import Iterable, Optional, Tuple

CONTEXT_KEYS: Tuple[str, ...] = ("hybrid_forward",)
CLASS_KEYS: Tuple[str, ...] = ("Block", "Sequential", "Lambda", "Concurrent", "RecurrentCell")

Keys = Optional[Tuple[str, ...]]  # None: no prefilter, every file is parsed


def rule_keys(rule: type) -> Keys:
    """The words one of which a file must contain for ``rule`` to report in it (None: any file)."""
    if "PREFILTER" in dir(rule):
        declared = getattr(rule, "PREFILTER")
        return None if declared is None else tuple(declared)
    has_handlers = any(name.startswith(("visit_", "leave_")) for name in dir(rule))
    if not has_handlers:
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
    for key in keys:
        if key in source:
            return True
    return False
