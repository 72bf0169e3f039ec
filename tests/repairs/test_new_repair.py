"""A new repair idiom needs a file in hylint/repairs/ and its rule's use of it, nothing else.

The test writes both into a temporary folder laid out like hylint/: a repair, ``repairs/double_negative.py``
(``F.negative(F.negative(x))`` -> ``x``), and a rule using it, ``rules/double_negative_call.py``. The
temporary folders are put on the search paths of ``hylint.repairs`` and ``hylint.rules`` as a file added to
those folders would be found. With nothing else changed:
- ``codes.all_rules()`` finds the rule (no registry), and the engine reports it and applies the repair's fix;
- the checks of tests/test_layers.py, with ``LAYERS`` as it is, accept the real graph plus the two files;
- outside ``rules/`` (and ``repairs/`` itself) nothing in hylint imports a repair: the machinery, the docs
  generator (which reads the rules) and the fixture machinery (keyed by rule codes) name none, so none has
  an entry to add.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import hylint.repairs
import hylint.rule
import hylint.rules
from hylint.lint.engine import Linter
from hylint.selection import all_rules, select_rules

from hylint_layers import repair_imports_outside, top, upward  # noqa: E402  (tests/, on sys.path under pytest)
from importgraph import circles, imports, read_graph  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CODE = "HY990"

REPAIR = '''
"""``F.negative(F.negative(x))`` rewritten as ``x`` (a test idiom). Used by HY990."""
import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import PendingFix, replace
from hylint.syntax.nodes import dotted_name

TITLE = "Drop the two negations"


def _negated(node):
    if isinstance(node, cst.Call) and (dotted_name(node.func) or "").endswith(".negative") and len(node.args) == 1:
        return node.args[0].value
    return None


def double_negative_fix(node):
    inner = _negated(node)
    operand = _negated(inner) if inner is not None else None
    if operand is None:
        return None
    return PendingFix(Applicability.SAFE, TITLE, [replace(node, operand)])
'''

RULE = '''
from hylint.repairs.double_negative import TITLE, double_negative_fix
from hylint.rule import LintRule


class DoubleNegativeCall(LintRule):
    CODE = "HY990"
    NAME = "double-negative-call"
    MESSAGE = "two negations"
    FIX_TITLE = TITLE
    PREFILTER = None

    def visit_Call(self, node, ctx):
        fix = double_negative_fix(node)
        if fix is not None:
            ctx.report(node, "`F.negative(F.negative(x))` is `x`", fix)
'''

SOURCE = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock


    class N(HybridBlock):
        def hybrid_forward(self, F, x):
            return F.negative(F.negative(x)) * 2  # twice
""")


@pytest.fixture
def new_repair(tmp_path, monkeypatch):
    """The temporary package (hylint/repairs/double_negative.py, hylint/rules/double_negative_call.py),
    its folders searched by hylint.repairs and hylint.rules for the test's duration."""
    package = tmp_path / "hylint"
    for name, text in {"__init__.py": "", "repairs/__init__.py": "", "repairs/double_negative.py": REPAIR,
                       "rules/__init__.py": "", "rules/double_negative_call.py": RULE}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(textwrap.dedent(text))
    monkeypatch.setattr(hylint.repairs, "__path__", [*hylint.repairs.__path__, str(package / "repairs")])
    monkeypatch.setattr(hylint.rules, "__path__", [*hylint.rules.__path__, str(package / "rules")])
    monkeypatch.setattr(hylint.rule, "_KNOWN_CODES", set(hylint.rule._KNOWN_CODES))  # HY990 leaves with the test
    all_rules.cache_clear()  # the rules are read once per process: as a fresh run would, read them again
    yield package
    for module in ("hylint.rules.double_negative_call", "hylint.repairs.double_negative"):
        sys.modules.pop(module, None)
    all_rules.cache_clear()


def test_the_rule_using_a_new_repair_is_found_and_its_fix_applied(new_repair):
    assert CODE in all_rules()
    linter = Linter(select_rules(select=[CODE]))
    assert [d.code for d in linter.lint_source(SOURCE, "n.py").diagnostics] == [CODE]
    fixed = linter.fix_source(SOURCE, "n.py").source
    assert fixed == SOURCE.replace("F.negative(F.negative(x))", "x")
    assert linter.fix_source(fixed, "n.py").source == fixed


def test_the_layer_checks_accept_a_new_repair_unchanged(new_repair):
    graph = read_graph(ROOT / "hylint")
    new = {"hylint.repairs.double_negative": new_repair / "repairs/double_negative.py",
           "hylint.rules.double_negative_call": new_repair / "rules/double_negative_call.py"}
    modules = set(graph) | set(new)
    graph.update({module: imports(path, module, modules) for module, path in new.items()})
    assert graph["hylint.rules.double_negative_call"] == {"hylint.repairs.double_negative", "hylint.rule"}
    assert "hylint.syntax.nodes" in graph["hylint.repairs.double_negative"]
    assert upward(graph) == []
    assert repair_imports_outside(graph) == []
    assert [cycle for cycle in circles(graph) if any("double_negative" in module for module in cycle)] == []


def test_nothing_but_rules_and_repairs_imports_a_repair():
    importers = {module for module, targets in read_graph(ROOT / "hylint").items()
                 if any(top(target) == "repairs" for target in targets)}
    assert importers and {top(module) for module in importers} <= {"rules", "repairs"}
    # the docs generator and the fixture tests reach rules through codes.all_rules(), never a repair
    for script in (ROOT / "scripts" / "gen_rule_docs.py", ROOT / "tests" / "rules" / "test_fixtures.py"):
        assert "repairs" not in script.read_text()
