"""What a module-level statement binds and reads, for the server's groups (hylint/server/incremental.py):
which of the statements outside the definitions a group's run needs, and what of them its diagnostics
depend on.

The linter reads the module around a definition through names: the imports and assignments that bind a
name the definition uses (``F``, ``nn``, ``SCALE``), and the statements that use a name the definition
defines (``net = Net(); net(nd.ones((2, 3)))``, whose ranks HY101 reads). So a statement is *relevant* to a
group when it binds a word of the group (or of another relevant statement), or reads a name the group
or a relevant statement binds; a few are relevant to every group whatever they name (``GLOBAL``: a
module-level call such as ``npx.set_np()``, a star import, a ``__future__`` import). An edit of a
statement no group uses changes no group's run; an edit of an import changes the runs of the groups
that use a name whose import changed, and no other: each import is read name by name (``from mxnet
import gluon, nd``: ``gluon`` and ``nd`` are two bindings).

Comments outside ``noqa`` directives are no part of what a statement is here (``facts().text``): a
comment added to an import changes no run.
"""
from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

_WORD = re.compile(r"\w+")
_KEYWORDS = frozenset(keyword.kwlist)

GLOBAL, INERT, IMPORTS, OTHER = "global", "inert", "imports", "other"


@dataclass(frozen=True)
class Facts:
    """One module-level statement (or statements sharing lines) as the groups read it."""

    kind: str  # GLOBAL: relevant to every group; INERT: to none (a docstring); IMPORTS; OTHER
    binds: FrozenSet[str]  # the names it binds or changes (``nn.Dense = X`` changes ``nn``)
    reads: FrozenSet[str]  # every word of its code (IMPORTS: none)
    aliases: Tuple[Tuple[str, Tuple], ...]  # IMPORTS: (name bound, what: the import of that one name)
    text: str  # its code without comments other than noqa directives


def facts(nodes: Sequence[ast.stmt], text: str) -> Facts:
    """The facts of the statements ``nodes`` of CPython's tree, whose code is ``text``."""
    normal = without_comments(text)
    if all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
           for node in nodes):
        return Facts(INERT, frozenset(), frozenset(), (), normal)
    if any(isinstance(node, ast.Expr) or isinstance(node, ast.ImportFrom) and (
            node.module == "__future__" or any(alias.name == "*" for alias in node.names)) for node in nodes):
        return Facts(GLOBAL, frozenset(), frozenset(_WORD.findall(normal)) - _KEYWORDS, (), normal)
    if all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in nodes):
        aliases = []
        for node in nodes:
            for alias in node.names:
                if isinstance(node, ast.Import):
                    aliases.append((alias.asname or alias.name.split(".")[0], ("import", alias.name, alias.asname)))
                else:
                    aliases.append((alias.asname or alias.name,
                                    ("from", node.level, node.module, alias.name, alias.asname)))
        return Facts(IMPORTS, frozenset(name for name, _ in aliases), frozenset(), tuple(aliases), normal)
    binds: Set[str] = set()
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
                binds.add(inner.id)
            elif isinstance(inner, (ast.Attribute, ast.Subscript)) and not isinstance(inner.ctx, ast.Load):
                base = inner.value
                while isinstance(base, (ast.Attribute, ast.Subscript)):
                    base = base.value
                if isinstance(base, ast.Name):
                    binds.add(base.id)
            elif isinstance(inner, ast.alias):
                binds.add(inner.asname or inner.name.split(".")[0])
            elif isinstance(inner, (ast.Global, ast.Nonlocal)):
                binds.update(inner.names)
            elif isinstance(inner, ast.ExceptHandler) and inner.name:
                binds.add(inner.name)
            elif isinstance(inner, (ast.MatchAs, ast.MatchStar)) and inner.name:
                binds.add(inner.name)
    return Facts(OTHER, frozenset(binds), frozenset(_WORD.findall(normal)) - _KEYWORDS, (), normal)


def relevant(context: Sequence[Facts], words: FrozenSet[str], names: FrozenSet[str]) -> Tuple[List[int], Set[str]]:
    """The statements of ``context`` (indices) a group whose code holds ``words`` and which defines ``names``
    reads, and the names of interest (used or bound by the group and those statements)."""
    used, bound = set(words) - _KEYWORDS, set(names)
    chosen: List[int] = []
    left = [index for index, one in enumerate(context) if one.kind != INERT]
    changed = True
    while changed:
        changed = False
        for index in list(left):
            one = context[index]
            binds = one.binds & (used | bound)
            if one.kind == GLOBAL or binds or one.reads & bound:
                chosen.append(index)
                left.remove(index)
                used |= one.reads
                bound |= binds if one.kind == IMPORTS else one.binds
                changed = True
    chosen.sort()
    return chosen, used | bound


def seen_by(one: Facts, interest: Set[str]) -> Tuple:
    """What of a relevant statement a group's run depends on: an import's bindings of the names of interest;
    another statement's code."""
    if one.kind == IMPORTS:
        return tuple(what for name, what in one.aliases if name in interest)
    return (one.text,)


def signatures(context: Sequence[Facts], definitions: Sequence[str]) -> Dict[str, Tuple]:
    """Name -> what binds it outside the definitions (in the buffer's order), and whether a definition does."""
    bound: Dict[str, List] = {}
    for one in context:
        if one.kind == IMPORTS:
            for name, what in one.aliases:
                bound.setdefault(name, []).append(what)
        else:
            for name in one.binds:
                bound.setdefault(name, []).append(one.text)
    for name in definitions:
        bound.setdefault(name, []).append("def")
    return {name: tuple(what) for name, what in bound.items()}


def without_comments(text: str) -> str:
    """``text`` without its comments, except those holding ``noqa`` (which decide what is reported)."""
    if "#" not in text:
        return text
    lines = text.splitlines(keepends=True)
    cuts: Dict[int, int] = {}  # row (0-based) -> column where a comment starts
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and "noqa" not in token.string.lower():
                cuts[token.start[0] - 1] = token.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text
    for row, column in cuts.items():
        line = lines[row]
        ending = line[len(line.rstrip("\r\n")):]
        lines[row] = line[:column].rstrip(" \t") + ending
    return "".join(lines)
