"""``net.initialize(mx.init.Xavier(), force_reinit=True)`` on every labelled gluoncv model: the runtime initialises
each parameter name pattern found in the zoo as MXNet 1.9.1 does (zoo_init_patterns.json, written on MXNet by
zoo_init_patterns.py: each pattern's end of name, ``init``, number of dimensions and dtype, the models it occurs
in and MXNet's outcome). MXNet's outcome per pattern decides its outcome per model: every model whose patterns
all initialise on MXNet must initialise on the runtime, and a pattern MXNet refuses must be refused the same way.
Against the recorded outcomes always; against MXNet itself where it is installed."""
import json
import os
import types
import warnings

import pytest

from hylint.runtime import gluon
from hylint.runtime import initializer as rt_init

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "zoo_init_patterns.json")) as _file:
    RECORDED = json.load(_file)
PATTERNS = RECORDED["patterns"]


def _runtime_outcome(key):
    """The runtime's outcome of a pattern, as zoo_init_patterns.outcome computes MXNet's."""
    import zoo_init_patterns  # beside this file (the fixture below puts it on sys.path)

    pattern, init, ndim, dtype = json.loads(key)
    return zoo_init_patterns.outcome(types.SimpleNamespace(gluon=gluon, init=rt_init), pattern, init, ndim, dtype)


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    monkeypatch.syspath_prepend(HERE)


def test_the_walk_covers_the_labelled_gluoncv_zoo():
    assert len(RECORDED["models"]) >= 240 and not RECORDED["skipped"] and not RECORDED["unshaped"]
    assert len(PATTERNS) >= 20
    every = {model for entry in PATTERNS.values() for model in entry["models"]}
    assert every == set(RECORDED["models"]) - set(RECORDED["skipped"])
    # the SymbolBlocks (int8 models, pruned ResNets, SSDs on MobileNet) are in the walk, their parameters without an
    # init of their own: Xavier refuses their vectors on MXNet 1.9.1
    assert PATTERNS[json.dumps(["gamma", None, 1, "float32"])]["mxnet"] == ["error", "ValueError"]
    assert "resnet50_v1_int8" in PATTERNS[json.dumps(["gamma", None, 1, "float32"])]["models"]


@pytest.mark.parametrize("key", sorted(PATTERNS))
def test_each_zoo_pattern_initialises_as_recorded_on_mxnet(key):
    assert _runtime_outcome(key) == PATTERNS[key]["mxnet"], (PATTERNS[key]["example"], PATTERNS[key]["models"][:5])


def test_every_model_mxnet_initialises_with_xavier_initialises_on_the_runtime():
    ok_on_mxnet = {model for model in RECORDED["models"] if model not in RECORDED["skipped"]}
    for entry in PATTERNS.values():
        if entry["mxnet"][0] == "error":
            ok_on_mxnet -= set(entry["models"])
    failing_here = {}
    for key, entry in PATTERNS.items():
        if _runtime_outcome(key)[0] == "error":
            for model in set(entry["models"]) & ok_on_mxnet:
                failing_here.setdefault(model, entry["example"])
    assert len(ok_on_mxnet) >= 200
    assert failing_here == {}


@pytest.mark.mxnet
@pytest.mark.parametrize("key", sorted(PATTERNS))
def test_each_zoo_pattern_initialises_as_mxnet_does_now(key):
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    import zoo_init_patterns

    pattern, init, ndim, dtype = json.loads(key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _runtime_outcome(key) == zoo_init_patterns.outcome(real, pattern, init, ndim, dtype)


_INIT_CALL = """
import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[2])
if sys.argv[1] == "runtime":
    from hylint.runtime import activate
    scope = activate()  # kept: a collected scope would end the activation
    mx = scope.__enter__()
else:
    import mxnet as mx
import models
out = {}
for name in sys.argv[3].split(","):
    net, inputs = models.build("gluoncv", name)
    try:
        net.initialize(mx.init.Xavier(), force_reinit=True)
        net(*inputs)
        out[name] = "ok"
    except Exception as err:
        out[name] = type(err).__name__
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.mxnet
def test_real_models_initialise_as_their_patterns_say_on_both_backends():
    """The per-pattern outcomes decide the per-model ones: a SymbolBlock model Xavier refuses on MXNet
    (resnet50_v1_int8, ssd_300_mobilenet0.25_voc) is refused on the runtime; the others initialise on both."""
    import subprocess
    import sys
    pytest.importorskip("mxnet")
    pytest.importorskip("gluoncv")
    names = ["resnet50_v1_int8", "ssd_300_mobilenet0.25_voc", "resnet18_v1b_0.89", "resnet18_v1"]
    zoo = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks", "zoo")
    failing = {model for entry in PATTERNS.values() if entry["mxnet"][0] == "error" for model in entry["models"]}
    expected = {name: "ValueError" if name in failing else "ok" for name in names}
    assert sorted(expected.values()) == ["ValueError", "ValueError", "ok", "ok"]
    for backend in ("mxnet", "runtime"):
        proc = subprocess.run([sys.executable, "-c", _INIT_CALL, backend, zoo, ",".join(names)], capture_output=True,
                              text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(proc.stdout.strip().splitlines()[-1]) == expected, backend
