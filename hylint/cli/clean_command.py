"""`hylint clean`: remove the result cache."""
from __future__ import annotations

import sys
from typing import Optional

import click

from hylint.check import run_clean
from hylint.cli.guard import guarded


@click.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="The project of this pyproject.toml (or hylint.toml) instead of the nearest one.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, envvar="HYLINT_CACHE_DIR",
              help="The cache folder to remove (default: .hylint_cache/ beside the configuration).")
def clean(config_path: Optional[str], cache_dir: Optional[str]) -> None:
    """Remove the result cache (.hylint_cache/, or --cache-dir / $HYLINT_CACHE_DIR)."""
    sys.exit(guarded(lambda: run_clean(config_path, cache_dir)))
