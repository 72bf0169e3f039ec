"""Every command's body runs guarded: a failure is a one-line message and an exit code, never a traceback."""
from __future__ import annotations

import os
import sys

import click

from hylint.check import EXIT_DIAGNOSTICS, EXIT_ERROR, UsageError


def guarded(command) -> int:
    """Run a command's body; turn every failure into a one-line message and an exit code (no traceback)."""
    try:
        return command()
    except UsageError as error:
        click.echo(f"hylint: error: {error}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        click.echo("hylint: interrupted", err=True)
        return 130
    except BrokenPipeError:
        # the reader went away (`hylint check | head`): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_DIAGNOSTICS
    except Exception as error:  # never a traceback for users; HYLINT_DEBUG=1 shows it
        if os.environ.get("HYLINT_DEBUG"):
            raise
        click.echo(f"hylint: internal error: {type(error).__name__}: {error} (set HYLINT_DEBUG=1 for details)",
                   err=True)
        return EXIT_ERROR
