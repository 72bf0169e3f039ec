"""A name that holds a tensor on one path and a Python number on another is neither: a helper it is passed to
does not take it for a tensor because the helper uses it as one under some test.

Written from autogluon 0.0.15 ``searcher/bayesopt/gpmxnet/kernel/exponential_decay.py``
(``ExponentialDecayResourcesKernelFunction``): ``_get_params`` makes ``delta`` a tensor when
``self.encoding_delta`` is set, else ``self.delta_fixed_value``; ``_compute_terms`` compares ``delta > 0.0``
only where ``self.encoding_delta`` is None (after an ``or``, and in an ``elif``), and HY802 reported both.
Measured on MXNet 1.9.1 (``MODULE``; ``x`` = [[1, 2, 3], [4, 5, 6]], weights 0.1): ``Kernel(None)``,
``Kernel(0.5)`` and ``Kernel(0.0)`` give the same output eagerly and hybridized. With ``delta`` a tensor on
both paths (``TENSOR_ON_BOTH``), ``Kernel(0.5)`` fails hybridized at ``delta > 0.0`` (NotImplementedForSymbol:
a Symbol's truth value), and HY802 still says so.
"""
from __future__ import annotations

from hylint.analysis.values import MIXED, PY, Kind, join, tensor
from hylint.check import check_source

MODULE = '''
from mxnet.gluon import nn


class Kernel(nn.HybridBlock):
    def __init__(self, delta_fixed_value=None, **kwargs):
        super().__init__(**kwargs)
        self.delta_fixed_value = delta_fixed_value
        self.encoding_delta = None if delta_fixed_value is not None else "identity"
        with self.name_scope():
            self.scale = nn.Dense(1, in_units=3)

    def _get_params(self, F, x):
        gamma = F.sum(x)
        if self.encoding_delta is not None:
            delta = F.reshape(F.sigmoid(F.sum(self.scale(x))), shape=(1, 1))
        else:
            delta = self.delta_fixed_value
        return gamma, delta

    def _compute_terms(self, F, x, gamma, delta):
        pref = F.reshape(gamma, shape=(1, 1))
        if (self.encoding_delta is not None) or delta > 0.0:
            mean = F.mean(x, axis=1, keepdims=True)
        else:
            mean = None
        if self.encoding_delta is not None:
            pref = F.broadcast_sub(pref, F.broadcast_mul(delta, mean))
        elif delta > 0.0:
            pref = F.broadcast_sub(pref, mean * delta)
        return pref

    def hybrid_forward(self, F, x):
        gamma, delta = self._get_params(F, x)
        return F.broadcast_add(x, self._compute_terms(F, x, gamma, delta))
'''
TENSOR_ON_BOTH = MODULE.replace("delta = self.delta_fixed_value", "delta = F.ones((1, 1)) * self.delta_fixed_value")
OR_ROW, ELIF_ROW = 23, 29  # (MODULE starts with an empty line)


def codes(text):
    return [(d.code, d.start[0]) for d in check_source(text, "model.py")]


def test_a_tensor_joined_with_a_number_is_mixed():
    assert join(tensor(), PY) == MIXED and join(PY, tensor()) == MIXED
    assert join(MIXED, PY) == MIXED and join(tensor(), MIXED) == MIXED
    assert join(tensor(), PY).kind is Kind.UNKNOWN


def test_a_value_tied_to_a_configuration_is_not_reported():
    assert codes(MODULE) == []


def test_a_tensor_on_both_paths_still_is():
    assert TENSOR_ON_BOTH != MODULE
    assert codes(TENSOR_ON_BOTH) == [("HY802", OR_ROW), ("HY802", ELIF_ROW)]
