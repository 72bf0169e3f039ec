"""The import graph of a package, read from its source (``ast``), and its circles: for the layer tests
(tests/test_layers.py, tests/runtime/test_runtime_imports.py).

Every import statement counts wherever it stands: at module level, inside a function (a lazy import is
still a dependency) and under ``if TYPE_CHECKING:`` (an annotation that names a module still ties the two
modules' designs together; a circle of them is a circle).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Set


def module_name(package: Path, path: Path) -> str:
    """The dotted name of ``path`` in the package whose folder is ``package`` (its own name first)."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, module: str, modules: Set[str]) -> Set[str]:
    """The modules of ``modules`` that ``path`` (the module ``module``) imports, by any import statement
    anywhere in it; a name imported from a package counts as its submodule when it is one, else as the
    package."""
    top = module.split(".")[0]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: Set[str] = set()

    def resolve(name: str) -> None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    resolve(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] == top:
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    resolve(full if full in modules else source)
    return found


def read_graph(package: Path) -> Dict[str, Set[str]]:
    """module -> the modules of the same package it imports, for every module under the folder ``package``."""
    paths = {module_name(package, path): path for path in package.rglob("*.py")}
    modules = set(paths)
    return {module: imports(path, module, modules) for module, path in sorted(paths.items())}


def circles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found
