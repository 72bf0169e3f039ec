"""The names reached lambdas go by in the summary: ``<function>.<lambda#k>``, the k-th lambda (in source
order) of the body of the function defining it, not inside another function or lambda: what the linter,
which has no CPython positions, can find again (hylint/analysis/traced.py).

Reads the reached functions and the package index's function nodes; answers ``PackageReach.lambdas``.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List

from hylint.analysis.reach.atoms import FunctionKey
from hylint.analysis.reach.package import _Package
from hylint.analysis.reach.results import Reached


def _own_lambdas(node: ast.AST) -> List[ast.Lambda]:
    """The lambdas of a function's body, in source order, but those inside another function, class or
    lambda."""
    found: List[ast.Lambda] = []
    todo = list(node.body)
    while todo:
        item = todo.pop()
        if isinstance(item, ast.Lambda):
            found.append(item)
        elif not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(item))
    return sorted(found, key=lambda lam: (lam.lineno, lam.col_offset))


def _lambda_names(package: "_Package", reached: Iterable[Reached]) -> Dict[FunctionKey, str]:
    """Each reached lambda defined directly in a function's body -> ``<function>.<lambda#k>``."""
    names: Dict[FunctionKey, str] = {}
    for entry in reached:
        if not isinstance(entry.node, ast.Lambda):
            continue
        definer = entry.key.qualname.rpartition(".<lambda@")[0]
        node = package.functions.get(FunctionKey(entry.key.module, definer))
        if node is None or isinstance(node, ast.Lambda):
            continue
        own = _own_lambdas(node)
        if entry.node in own:
            names[entry.key] = f"{definer}.<lambda#{own.index(entry.node)}>"
    return names
