"""Positions of reported nodes: the expensive part of libcst metadata, computed only for the units (a
top-level statement, or one method of a top-level class) that hold a reported node, on a module holding
just that unit, and moved to the unit's row in the file."""
from __future__ import annotations

import ast
import re
from contextlib import nullcontext
from typing import Collection, Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from hylint.syntax.python_tree import python_tree

NEWLINE = re.compile(r"\r\n|\r|\n")


class Positions:
    """Lazily resolved (line, column) spans, one top-level statement, or one method of a top-level
    class, at a time.

    libcst computes positions by generating code, so a span is computed on a module holding just the
    unit (a class keeps its header around the one method) and moved to the unit's row in the file,
    which CPython's ``ast`` gives (the row of its keyword, as libcst's own position). Without that row
    (a source CPython does not parse, statements it groups differently) the unit is the top-level
    statement, moved down by the lines of the code generated for the statements before it.
    """

    def __init__(self, module: cst.Module, source: Optional[str] = None, tree: Optional[ast.Module] = None,
                 wanted: Optional[Collection[cst.CSTNode]] = None, kept: Optional[dict] = None) -> None:
        """``tree``: CPython's tree of ``source`` (``python_tree``), when the caller has it; ``wanted``: the
        nodes whose spans will be asked, the only ones the code generation records (a span of another node
        is still given: everything is then computed again recording every node); ``kept``: top-level
        statement -> the positions of the statements inside its functions computed for earlier modules
        holding the same nodes (the language server's, hylint/server/parsing.py, which drops a statement's
        entry with the statement), read and filled here for the statements it has an entry for: every
        node of a statement is recorded then, and its rows are counted from the statement's first line,
        so they hold in any module with the same default indentation and newline."""
        self.kept = kept
        self.module = module
        self.source = source
        self._tree = tree
        self._wanted = {id(node) for node in wanted} if wanted is not None else None
        self._line_offsets: Optional[List[int]] = None
        self._resolved: Dict[int, Dict[cst.CSTNode, object]] = {}
        self._first_rows: Optional[Dict[cst.CSTNode, int]] = None
        self._units: Dict[cst.CSTNode, Tuple[Dict[cst.CSTNode, object], int]] = {}

    def _rows(self) -> Dict[cst.CSTNode, int]:
        """First row of each top-level statement and of each statement of a top-level class's body,
        from CPython's ``ast``; {} when it cannot tell."""
        if self._first_rows is None:
            self._first_rows = _first_rows(self.module, self.source, self._tree) if self.source is not None else {}
            self._tree = None
        return self._first_rows

    def _unit(self, unit: cst.CSTNode, cls: Optional[cst.ClassDef]) -> Tuple[Dict[cst.CSTNode, object], int]:
        """Positions in a module holding only ``unit`` (inside ``cls``'s header), and the rows to add."""
        found = self._units.get(unit)
        if found is None:
            body = [unit] if cls is None else [cls.with_changes(body=cls.body.with_changes(body=[unit]))]
            computed = _positions(self.module.with_changes(body=body, header=[], footer=[]), self._wanted, unit)
            found = self._units[unit] = (computed, self._rows()[unit] - computed[unit].start.line)
        return found

    def _in_statement(self, node: cst.CSTNode, stmt: cst.CSTNode, function: Optional[cst.FunctionDef],
                      parents: Optional[Dict[cst.CSTNode, cst.CSTNode]]) -> Optional[Tuple[object, int]]:
        """The span of a node inside one statement of the body of ``function`` (a top-level function or a
        method of top-level class ``stmt``), computed on that statement alone with the indentation of the
        blocks around it: the code generated is a line or two, not the method."""
        if function is None or parents is None or not isinstance(function.body, cst.IndentedBlock):
            return None
        rows = self._rows()
        inner, parent = node, parents.get(node)
        while parent is not None and parent is not function.body:
            inner, parent = parent, parents.get(parent)
        if parent is None or inner not in rows:
            return None
        found = self._units.get(inner)
        if found is None:
            blocks = [function.body]
            if function is not stmt:
                if not isinstance(stmt, cst.ClassDef) or not isinstance(stmt.body, cst.IndentedBlock):
                    return None
                blocks.insert(0, stmt.body)
            indents = [block.indent if block.indent is not None else self.module.default_indent for block in blocks]
            computed = self._kept(inner, indents, stmt)
            if computed is None or inner not in computed:
                return None
            found = self._units[inner] = (computed, rows[inner] - computed[inner].start.line)
        code_range = found[0].get(node)
        return (code_range, found[1]) if code_range is not None else None

    def _kept(self, inner: cst.CSTNode, indents: List[str], stmt: cst.CSTNode) -> Optional[Dict[cst.CSTNode, object]]:
        """``_statement_positions`` of ``inner`` (inside top-level ``stmt``), from ``kept`` where an earlier
        module computed it."""
        kept = self.kept.get(stmt) if self.kept is not None else None
        if kept is None:
            return _statement_positions(self.module, inner, indents, self._wanted)
        key = (inner, tuple(indents), self.module.default_indent, self.module.default_newline)
        computed = kept.get(key)
        if computed is None:
            computed = _statement_positions(self.module, inner, indents)
            if computed is not None:
                kept[key] = computed
        return computed

    def _in_unit(self, node: cst.CSTNode, statement: int, function: Optional[cst.FunctionDef],
                 parents: Optional[Dict[cst.CSTNode, cst.CSTNode]] = None) -> Optional[Tuple[object, int]]:
        rows = self._rows()
        stmt = self.module.body[statement] if statement < len(self.module.body) else None
        if stmt is None or stmt not in rows:
            return None
        located = self._in_statement(node, stmt, function, parents) if function in rows else None
        if located is not None:
            return located
        if function is not None and function is not stmt and isinstance(stmt, cst.ClassDef) and function in rows:
            positions, shift = self._unit(function, stmt)  # a method of the top-level class
        else:
            positions, shift = self._unit(stmt, None)
        code_range = positions.get(node)
        return (code_range, shift) if code_range is not None else None

    def _offset(self, index: int) -> int:
        """Lines before top-level statement ``index`` (generating the code of the statements before it
        only, once)."""
        if self._line_offsets is None:
            self._line_offsets = [len(self.module.header)]
        offsets = self._line_offsets
        while len(offsets) <= index:
            stmt = self.module.body[len(offsets) - 1]
            offsets.append(offsets[-1] + _count_newlines(self.module.code_for_node(stmt)))
        return offsets[index]

    def _statement(self, index: int) -> Dict[cst.CSTNode, object]:
        if index not in self._resolved:
            stmt = self.module.body[index]
            mini = self.module.with_changes(body=[stmt], header=[], footer=[])
            self._resolved[index] = _positions(mini)
        return self._resolved[index]

    def span(self, node: cst.CSTNode, statement: int, function: Optional[cst.FunctionDef] = None,
             parents: Optional[Dict[cst.CSTNode, cst.CSTNode]] = None) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        """((row, col), (row, col)), rows 1-based, columns 0-based; ``function``: the outermost function
        the node was reported in, if any (its unit is computed alone when it is a method); ``parents``: the
        parent of each node in ``function`` (then the unit is the statement of its body holding the node)."""
        if self._wanted is not None and id(node) not in self._wanted:  # not announced: record every node
            self._wanted = None
            self._units.clear()
        located = self._in_unit(node, statement, function, parents)
        if located is not None:
            code_range, shift = located
            return ((code_range.start.line + shift, code_range.start.column),
                    (code_range.end.line + shift, code_range.end.column))
        positions = self._statement(statement)
        code_range = positions.get(node)
        if code_range is None:
            for index in range(len(self.module.body)):
                code_range = self._statement(index).get(node)
                if code_range is not None:
                    statement = index
                    break
        if code_range is None:
            raise KeyError("node is not part of this module")
        shift = self._offset(statement)
        return ((code_range.start.line + shift, code_range.start.column),
                (code_range.end.line + shift, code_range.end.column))


