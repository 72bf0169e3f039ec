"""Statements of a library's source, as the zoo scorer and spans.py name them: each line's innermost
statement (``Statements``) and the key of a statement's span in spans.json (``statement_key``). Shared by
score.py (which joins diagnostics, labels and spans) and spans.py (which measures the spans)."""
from __future__ import annotations

import ast
from pathlib import Path


def statement_key(path: str, span) -> str:
    return f"{path}:{span[0]}-{span[1]}"


class Statements:
    """Per file: each line's innermost statement (a simple statement, or the header of a compound one)."""

    def __init__(self, root: Path):
        self.root = root
        self.cache = {}

    def _file(self, path: str):
        if path not in self.cache:
            spans, functions = {}, {}
            try:
                tree = ast.parse((self.root / path).read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                tree = None
            for node in ast.walk(tree) if tree else ():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    functions[node.lineno] = (first, node.end_lineno)
                if not isinstance(node, ast.stmt):
                    continue
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    span = (node.lineno, max(node.lineno, body[0].lineno - 1))  # the header only
                else:
                    span = (node.lineno, node.end_lineno)
                for line in range(span[0], span[1] + 1):
                    old = spans.get(line)
                    if old is None or old[1] - old[0] > span[1] - span[0]:
                        spans[line] = span
            self.cache[path] = (spans, functions)
        return self.cache[path]

    def span(self, path: str, line: int):
        return self._file(path)[0].get(line, (line, line))

    def function(self, path: str, def_line: int):
        return self._file(path)[1].get(def_line, (def_line, def_line))
