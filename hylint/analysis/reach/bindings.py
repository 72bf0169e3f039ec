"""Per module, the names it binds (defines or imports) to the package's guard helpers (with the mode each
tests) and to its resizing blocks (analysis/resizers.py): what a file's linter must know of names defined
elsewhere in the package.

Reads the package index after the analysis (a helper a trace calls was loaded by the call); answers
``PackageReach.guards`` and ``PackageReach.resizers``.
"""
from __future__ import annotations

import ast
from typing import Dict, Optional, Set, Tuple

from hylint.analysis.reach.atoms import ClassKey, FunctionKey
from hylint.analysis.reach.package import _Package
from hylint.analysis.resizers import Resizer, resize_position


def _guards(package: _Package, modules: Optional[Set[str]]) -> Dict[str, Tuple[Tuple[str, str], ...]]:
    """module -> the names it binds to the package's guard helpers (``_Package.guard_helper``), with their
    mode: functions of the loaded modules (a helper a trace calls was loaded by the call), by the name they
    are defined or imported under (an import that renames one is followed)."""
    helpers = {key.qualname for key in list(package.functions)
               if "." not in key.qualname and package.guard_helper(key) is not None}
    found: Dict[str, Tuple[Tuple[str, str], ...]] = {}
    for name, module in list(package.modules.items()):
        if modules is not None and name not in modules:
            continue
        entries = []
        for local in sorted(set(module.defs) | set(module.imports)):
            if local in module.defs:
                mode = package.guard_helper(FunctionKey(name, local)) if local in helpers else None
            elif module.imports[local][1] in helpers:
                keys = [atom[1] for atom in package.resolve(name, local) if atom[0] == "fn"]
                mode = package.guard_helper(keys[0]) if len(keys) == 1 else None
            else:
                mode = None
            if mode is not None:
                entries.append((local, mode))
        if entries:
            found[name] = tuple(entries)
    return found


def _resizers(package: _Package, modules: Optional[Set[str]]) -> Dict[str, Tuple[Resizer, ...]]:
    """module -> the names it binds (defines or imports) to block classes of the package whose call resizes
    their input to a size they are given (analysis/resizers.py)."""
    by_class: Dict[ClassKey, Optional[tuple]] = {}

    def of(key: ClassKey) -> Optional[tuple]:
        if key not in by_class:
            method = package.method(key, "hybrid_forward")
            by_class[key] = None if method is None or package.method(key, "forward") is not None or \
                not package.is_block(key) else resize_position(package.functions[method])
        return by_class[key]

    # a resizer has a hybrid_forward: its class is loaded (a subclass of a loaded block, or in a module that
    # mentions hybrid_forward), so only an import of one of these names can bind one (resolving the other
    # imports would load their modules; an import that renames a resizer is not followed)
    named = {key.qualname.rsplit(".", 1)[-1] for key in list(package.classes) if of(key) is not None}
    found: Dict[str, Tuple[Resizer, ...]] = {}
    for name, module in list(package.modules.items()):  # resolving a name may load more modules
        if modules is not None and name not in modules:
            continue
        entries = []
        for local in sorted(set(module.defs) | set(module.imports)):
            if local in module.defs and not isinstance(module.defs[local], ast.ClassDef):
                continue
            if local not in module.defs and module.imports[local][1] not in named:
                continue
            classes = [atom[1] for atom in package.resolve(name, local) if atom[0] == "class"]
            if len(classes) == 1 and of(classes[0]) is not None:
                entries.append(Resizer(local, *of(classes[0])))
        if entries:
            found[name] = tuple(entries)
    return found
