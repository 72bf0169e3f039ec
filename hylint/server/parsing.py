"""libcst's tree of a buffer, built from the top-level statements of the buffers before it.

libcst's parse is half of a whole check of a 500-line model (44 of 85 ms CPU): it builds a Python object
for every token. An edit changes one statement; the others are the same text as on the last keystroke.
So the buffer is cut into *chunks* (a top-level statement with the comments and blank lines above it;
the last one with the lines below it too), each parsed alone and kept by its text, and the module is
put together from them: the same tree ``libcst.parse_module`` gives for the whole text (equal by
``deep_equals``, tests/server/test_parsing.py: the 131 files of the benchmark corpus with a
``hybrid_forward``; all 779 once: 743 put together, the other 36 left to parse_module: fewer than two
chunks, or an indentation or line ending a chunk would not keep).

A chunk boundary is made only where libcst's owner of the lines between two statements is plain: every
line there is empty or a comment at column 0 (libcst gives those to the next statement; a comment
indented under a class would be its block's footer). A chunk is used only where it was parsed with the
buffer's own default indentation and newline (libcst writes a block indented otherwise, or a line ended
otherwise, with its own spelling, which a chunk parsed alone would not have). Elsewhere, and on any
surprise, the whole text is parsed (None).

The same node never appears twice in one module (two chunks with the same text: the second is parsed
again), since the analysis and positions key facts by node.
"""
from __future__ import annotations

import ast
import re
from collections import OrderedDict
from typing import List, Optional, Tuple

import libcst as cst

from hylint.lint.engine import Reuse
from hylint.lint.parse import parse_module
from hylint.syntax.python_tree import python_tree

_SAFE_GAP = re.compile(r"(?:#[^\r\n]*)?(?:\r\n|\n)?")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


class _Chunk:
    __slots__ = ("statements", "header", "footer", "indent", "newline", "trailing", "encoding")

    def __init__(self, module: cst.Module, first: bool) -> None:
        body = list(module.body)
        if not first and body:  # the comments and blank lines above the chunk's statement are its own
            body[0] = body[0].with_changes(leading_lines=[*module.header, *body[0].leading_lines])
        self.statements: Tuple[cst.CSTNode, ...] = tuple(body)
        self.header = module.header if first else ()
        self.footer = module.footer
        self.indent = module.default_indent if _indented(module) else None
        self.newline = module.default_newline
        self.trailing = module.has_trailing_newline
        self.encoding = module.encoding


def _indented(module: cst.Module) -> bool:
    return any(isinstance(stmt, cst.BaseCompoundStatement) for stmt in module.body)


class StatementCache:
    """Parsed chunks by their text, the most recently used kept up to ``limit`` characters of text (a
    buffer's chunks, and those of its groups' own runs, hylint/server/incremental.py). libcst's nodes take
    about 43 bytes per character of code (tracemalloc, the benchmark's 500-line model): 300,000 characters,
    some 13 MB, hold a few large files and the versions of the statements last edited."""

    def __init__(self, limit: int = 300_000) -> None:
        self._chunks: "OrderedDict[Tuple[str, bool], _Chunk]" = OrderedDict()
        self._size = 0
        self.limit = limit
        # each kept top-level statement -> positions computed in it (hylint/lint/positions.py, kept)
        self.positions: dict = {}

    def reuse(self, text: Optional[str] = None, tree: Optional[ast.Module] = None) -> Reuse:
        """What ``Linter.lint_source`` reuses (``reuse``): this cache's ``module`` as its parse, with ``tree``
        for ``text`` and CPython's tree of any other text (a tenth of libcst's time); the positions of the
        statements of the kept chunks."""
        def parse(source: str) -> Optional[cst.Module]:
            found = tree if source == text and tree is not None else python_tree(source)
            return self.module(source, found) if found is not None else None
        return Reuse(parse, self.positions)

    def module(self, text: str, tree: ast.Module) -> Optional[cst.Module]:
        """libcst's tree of ``text`` (CPython's tree ``tree``), from the chunks of earlier buffers where they
        are the same text; None where it cannot be put together (the caller parses the text)."""
        texts = _chunks(text, tree)
        if texts is None or len(texts) < 2:
            return None
        chunks: List[_Chunk] = []
        used = set()
        for number, chunk_text in enumerate(texts):
            key = (chunk_text, number == 0)
            chunk = self._chunks.get(key)
            if chunk is not None and any(id(stmt) in used for stmt in chunk.statements):
                chunk = None  # the same text twice in the buffer: its own nodes
            if chunk is None:
                try:
                    chunk = _Chunk(parse_module(chunk_text), number == 0)
                except (cst.ParserSyntaxError, RecursionError):
                    return None
                if key not in self._chunks:
                    self._chunks[key] = chunk
                    self._size += len(chunk_text)
                    self.positions.update((stmt, {}) for stmt in chunk.statements)
            else:
                self._chunks.move_to_end(key)
            used.update(id(stmt) for stmt in chunk.statements)
            chunks.append(chunk)
        while self._size > self.limit and len(self._chunks) > len(texts):
            (old, _), dropped = self._chunks.popitem(last=False)
            self._size -= len(old)
            for stmt in dropped.statements:
                self.positions.pop(stmt, None)
        indents = {chunk.indent for chunk in chunks if chunk.indent is not None}
        newline = chunks[0].newline
        if len(indents) > 1 or any(chunk.newline != newline for chunk in chunks if _ends_lines(chunk)):
            return None
        body = [stmt for chunk in chunks for stmt in chunk.statements]
        if not body:
            return None
        return cst.Module(body=body, header=chunks[0].header, footer=chunks[-1].footer, encoding=chunks[0].encoding,
                          default_indent=indents.pop() if indents else "    ", default_newline=newline,
                          has_trailing_newline=chunks[-1].trailing)


def _ends_lines(chunk: _Chunk) -> bool:
    return bool(chunk.statements or chunk.footer)


def _chunks(text: str, tree: ast.Module) -> Optional[List[str]]:
    """The buffer cut before each top-level statement where the lines above it are plain (module docstring)."""
    lines = _LINE.findall(text)
    if lines and lines[-1] == "":
        lines.pop()
    starts = [0]  # line indices where a chunk starts
    previous_end = None
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]) - 1
        if previous_end is not None and first > starts[-1]:
            gap = lines[previous_end:first]
            if previous_end <= first and all(_SAFE_GAP.fullmatch(line) for line in gap):
                starts.append(previous_end)
        previous_end = node.end_lineno or node.lineno
    starts.append(len(lines))
    return ["".join(lines[start:end]) for start, end in zip(starts, starts[1:]) if end > start] or None
