"""The text prefilter never skips a file in which a selected rule reports something.

Every check lints the same source twice with every rule selected: with the prefilter and without
it (``linter.prefilter = False``: parse and analyse every file). A skipped file must have no
diagnostic in the full run (HY000 excepted: syntax errors are reported for parsed files only, as
hylint/lint/prefilter.py documents), and a kept file must give the same diagnostics both ways.
"""
from pathlib import Path

import pytest

from hylint.lint.engine import Linter
from hylint.lint.prefilter import (CLASS_KEYS, CLASS_NAMES, CONTEXT_KEYS, class_headers, keys_for, might_hold_hybrid_code,
                              rule_keys)
from hylint.selection import all_rules, select_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = all_rules()


_LINTERS = {}


def _linters(rules):
    key = tuple(rules)
    if key not in _LINTERS:
        full = Linter(rules)
        full.prefilter = False
        _LINTERS[key] = (full, Linter(rules))
    return _LINTERS[key]


def _full_and_filtered(source: str, rules=None):
    full, filtered = _linters(rules if rules is not None else select_rules(select=["ALL"]))
    return full.lint_source(source, "m.py").diagnostics, filtered.lint_source(source, "m.py").diagnostics, filtered


def _check(source: str, rules=None) -> None:
    full, filtered, linter = result = _full_and_filtered(source, rules)
    if might_hold_hybrid_code(source, linter.prefilter_keys):
        assert filtered == full
        return result
    # skipped: only the text-based noqa rules (unused-noqa) may report, and exactly as in full
    text_only = {rule.CODE for rule in linter.noqa_rules}
    assert all(d.code in text_only for d in filtered)
    if any(d.code == "HY000" for d in full):
        assert all(d.code in text_only | {"HY000"} for d in full)
    else:
        assert filtered == full, "the prefilter skipped a file with diagnostics"
    return result


def _examples():
    for code, rule in RULES.items():
        for kind in ("VALID", "INVALID"):
            for index, example in enumerate(getattr(rule, kind)):
                yield pytest.param(example.code, id=f"{code}-{kind}-{index}")


def _fixtures():
    for path in sorted((ROOT / "fixtures").glob("*/*.py")):
        yield pytest.param(path.read_text(encoding="utf-8"), id=f"{path.parent.name}/{path.name}")


SOURCES = list(_examples()) + list(_fixtures())


@pytest.mark.parametrize("source", SOURCES)
def test_examples_and_fixtures(source):
    """Linted in full, an example or fixture with a diagnostic is one the prefilter keeps."""
    full, filtered = _linters(select_rules(select=["ALL"]))
    found = full.lint_source(source, "m.py").diagnostics
    text_only = {rule.CODE for rule in full.noqa_rules} | {"HY000"}
    if any(d.code not in text_only for d in found):
        assert might_hold_hybrid_code(source, filtered.prefilter_keys), "the prefilter would skip a file with diagnostics"
        assert filtered.lint_source(source, "m.py").diagnostics == found
    else:
        _check(source)


# Every rule example and fixture with its keys spelled differently: now nothing may be reported.
RENAMES = [("hybrid_forward", "hybrid_fwd_X")] + [(name, name.lower() + "X") for name in CLASS_NAMES]


def _without_keys(source: str) -> str:
    for key, other in RENAMES:
        source = source.replace(key, other)
    return source


@pytest.mark.parametrize("source", SOURCES)
def test_examples_and_fixtures_without_the_keys_report_nothing(source):
    renamed = _without_keys(source)
    assert not might_hold_hybrid_code(renamed, CONTEXT_KEYS + CLASS_KEYS)
    full, _, linter = _check(renamed)
    text_only = {rule.CODE for rule in linter.noqa_rules}
    assert [d for d in full if d.code not in text_only | {"HY000"}] == []
    assert not might_hold_hybrid_code(renamed, linter.prefilter_keys)


# A project HybridBlock in one file, subclassed in another that overrides only a helper called
# with F: the analysis is per file, so the subclass's file has no hybrid context and no diagnostic
# with or without the prefilter. If this test fails, the analysis follows classes across files:
# the prefilter must then key on the project's class names (see hylint/lint/prefilter.py).
BASE = '''
from mxnet.gluon import nn

class Encoder(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return self._pool(F, x)

    def _pool(self, F, x):
        return F.mean(x, axis=1)
'''
SUBCLASS = '''
from .base import Encoder

class LastStep(Encoder):
    def _pool(self, F, x):
        return x[:, -1]

class Scaled(LastStep):
    def _pool(self, F, x):
        y = x.asnumpy()
        return x * x.shape[0]
'''


