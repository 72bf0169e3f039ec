"""`hylint server`: the language server for editors (hylint/server/; docs/editors.md)."""
from __future__ import annotations

import click


@click.command()
def server() -> None:
    """Serve the Language Server Protocol over stdio, for an editor (pygls, installed with hylint)."""
    from hylint.server import run  # pygls is imported only when the server runs
    run()
