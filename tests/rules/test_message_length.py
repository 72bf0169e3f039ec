"""Messages are short (issue 44): a diagnostic's message says what is wrong and names the code in at most
120 characters; the longer explanation (why, what to write instead, how the trace gets there) is its help,
shown by the full format and the editor's hover. Checked on every rule's INVALID examples and every fixture;
benchmarks/message_length.py measures the same on the zoo libraries."""
import pytest

from examples import invalid_sources
from hylint.lint.engine import Linter
from hylint.selection import select_rules

LIMIT = 120


@pytest.mark.parametrize("code, source", list(invalid_sources()))
def test_every_message_is_at_most_120_characters(code, source):
    found = Linter(select_rules(extend_select=[code], named_retired=True)).lint_source(source, "example.py").diagnostics
    assert found, "an INVALID example or fixture reports something"
    assert [d.message for d in found if len(d.message) > LIMIT] == []


def test_the_explanation_a_message_leaves_out_is_its_help():
    source = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        return x * F.ones(x.shape, dtype=x.dtype)\n")
    found = Linter(select_rules(select=["HY201"])).lint_source(source, "t.py").diagnostics
    dtype = next(d for d in found if d.message.startswith("`x.dtype`"))
    assert len(dtype.message) <= LIMIT and "AttributeError" not in dtype.message and dtype.fix is None
    assert "AttributeError ('Symbol' object has no attribute 'dtype')" in dtype.help
    assert "Write instead: the `_like` operators (`F.zeros_like(x)`" in dtype.help
