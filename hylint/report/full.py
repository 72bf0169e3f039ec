"""ruff's default output: the location, the message, and a code frame pointing at the span."""
import re
from typing import List, TextIO

from hylint.report import Report, fixable, summary_lines
from hylint.report._common import source_of, where

NEWLINE = re.compile(r"\r\n|\r|\n")  # as hylint.lint.engine splits lines (not imported: it needs libcst)


def _escape_line_end(text: str) -> str:
    """rich's escape for text that ends a line: its extra backslash after a trailing one would be shown (it is
    there for markup that follows, and a newline follows here)."""
    from rich.markup import escape
    return escape(text + "\n")[:-1]


def render(report: Report, out: TextIO) -> None:
    if not report.diagnostics and not summary_lines(report):
        return  # nothing to show: do not import rich
    from rich.console import Console
    from rich.markup import escape

    console = Console(file=out, force_terminal=report.color, no_color=not report.color, highlight=False,
                      soft_wrap=True, emoji=False)
    # one markup line per output line, printed at once: rich's fixed cost per print() was most of a warm run's
    # report (773 prints on the corpus)
    markup: List[str] = []
    lines_cache = {}
    for d in report.diagnostics:
        mark = " [cyan]\\[*][/]" if fixable(d, report.unsafe_fixes) else ""
        code = f"[link={d.url}]{d.code}[/link]" if (report.color or report.hyperlinks) and d.url else d.code
        markup.append(f"[bold]{escape(where(d))}[/]:{d.start[0]}:{d.start[1]}: [bold red]{code}[/]{mark} "
                      f"{_escape_line_end(d.message)}")
        source = source_of(d, report.sources, report.cell_sources)
        if source is not None:
            lines = lines_cache.get(where(d))
            if lines is None:
                lines = lines_cache[where(d)] = NEWLINE.split(source)
            row = d.start[0]
            first, last = max(1, row - 1), min(len(lines), row + 1)
            width = len(str(last))
            markup.append(f"{' ' * width} [blue]|[/]")
            for number in range(first, last + 1):
                text = lines[number - 1].expandtabs(4) if number - 1 < len(lines) else ""
                markup.append(f"[blue]{number:>{width}} |[/] {_escape_line_end(text)}")
                if number == row:
                    prefix = lines[number - 1][:d.start[1] - 1].expandtabs(4)
                    end_col = d.end[1] if d.end[0] == row else len(lines[number - 1]) + 1
                    span = max(1, len(lines[number - 1][d.start[1] - 1:end_col - 1].expandtabs(4)))
                    markup.append(f"{' ' * width} [blue]|[/] {' ' * len(prefix)}[bold red]{'^' * span}[/] "
                                  f"[bold red]{d.code}[/]")
            markup.append(f"{' ' * width} [blue]|[/]")
            if d.fix is not None:
                markup.append(f"  [cyan]= help:[/] {_escape_line_end(d.fix.message)}")
            markup.append(f"  [cyan]= docs:[/] {_escape_line_end(d.url or f'hylint rule {d.code}')}")
            markup.append("")
        else:
            markup.append(f"  [cyan]= docs:[/] {_escape_line_end(d.url or f'hylint rule {d.code}')}")
    markup.extend(_escape_line_end(line) for line in summary_lines(report))
    console.print("\n".join(markup))