def test_cross_file_subclass_has_no_context_in_its_own_file():
    assert might_hold_hybrid_code(BASE, keys_for(select_rules(select=["ALL"])))
    assert not might_hold_hybrid_code(SUBCLASS, keys_for(select_rules(select=["ALL"])))
    full, filtered, _ = _full_and_filtered(SUBCLASS)
    assert full == [] and filtered == []
    # the helper of the base's own class, in the base's file, is a hybrid context and is reported
    base = BASE.replace("return F.mean(x, axis=1)", "return x[:, -1]")
    full, filtered, _ = _full_and_filtered(base)
    assert "HY301" in {d.code for d in full} and filtered == full


def test_keys_follow_the_rules():
    hybrid_only = [r for r in RULES.values() if r.HYBRID_ONLY and any(a.startswith("visit_") for a in dir(r))]
    assert hybrid_only, "no hybrid rule?"
    for rule in hybrid_only:
        if "PREFILTER" not in dir(rule):
            assert rule_keys(rule) == CONTEXT_KEYS
    assert rule_keys(RULES["HY000"]) == () and rule_keys(RULES["HY001"]) == ()

    class Structure:
        HYBRID_ONLY = False

        def visit_ClassDef(self, node, ctx):
            pass

    class Anything(Structure):
        PREFILTER = None

    class Declared(Structure):
        PREFILTER = ("mx.nd",)

    assert set(rule_keys(Structure)) == set(CONTEXT_KEYS + CLASS_KEYS)
    assert keys_for([Structure, Anything]) is None
    assert keys_for([RULES["HY000"], Declared]) == ("mx.nd",)
    assert might_hold_hybrid_code("anything", None)


def test_class_keys_cover_every_block_base_name():
    from hylint.analysis import module as context

    names = set(context.HYBRID_BASE_NAMES) | set(getattr(context, "BLOCK_BASE_NAMES", set()))
    for name in names:
        assert any(key in name for key in CLASS_NAMES), f"{name} is a block base the prefilter does not key on"


def test_linter_with_a_structure_rule_parses_class_files():
    """A structure rule (HYBRID_ONLY = False) sees files with a block class and no hybrid_forward."""
    from hylint.rule import LintRule

    class ForwardInHybridBlock(LintRule):
        CODE = "HY999"
        NAME = "forward-in-hybrid-block"
        MESSAGE = "forward in a HybridBlock"
        HYBRID_ONLY = False

        def visit_FunctionDef(self, node, ctx):
            if node.name.value == "forward" and ctx.cls is not None and "HybridBlock" in ctx.cls.base_names:
                ctx.report(node.name)

    source = "class N(HybridBlock):\n    def forward(self, x):\n        return x\n"
    _check(source, [ForwardInHybridBlock])
    assert [d.code for d in Linter([ForwardInHybridBlock]).lint_source(source, "m.py").diagnostics] == ["HY999"]


def test_prefiltered_syntax_errors_are_not_reported():
    """Documented: HY000 only for files that can hold something hylint checks."""
    linter = Linter(select_rules(select=["ALL"]))
    assert linter.lint_source("def f(:\n    pass\n", "m.py").diagnostics == []
    codes = [d.code for d in linter.lint_source("def hybrid_forward(self, F, x:\n", "m.py").diagnostics]
    assert codes == ["HY000"]


@pytest.mark.slow
def test_benchmark_corpus():
    """Every file of the benchmark corpus (downloaded on first use) that the prefilter skips is clean."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import corpus
    finally:
        sys.path.pop(0)
    root = corpus.ensure_corpus()
    rules = select_rules(select=["ALL"])
    full = Linter(rules)
    full.prefilter = False
    skipped = 0
    for path in corpus.corpus_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        if might_hold_hybrid_code(text, full.prefilter_keys):
            continue
        skipped += 1
        found = [d for d in full.lint_source(text, str(path)).diagnostics if d.code != "HY000"]
        assert found == [], f"{path}: skipped by the prefilter but has {found[0].code}"
    assert skipped > 100


def test_class_keys_look_in_class_headers_only():
    keys = CLASS_KEYS
    assert might_hold_hybrid_code("class N(nn.HybridBlock):\n    pass\n", keys)
    assert might_hold_hybrid_code("class N(\n    # a comment (with a paren\n    nn.Block,\n):\n    pass\n", keys)
    assert might_hold_hybrid_code("class \\\n    N(gluon.nn.Sequential): pass\n", keys)
    assert might_hold_hybrid_code("if True:\n    class N(Base, metaclass=M):\n        pass\n    class M(Lambda): pass\n", keys)
    assert might_hold_hybrid_code("class N(Base[')'], Block): pass\n", keys)
    # blocks used, imported or mentioned, but no class deriving from one
    assert not might_hold_hybrid_code("from mxnet.gluon import Block\nnet = nn.HybridSequential()\n", keys)
    assert not might_hold_hybrid_code('class N(object):\n    """A Block."""\n    def f(self, x: Block): pass\n', keys)
    assert list(class_headers("class A(B, (C)) : pass\nclass D(E")) == ["B, (C)", "E"]
