"""Parse only what can hold a diagnostic: the source handed to libcst, with the rest blanked out.

libcst's parse is most of a cold run, and most of a file that mentions ``hybrid_forward`` is not
hybrid code: imports, docstrings, model-zoo factory functions, data pipelines. CPython's ``ast``
parses the same file several times faster; it locates the top-level statements, and every statement
that can neither hold a diagnostic nor inform the analysis of one is replaced by as many *empty*
lines as it spans (each line keeps its own line ending), so rows and columns of what is kept are
those of the file: no position mapping.

What is kept (``reduce_source``), given how the analysis and the rules read a module
(hylint/context.py ``analyze_module``, the structure rules HY7xx, the engine's dispatcher):

* every top-level statement that defines a *block class* (a class whose base list names a block
  base, ``HybridBlock``, ``Block``, ``HybridSequential``, ... or, transitively, another such class
  of the file) or a class with a ``hybrid_forward`` method: the hybrid contexts start there and the
  structure rules judge only such classes. Classes count where the analysis collects them: at top
  level, in module-level ``if``/``try``/``with`` blocks, nested in class bodies;
* then, until nothing changes, every top-level statement that defines a class or a module-level
  function whose name is a *word* of a kept statement's text (helpers called with ``F``, the
  classes of children and bases, a class of the same name as any class written in kept code). A
  word is any identifier-like run of characters, in code, strings or comments alike: more is kept
  than the analysis can look up, never less;
* every statement that defines a name some kept statement defines too (the analysis keeps the
  first definition of a name: both must be there for it to choose the same one);
* every statement sharing a line with a kept one (``a = 1; b = 2``);
* every line outside the top-level statements (comments, blank lines).

* every top-level statement holding an import or an assignment (python-random-in-hybrid, HY808,
  resolves what a name such as ``np``, ``random`` or a module-level ``RNG = np.random.RandomState()``
  stands for);
* every module-level function that defines a block class in its body (analysed too);
* every top-level statement that names a block class of the file (a factory that builds it: HY907
  and HY908 tell a class built only as a child of other blocks by the places it is built);
* every method of a kept class that reads or writes an attribute of ``self`` (mutable-self-state,
  HY807, reads them all).

Nothing else at module level is read.

What is not reduced, so whole files are parsed (``None``):

* a file CPython cannot parse: the syntax error (HY000) is reported where a whole-file parse puts
  it; likewise a file with a lone carriage return as a line break;
* selections with a rule that declares its own prefilter (``PREFILTER``): its needs are unknown
  (``applies``);
* ``HYLINT_WHOLE_FILE=1`` in the environment: the switch to compare with (tests/test_regions.py);
* a file in which every statement is kept.

The engine (``Linter.lint_source``) lints the reduced module; when a diagnostic carries a fix it
lints the whole file again and reports that run (a fix may read the whole module: the names already
taken, the module's default indentation), and when libcst rejects the reduced source it parses the
whole file. tests/test_regions.py compares, on every file of the benchmark corpus with a hybrid
context, diagnostics and ``--diff`` output of both ways, byte for byte.
"""
from __future__ import annotations

import ast
import os
import re
import warnings
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from hylint.prefilter import CLASS_KEYS, CLASS_NAMES, CONTEXT_KEYS, rule_keys

WHOLE_FILE_ENV = "HYLINT_WHOLE_FILE"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_WORD = re.compile(r"\w+")
_KNOWN_KEYS = frozenset(CONTEXT_KEYS + CLASS_KEYS)
_HYBRID_FORWARD = "hybrid_forward"  # among a class's base words: the class has a hybrid_forward method


def applies(rule_types: Iterable[type]) -> bool:
    """True when every selected rule reports only where ``reduce_source`` keeps code."""
    if os.environ.get(WHOLE_FILE_ENV, "") not in ("", "0"):
        return False
    for rule in rule_types:
        keys = rule_keys(rule)
        if keys is None or not set(keys) <= _KNOWN_KEYS:
            return False
    return True


