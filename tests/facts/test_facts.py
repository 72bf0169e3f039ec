"""hylint/facts/ is the one source of MXNet facts: the analysis and the runtime read the same tables, and each
fact holds on MXNet 1.9.1 (the ``mxnet`` tests, skipped without it)."""
import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint.analysis import layers as analysis_layers, module as analysis_module, ops  # noqa: E402
from hylint.facts import attributes, layers, operators, tensor_methods  # noqa: E402
from hylint.facts.names import mxnet_names  # noqa: E402
from hylint.rules import _binary, _hazards, non_hybrid_child  # noqa: E402
from hylint.runtime import runtime_modules  # noqa: E402

FACTS = ROOT / "hylint" / "facts"


@pytest.fixture(scope="module")
def runtime():
    return runtime_modules()


@pytest.fixture(scope="module")
def mx():
    return pytest.importorskip("mxnet")


# -- facts/ is the bottom layer -----------------------------------------------------------------------

def test_facts_import_nothing_else_of_hylint():
    for path in FACTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert not name.startswith("hylint") or name.startswith("hylint.facts"), f"{path.name}: {name}"
                assert not (isinstance(node, ast.ImportFrom) and node.level), f"{path.name}: relative import"


# -- the linter and the runtime read the same facts ---------------------------------------------------

def test_linter_reads_the_operator_map_of_facts():
    assert _binary.BROADCAST is operators.BROADCAST


def test_runtime_runs_every_broadcast_operator_the_fix_writes(runtime):
    from hylint.runtime.ops import OPS
    assert set(operators.BROADCAST.values()) <= set(OPS)
    nd = runtime["mxnet.nd"]
    for name, key, scalar, reverse in operators.ND_BINARY_FUNCTIONS:
        assert callable(getattr(nd, name)), name
        assert "broadcast_" + key in OPS and scalar in OPS and (reverse is None or reverse in OPS), name


def test_runtime_operators_run_the_broadcast_operator_of_facts(runtime):
    """``a <op> b`` on two runtime NDArrays broadcasts, as the linter's fix ``F.broadcast_*`` does."""
    nd = runtime["mxnet.nd"]
    a, b = nd.array([[1.0], [2.0]]), nd.array([[3.0, 4.0, 5.0]])
    for symbol, op in operators.BROADCAST.items():
        via_operator = eval(f"a {symbol} b", {"a": a, "b": b})
        assert (via_operator.asnumpy() == getattr(nd, op)(a, b).asnumpy()).all(), symbol


def test_fluent_methods_agree(runtime):
    assert ops.TENSOR_METHODS == tensor_methods.FLUENT_METHODS
    NDArray, Symbol = runtime["mxnet.ndarray"].NDArray, runtime["mxnet.symbol"].Symbol
    for name in tensor_methods.FLUENT_METHODS:
        assert callable(getattr(NDArray, name, None)) and callable(getattr(Symbol, name, None)), name


def test_ndarray_only_facts_agree(runtime):
    assert attributes.NDARRAY_PYTHON_VALUES <= attributes.NDARRAY_ONLY_ATTRS
    assert ops.NDARRAY_ONLY_ATTRS == attributes.NDARRAY_ONLY_ATTRS
    assert ops.NDARRAY_ONLY_METHODS == attributes.NDARRAY_ONLY_METHODS
    assert not ops.NDARRAY_ONLY_METHODS & ops.TENSOR_METHODS
    NDArray, Symbol = runtime["mxnet.ndarray"].NDArray, runtime["mxnet.symbol"].Symbol
    for name in attributes.NDARRAY_ONLY_ATTRS:
        assert hasattr(NDArray, name) and not hasattr(Symbol, name), name
    for name in attributes.NDARRAY_ONLY_CALLS:
        assert not hasattr(Symbol, name), name
    for name in attributes.SYMBOL_STUB_METHODS:
        assert hasattr(NDArray, name) and hasattr(Symbol, name), name


def test_layer_facts_are_read_from_facts():
    assert analysis_layers.SINGLE_OUTPUT_LAYERS is layers.SINGLE_OUTPUT_LAYERS
    assert analysis_layers.LAYER_RETURNS_INPUT is layers.LAYER_RETURNS_INPUT
    assert analysis_module.HYBRID_BASE_NAMES is layers.HYBRID_BASE_NAMES
    assert analysis_module.BLOCK_BASE_NAMES is layers.BLOCK_BASE_NAMES
    assert _hazards.HYBRID_LAYERS is layers.HYBRID_LAYERS and _hazards.PLAIN_LAYERS is layers.PLAIN_LAYERS
    assert non_hybrid_child.HYBRID_NAME is layers.HYBRID_NAME


def _gluon_class(module_of, name):
    """The class ``name`` of gluon.nn, gluon.rnn, gluon.contrib.nn or gluon (``module_of(import name)``)."""
    for module in ("mxnet.gluon.nn", "mxnet.gluon.rnn", "mxnet.gluon.contrib.nn", "mxnet.gluon"):
        found = getattr(module_of(module), name, None)
        if isinstance(found, type):
            return found
    return None


