"""Every rule keeps the public contract: unique code, name matching its file, documented, tested, with a fixture."""
import re
from pathlib import Path

import pytest

from hylint.selection import all_rules
from hylint.rule import DOC_SECTIONS

RULES = all_rules()
ROOT = Path(__file__).resolve().parents[2]
# rules about files themselves have no hybrid code to put in a fixture; HY090 (unused-noqa) is about
# comments: its `# expect:` marker would share the line with the comment its fix removes
NO_FIXTURE = {"HY000", "HY001", "HY090"}


@pytest.mark.parametrize("code", list(RULES))
def test_rule_contract(code):
    rule = RULES[code]
    assert re.fullmatch(r"HY\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.NAME)
    module_file = rule.__module__.rsplit(".", 1)[-1]
    assert module_file == rule.NAME.replace("-", "_"), "one rule per file, named after the rule"
    for section in DOC_SECTIONS:
        assert f"## {section}" in rule.DOC, f"{code} doc lacks section {section!r}"
    assert rule.MESSAGE and "\n" not in rule.MESSAGE
    if code not in NO_FIXTURE:
        assert rule.VALID, f"{code} has no VALID examples"
        assert rule.INVALID, f"{code} has no INVALID examples"
    if rule.fixable():
        assert rule.FIX_TITLE, f"{code} offers fixes but has no FIX_TITLE"


@pytest.mark.parametrize("code", [c for c in RULES if c not in NO_FIXTURE])
def test_rule_has_fixture(code):
    folders = [p for p in (ROOT / "fixtures").glob(f"{code}*") if (p / "before.py").is_file()]
    assert folders, f"fixtures/{code}/before.py is missing"


def test_codes_are_unique_and_names_too():
    names = [rule.NAME for rule in RULES.values()]
    assert len(names) == len(set(names))
