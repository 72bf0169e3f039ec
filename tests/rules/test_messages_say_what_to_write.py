"""A diagnostic without an automatic rewrite says what to write instead (issue 26), in its message or in its help
(the longer explanation the full format and the editor's hover show, issue 44): checked on every rule's INVALID
examples and on every fixture, for each diagnostic that comes without a fix."""
import re

import pytest

from examples import invalid_sources
from hylint.lint.engine import Linter
from hylint.selection import select_rules

# the phrases hylint's messages give advice with (a message that states only the failure matches none)
ADVICE = re.compile(r"(?i:write instead)|instead:|[;:] use |\(use |; remove |; derive |create constants with|call the child|"
                    r"guard it with|make it|check that|[;:] pass |; define ")
# not hazards of the code: the file, noqa comments, and retired rules (which verify runs, never users)
NOT_HAZARDS = {"HY000", "HY001", "HY900"}


@pytest.mark.parametrize("code, source", list(invalid_sources()))
def test_a_diagnostic_without_a_fix_says_what_to_write(code, source):
    linter = Linter(select_rules(extend_select=[code], named_retired=True))
    silent = [f"{d.code}: {d.message} | {d.help}" for d in linter.lint_source(source, "example.py").diagnostics
              if d.fix is None and d.code not in NOT_HAZARDS and not ADVICE.search(f"{d.message} {d.help or ''}")]
    assert silent == []