def test_runtime_has_every_layer_of_facts(runtime):
    """The runtime's gluon classes are hybrid exactly where the linter's layer facts say so."""
    gluon = runtime["mxnet.gluon"]
    for name in layers.HYBRID_LAYERS | layers.PLAIN_LAYERS | layers.BLOCK_BASE_NAMES:
        cls = _gluon_class(runtime.__getitem__, name)
        if cls is None:
            continue  # measured on MXNet below; the runtime stands in for fewer layers
        assert issubclass(cls, gluon.HybridBlock) == (name in layers.HYBRID_LAYERS), name


def test_mxnet_names_table_is_loaded():
    names = mxnet_names()
    assert "NDArray" in names["mxnet.ndarray"] and "HybridBlock" in names["mxnet.gluon"]


# -- each fact holds on MXNet 1.9.1 -------------------------------------------------------------------

@pytest.mark.mxnet
def test_broadcast_map_on_mxnet(mx):
    a, b = mx.nd.array([[1.0], [2.0]]), mx.nd.array([[3.0, 4.0, 5.0]])
    for symbol, op in operators.BROADCAST.items():
        assert hasattr(mx.sym, op), op
        via_operator = eval(f"a {symbol} b", {"a": a, "b": b})
        assert (via_operator.asnumpy() == getattr(mx.nd, op)(a, b).asnumpy()).all(), symbol


@pytest.mark.mxnet
def test_nd_binary_functions_on_mxnet(mx):
    a, b = mx.nd.array([[1.0], [2.0]]), mx.nd.array([[3.0, 4.0, 5.0]])
    for name, key, scalar, reverse in operators.ND_BINARY_FUNCTIONS:
        function = getattr(mx.nd, name)
        assert not hasattr(mx.sym, name), name  # an mx.nd function only
        assert (function(a, b).asnumpy() == getattr(mx.nd, "broadcast_" + key)(a, b).asnumpy()).all(), name
        assert (function(a, 2.0).asnumpy() == getattr(mx.nd._internal, scalar)(a, scalar=2.0).asnumpy()).all(), name
        if reverse is not None:
            reversed_scalar = getattr(mx.nd._internal, reverse)(a, scalar=2.0)
            assert (function(2.0, a).asnumpy() == reversed_scalar.asnumpy()).all(), name
        else:
            assert (function(2.0, a).asnumpy() == function(a, 2.0).asnumpy()).all(), name


@pytest.mark.mxnet
def test_fluent_methods_on_mxnet(mx):
    for name in tensor_methods.FLUENT_METHODS:
        assert callable(getattr(mx.nd.NDArray, name, None)), name
        assert callable(getattr(mx.sym.Symbol, name, None)), name


@pytest.mark.mxnet
def test_ndarray_only_attributes_on_mxnet(mx):
    x = mx.nd.ones((2, 3))
    for name in attributes.NDARRAY_PYTHON_VALUES:
        assert not isinstance(getattr(x, name), mx.nd.NDArray), name
    for name in attributes.NDARRAY_ONLY_ATTRS:
        assert not inspect.ismethod(getattr(x, name)), name  # a value, read without a call
        assert not hasattr(mx.sym.Symbol, name) and not hasattr(mx.sym.var("x"), name), name
    for name in attributes.NDARRAY_ONLY_CALLS:
        assert callable(getattr(mx.nd.NDArray, name)) and not hasattr(mx.sym.Symbol, name), name
    for name in attributes.NUMPY_ARRAY_METHODS:
        assert hasattr(mx.np.ndarray, name), name
        assert not hasattr(mx.nd.NDArray, name) and not hasattr(mx.sym.Symbol, name), name


@pytest.mark.mxnet
def test_symbol_stub_methods_raise_on_mxnet(mx):
    x = mx.sym.var("x")
    for name in attributes.SYMBOL_STUB_METHODS:
        assert hasattr(mx.nd.NDArray, name), name
        with pytest.raises(mx.base.NotImplementedForSymbol):
            getattr(x, name)()


@pytest.mark.mxnet
def test_layer_names_on_mxnet(mx):
    gluon = mx.gluon
    for name in layers.HYBRID_LAYERS | layers.HYBRID_BASE_NAMES:
        cls = _gluon_class(importlib.import_module, name)
        assert cls is not None, f"{name}: no such class in MXNet 1.9.1's gluon"
        assert issubclass(cls, gluon.HybridBlock), name
    for name in layers.PLAIN_LAYERS | layers.BLOCK_BASE_NAMES:
        cls = _gluon_class(importlib.import_module, name)
        assert cls is not None, f"{name}: no such class in MXNet 1.9.1's gluon"
        assert issubclass(cls, gluon.Block) and not issubclass(cls, gluon.HybridBlock), name
    for plain, hybrid in layers.HYBRID_NAME.items():
        assert plain in layers.PLAIN_LAYERS | layers.BLOCK_BASE_NAMES and hybrid in layers.HYBRID_LAYERS


@pytest.mark.mxnet
def test_generated_tables_match_mxnet(mx):
    from hylint.facts import mxnet_api
    for name in mxnet_api.NDARRAY_ATTRS_MISSING_ON_SYMBOL:
        assert hasattr(mx.nd.NDArray, name) and not hasattr(mx.sym.Symbol, name), name
    assert mx.__version__ == "1.9.1"
    for module, names in mxnet_names().items():
        if module in ("mxnet", "mxnet.ndarray", "mxnet.symbol", "mxnet.gluon", "mxnet.gluon.nn"):
            actual = {attr for attr in dir(importlib.import_module(module)) if not attr.startswith("__")}
            assert names == actual, module
