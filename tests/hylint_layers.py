"""hylint's layers, the picture of docs/architecture.md, and the check of an import graph against them: for
tests/test_layers.py (the real package) and tests/repairs/test_new_repair.py (the package plus a new repair).
"""
from __future__ import annotations

from typing import Dict, List, Set

# highest first; an import may go down, or sideways inside a layer, never up
LAYERS = [
    {"__main__", "cli"},
    {"check", "server", "verify"},
    {"batch"},
    {"lint", "selection", "config", "codes", "report"},
    {"rules"},
    {"repairs"},
    {"analysis"},
    {"syntax", "facts", "rule", "diagnostic", "patterns", "__init__"},
]
RUNTIME_MAY_IMPORT = {"facts", "runtime"}  # the reference runtime never imports the linter
# what a repair may import: it reads the code and builds a fix, never calls a rule nor the machinery
REPAIRS_MAY_IMPORT = {"repairs", "analysis", "syntax", "facts", "rule", "diagnostic"}


def top(module: str) -> str:
    """The first part under hylint: its layer's name (``hylint`` itself: "__init__")."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer(module: str) -> int:
    name = top(module)
    for index, names in enumerate(LAYERS):
        if name in names:
            return index
    raise AssertionError(f"{module}: no layer for `{name}` (add it to LAYERS)")


def is_runtime(module: str) -> bool:
    return top(module) == "runtime"


def upward(graph: Dict[str, Set[str]]) -> List[str]:
    """Each import of ``graph`` (outside the runtime) that goes up a layer, as "module -> target"."""
    return sorted(f"{module} -> {target}" for module, targets in graph.items() if not is_runtime(module)
                  for target in targets if not is_runtime(target) and layer(target) < layer(module))


def repair_imports_outside(graph: Dict[str, Set[str]]) -> List[str]:
    """Each import of a repair that is not one of REPAIRS_MAY_IMPORT, as "module -> target"."""
    return sorted(f"{module} -> {target}" for module, targets in graph.items() if top(module) == "repairs"
                  for target in targets if top(target) not in REPAIRS_MAY_IMPORT)
