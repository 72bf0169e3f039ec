"""False-positive patterns found by reading hylint's diagnostics on real code (CHANGELOG.md, "Precision on
real code"), and their true-positive neighbours, reduced to a few lines each."""
from __future__ import annotations

import pytest

from hylint.lint.engine import Linter
from hylint.selection import select_rules


def codes(source: str):
    return [d.code for d in Linter(select_rules()).lint_source(source, "t.py").diagnostics]


def block(body: str, params: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return f"class N(HybridBlock):\n    def hybrid_forward(self, F, {params}):\n{lines}"


@pytest.mark.parametrize("body", [
    # gluoncv nn/matcher.py: bipartite_matching has two outputs; [0] selects the first, eager and hybridized
    "match = F.contrib.bipartite_matching(x, threshold=0.5)\nreturn match[0]",
    "return F.contrib.MultiBoxTarget(x, x, x)[1]",
    "q, l = F.linalg.gelqf(x)\nreturn F.linalg.gelqf(x)[0] + q",
    "out = F.BatchNorm(x, x, x, x, x, output_mean_var=True)\nreturn out[0]",
])
def test_multi_output_operators_are_not_tensor_subscripts(body):
    assert "HY301" not in codes(block(body))


def test_single_output_operators_still_are():
    assert codes(block("return F.contrib.box_nms(x)[0]")) == ["HY301"]
    assert codes(block("out = F.BatchNorm(x, x, x, x, x)\nreturn out[0]")) == ["HY301"]


def test_parts_of_unpacked_states_are_not_proven_tensors():
    # gluonnlp model/bilm_encoder.py: `states` is [forward states, backward states], each a list
    source = block("fwd, bwd = states\nfor i in range(2):\n    out, fwd[i] = F.contrib.foreach(self.cell, x, fwd[i])\n"
                   "return out, [fwd, bwd]", params="x, states")
    assert "HY301" not in codes(source)


def test_parts_of_a_split_are_still_tensors():
    assert codes(block("a, b = F.split(x, num_outputs=2)\nreturn a[0]")) == ["HY301"]


# HY907: an argument defaulting to None, returned through a name bound once to it
ALIASED_NONE = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=None):\n        s = scale\n"
                "        return x * 2, s\n")


def test_a_none_default_returned_through_an_alias_is_flagged():
    assert codes(ALIASED_NONE) == ["HY907"]
    assert codes(ALIASED_NONE.replace("        return x * 2, s\n", "        return x * scale, s\n")) == []


def test_a_none_default_returned_through_an_alias_fails_hybridized_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace = {"HybridBlock": mx.gluon.HybridBlock}
    exec(compile(ALIASED_NONE, "aliased.py", "exec"), namespace)
    block = namespace["N"]()
    block.initialize()
    x = mx.nd.ones((2, 3))
    assert block(x)[1] is None  # eagerly the None passes through
    block.hybridize()
    with pytest.raises(TypeError, match="Expected a list of symbols as input"):
        block(x)