def _statement_positions(module: cst.Module, stmt: cst.CSTNode, indents: List[str],
                         wanted: Optional[set] = None) -> Optional[Dict[cst.CSTNode, object]]:
    """Positions of the nodes of ``stmt`` generated alone, indented by ``indents`` (the blocks around it) as
    in the file, rows counted from its first line (its leading lines included): the code generation
    PositionProvider runs for a module, of one statement; ``wanted``: the ids of the nodes to record
    (``stmt`` is recorded too), None: every node. None: a libcst without these internals."""
    try:
        provider = PositionProvider()
        state = _state(module, provider, wanted, stmt)
        state.indent_tokens = list(indents)
        stmt._codegen(state)
        return provider._computed
    except KeyError:  # pragma: no cover - a node hoisting a position from one generated outside it (libcst's
        # nodes hoist from children they generate inside): record every node
        if wanted is None:
            raise
        return _statement_positions(module, stmt, indents)
    except (AttributeError, TypeError):  # pragma: no cover - other libcst internals
        return None


def _positions(mini: cst.Module, wanted: Optional[set] = None,
               unit: Optional[cst.CSTNode] = None) -> Dict[cst.CSTNode, object]:
    """Positions of the nodes of ``mini``: of the nodes whose ids are ``wanted`` and of ``unit``, or of all."""
    try:
        # what MetadataWrapper.resolve(PositionProvider) runs, without its batched visit of the whole
        # tree (PositionProvider needs none: it is one code generation)
        provider = PositionProvider()
        mini._codegen(_state(mini, provider, wanted, unit))
        return provider._computed
    except KeyError:  # pragma: no cover - as in _statement_positions
        if wanted is None:
            raise
        return _positions(mini)
    except (AttributeError, TypeError):  # pragma: no cover - a libcst without these internals
        return MetadataWrapper(mini, unsafe_skip_copy=True).resolve(PositionProvider)


