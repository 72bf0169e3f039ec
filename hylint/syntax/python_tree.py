"""CPython's syntax tree (``ast``) of a source, as the passes that read it parse it: the regions, the rows of
statements that positions are computed from, and the language server's groups. A caller that has the
tree of a source hands it on to the next pass of the same text, so that text is parsed once."""
from __future__ import annotations

import ast
import warnings
from typing import Optional

_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def python_tree(source: str) -> Optional[ast.Module]:
    """``ast.parse(source)`` with its warnings (invalid escape sequences and the like) silenced, or None when
    CPython does not parse it. Trees are shared between passes: read them, never change them."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except _PARSE_ERRORS:
        return None
