"""The command line: wiring only (each command's flags -> its pipeline -> exit code).

Exit codes: 0 no diagnostics, 1 diagnostics (or a change with --diff / --exit-non-zero-on-fix),
2 usage, configuration or internal error (a one-line message, no traceback).
"""
from __future__ import annotations

import click

from hylint import __version__
from hylint.check import EXIT_DIAGNOSTICS, EXIT_ERROR, EXIT_OK  # noqa: F401 (the exit codes, named here too)
from hylint.cli.check_command import check
from hylint.cli.clean_command import clean
from hylint.cli.rule_command import rule
from hylint.cli.server_command import server
from hylint.cli.verify_command import verify


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hylint")
def main() -> None:
    """hylint: find and fix MXNet Gluon code that breaks under hybridize()."""


main.add_command(check)
main.add_command(clean)
main.add_command(rule)
main.add_command(server)
main.add_command(verify)
