"""Jupyter notebooks (nbformat 4): read the code cells as one Python module, map positions back to
cells, write edited cells back into the notebook byte for byte.

No nbformat, no jsonschema: the standard library's ``json`` only.

The module hylint analyses (the *virtual text*) is the code cells in order, each preceded by a
marker line, a comment that no rule reads and no fix edits::

    # hylint-cell 3 5d41402a 57 1        cell 3 (1-based over ALL cells, as Jupyter shows them),
    import mxnet as mx                   notebook token, JSON row of the cell's first source line,
    ...                                  1 if its source lines are on consecutive JSON rows

Everything else is derived from the virtual text itself, so the runner, the cache and the reporters
need no extra state: which row belongs to which cell (``layout``), the cells' texts (``cell_texts``),
and, after fixes changed line counts anywhere, how to write the cells back (``render``).

IPython syntax is neutralised, keeping every row where it was:

* a cell whose first line starts with ``%%`` (a cell magic: ``%%time``, ``%%bash``) is left out;
* a line magic or shell escape (a line starting, outside strings and brackets, with ``%`` or ``!``,
  or ``name = %magic`` / ``name = !cmd``) becomes ``<indent>pass  # hylint-magic TOKEN: <the line>``,
  a statement that parses wherever the line stood and is turned back into the line on writing.

Markdown and raw cells are ignored. A source given as one string (nbformat allows a
``multiline_string`` to be a string or a list of strings) is read and written back as a string.
"""
from __future__ import annotations

import bisect
import difflib
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

_MARKER = re.compile(r"^# hylint-cell (\d+) ([0-9a-f]{8}) (\d+) ([01])$")
_MAGIC = re.compile(r"^(\s*)pass  # hylint-magic ([0-9a-f]{8}): (.*)$")
_ASSIGNED_MAGIC = re.compile(r"^\s*[A-Za-z_][\w.,\s()\[\]'\"]*=\s*[%!]")
_NEWLINE = re.compile(r"\r\n|\r|\n")


class NotebookError(Exception):
    """A file that is not a notebook hylint can read; the message says why (reported as HY001)."""


# -- reading ------------------------------------------------------------------------------------
@dataclass
class Cell:
    number: int  # 1-based over all cells
    text: str  # the source, joined
    is_list: bool  # the source is a list of strings (else one string)
    span: Tuple[int, int]  # of the source value in the document text
    items: List[Tuple[int, int]]  # spans of the list's strings
    json_row: int  # JSON row of the first source line
    consecutive: bool  # one list item per JSON row (nbformat's own layout)


@dataclass
class Notebook:
    text: str  # the document, decoded
    code_cells: List[Cell]
    token: str
    language: str = "python"  # the kernel's language, as the metadata names it

    @property
    def python_cells(self) -> List[Cell]:
        """The code cells hylint analyses: all but the cell magics; none in an R or Julia notebook."""
        if not self.language.startswith(("python", "ipython")):
            return []
        return [cell for cell in self.code_cells if not _is_cell_magic(cell.text)]


