"""``F.array(<literal>)`` has the literal's shape, as ``nd.array(<literal>)``: ``F.array([0.])`` is (1,).

Written from gluonfr 1.0.2 ``loss.py`` (``RangeLoss._intra_class_loss``: ``intra_class_loss = F.array([0.])``,
then ``intra_class_loss + harmonic_mean`` with a full ``F.sum``), where HY101 said the shapes differ at the
sum and again where ``hybrid_forward`` adds the result to a full ``F.min``. Measured on MXNet 1.9.1
(``MODULE``, ``x`` of shape (4, 3)): eagerly every operand is (1,) and the output (1,); hybridized the block
fails at ``F.array`` (mxnet.symbol has none: HY402). The HY101 came from the package's reach (a module of a
package), so the tests write one.
"""
from __future__ import annotations

from hylint.check import check_source

MODULE = '''from mxnet.gluon import nn


class Accumulated(nn.HybridBlock):
    def _total(self, F, x):
        total = F.array([0.])
        for i in range(2):
            rows = x[i * 2:(i + 1) * 2, :]
            top = F.topk(F.reshape(rows, (-1,)), k=2, ret_typ='value')
            total = total + 2 / F.sum(1 / (top + 1e-8))
        return total

    def hybrid_forward(self, F, x):
        return 0.5 * F.maximum(1.0 - F.min(x), 0) + 2.0 * self._total(F, x)
'''
ARRAY_ROW = 6
ROWS_ROW = 8  # `x[i * 2:(i + 1) * 2, :]`: a tuple index of a Symbol (HY301), true


def codes(text, folder):
    """The diagnostics of ``text`` as a module of a package (the reach of the package reads the helper)."""
    package = folder / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    module = package / "loss.py"
    module.write_text(text)
    return [(d.code, d.start[0]) for d in check_source(text, str(module))]


def test_a_one_element_literal_meets_full_reductions_without_hy101(tmp_path):
    assert codes(MODULE, tmp_path) == [("HY402", ARRAY_ROW), ("HY301", ROWS_ROW)]


def test_a_literal_of_another_shape_still_differs(tmp_path):
    wider = MODULE.replace("F.array([0.])", "F.array([[0., 0.]])")
    assert wider != MODULE
    assert sorted(code for code, _ in codes(wider, tmp_path)) == ["HY101", "HY101", "HY301", "HY402"]
