"""A guard at the call site carries into the callee: a helper called only under an eager-only test is no
hybrid code, and an object that keeps F on self (``self.F``) passes F to the helpers it calls.

Written from gluonts 0.8.1 ``gaussian_process.py`` (``elif self.jitter_method == "iter" and self.F is
mx.nd: jitter_cholesky(self.F, ...)``). Measured on MXNet 1.9.1 with this module as written (``x`` =
[[1, -2], [3, 4]]): ``Guarded`` runs eagerly and hybridized with equal output; with the guard's
``and self.F is mx.nd`` left out, the hybridized call fails with NotImplementedForSymbol (``strict``
takes a tensor's truth value), and eagerly it runs.
"""
from __future__ import annotations

from hylint.check import check_source

MODULE = '''import mxnet as mx
from mxnet.gluon import nn


def getF(x):
    return mx.nd if isinstance(x, mx.nd.NDArray) else mx.sym


def strict(F, m):
    if F.sum(m < 0) > 0:
        raise ValueError("negative entries")
    return F.sqrt(m)


class Factorizer:
    def __init__(self, x, method="iter", F=None):
        self.F = F if F else getF(x)
        self.method = method

    def factor(self, m):
        if self.method == "iter" and self.F is mx.nd:
            return strict(self.F, m)
        return self.F.sqrt(self.F.abs(m))


class Guarded(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return Factorizer(x, F=F).factor(x * x)
'''
STRICT_TEST_ROW = 10  # `if F.sum(m < 0) > 0:`


def rows(text):
    return [(d.code, d.start[0]) for d in check_source(text, "model.py")]


def test_a_helper_called_under_self_f_is_nd_is_not_reported():
    assert rows(MODULE) == []


def test_without_the_guard_the_helper_receives_f_through_self_f():
    unguarded = MODULE.replace('self.method == "iter" and self.F is mx.nd', 'self.method == "iter"')
    assert unguarded != MODULE
    found = [d for d in check_source(unguarded, "model.py")]
    assert [(d.code, d.start[0]) for d in found] == [("HY802", STRICT_TEST_ROW)]
    assert "Reached from Guarded.hybrid_forward via Factorizer(x, F=F).factor" in found[0].help  # the chain, in the help


def test_a_guard_on_self_f_in_the_method_itself_is_an_eager_region():
    # the eager-only branch's own code: `self.F is mx.nd` tests F as `F is mx.nd` does
    inline = MODULE.replace("return strict(self.F, m)", "return m.asnumpy()")
    assert inline != MODULE
    assert rows(inline) == []
    assert rows(inline.replace(" and self.F is mx.nd", "")) != []
