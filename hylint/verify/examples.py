"""Modules that name their blocks and example inputs in ``EXAMPLES``: each block run eagerly and hybridized.

A module names its blocks and their example inputs in a module-level ``EXAMPLES`` dict::

    EXAMPLES = {"Net": [(2, 3)], "Attention": [(2, 5, 8), {"shape": (2, 5), "dtype": "int32", "high": 5}]}

one entry per positional input: a shape tuple (float32, seeded standard normal), a dict with ``shape``
and optionally ``dtype``, ``low`` and ``high`` (seeded uniform integers in [low, high) for integer
dtypes, uniform floats otherwise), or a list of entries (a nested list input, e.g. RNN states).
Every block is constructed without arguments; every call gets freshly made inputs.

The blocks are run by :mod:`hylint.verify.harness`; the fixture tests use this to run ``before.py`` and
``after.py`` and compare them."""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from hylint.verify.backends import backend
from hylint.verify.harness import build_block, run_factory
from hylint.verify.outcomes import BlockResult, OK, Outcome, VerifyError
from hylint.verify.sandbox import load_module, quiet, user_import_scope


def examples(module: ModuleType) -> Dict[str, List[Any]]:
    value = getattr(module, "EXAMPLES", None)
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                              for k, v in value.items()):
        raise VerifyError(f"{getattr(module, '__file__', module.__name__)}: no module-level "
                          f"EXAMPLES = {{'Block': [input shapes]}}")
    return {k: list(v) for k, v in value.items()}


def build(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0) -> Tuple[Any, Outcome]:
    """:func:`build_block` for the class ``name`` of ``module``, constructed without arguments."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return build_block(mx, cls, specs, seed)


def run_block(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0,
              reference: Optional[Sequence[np.ndarray]] = None) -> BlockResult:
    """Eager run, then two hybridized runs compared with ``reference`` (default: this block's eager output)."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return run_factory(mx, cls, specs, seed, None, reference, name)


def verify_file(path: Path, backend_name: str = "mxnet", seed: int = 0,
                reference: Optional[Dict[str, Sequence[np.ndarray]]] = None) -> Dict[str, BlockResult]:
    """Every EXAMPLES block of ``path``; ``reference`` maps block names to expected outputs."""
    with backend(backend_name) as mx, user_import_scope(Path(path).parent), quiet():
        module = load_module(Path(path))
        results = {}
        for name, specs in examples(module).items():
            expected = reference.get(name) if reference is not None else None
            results[name] = run_block(mx, module, name, specs, seed, expected)
        return results


def compare_files(before: Path, after: Path, backend_name: str = "mxnet",
                  seed: int = 0) -> Tuple[Dict[str, BlockResult], Dict[str, BlockResult]]:
    """Run ``before`` (reference: its own eager outputs), then ``after`` against ``before``'s eager outputs."""
    original = verify_file(before, backend_name, seed)
    reference = {name: result.eager.outputs for name, result in original.items() if result.eager.status == OK}
    rewritten = verify_file(after, backend_name, seed, reference)
    return original, rewritten

