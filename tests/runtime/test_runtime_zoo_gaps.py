"""What the zoo models needed of the runtime beyond the op table (issue 24): deferred parameters of a
SymbolBlock inferred on the first call, shape attributes written from numpy integers the same on numpy 1 and 2,
and an operator the runtime lacks named in one line (verify ends with exit 2), never a KeyError."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from hylint.runtime import gluon, ndarray as nd, symbol as sym
from hylint.runtime.base import RuntimeUnsupported
from hylint.runtime.ops import stringify

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _feature_block(mx):
    """gluoncv's FeatureExpander in small: a SymbolBlock over a gluon net traced with unknown input channels."""
    body = mx.gluon.nn.HybridSequential(prefix="body_")
    with body.name_scope():
        body.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Activation("relu"))
    data = mx.sym.var("data")
    block = mx.gluon.SymbolBlock(body(data), data, params=body.collect_params())
    block.initialize()
    return block


def _run_feature_block(mx, hybridize):
    mx.random.seed(0)
    block = _feature_block(mx)
    outer = mx.gluon.nn.HybridSequential()
    outer.add(block)
    if hybridize:
        outer.hybridize()
    x = mx.nd.array(np.arange(2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5) / 50)
    out = outer(x)
    shapes = {name: p.shape for name, p in block.collect_params().items()}
    return out.shape, shapes


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_symbol_block_infers_deferred_shapes_on_its_first_call(hybridize):
    from hylint.runtime import _mxnet as runtime
    shape, params = _run_feature_block(runtime, hybridize)
    assert shape == (2, 4, 5, 5) and params["body_conv0_weight"] == (4, 3, 3, 3)


@pytest.mark.mxnet
@pytest.mark.parametrize("hybridize", [False, True])
def test_a_symbol_block_with_deferred_shapes_is_mxnets(hybridize):
    real = pytest.importorskip("mxnet")
    if getattr(real, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    from hylint.runtime import _mxnet as runtime
    assert _run_feature_block(runtime, hybridize) == _run_feature_block(real, hybridize)


@pytest.mark.parametrize("value, text", [
    ((np.int64(3), 4), "(3, 4)"), ([np.int32(1)], "[1]"), ((np.float32(0.1), 2.5), "(0.1, 2.5)"),
    ((np.bool_(True),), "(True,)"), (((np.int64(1), 2), 3), "((1, 2), 3)"), ((3,), "(3,)"), (np.int64(7), "7")])
def test_numpy_scalars_in_attributes_are_written_as_numpy_1_writes_them(value, text):
    assert stringify(value) == text


def test_a_shape_of_numpy_integers_reaches_the_operator():
    x = nd.ones((2, 6))
    assert x.reshape(shape=(np.int64(3), np.int64(4))).shape == (3, 4)
    assert sym.var("v", shape=(np.int64(2), np.int64(6))).infer_shape()[1] == [(2, 6)]


def _quantized_graph(tmp_path):
    graph = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                       {"op": "_contrib_quantize_v2", "name": "quantize0", "attrs": {"out_type": "int8"},
                        "inputs": [[0, 0, 0]]},
                       # MXNet's quantized fully-connected layer (no gluoncv model uses it): not in the table
                       {"op": "_contrib_quantized_fully_connected", "name": "fc0", "attrs": {"num_hidden": "2"},
                        "inputs": [[1, 0, 0]]}],
             "arg_nodes": [0], "node_row_ptr": [0, 1, 4, 7], "heads": [[2, 0, 0]]}
    path = tmp_path / "q-symbol.json"
    path.write_text(json.dumps(graph))
    return path


def test_an_operator_the_runtime_lacks_is_named_not_a_key_error(tmp_path):
    with pytest.raises(RuntimeUnsupported) as caught:
        gluon.SymbolBlock.imports(str(_quantized_graph(tmp_path)), ["data"])
    assert caught.value.name == "the operator _contrib_quantized_fully_connected (in the graph of fc0)"


def test_verify_ends_with_exit_2_and_one_line_on_an_operator_the_runtime_lacks(tmp_path):
    graph = _quantized_graph(tmp_path)
    driver = tmp_path / "quantized.py"
    driver.write_text("import mxnet as mx\n\n\ndef model():\n    return mx.gluon.SymbolBlock.imports(%r, ['data'])\n"
                      % str(graph))
    done = subprocess.run([sys.executable, "-m", "hylint", "verify", "%s::model" % driver, "--input", "1x3",
                           "--backend", "numpy"], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not provide the operator _contrib_quantized_fully_connected" in lines[0], \
        done.stderr


def test_a_removed_numpy_alias_is_said_plainly():
    from hylint.runtime.base import removed_numpy_alias
    error = AttributeError("module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias for the "
                           "builtin `float`.")
    line = removed_numpy_alias(error)
    assert "uses np.float" in line and "needs numpy < 1.24" in line and "\n" not in line
    assert removed_numpy_alias(AttributeError("module 'numpy' has no attribute 'floaty'")) is None
    assert removed_numpy_alias(KeyError("float")) is None


@pytest.mark.parametrize("reach, name", [
    (lambda: nd.contrib.quantized_fully_connected(nd.ones((1, 2))), "mxnet.ndarray.contrib.quantized_fully_connected"),
    (lambda: sym.contrib.quantized_fully_connected(sym.var("x")), "mxnet.symbol.contrib.quantized_fully_connected"),
    (lambda: nd.ROIPooling(nd.ones((1, 1, 2, 2)), nd.ones((1, 5))), "mxnet.ndarray.ROIPooling"),
    (lambda: __import__("hylint.runtime.initializer", fromlist=["x"]).FusedRNN, "mxnet.initializer.FusedRNN"),
])
def test_what_the_runtime_lacks_is_a_named_gap_for_verify(reach, name):
    """The ways a zoo model meets a missing part (an operator function, present by name as MXNet's are, called;
    an initialiser): each is an error verify turns into its one line and exit 2, naming the MXNet part."""
    from hylint.runtime.base import RuntimeUnsupported
    from hylint.verify.backends import runtime_gap
    with pytest.raises((AttributeError, RuntimeUnsupported)) as caught:
        reach()
    assert runtime_gap(caught.value) == name