def _state(module: cst.Module, provider: PositionProvider, wanted: Optional[set],
           also: Optional[cst.CSTNode]) -> PositionProvidingCodegenState:
    """The code generation state recording every node (``wanted`` None) or the wanted ones and ``also``."""
    if wanted is None:
        return PositionProvidingCodegenState(default_indent=module.default_indent,
                                             default_newline=module.default_newline, provider=provider)
    return _WantedPositions(module, provider, wanted | {id(also)} if also is not None else set(wanted))


_NOTHING = nullcontext()


class _WantedPositions(PositionProvidingCodegenState):
    """PositionProvider's code generation recording the positions of the wanted nodes only: the same tokens
    move the same line and column, but the other nodes (most of a statement) make no CodePosition,
    CodeRange or generator-based context manager. A wanted node whose position is hoisted from a child
    (``start_node``/``end_node``) makes that child wanted before the child is generated."""

    def __init__(self, module: cst.Module, provider: PositionProvider, wanted: set) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline,
                         provider=provider)
        self.wanted = wanted  # ids of nodes

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            self._update_position(value)
        else:  # what _update_position does for a token without a newline, without its regex split
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append(CodePosition(self.line, self.column) if id(node) in self.wanted else None)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        if start is not None and node not in self.provider._computed:  # not recorded syntactically
            self.provider._computed[node] = CodeRange(start, CodePosition(self.line, self.column))

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None):
        if id(node) not in self.wanted:
            return _NOTHING
        for child in (start_node, end_node):
            if child is not None:
                self.wanted.add(id(child))
        return super().record_syntactic_position(node, start_node=start_node, end_node=end_node)


def _first_rows(module: cst.Module, source: str, tree: Optional[ast.Module] = None) -> Dict[cst.CSTNode, int]:
    """libcst statement -> the row its syntactic position starts on (its keyword, after any decorators), for the
    top-level statements and the statements of top-level classes' indented bodies, read from CPython's
    ``ast`` of the same source. A libcst line of simple statements (``a = 1; b = 2``) is one statement
    there, several in ``ast``: a statement starting on a row the one before it ends on belongs to it.
    {} when CPython does not parse the source or the two do not pair up one for one."""
    if tree is None:
        tree = python_tree(source)
    if tree is None:
        return {}
    rows: Dict[cst.CSTNode, int] = {}
    return rows if _pair(module.body, tree.body, False, rows) else {}


def _pair(statements: Sequence[cst.CSTNode], nodes: Sequence[ast.stmt], nested: bool,
          rows: Dict[cst.CSTNode, int]) -> bool:
    """``_first_rows`` of ``statements`` (a function, not a closure calling itself: that would be a cycle
    holding the tree until the garbage collector runs)."""
    groups = _groups(nodes)
    if len(groups) != len(statements):
        return False
    for stmt, node in zip(statements, groups):
        rows[stmt] = node.lineno  # where libcst's position of the statement starts too: its keyword
        if not nested and isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            if not isinstance(node, ast.ClassDef) or not _pair(stmt.body.body, node.body, True, rows):
                return False
        elif isinstance(stmt, cst.FunctionDef) and isinstance(stmt.body, cst.IndentedBlock) and \
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # the statements of a function's body: the rows of its statements (Positions._in_statement)
            body = _groups(node.body)
            if len(body) == len(stmt.body.body):
                rows.update((inner, first.lineno) for inner, first in zip(stmt.body.body, body))
    return True


def _groups(nodes: Sequence[ast.stmt]) -> List[ast.stmt]:
    """The first ``ast`` statement of each libcst statement (see ``_first_rows``)."""
    groups: List[ast.stmt] = []
    last_end = 0
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        if first > last_end:  # rows start at 1: the first statement always starts a group
            groups.append(node)
        last_end = max(last_end, node.end_lineno or node.lineno)
    return groups


def _count_newlines(text: str) -> int:
    return len(NEWLINE.findall(text))


class SourceText:
    """Line starts of a decoded source, to turn (row, col) into offsets."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.line_starts = [0] + [m.end() for m in NEWLINE.finditer(source)]
        self.lines = NEWLINE.split(source)

    def offset(self, row: int, col: int) -> int:
        return self.line_starts[row - 1] + col
