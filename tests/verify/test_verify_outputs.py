"""`hylint verify --save-outputs`, `--train-mode`, list and whole-number inputs; the same values on the runtime
as on real MXNet (verify seeds parameters by structural name and inputs by position, on both backends)."""
import numpy as np
import pytest

from verifyrun import BACKENDS, as_json, mxnet_available, verify, write

BLOCKS = '''from mxnet import autograd
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(4, 3, padding=1)
            self.norm = nn.BatchNorm()
            self.fc = nn.Dense(5)

    def hybrid_forward(self, F, x):
        return self.fc(F.relu(self.norm(self.conv(x))))


class TrainBranch(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(3)

    def hybrid_forward(self, F, x):
        if autograd.is_training():  # frozen when the graph is traced (in predict mode)
            return self.fc(x) * 2
        return self.fc(x)


class Dropped(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(3)
            self.drop = nn.Dropout(0.5)

    def hybrid_forward(self, F, x):
        return self.drop(self.fc(x))


class Tokens(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(8, 4)

    def hybrid_forward(self, F, tokens, states):
        return self.embed(tokens) + states[0] * states[1]
'''


def _save(backend, target, *inputs, extra=()):
    path = f"{backend}-{target.replace(':', '_')}.npz"
    args = [f"m.py::{target}", "--backend", backend, "--save-outputs", path] + list(extra)
    for text in inputs:
        args += ["--input", text]
    result, [report] = as_json(args)
    with np.load(path) as saved:
        return result, report, {key: saved[key] for key in saved.files}


@pytest.mark.parametrize("backend", BACKENDS)
def test_save_outputs_writes_the_eager_and_hybridized_outputs(project, backend):
    write(project, "m.py", BLOCKS)
    result, report, arrays = _save(backend, "Net", "2x3x6x6")
    assert result.exit_code == 0, result.output
    assert sorted(arrays) == ["eager/0", "hybridized/0"]
    assert arrays["eager/0"].shape == (2, 5) and arrays["eager/0"].dtype == np.float32
    np.testing.assert_allclose(arrays["hybridized/0"], arrays["eager/0"], atol=1e-5, rtol=1e-5)
    assert report["train_mode"] is False and report["train_eager"] is None


@pytest.mark.mxnet
@pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")
@pytest.mark.parametrize("target, inputs", [("Net", ["2x3x6x6"]),
                                            ("Tokens", ["2x5:float32:0..8:int", "[2x5x4, 2x5x4]"])])
def test_runtime_outputs_equal_mxnet_outputs(project, target, inputs):
    """The same parameters and inputs on both backends: the runtime computes MXNet's numbers."""
    write(project, "m.py", BLOCKS)
    _, _, ours = _save("numpy", target, *inputs)
    _, _, theirs = _save("mxnet", target, *inputs)
    assert sorted(ours) == sorted(theirs) == ["eager/0", "hybridized/0"]
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_train_mode_finds_a_branch_frozen_at_trace_time(project, backend):
    write(project, "m.py", BLOCKS)
    result, report, arrays = _save(backend, "TrainBranch", "2x4", extra=["--train-mode"])
    assert result.exit_code == 1, result.output
    assert report["verdict"] == "fails" and report["train_mode"] is True
    assert report["hybridized"]["status"] == "different"
    assert report["hybridized"]["message"].startswith("in train mode (the graph was traced in predict mode)")
    assert report["train_eager"]["status"] == "ok"
    assert sorted(arrays) == ["eager/0", "hybridized/0", "train_eager/0", "train_hybridized/0"]
    np.testing.assert_allclose(arrays["train_eager/0"], 2 * arrays["eager/0"], rtol=1e-6)
    np.testing.assert_allclose(arrays["train_hybridized/0"], arrays["eager/0"], rtol=1e-6)
    # without --train-mode the predict-mode calls agree
    result, [report] = as_json(["m.py::TrainBranch", "--input", "2x4", "--backend", backend])
    assert result.exit_code == 0 and report["verdict"] == "hybridizes"


