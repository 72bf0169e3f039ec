"""A progress bar on stderr for long runs, only where a person watches a terminal.

Never in pipes, never in CI (``CI`` set, as every CI service does), never with ``TERM=dumb``; it is
transient (erased when done) and lives on stderr, so it never mixes into the report on stdout.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator, Optional, TextIO

MIN_FILES = 50  # below this a run is quick enough without a bar


def wanted(count: int, stream: Optional[TextIO] = None) -> bool:
    stream = stream if stream is not None else sys.stderr
    if count < MIN_FILES or os.environ.get("CI", "").lower() not in ("", "0", "false"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress(count: int, stream: Optional[TextIO] = None) -> Iterator[Callable[[], None]]:
    """Yield ``advance()``; shows a bar only when :func:`wanted`."""
    if not wanted(count, stream):
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=stream if stream is not None else sys.stderr)
    with Progress(TextColumn("hylint"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("check", total=count)
        yield lambda: bar.advance(task)
