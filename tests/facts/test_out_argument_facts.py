"""hylint/facts/operators.py's `out=` facts on MXNet 1.9.1: which operators refuse `out=` in mx.nd and in
mx.sym (HY502 says what `F.<op>(..., out=y)` does for each)."""
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint.facts.operators import OUT_REFUSED_BY_BOTH, OUT_REFUSED_BY_ND_ONLY  # noqa: E402

NAMESPACES = ("top", "contrib", "random", "linalg", "image")


def _refuses(function) -> bool:
    parameters = inspect.signature(function).parameters
    return "out" not in parameters and not any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _refusals(mx):
    """(namespace, name) -> (nd refuses, sym refuses) for the callables both namespaces have."""
    found = {}
    for namespace in NAMESPACES:
        nd = mx.nd if namespace == "top" else getattr(mx.nd, namespace)
        sym = mx.sym if namespace == "top" else getattr(mx.sym, namespace)
        for name in sorted(set(dir(nd)) & set(dir(sym))):
            f, g = getattr(nd, name), getattr(sym, name)
            if name.startswith("_") or not (inspect.isfunction(f) and inspect.isfunction(g)):
                continue
            found[(namespace, name)] = (_refuses(f), _refuses(g))
    return found


@pytest.mark.mxnet
def test_out_refusals_match_the_signatures():
    mx = pytest.importorskip("mxnet")
    refusals = _refusals(mx)
    assert {key for key, (nd, sym) in refusals.items() if nd and sym} == OUT_REFUSED_BY_BOTH
    assert {key for key, (nd, sym) in refusals.items() if nd and not sym} == OUT_REFUSED_BY_ND_ONLY
    assert not {key for key, (nd, sym) in refusals.items() if sym and not nd}


@pytest.mark.mxnet
def test_out_argument_on_mxnet_calls():
    """The three behaviours, measured by calls: raise in both modes, raise eagerly only, write eagerly and
    be dropped by the Symbol (the Symbol's graph has no input for `out`)."""
    mx = pytest.importorskip("mxnet")
    x, y = mx.sym.var("x"), mx.sym.var("y")
    a, b = mx.nd.ones((2, 3)), mx.nd.zeros((2, 3))
    for namespace in (mx.nd, mx.sym):
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            namespace.maximum(a if namespace is mx.nd else x, 0.5, out=b if namespace is mx.nd else y)
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        mx.nd.histogram(a, bins=3, range=(0, 1), out=b)
    assert mx.sym.histogram(x, bins=3, range=(0, 1), out=y)[0].list_arguments() == ["x"]
    mx.nd.relu(a, out=b)
    assert (b.asnumpy() == 1).all()
    assert mx.sym.relu(x, out=y).list_arguments() == ["x"]
