"""`hylint rule`: a rule's documentation, or the list of all rules."""
from __future__ import annotations

import sys
from typing import Optional

import click

from hylint.check import EXIT_ERROR


@click.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Show a rule's documentation, or list every rule with --all."""
    from hylint.selection import RETIRED, all_rules

    rules = all_rules()
    if show_all or code is None:
        click.echo(f"{'code':<6}  {'name':<34}  {'default':<7}  fixable")
        for rule_code, rule_type in rules.items():
            default = "retired" if rule_code in RETIRED else "on" if rule_type.DEFAULT_ENABLED else "off"
            click.echo(f"{rule_code:<6}  {rule_type.NAME:<34}  {default:<7}  "
                       f"{'yes' if rule_type.fixable() else 'no'}")
        return
    rule_type = rules.get(code.upper())
    if rule_type is None:
        click.echo(f"hylint: error: unknown rule code {code!r} (see `hylint rule --all`)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"# {rule_type.NAME} ({rule_type.CODE})\n")
    if rule_type.CODE in RETIRED:
        click.echo(f"Retired: {RETIRED[rule_type.CODE]}. The code is reserved; selecting it checks nothing.\n")
    click.echo(f"Default: {'on' if rule_type.DEFAULT_ENABLED else 'off'}. "
               f"Fix: {'available' if rule_type.fixable() else 'none'}.")
    click.echo(rule_type.DOC.rstrip())
