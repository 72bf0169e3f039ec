"""MXNet's numpy mode (issue 43's false alarms): under `@use_np`, `npx.set_np()` or on values of `F.np.*` /
`F.npx.*`, slicing and broadcasting are legal hybridized too, and `F.np.split(x, 1)` is a list. The legacy
rules (HY101, HY301) must not fire there, nor offer a fix (a safe `F.slice_axis` fix broke a passing MXNet
unit test, test_numpy_gluon.py). Measured on MXNet 1.9.1 below."""
import pytest

from hylint.lint.engine import Linter
from hylint.selection import select_rules

BODY = ("    def hybrid_forward(self, F, x):\n"
        "        y = x * x.mean(axis=1, keepdims=True)\n"
        "        return y[0] + x[:, 1:3].sum() + F.np.split(x, 1)[0]\n")
DECORATED = ("from mxnet.gluon import nn\nfrom mxnet.util import use_np\n\n\n@use_np\nclass N(nn.HybridBlock):\n"
             + BODY)
SET_NP = ("import mxnet as mx\nfrom mxnet import npx\nfrom mxnet.gluon import nn\n\nnpx.set_np()\n\n\n"
          "class N(nn.HybridBlock):\n" + BODY)
LEGACY = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
          "        y = F.relu(x) * x.mean(axis=1, keepdims=True)\n        return y[0]\n")


def codes(source):
    return sorted(d.code for d in Linter(select_rules()).lint_source(source, "m.py").diagnostics)


@pytest.mark.parametrize("source", [DECORATED, SET_NP], ids=["use_np", "set_np"])
def test_numpy_mode_blocks_are_not_judged_by_the_legacy_rules(source):
    assert codes(source) == []


def test_the_same_code_in_legacy_mode_is_reported():
    assert codes(LEGACY) == ["HY101", "HY301"]


def test_numpy_namespace_results_are_not_legacy_tensors():
    source = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        parts = F.np.split(F.np.array(x), 1)\n        return parts[0]\n")
    assert "HY301" not in codes(source)


def test_a_module_level_set_np_is_kept_when_only_part_of_the_file_is_parsed():
    """regions.py parses only what can matter: `npx.set_np()` at module level must stay in what it keeps."""
    from hylint.lint.regions import reduce_source
    from hylint.rule import known_rule_codes  # noqa: F401 (rules imported by select_rules above)

    padding = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(5))
    reduced = reduce_source(SET_NP.replace("npx.set_np()\n", padding + "npx.set_np()\n"), frozenset())
    assert reduced is not None and "npx.set_np()" in reduced and "helper_3" not in reduced


@pytest.mark.mxnet
def test_numpy_mode_slicing_and_broadcasting_hybridize_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace = {}
    exec(compile(DECORATED, "m.py", "exec"), namespace)
    mx.npx.set_np()
    try:
        block = namespace["N"]()
        x = mx.np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
        eager = block(x).asnumpy()
        block.hybridize()
        hybridized = block(x).asnumpy()
    finally:
        mx.npx.reset_np()
    assert eager.shape == hybridized.shape and abs(eager - hybridized).max() == 0
