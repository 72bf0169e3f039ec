"""The base class every rule derives from, and its examples."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, List, Optional, Sequence, Tuple, Union

import libcst as cst

from hylint.diagnostic import Applicability

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")


@dataclass(frozen=True)
class Valid:
    """Code the rule must not flag."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Code the rule must flag (at least once), and what its fix produces, if it has one."""

    code: str
    expected_fixed: Optional[str] = None
    unsafe: bool = False  # expected_fixed needs --unsafe-fixes


Replacement = Union[cst.CSTNode, str]


@dataclass
class PendingEdit:
    """A replacement of a node's source span, resolved to text positions by the engine."""

    node: cst.CSTNode
    replacement: Replacement
    # insert before (or after) the node instead of replacing it
    mode: str = "replace"  # "replace" | "insert_before" | "insert_after" | "delete_lines"


@dataclass
class PendingFix:
    applicability: Applicability
    message: str
    edits: List[PendingEdit]


def replace(node: cst.CSTNode, replacement: Replacement) -> PendingEdit:
    return PendingEdit(node, replacement)


class LintRule:
    """One pattern, one file.

    Subclasses define ``visit_<NodeType>(self, node, ctx)`` methods; the engine calls all selected
    rules in a single traversal. ``ctx`` is a :class:`hylint.lint.engine.RuleContext`.
    """

    CODE: ClassVar[str] = ""
    NAME: ClassVar[str] = ""
    MESSAGE: ClassVar[str] = ""
    FIX_TITLE: ClassVar[Optional[str]] = None
    DEFAULT_ENABLED: ClassVar[bool] = True
    # Only called for nodes inside hybrid contexts (and outside eager-only mode guards).
    HYBRID_ONLY: ClassVar[bool] = True
    # A structure rule (HYBRID_ONLY = False) that reports only inside these methods of a class the
    # analysis collected (``ctx.cls.methods[name]``, with ``ctx.cls`` that class) names them: the engine
    # then visits just those methods for it, not the whole module. None: the whole module.
    METHODS: ClassVar[Optional[Tuple[str, ...]]] = None
    DOC: ClassVar[str] = ""
    VALID: ClassVar[Sequence[Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    @classmethod
    def fixable(cls) -> bool:
        return any(example.expected_fixed is not None for example in cls.INVALID)

    @classmethod
    def summary(cls) -> str:
        return cls.MESSAGE.split("\n", 1)[0]
