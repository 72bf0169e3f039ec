"""The text prefilter: which files can hold a hybrid context at all (no libcst, no parse).

A hybrid context is where hylint's hybrid rules look: a ``hybrid_forward`` method of a class of the
file, and every helper that such a method calls with ``F`` (``context.analyze_module``). The
analysis is per file and every context is reached from a method *named* ``hybrid_forward`` in that
file, so a file whose text does not contain ``hybrid_forward`` has no hybrid context, and none of
the rules that report from visiting nodes can report in it (they are all ``HYBRID_ONLY``; the engine
checks that). Such a file is not parsed.

What is deliberately *not* a key, because the analysis cannot use it today:

* HybridBlock-family names (``HybridBlock``, ``HybridSequential``, ...) without ``hybrid_forward``:
  a class that subclasses ``HybridBlock`` but defines no ``hybrid_forward`` in the file has no
  context in that file (27 files, 0.9 MB of the benchmark corpus: 20% more parsing for nothing).
* names defined by the project's own hybrid classes in *other* files (a subclass of a project
  HybridBlock that only overrides a helper called with ``F``): the analysis does not follow classes
  across files, so such a file yields no diagnostic with or without the prefilter.

If the analysis ever learns either of these, widen ``KEYS`` (or key on the project's class names)
in the same change: tests/test_prefilter.py checks, on the fixtures, the rules' examples and
cross-file cases, that no file the prefilter skips has a diagnostic when linted in full.

HY000 (syntax-error) is reported only for files the prefilter keeps: a file that cannot hold
hybrid code is not hylint's to parse. HY001 (unreadable-file) is decided before the prefilter.
"""
from __future__ import annotations

from typing import Tuple

# a file holding none of these words has no hybrid context
KEYS: Tuple[str, ...] = ("hybrid_forward",)


def might_hold_hybrid_code(source: str) -> bool:
    """False only when ``source`` cannot hold a hybrid context (see the module doc)."""
    for key in KEYS:
        if key in source:
            return True
    return False
