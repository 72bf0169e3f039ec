"""A diagnostic without an automatic rewrite says in its message what to write instead (issue 26): checked on
every rule's INVALID examples and on every fixture, for each diagnostic that comes without a fix."""
import re
from pathlib import Path

import pytest

from hylint.lint.engine import Linter
from hylint.selection import all_rules, select_rules

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# the phrases hylint's messages give advice with (a message that states only the failure matches none)
ADVICE = re.compile(r"write instead|instead:|; use |\(use |; remove |; derive |create constants with|call the child|"
                    r"guard it with|make it|check that|; pass |; define ")
# not hazards of the code: the file, noqa comments, and retired rules (which verify runs, never users)
NOT_HAZARDS = {"HY000", "HY001", "HY900"}


def _sources():
    for code, rule in sorted(all_rules().items()):
        for index, example in enumerate(rule.INVALID):
            yield pytest.param(code, example.code, id=f"{code}-INVALID-{index}")
    for folder in sorted(FIXTURES.iterdir()):
        if (folder / "before.py").exists():
            yield pytest.param(folder.name.split("_")[0], (folder / "before.py").read_text(), id=folder.name)


@pytest.mark.parametrize("code, source", list(_sources()))
def test_a_diagnostic_without_a_fix_says_what_to_write(code, source):
    linter = Linter(select_rules(extend_select=[code], named_retired=True))
    silent = [f"{d.code}: {d.message}" for d in linter.lint_source(source, "example.py").diagnostics
              if d.fix is None and d.code not in NOT_HAZARDS and not ADVICE.search(d.message)]
    assert silent == []