_ALWAYS_KEPT_METHODS = frozenset({"__init__", "forward", _HYBRID_FORWARD})
# a method that may write an attribute of self (`self.x = `, `self.x += `, setattr): mutable-self-state
# (HY807) reads every method of a hybrid class for those
_NAMES_SELF = re.compile(r"\bself\s*\.|\bsetattr\b|\bgetattr\b")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Unit:
    """A top-level statement, or a method of a top-level class that may be dropped on its own."""

    __slots__ = ("first", "last", "classes", "functions", "name", "parent", "members", "blanked", "pinned")

    def __init__(self, node: ast.stmt, parent: Optional[int] = None) -> None:
        decorators = getattr(node, "decorator_list", ())
        self.first = min([node.lineno] + [d.lineno for d in decorators])
        self.last = node.end_lineno or node.lineno
        self.parent = parent
        self.classes: Dict[str, List[Set[str]]] = {}  # class name -> base words of each definition
        self.functions: Set[str] = set()
        self.name = getattr(node, "name", "")  # a method's name
        self.members: List[int] = []  # units of the methods that may be dropped
        self.blanked: List[Tuple[int, int]] = []  # rows of the class's docstrings (dropped when kept)
        self.pinned = False  # a method kept whenever its class is
        if parent is None:
            _collect([node], self, module_level=True)

    def names(self) -> List[str]:
        return list(self.classes) + list(self.functions)


