"""A mode guard spelled with the module's own name for mxnet: ``import mxnet as _mx`` then ``if F == _mx.sym:``.

Written from turicreate 5.4 ``object_detector/_mx_detector.py`` (``YOLOLoss.hybrid_forward``: ``if F ==
_mx.sym: ... else: mx_anchors = F.array(anchors)``), where HY402 reported the eager-only ``F.array``.
Measured on MXNet 1.9.1 (``MODULE`` below, ``x`` of shape (2, 3)): ``Shifted`` gives the same output eagerly
and hybridized; the trace takes the first branch, so the ``F.array`` of the second never meets a Symbol.
"""
from __future__ import annotations

import ast

import libcst as cst
import pytest

from hylint.analysis.guards import guard_mode
from hylint.analysis.reach.guards import _compare_mode
from hylint.check import check_source
from hylint.facts.names import namespace_mode
from hylint.syntax.imports import mxnet_aliases

MODULE = '''import mxnet as _mx
from mxnet import symbol as S
from mxnet.gluon import nn


class Shifted(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if F is not _mx.nd:
            anchors = F.ones_like(F.slice_axis(x, axis=0, begin=0, end=1))
        else:
            anchors = F.array([[1.0, 1.0, 1.0]])
        return F.broadcast_add(x, anchors)
'''
ELSE_ROW = 11  # `anchors = F.array(...)`


def codes(text):
    return [(d.code, d.start[0]) for d in check_source(text, "model.py")]


def test_the_aliases_of_a_module():
    module = cst.parse_module("import mxnet as _mx\nimport mxnet\nimport mxnet.ndarray as nd_\n"
                              "from mxnet import symbol as S, gluon\nimport numpy as sym\n")
    assert mxnet_aliases(module) == {"_mx": "mxnet", "nd_": "mxnet.ndarray", "S": "mxnet.symbol",
                                     "gluon": "mxnet.gluon"}


@pytest.mark.parametrize("text, mode", [("_mx.sym", "sym"), ("_mx.symbol", "sym"), ("_mx.nd", "nd"), ("S", "sym"),
                                        ("nd_", "nd"), ("mx.sym", "sym"), ("sym", "sym"), ("_mx.gluon", None),
                                        ("other.sym", None), (None, None)])
def test_namespace_mode_reads_the_aliases(text, mode):
    assert namespace_mode(text, {"_mx": "mxnet", "S": "mxnet.symbol", "nd_": "mxnet.ndarray"}) == mode


def test_guard_mode_with_an_alias_of_mxnet():
    aliases = {"_mx": "mxnet"}
    for test, mode in (("F == _mx.sym", "sym"), ("F is not _mx.sym", "nd"), ("_mx.nd is F", "nd"),
                       ("not F == _mx.symbol", "nd")):
        expression = cst.parse_expression(test)
        assert guard_mode(expression, "F", aliases=aliases) == mode, test
        assert guard_mode(expression, "F") is None, test  # without the module's names: no guard
        tree = ast.parse(test, mode="eval").body
        if isinstance(tree, ast.Compare):
            holds_f = lambda node: isinstance(node, ast.Name) and node.id == "F"  # noqa: E731
            assert _compare_mode(tree, holds_f, aliases) == mode, test
            assert _compare_mode(tree, holds_f) is None, test


def test_an_eager_only_branch_under_an_aliased_guard_is_not_reported():
    assert codes(MODULE) == []


def test_the_same_branch_unguarded_is_reported():
    unguarded = MODULE.replace("if F is not _mx.nd:", "if False:")
    assert unguarded != MODULE
    assert codes(unguarded) == [("HY402", ELSE_ROW)]


def test_a_name_that_is_not_mxnet_is_no_guard():
    other = MODULE.replace("import mxnet as _mx", "import mxnet as mx\nimport numpy as _mx")
    assert ("HY402", ELSE_ROW + 1) in codes(other)


def test_a_reduced_parse_keeps_the_aliasing_import_for_every_rule():
    from hylint.lint.regions import reduce_source
    reduced = reduce_source(MODULE, frozenset())  # a selection no rule of which reads mxnet-imports
    assert reduced is not None and "import mxnet as _mx" in reduced and "import symbol as S" not in reduced
    spelled = MODULE.replace("import mxnet as _mx", "import mxnet as mx").replace("_mx.nd", "mx.nd")
    assert "import mxnet as mx" not in reduce_source(spelled, frozenset())  # the guard reads `mx` by spelling


def test_a_test_against_the_submodule_nd_ndarray_is_never_true_and_its_negation_always():
    """``F is nd.ndarray``: F is ``mxnet.ndarray`` eagerly and ``mxnet.symbol`` traced, never the submodule
    ``mxnet.ndarray.ndarray`` (measured on MXNet 1.9.1), so the branch never runs and is read as eager-only
    (kept out of traced code); ``F is not nd.ndarray`` is true in both modes, so it is no guard at all."""
    holds_f = lambda node: isinstance(node, ast.Name) and node.id == "F"  # noqa: E731
    for test, mode in (("F is nd.ndarray", "nd"), ("F is not nd.ndarray", None), ("F != mx.nd.ndarray", None),
                       ("F is not _mx.nd.ndarray", None), ("F is not nd", "sym")):
        assert guard_mode(cst.parse_expression(test), "F", aliases={"_mx": "mxnet"}) == mode, test
        assert _compare_mode(ast.parse(test, mode="eval").body, holds_f, {"_mx": "mxnet"}) == mode, test
