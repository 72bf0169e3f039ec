"""ruff's default output: the location, the message, and a code frame pointing at the span."""
import re
from typing import TYPE_CHECKING, Iterator, List, Optional, TextIO, Tuple

from hylint.report import Report, fixable, summary_lines
from hylint.report._common import docs_reference, source_of, where

if TYPE_CHECKING:
    from rich.text import Text

NEWLINE = re.compile(r"\r\n|\r|\n")  # as hylint.lint.engine splits lines (not imported: it needs libcst)

# a line is a list of pieces: (text, rich style or "", link URL or None)
Piece = Tuple[str, str, Optional[str]]


def render(report: Report, out: TextIO) -> None:
    lines = list(_lines(report))
    if not lines:
        return  # nothing to show
    if not report.color and not report.hyperlinks and all(_printable(piece[0]) for line in lines for piece in line):
        # what rich writes for printable text without styles, without importing rich (~60 ms, a fifth of a
        # warm run); other control characters and tabs, which rich strips or expands, go through rich
        out.write("".join("".join(piece[0] for piece in line) + "\n" for line in lines))
        return
    from rich.console import Console

    console = Console(file=out, force_terminal=report.color, no_color=not report.color, highlight=False,
                      soft_wrap=True, emoji=False)
    # one print, not one per line: rich's fixed cost per print() was most of the report's time
    console.print(_styled(lines, report.color or report.hyperlinks))


def _styled(lines: List[List[Piece]], linked: bool) -> "Text":
    """The lines as one rich Text of styled pieces: not markup, which drops a backslash before `[`."""
    from rich.style import Style
    from rich.text import Text

    text = Text()
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        for piece, style, link in line:
            text.append(piece, Style.parse(style) + Style(link=link) if link and linked else style)
    return text


def _printable(text: str) -> bool:
    return text.isprintable() or text.replace("\n", "").isprintable()  # a message may hold a line break


def _help(d) -> Iterator[List[Piece]]:
    """The diagnostic's help line: the explanation its one-line message leaves out."""
    if d.help:
        yield [("  ", "", None), ("= help:", "cyan", None), (" " + d.help, "", None)]


def _lines(report: Report) -> Iterator[List[Piece]]:
    lines_cache = {}
    for d in report.diagnostics:
        mark = [(" ", "", None), ("[*]", "cyan", None)] if fixable(d, report.unsafe_fixes) else []
        yield [(where(d), "bold", None), (f":{d.start[0]}:{d.start[1]}: ", "", None), (d.code, "bold red", d.url),
               *mark, (" " + d.message, "", None)]
        docs = [("  ", "", None), ("= docs:", "cyan", None), (" " + docs_reference(d), "", None)]
        source = source_of(d, report.sources, report.cell_sources)
        if source is None:
            yield from _help(d)
            yield docs
            continue
        lines = lines_cache.get(where(d))
        if lines is None:
            lines = lines_cache[where(d)] = NEWLINE.split(source)
        row = d.start[0]
        first, last = max(1, row - 1), min(len(lines), row + 1)
        width = len(str(last))
        gutter = [(" " * width + " ", "", None), ("|", "blue", None)]
        yield gutter
        for number in range(first, last + 1):
            text = lines[number - 1].expandtabs(4) if number - 1 < len(lines) else ""
            yield [(f"{number:>{width}} |", "blue", None), (" " + text, "", None)]
            if number == row:
                prefix = lines[number - 1][:d.start[1] - 1].expandtabs(4)
                end_col = d.end[1] if d.end[0] == row else len(lines[number - 1]) + 1
                span = max(1, len(lines[number - 1][d.start[1] - 1:end_col - 1].expandtabs(4)))
                yield gutter + [(" " + " " * len(prefix), "", None), ("^" * span, "bold red", None), (" ", "", None),
                                (d.code, "bold red", None)]
        yield gutter
        yield from _help(d)
        if d.fix is not None:
            yield [("  ", "", None), ("= help:", "cyan", None), (" " + d.fix.message, "", None)]
        yield docs
        yield [("", "", None)]
    for line in summary_lines(report):
        yield [(line, "", None)]