def _reachable(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of the blocks of its compound statements, not entering
    function or class bodies."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _reachable(inner)
        for block in [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]:
            yield from _reachable(block.body)


def _class_words(node: ast.ClassDef) -> Set[str]:
    """The words of a class's bases, and ``hybrid_forward`` when it defines that method."""
    words = {sub.id if isinstance(sub, ast.Name) else sub.attr
             for base in node.bases for sub in ast.walk(base) if isinstance(sub, (ast.Name, ast.Attribute))}
    if any(isinstance(method, _FUNCTIONS) and method.name == _HYBRID_FORWARD for method in _reachable(node.body)):
        words.add(_HYBRID_FORWARD)
    return words


def _collect(body: Sequence[ast.stmt], unit: _Unit, module_level: bool) -> None:
    """Classes (with their base words) and module-level functions, where ``analyze_module``
    collects them or more: module-level blocks and class bodies, never function bodies."""
    for node in _reachable(body):
        if isinstance(node, ast.ClassDef):
            unit.classes.setdefault(node.name, []).append(_class_words(node))
            _collect(node.body, unit, module_level=False)
        elif module_level and isinstance(node, _FUNCTIONS):
            unit.functions.add(node.name)


def _is_block_class(bases: Set[str], block_classes: Set[str]) -> bool:
    """A base word naming a block base (the prefilter's words, which every block base name of the
    analysis contains), another block class of the file, or a hybrid_forward method."""
    return any(word in block_classes or any(name in word for name in CLASS_NAMES) for word in bases)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _split_class(node: ast.ClassDef, index: int, units: List[_Unit], lines: List[str]) -> None:
    """Make the methods of top-level class ``units[index]`` that may be dropped units of their own
    (not ``__init__``, ``forward``, ``hybrid_forward``) and note its docstring-like strings, when its
    body is an indented block that keeps at least one other statement."""
    body = node.body
    spans = [(_Unit(child, index).first, child.end_lineno or child.lineno) for child in body]
    head = body[0]
    column = min([head.col_offset] + [d.col_offset for d in getattr(head, "decorator_list", ())])
    if lines[spans[0][0] - 1][:column].strip():
        return  # `class A: x = 1`: a one-line body
    droppable = []
    for position, child in enumerate(body):
        first, last = spans[position]
        alone = (position == 0 or spans[position - 1][1] < first) and \
            (position + 1 == len(body) or spans[position + 1][0] > last)
        is_method = isinstance(child, _FUNCTIONS) and child.name not in _ALWAYS_KEPT_METHODS
        droppable.append(alone and (is_method or _is_docstring(child)))
    if all(droppable):
        return
    parent = units[index]
    for position, child in enumerate(body):
        if not droppable[position]:
            continue
        if _is_docstring(child):
            parent.blanked.append(spans[position])
            continue
        member = _Unit(child, index)
        # mutable-self-state (HY807) reads every method of a hybrid class (writes, and reads before a
        # write); a method that never reads or writes an attribute of `self` cannot matter to it
        member.pinned = bool(_NAMES_SELF.search("".join(lines[member.first - 1:member.last])))
        parent.members.append(len(units))
        units.append(member)


def reduce_source(source: str) -> Optional[str]:
    """``source`` with the top-level statements that cannot matter replaced by empty lines, or None
    when the whole file is to be parsed (see the module docstring)."""
    if "\r" in source and source.count("\r") != source.count("\r\n"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    lines = _LINE.findall(source)
    if lines and lines[-1] == "":
        lines.pop()
    units = [_Unit(node) for node in tree.body]
    top = len(units)
    if not top:
        return None
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef):
            _split_class(node, index, units, lines)
    # top-level statements sharing a line are kept or dropped together
    groups: List[List[int]] = []
    group_of: List[int] = []
    for index in range(top):
        if not groups or units[index].first > units[index - 1].last:
            groups.append([])
        groups[-1].append(index)
        group_of.append(len(groups) - 1)

    # block classes (and classes with hybrid_forward), transitively through the file's own classes
    block_classes: Set[str] = {_HYBRID_FORWARD}
    changed = True
    while changed:
        changed = False
        for unit in units[:top]:
            for name, defs in unit.classes.items():
                if name not in block_classes and any(_is_block_class(bases, block_classes) for bases in defs):
                    block_classes.add(name)
                    changed = True
    definers: Dict[str, List[int]] = {}
    methods: Dict[str, List[int]] = {}
    for index, unit in enumerate(units):
        if unit.parent is None:
            for name in unit.names():
                definers.setdefault(name, []).append(index)
        else:
            methods.setdefault(unit.name, []).append(index)

    kept = [False] * len(units)
    queue: List[int] = []

    def keep(index: int) -> None:
        for other in (groups[group_of[index]] if units[index].parent is None else (index,)):
            if not kept[other]:
                kept[other] = True
                queue.append(other)

    block_names = block_classes - {_HYBRID_FORWARD}
    for index, node in enumerate(tree.body):
        if any(name in block_classes for name in units[index].classes):
            keep(index)
        elif any(isinstance(inner, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))
                 for inner in _reachable([node])):
            keep(index)  # python-random-in-hybrid (HY808) resolves what `np`, `random`, `RNG = ...` name
        elif isinstance(node, _FUNCTIONS) and any(
                isinstance(inner, ast.ClassDef) and _is_block_class(_class_words(inner), block_classes)
                for inner in ast.walk(node)):
            keep(index)  # a block class defined inside a function is analysed too
        elif block_names & set(_WORD.findall("".join(lines[units[index].first - 1:units[index].last]))):
            keep(index)  # it may build a block class: HY907/HY908 tell a child-only class by where it is built
    seen: Set[str] = set()
    while queue:
        index = queue.pop()
        unit = units[index]
        for name in unit.names():  # every definition of a kept name
            for other in definers[name]:
                keep(other)
        own = set()  # rows of this unit kept apart (its methods) or dropped (its docstrings)
        for member in unit.members:
            own.update(range(units[member].first, units[member].last + 1))
        for first, last in unit.blanked:
            own.update(range(first, last + 1))
        text = "".join(lines[row - 1] for row in range(unit.first, unit.last + 1) if row not in own)
        for word in set(_WORD.findall(text)) - seen:
            seen.add(word)
            for other in definers.get(word, ()):
                keep(other)
            for other in methods.get(word, ()):
                if kept[units[other].parent]:
                    keep(other)
        for member in unit.members:
            if units[member].pinned or units[member].name in seen:
                keep(member)
    dropped: List[Tuple[int, int]] = []
    for index, unit in enumerate(units):
        if not kept[index] and (unit.parent is None or kept[unit.parent]):
            dropped.append((unit.first, unit.last))
        elif kept[index]:
            dropped.extend(unit.blanked)
    if not dropped:
        return None
    for first, last in dropped:
        for row in range(first - 1, last):
            line = lines[row]
            lines[row] = line[len(line.rstrip("\r\n")):]
    return "".join(lines)