def parse(raw: bytes) -> Notebook:
    """The notebook in ``raw``; NotebookError for anything hylint cannot read as nbformat 4."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"not a Jupyter notebook: not valid UTF-8 JSON ({error.reason})") from None
    body = text[1:] if text.startswith("\ufeff") else text
    try:
        document = json.loads(body)
    except RecursionError:
        raise NotebookError("not a Jupyter notebook: its JSON is nested too deeply") from None
    except ValueError as error:
        detail = f"line {error.lineno}, column {error.colno}: {error.msg}" if hasattr(error, "lineno") else str(error)
        raise NotebookError(f"not a Jupyter notebook: invalid JSON ({detail})") from None
    if not isinstance(document, dict) or "nbformat" not in document:
        raise NotebookError("not a Jupyter notebook: no `nbformat` key in its top-level JSON object")
    version = document.get("nbformat")
    if version != 4:
        hint = " convert it with `jupyter nbconvert --to notebook --nbformat 4`" if isinstance(version, int) \
            and version < 4 else ""
        raise NotebookError(f"nbformat {version!r} notebook: hylint reads nbformat 4 only;{hint}".rstrip(";"))
    cells = document.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("invalid nbformat 4 notebook: `cells` is not a list")
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"invalid nbformat 4 notebook: cell {number} has no `cell_type`")
        if cell["cell_type"] == "code":
            source = cell.get("source")
            if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
                raise NotebookError(f"invalid nbformat 4 notebook: the source of cell {number} is neither a string "
                                    f"nor a list of strings")
    numbers = [n for n, cell in enumerate(cells, 1) if cell["cell_type"] == "code"]
    if not numbers:
        raise NotebookError("the notebook has no code cells: nothing to check (exclude it, or ignore HY001 "
                            "for it in per-file-ignores)")
    offset = len(text) - len(body)
    spans = _SourceSpans(text, offset).cells()
    row_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    code_cells = []
    for number in numbers:
        span, items = spans[number - 1]
        source = cells[number - 1]["source"]
        is_list = isinstance(source, list)
        joined = "".join(source) if is_list else source
        first = items[0][0] if items else span[0]
        rows = [_row_of(row_starts, start) for start, _ in items]
        consecutive = all(b == a + 1 for a, b in zip(rows, rows[1:])) and bool(rows)
        code_cells.append(Cell(number, joined, is_list, span, items, _row_of(row_starts, first), consecutive))
    token = hashlib.blake2b(raw, digest_size=4).hexdigest()
    return Notebook(text, code_cells, token, _language(document.get("metadata")))


def _language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str):
            return value[field].lower()
    return "python"


def _row_of(row_starts: List[int], offset: int) -> int:
    return bisect.bisect_right(row_starts, offset)


class _SourceSpans:
    """Where each cell's ``source`` value (and each of its strings) lies in the document text.

    Walks the top-level object and the ``cells`` array by hand; every other value is skipped with
    the C-accelerated ``raw_decode``. The document is already known to be valid JSON."""

    _SPACE = re.compile(r"[ \t\n\r]*")

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.start = start
        self.decoder = json.JSONDecoder()

    def _skip_space(self, i: int) -> int:
        return self._SPACE.match(self.text, i).end()

    def _value_end(self, i: int) -> int:
        return self.decoder.raw_decode(self.text, i)[1]

    def _members(self, i: int):
        """(key, value start) of the object starting at ``i``; the caller moves ``self.cursor`` past each value."""
        text = self.text
        assert text[i] == "{"
        i = self._skip_space(i + 1)
        if text[i] == "}":
            self.cursor = i + 1
            return
        while True:
            key, i = json.decoder.scanstring(text, i + 1)
            i = self._skip_space(self._skip_space(i) + 1)  # past ':'
            self.cursor = i
            yield key, i
            i = self._skip_space(self.cursor)
            if text[i] == "}":
                self.cursor = i + 1
                return
            i = self._skip_space(i + 1)  # past ','

    def _elements(self, i: int):
        text = self.text
        assert text[i] == "["
        i = self._skip_space(i + 1)
        if text[i] == "]":
            self.cursor = i + 1
            return
        while True:
            self.cursor = i
            yield i
            i = self._skip_space(self.cursor)
            if text[i] == "]":
                self.cursor = i + 1
                return
            i = self._skip_space(i + 1)

    def cells(self) -> List[Tuple[Tuple[int, int], List[Tuple[int, int]]]]:
        """Per cell: (span of its source value, spans of the source's strings when it is a list)."""
        found: List[Tuple[Tuple[int, int], List[Tuple[int, int]]]] = []
        for key, at in self._members(self._skip_space(self.start)):
            if key != "cells":
                self.cursor = self._value_end(at)
                continue
            found = []  # a repeated key: the last one counts, as for json.loads
            for cell_at in self._elements(at):
                source: Tuple[Tuple[int, int], List[Tuple[int, int]]] = ((cell_at, cell_at), [])
                for cell_key, value_at in self._members(cell_at):
                    if cell_key == "source" and self.text[value_at] == "[":
                        items = []
                        for item_at in self._elements(value_at):
                            self.cursor = self._value_end(item_at)
                            items.append((item_at, self.cursor))
                        source = ((value_at, self.cursor), items)
                    else:
                        self.cursor = self._value_end(value_at)
                        if cell_key == "source":
                            source = ((value_at, self.cursor), [])
                found.append(source)  # self.cursor is past the cell object
        return found


def _is_cell_magic(text: str) -> bool:
    for line in text.splitlines():
        if line.strip():
            return line.lstrip().startswith("%%")
    return False


# -- the virtual text ---------------------------------------------------------------------------
def virtual_text(notebook: Notebook) -> str:
    """The Python module hylint analyses (see the module docstring)."""
    parts = []
    for cell in notebook.python_cells:
        parts.append(f"# hylint-cell {cell.number} {notebook.token} {cell.json_row} {int(cell.consecutive)}\n")
        text = _neutralise(cell.text, notebook.token)
        parts.append(text if not text or text.endswith(("\n", "\r")) else text + "\n")
    return "".join(parts)


def _neutralise(text: str, token: str) -> str:
    lines = _NEWLINE.split(text)
    endings = _NEWLINE.findall(text) + [""]
    out = []
    for line, is_magic, ending in zip(lines, _magic_lines(lines), endings):
        if is_magic:
            indent = line[:len(line) - len(line.lstrip())]
            line = f"{indent}pass  # hylint-magic {token}: {line[len(indent):]}"
        out.append(line + ending)
    return "".join(out)


def _magic_lines(lines: List[str]) -> List[bool]:
    """Which lines IPython runs as a magic or a shell command: those that start with ``%`` or ``!``
    (or assign one, ``x = !ls``) where a statement starts: not inside a string, brackets, or after a
    backslash continuation."""
    flags = []
    depth = 0  # open brackets
    quote: Optional[str] = None  # the open triple-quoted string's delimiter
    continued = False
    for line in lines:
        stripped = line.lstrip()
        at_statement = depth == 0 and quote is None and not continued
        magic = at_statement and (stripped[:1] in ("%", "!") and not stripped.startswith("!=")
                                  or bool(_ASSIGNED_MAGIC.match(line)))
        flags.append(magic)
        if magic:
            continue
        depth, quote, continued = _scan(line, depth, quote)
    return flags


def _scan(line: str, depth: int, quote: Optional[str]) -> Tuple[int, Optional[str], bool]:
    """The bracket depth and open triple-quoted string after ``line``, and whether it ends with ``\\``."""
    i, n = 0, len(line)
    while i < n:
        if quote is not None:
            close = line.find(quote, i)
            while close > 0 and _escaped(line, close):
                close = line.find(quote, close + 1)
            if close < 0:
                return depth, quote, False
            i = close + len(quote)
            quote = None
            continue
        char = line[i]
        if char == "#":
            break
        if char in "\"'":
            if line.startswith(char * 3, i):
                quote = char * 3
                i += 3
                continue
            close = i + 1
            while close < n and (line[close] != char or _escaped(line, close)):
                close += 1
            i = close + 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, quote, line.rstrip().endswith("\\") and quote is None


def _escaped(line: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and line[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _restore(line: str, token: str) -> str:
    match = _MAGIC.match(line)
    return line if match is None or match.group(2) != token else match.group(1) + match.group(3)


# -- from the virtual text back to cells --------------------------------------------------------
@dataclass
class CellRows:
    number: int
    marker_row: int  # 1-based row of the marker in the virtual text; the cell's row r is marker_row + r
    rows: int  # the cell's rows in the virtual text
    json_row: int
    consecutive: bool


def layout(virtual: str) -> List[CellRows]:
    """The cells of a virtual text, found by their marker lines."""
    lines = _NEWLINE.split(virtual)
    found: List[CellRows] = []
    token = None
    for row, line in enumerate(lines, 1):
        match = _MARKER.match(line)
        if match is None or token is not None and match.group(2) != token:
            continue
        token = match.group(2)
        if found:
            found[-1].rows = row - found[-1].marker_row - 1
        found.append(CellRows(int(match.group(1)), row, 0, int(match.group(3)), match.group(4) == "1"))
    if found:
        last = len(lines) - found[-1].marker_row
        found[-1].rows = max(0, last - (1 if lines[-1] == "" else 0))
    return found


def cell_texts(virtual: str) -> Dict[int, str]:
    """Cell number -> the cell's source as in the notebook, magics restored (with the final newline the
    virtual text may have added: this is the text shown next to diagnostics)."""
    lines = _NEWLINE.split(virtual)
    endings = _NEWLINE.findall(virtual) + [""]
    out = {}
    cells = layout(virtual)
    token = _MARKER.match(lines[cells[0].marker_row - 1]).group(2) if cells else ""
    for cell in cells:
        first = cell.marker_row  # 0-based index of the cell's first line
        out[cell.number] = "".join(_restore(line, token) + ending for line, ending in
                                   zip(lines[first:first + cell.rows], endings[first:first + cell.rows]))
    return out


def locate(cells: List[CellRows], row: int) -> Tuple[Optional[CellRows], int]:
    """(the cell holding virtual ``row``, the row inside it, 1-based); a marker row counts as row 1."""
    holder = None
    for cell in cells:
        if cell.marker_row <= row:
            holder = cell
        else:
            break
    if holder is None:
        return None, row
    return holder, max(1, min(row - holder.marker_row, max(holder.rows, 1)))


def file_row(cell: CellRows, row: int) -> int:
    """The JSON row of the cell's ``row`` in the notebook file: a reader finds the line there."""
    return cell.json_row + (row - 1 if cell.consecutive else 0)


def map_diagnostics(virtual: str, diagnostics: List[Any]) -> List[Any]:
    """Diagnostics on the virtual text -> diagnostics on cells (``cell``, rows inside the cell,
    ``file_row`` the row in the notebook file)."""
    import dataclasses

    from hylint.diagnostic import Edit, Fix

    cells = layout(virtual)
    if not cells:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        cell, row = locate(cells, d.start[0])
        if cell is None:
            out.append(d)
            continue
        end_cell, end_row = locate(cells, d.end[0])
        end = (end_row, d.end[1]) if end_cell is cell else (row, d.start[1])
        fix = d.fix
        if fix is not None:
            edits = []
            for edit in fix.edits:
                start_row, stop_row = locate(cells, edit.start[0])[1], locate(cells, edit.end[0])[1]
                edits.append(Edit(edit.content, (start_row, edit.start[1]), (stop_row, edit.end[1]),
                                  edit.start_offset, edit.end_offset))
            fix = Fix(fix.applicability, fix.message, tuple(edits))
        noqa_row = None if d.noqa_row is None else locate(cells, d.noqa_row)[1]
        out.append(dataclasses.replace(d, start=(row, d.start[1]), end=end, fix=fix, noqa_row=noqa_row,
                                       cell=cell.number, file_row=file_row(cell, row)))
    return out


# -- writing ------------------------------------------------------------------------------------
class NotebookWriteError(Exception):
    """The edited virtual text cannot be written back (a fix crossed a cell boundary)."""


def _new_cell_sources(notebook: Notebook, virtual: str) -> Dict[int, str]:
    """Cell number -> new source text, for the cells whose source changed."""
    expected = [cell.number for cell in notebook.python_cells]
    found = layout(virtual)
    if [cell.number for cell in found] != expected or virtual.count(f" {notebook.token} ") != len(expected):
        raise NotebookWriteError("the fixes would cross a cell boundary; the notebook was left as it was")
    texts = cell_texts(virtual)
    changed = {}
    for cell in notebook.python_cells:
        text = texts[cell.number]
        if not cell.text.endswith(("\n", "\r")) and text.endswith("\n"):
            text = text[:-1]  # the newline the virtual text added
        if text != cell.text:
            changed[cell.number] = text
    return changed


def render(raw: bytes, virtual: str) -> bytes:
    """The notebook ``raw`` with its code cells replaced by those of ``virtual``: only the edited cells'
    source values change (and in them only the edited strings); outputs, metadata, execution counts,
    key order, indentation and the final newline stay byte for byte."""
    notebook = parse(raw)
    changed = _new_cell_sources(notebook, virtual)
    text = notebook.text
    ensure_ascii = text.isascii()
    pieces, cursor = [], 0
    for cell in notebook.python_cells:
        if cell.number not in changed:
            continue
        start, end = cell.span
        pieces.append(text[cursor:start])
        pieces.append(_source_json(text, cell, changed[cell.number], ensure_ascii))
        cursor = end
    pieces.append(text[cursor:])
    result = "".join(pieces)
    try:
        json.loads(result[1:] if result.startswith("\ufeff") else result)
    except ValueError as error:  # pragma: no cover - the splice keeps the JSON valid by construction
        raise NotebookWriteError(f"the rewritten notebook would not be valid JSON: {error}") from None
    return result.encode("utf-8")


def _source_json(text: str, cell: Cell, new: str, ensure_ascii: bool) -> str:
    if not cell.is_list:
        return json.dumps(new, ensure_ascii=ensure_ascii)
    old_values = [json.loads(text[s:e]) for s, e in cell.items]
    new_values = new.splitlines(keepends=True)
    if not new_values:
        return "[]"
    # the strings that did not change keep their exact bytes
    tokens: List[Optional[str]] = [None] * len(new_values)
    matcher = difflib.SequenceMatcher(a=old_values, b=new_values, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            s, e = cell.items[block.a + k]
            tokens[block.b + k] = text[s:e]
    items = [token if token is not None else json.dumps(value, ensure_ascii=ensure_ascii)
             for token, value in zip(tokens, new_values)]
    start, end = cell.span
    if len(cell.items) >= 2:
        opening = text[start + 1:cell.items[0][0]]
        separator = text[cell.items[0][1]:cell.items[1][0]]
        closing = text[cell.items[-1][1]:end - 1]
    else:
        line_start = text.rfind("\n", 0, start) + 1
        indent = re.match(r"[ \t]*", text[line_start:]).group(0)
        if cell.items:
            opening = text[start + 1:cell.items[0][0]]
            closing = text[cell.items[-1][1]:end - 1]
        else:  # `[]`: nbformat's layout, one item per line, one space deeper than the key
            opening, closing = f"\n{indent} ", f"\n{indent}"
        separator = "," + opening if "\n" in opening else ", "
    return "[" + opening + separator.join(items) + closing + "]"


def cell_diff(old_virtual: str, new_virtual: str, filename: str) -> str:
    """A unified diff per changed cell, headed ``a/model.ipynb:cell 3`` (ruff's layout)."""
    old, new = cell_texts(old_virtual), cell_texts(new_virtual)
    out = []
    for number, before in old.items():
        after = new.get(number, "")
        if after == before:
            continue
        out.append("".join(difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True),
            fromfile=f"a/{filename}:cell {number}", tofile=f"b/{filename}:cell {number}")))
    return "".join(out)


# -- running (hylint verify) --------------------------------------------------------------------
def run_cells(virtual: str, filename: str, namespace: Dict[str, Any]) -> List[str]:
    """Execute the code cells of a virtual text in ``namespace``, one by one, as Jupyter's "Run All"
    does, without their magics; each cell compiled with its rows in the virtual text (so tracebacks
    and graph-node origins point into it). A cell that raises does not stop the later ones (they may
    define the block to verify); what it raised is returned as a note."""
    lines = _NEWLINE.split(virtual)
    notes = []
    for cell in layout(virtual):
        code = "\n" * cell.marker_row + "\n".join(lines[cell.marker_row:cell.marker_row + cell.rows]) + "\n"
        try:
            exec(compile(code, filename, "exec", dont_inherit=True), namespace)
        except Exception as error:  # the user's cell failed: say which, run the next
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            notes.append(f"cell {cell.number} raised {type(error).__name__}"
                         + (f": {first}" if first else "") + "; the later cells still ran")
    return notes


def cell_of_row(virtual: str, row: int) -> Optional[Tuple[int, int]]:
    """(cell number, row inside the cell) of a row of the virtual text, or None."""
    cell, inner = locate(layout(virtual), row)
    return None if cell is None else (cell.number, inner)


def cell_message(virtual: str, filename: str, message: str) -> str:
    """A message naming ``filename:ROW[:COL]`` of the virtual text, with the cell and its row instead."""
    prefix = re.escape(filename) + r":(\d+)(?=[:\s])"
    match = re.match(prefix, message)
    found = cell_of_row(virtual, int(match.group(1))) if match else None
    if found is None:
        return message
    return f"{filename}:cell {found[0]}:{found[1]}" + message[match.end():]
