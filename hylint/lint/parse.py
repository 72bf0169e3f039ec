"""Parsing a source with libcst, and the syntax error a source that does not parse is reported as."""
from __future__ import annotations

import warnings
from typing import Optional, Tuple

import libcst as cst

from hylint.diagnostic import Diagnostic

SYNTAX_ERROR, SYNTAX_ERROR_NAME = "HY000", "syntax-error"  # the rule code a parse failure is reported with


def too_deeply_nested(filename: str) -> Diagnostic:
    return Diagnostic(SYNTAX_ERROR, SYNTAX_ERROR_NAME, "SyntaxError: too deeply nested to parse",
                      filename, (1, 1), (1, 1))


def syntax_error_diagnostic(error: Exception, filename: str, source: Optional[str] = None) -> Diagnostic:
    python = _python_syntax_error(source) if source is not None else None
    if python is not None:  # CPython's own message and position are clearer than the parser's token list
        row, col, message = python
        return Diagnostic(SYNTAX_ERROR, SYNTAX_ERROR_NAME, message, filename, (row, col), (row, col))
    if isinstance(error, cst.ParserSyntaxError):
        row, col = error.raw_line, error.raw_column
        message = f"SyntaxError: {error.message}"
    else:  # pragma: no cover - libcst raises ParserSyntaxError for syntax errors
        row, col, message = 1, 0, f"SyntaxError: {error}"
    return Diagnostic(SYNTAX_ERROR, SYNTAX_ERROR_NAME, message, filename, (row, col + 1), (row, col + 1))


def _python_syntax_error(source: str) -> Optional[Tuple[int, int, str]]:
    """(row, column 1-based, message) of the error CPython reports for ``source``, if it reports one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            compile(source, "<hylint>", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except SyntaxError as error:
        name = type(error).__name__  # SyntaxError, IndentationError, TabError
        return max(error.lineno or 1, 1), max(error.offset or 1, 1), f"{name}: {error.msg}"
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _no_validation(node: cst.CSTNode) -> None:
    return None


def parse_module(source: str) -> cst.Module:
    """``libcst.parse_module`` without re-validating each node as the parser builds it: every node's
    ``__post_init__`` runs its ``_validate()``, which checks what the parser has just guaranteed
    (libcst notes the cost itself in ``CSTNode.__post_init__``); a fifth of the parse. Nodes built
    anywhere else (fixes) are still validated."""
    validate = cst.CSTNode.__post_init__
    cst.CSTNode.__post_init__ = _no_validation  # type: ignore[assignment]
    try:
        return cst.parse_module(source)
    finally:
        cst.CSTNode.__post_init__ = validate  # type: ignore[assignment]
