"""What HY502 says `F.<op>(..., out=y)` does, per operator (measured on MXNet 1.9.1, issue 43 D; the facts:
tests/facts/test_out_argument_facts.py)."""
from __future__ import annotations

from hylint.lint.engine import Linter
from hylint.selection import select_rules

HEAD = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        y = F.zeros_like(x)\n"


def message(call: str) -> str:
    source = HEAD + f"        {call}\n        return y\n"
    [diagnostic] = Linter(select_rules(select=["HY502"])).lint_source(source, "t.py").diagnostics
    return f"{diagnostic.message} {diagnostic.help}"  # what happens is the help's, the longer explanation


def test_an_operator_without_out_raises_in_both_modes():
    for call in ("F.maximum(x, 0.5, out=y)", "F.power(x, 2, out=y)", "F.contrib.while_loop(c, f, [x], out=y)"):
        text = message(call)
        assert "raises TypeError" in text and "eagerly and after hybridize()" in text
        assert "silently keeps" not in text


def test_histogram_raises_eagerly_and_is_ignored_hybridized():
    text = message("F.histogram(x, bins=3, range=(0, 1), out=y)")
    assert "raises TypeError" in text and "eagerly; after hybridize() the Symbol operator ignores `out=`" in text


def test_other_operators_write_eagerly_and_are_ignored_hybridized():
    text = message("F.relu(x, out=y)")
    assert "written into `y`" in text and "silently keeps its old value" in text and "TypeError" not in text
    text = message("F.random.uniform(0, 1, shape=(2, 3), out=y)")
    assert "written into `y`" in text
