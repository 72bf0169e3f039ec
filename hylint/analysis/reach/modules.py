"""The package's files as the reach indexes them: dotted module names, parsed modules, and the records of
one module (``_Module``: what it defines and imports at top level) and of one class (``_Class``: its
bases, methods and what its attributes hold).

Reads a package folder (``parse_package``) or one parsed module; answers what each top-level name of a
module is bound to (a definition, or an import with its absolute module).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple, Union

from hylint.analysis.reach.atoms import ClassKey, FunctionKey, Value


def module_name(root: Path, path: Path) -> str:
    """The dotted name of `path` in the package whose folder is `root` (root's own name first)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def parse_package(root: Path) -> Tuple[Dict[str, ast.Module], Dict[str, str]]:
    """Every module of the package folder `root`, parsed; files that do not parse are left out."""
    modules: Dict[str, ast.Module] = {}
    paths: Dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            continue
        name = module_name(root, path)
        modules[name] = tree
        paths[name] = str(path)
    return modules, paths


class _Module:
    def __init__(self, name: str, tree: ast.Module, is_package: bool) -> None:
        self.name = name
        self.tree = tree
        self.is_package = is_package
        self.defs: Dict[str, Union[ast.FunctionDef, ast.ClassDef]] = {}
        self.imports: Dict[str, Tuple[str, Optional[str]]] = {}  # local name -> (module, attribute or None)
        for stmt in _top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs.setdefault(stmt.name, stmt)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports.setdefault(alias.asname, (alias.name, None))
                    else:
                        top = alias.name.split(".")[0]
                        self.imports.setdefault(top, (top, None))
            elif isinstance(stmt, ast.ImportFrom):
                base = self._absolute(stmt)
                for alias in stmt.names:
                    if alias.name != "*":
                        self.imports.setdefault(alias.asname or alias.name, (base, alias.name))
        # the module's names for mxnet and its submodules (`import mxnet as _mx`: {"_mx": "mxnet"}), read by
        # the mode guards (`if F == _mx.sym:`)
        self.mxnet_aliases: Dict[str, str] = {
            local: module if attr is None else f"{module}.{attr}" for local, (module, attr) in self.imports.items()
            if module.split(".", 1)[0] == "mxnet"}

    def _absolute(self, stmt: ast.ImportFrom) -> str:
        if not stmt.level:
            return stmt.module or ""
        parts = self.name.split(".")
        if not self.is_package:
            parts = parts[:-1]
        parts = parts[:len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
        return ".".join(parts + ([stmt.module] if stmt.module else []))


def _top_level(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Statements at module level, looking into if/try blocks (``try: import x except ImportError: ...``)."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
        else:
            yield stmt


class _Class:
    def __init__(self, key: ClassKey, node: ast.ClassDef) -> None:
        self.key = key
        self.node = node
        self.bases: List[tuple] = []   # resolved atoms of the bases
        self.methods: Dict[str, FunctionKey] = {}
        self.attrs: Dict[str, Value] = {}  # what `self.<name>` holds, from assignments in reached methods
        self.ready = False  # whether attrs holds what the class stores before a trace (_Package.attrs_of)
