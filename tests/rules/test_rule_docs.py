"""docs/rules.md is generated from the rules' own docs and must be current (and so must README's table)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from hylint.selection import all_rules

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_rule_docs", ROOT / "scripts" / "gen_rule_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def test_rules_md_is_current():
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == GEN.rules_md(), "docs/rules.md is stale: run `python scripts/gen_rule_docs.py`"


def test_check_mode_exits_zero_when_current():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_rule_docs.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_docs_follow_the_rules(monkeypatch):
    # a changed rule doc changes the generated text: the staleness test can fail
    rule = all_rules()["HY301"]
    before = GEN.rules_md()
    monkeypatch.setattr(rule, "DOC", rule.DOC.replace("## What it does", "## What it does\nNEW SENTENCE."))
    after = GEN.rules_md()
    assert after != before and "NEW SENTENCE." in after


def test_every_rule_has_its_section_and_row():
    text = GEN.rules_md()
    for code, rule in all_rules().items():
        assert f"\n## {code} {rule.NAME}\n" in text
        anchor = f"{code.lower()}-{rule.NAME}"
        assert f"| [{code}](#{anchor}) | `{rule.NAME}` |" in text
        # the DOC's sections are nested under the rule's heading
        for section in ("What it does", "Why is this bad?", "Fix safety"):
            assert f"### {section}" in text


def test_demote_leaves_code_fences_alone():
    doc = "\n## What it does\nx\n```python\n## a comment in code\n```\n## Fix safety\n"
    assert GEN._demote(doc) == "### What it does\nx\n```python\n## a comment in code\n```\n### Fix safety"


def test_readme_table_between_markers():
    readme = f"intro\n{GEN.START}\nold table\n{GEN.END}\noutro\n"
    updated = GEN.readme_with_table(readme)
    assert updated.startswith(f"intro\n{GEN.START}\n| Code | Name |")
    assert updated.endswith(f"{GEN.END}\noutro\n")
    assert "(docs/rules.md#hy301-tensor-subscript)" in updated
    assert GEN.readme_with_table("no markers") is None


def test_readme_links_rules_and_shows_the_current_table():
    readme = ROOT / "README.md"
    if not readme.is_file():
        pytest.skip("no README.md yet")
    text = readme.read_text(encoding="utf-8")
    assert "docs/rules.md" in text, "README must link docs/rules.md"
    assert GEN.START in text and GEN.END in text, \
        "README must hold the rule table between the rules-table markers (see docs/ci.md)"
    assert GEN.readme_with_table(text) == text, "README's rule table is stale: run `python scripts/gen_rule_docs.py`"
