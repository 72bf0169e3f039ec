"""Every rule's own VALID / INVALID examples, run through the real engine."""
import libcst as cst
import pytest

from hylint.lint.engine import Linter
from hylint.selection import all_rules, select_rules

RULES = all_rules()


def _linter(code: str) -> Linter:
    # the rule under test plus the default set, as a user running `--extend-select CODE` would; a retired
    # rule is never selected by users, but its logic still runs where hylint asks for it (HY102 in verify)
    return Linter(select_rules(extend_select=[code], named_retired=True))


def _cases(kind):
    for code, rule in RULES.items():
        for index, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{code}-{kind}-{index}")


@pytest.mark.parametrize("rule, example", list(_cases("VALID")))
def test_valid_example_is_not_flagged(rule, example):
    result = _linter(rule.CODE).lint_source(example.code, "example.py")
    assert [d for d in result.diagnostics if d.code == rule.CODE] == []


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_invalid_example_is_flagged(rule, example):
    linter = _linter(rule.CODE)
    result = linter.lint_source(example.code, "example.py")
    assert rule.CODE in [d.code for d in result.diagnostics]
    if example.expected_fixed is None:
        return
    fixed = linter.fix_source(example.code, "example.py", unsafe=example.unsafe)
    assert fixed.source == example.expected_fixed
    cst.parse_module(fixed.source)
    # idempotent: fixing the fixed source changes nothing
    assert linter.fix_source(fixed.source, "example.py", unsafe=example.unsafe).source == fixed.source
    if not example.unsafe:
        # a safe expectation must not need --unsafe-fixes
        assert linter.fix_source(example.code, "example.py", unsafe=False).source == example.expected_fixed


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_rule_ignored_when_not_selected(rule, example):
    linter = Linter(select_rules(select=["ALL"], ignore=[rule.CODE]))
    assert rule.CODE not in [d.code for d in linter.lint_source(example.code, "example.py").diagnostics]