@pytest.mark.parametrize("backend", BACKENDS)
def test_train_mode_with_dropout_is_not_a_difference(project, backend):
    """Dropout takes its training path eagerly and hybridized: equal draws, or (MXNet) draws that follow the
    seed, which are not compared."""
    write(project, "m.py", BLOCKS)
    result, [report] = as_json(["m.py::Dropped", "--input", "4x6", "--train-mode", "--backend", backend])
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "hybridizes"
    assert report["hybridized"]["shapes"] == [[4, 3]]


def test_list_and_whole_number_inputs(project):
    write(project, "m.py", BLOCKS)
    result, report, arrays = _save("numpy", "Tokens", "2x5:float32:0..8:int", "[2x5x4, 2x5x4]")
    assert result.exit_code == 0, result.output
    assert report["inputs"] == [{"shape": [2, 5], "dtype": "float32", "low": 0, "high": 8, "integers": True},
                                [[2, 5, 4], [2, 5, 4]]]
    assert arrays["eager/0"].shape == (2, 5, 4)
    text = verify(["m.py::Tokens", "--input", "2x5:float32:0..8:int", "--input", "[2x5x4, 2x5x4]"]).stdout
    assert "input 2x5:float32:0..8:int [2x5x4, 2x5x4]" in text


def test_whole_number_floats_are_whole():
    from hylint import verify as v
    from hylint.runtime import activate

    with activate():
        import mxnet as mx
        [tokens] = v.make_inputs(mx, [v.parse_input("3x7:float32:0..8:int")])
    values = tokens.asnumpy()
    assert values.dtype == np.float32 and np.array_equal(values, np.round(values))
    assert values.min() >= 0 and values.max() < 8 and len(np.unique(values)) > 1


@pytest.mark.parametrize("args, message", [
    (["--input", "[2x3"], "a list input is [SPEC, SPEC, ...]"),
    (["--input", "[]"], "a list input is [SPEC, SPEC, ...]"),
    (["--input", "[x=2x3]"], "names go before the list"),
    (["--input", "2x3:float32:0.5..3:int"], "`:int` (whole numbers) needs integer bounds"),
])
def test_bad_list_and_whole_number_inputs_exit_2(project, args, message):
    write(project, "m.py", BLOCKS)
    result = verify(["m.py::Net"] + args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr


def test_save_outputs_needs_a_target_and_a_writable_file(project):
    write(project, "m.py", BLOCKS)
    result = verify(["--save-outputs", "x.npz"])
    assert result.exit_code == 2 and "--save-outputs needs a TARGET" in result.stderr
    result = verify(["m.py::Net", "--input", "2x3x6x6", "--save-outputs", "missing/x.npz"])
    assert result.exit_code == 2 and "--save-outputs missing/x.npz: cannot write it" in result.stderr
    assert "Traceback" not in result.stderr


GAPS = '''import mxnet as mx
from mxnet.gluon import nn


class Decodes(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        mx.image.imdecode(b"")  # the runtime decodes no images
        return x


class Missing(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.contrib.no_such_operator(x)  # MXNet has none either: the user's error, a verdict


class Gap(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.linalg.syevd(x)[0]  # MXNet has it; the runtime does not


class Tests(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if "Proposal" in F.contrib.__dict__:  # MXNet has it: this branch is the one MXNet runs
            return F.contrib.Proposal(x, x, x)
        return x
'''


@pytest.mark.parametrize("name, missing", [("Decodes", "mxnet.image.imdecode"), ("Gap", "mxnet.ndarray.linalg.syevd"),
                                           ("Tests", "mxnet.ndarray.contrib.Proposal")])
def test_a_part_the_runtime_lacks_is_named_with_exit_2(project, name, missing):
    write(project, "m.py", GAPS)
    result = verify([f"m.py::{name}", "--input", "2x3"])
    assert result.exit_code == 2, result.output
    assert f"hylint's NumPy runtime does not provide {missing} (used at m.py:" in result.stderr
    assert "run verify with --backend mxnet" in result.stderr and "Traceback" not in result.stderr


def test_a_name_mxnet_lacks_too_is_a_verdict(project):
    write(project, "m.py", GAPS)
    result = verify(["m.py::Missing", "--input", "2x3"])
    assert result.exit_code == 1, result.output
    assert "AttributeError: module 'mxnet.ndarray.contrib' has no attribute 'no_such_operator'" in result.stdout
