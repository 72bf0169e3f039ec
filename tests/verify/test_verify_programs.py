"""`hylint verify PATH` on tests/verify/programs/: small programs, each one or two blocks and a `build()` that
constructs them with real arguments, no inputs given. A block that fails hybridized on MXNet is found; one
that hybridizes is never called failing. The labels are written here and measured on MXNet 1.9.1 where it is
installed (each block built as `build()` builds it, called eagerly, then hybridized, on the inputs below)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verifyrun import BACKENDS, as_json, mxnet_available

PROGRAMS = Path(__file__).resolve().parent / "programs"

# block -> whether it hybridizes with outputs equal to its eager ones on MXNet 1.9.1
LABELS = {
    "broadcast.py::Gate": False,  # x * w: a Symbol's * does not broadcast
    "broadcast.py::BroadcastGate": True,
    "encoder_argument.py::Encoder": True,
    "encoder_argument.py::Model": False,  # len(h): the batch size eagerly, 1 hybridized
    "mode_helper.py::Recurrent": True,
    "mode_helper.py::LastStep": False,  # out[:, -1, :] on a Symbol
    "sequence.py::Tagger": True,
    "sequence.py::Positions": False,  # tokens.shape
    "shape_read.py::Features": True,
    "shape_read.py::Classifier": False,  # x.shape
}

# the inputs the labels are measured with (verify finds its own): shapes, or ("int", shape, high)
LABEL_INPUTS = {
    "Gate": [(2, 4, 8, 8)], "BroadcastGate": [(2, 4, 8, 8)], "Encoder": [(2, 5, 6)], "Model": [(2, 5, 6)],
    "Recurrent": [(2, 5, 4)], "LastStep": [(2, 5, 4)], "Tagger": [("int", (2, 5), 100), ("int", (2,), 6)],
    "Positions": [("int", (2, 5), 100)], "Features": [(2, 3, 8, 8)], "Classifier": [(2, 3, 8, 8)],
}

MEASURE = '''
import importlib, json, sys
import numpy as np
import mxnet as mx

sys.path.insert(0, sys.argv[1])
inputs = json.loads(sys.argv[2])
labels = {}
for target in json.loads(sys.argv[3]):
    module_name, name = target.split(".py::")
    module = importlib.import_module(module_name)
    block = next(b for b in module.build() if type(b).__name__ == name)  # built as build() builds it
    block.initialize()
    rng = np.random.RandomState(0)
    args = [mx.nd.array(rng.randint(1, spec[2], size=spec[1])) if spec[0] == "int"
            else mx.nd.array(rng.uniform(-1, 1, size=spec)) for spec in inputs[name]]
    eager = block(*args).asnumpy()
    block.hybridize()
    try:
        hybrid = block(*args).asnumpy()
        labels[target] = hybrid.shape == eager.shape and bool(np.allclose(hybrid, eager, rtol=1e-4, atol=1e-5))
    except Exception:
        labels[target] = False
print(json.dumps(labels))
'''


@pytest.mark.mxnet
@pytest.mark.skipif(not mxnet_available(), reason="MXNet 1.x is not importable")
def test_the_labels_hold_on_mxnet():
    run = subprocess.run([sys.executable, "-c", MEASURE, str(PROGRAMS), json.dumps(LABEL_INPUTS), json.dumps(
        sorted(LABELS))], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.splitlines()[-1]) == LABELS


def test_every_program_block_is_labelled():
    from hylint.verify.discover import discover

    found = {f"{job.path.name}::{job.name}" for job in discover(PROGRAMS)}
    assert found == set(LABELS)
    for path in PROGRAMS.glob("*.py"):
        text = path.read_text()
        assert "def build():" in text and "EXAMPLES" not in text  # real arguments, no inputs given


@pytest.mark.parametrize("backend", BACKENDS)
def test_verify_finds_each_failing_block_and_calls_no_good_one_failing(project, backend):
    shutil.copytree(PROGRAMS, project / "programs")
    result, data = as_json(["programs", "--no-cache", "-j", "2", "--backend", backend])
    verdicts = {entry["target"].split("/", 1)[1]: entry for entry in data}
    assert set(verdicts) == set(LABELS), result.output
    for target, hybridizes in LABELS.items():
        entry = verdicts[target]
        if hybridizes:
            assert entry["verdict"] == "hybridizes", (target, entry)
        else:
            assert entry["verdict"] == "fails", (target, entry)
    assert result.exit_code == 1
    # the block given as an argument is built as the package's call builds it
    model = verdicts["encoder_argument.py::Model"]
    assert model["kwargs"]["encoder"]["kwargs"] == {"units": 16, "in_units": 6}
    assert verdicts["mode_helper.py::Recurrent"]["kwargs"]["mode"] in ("lstm", "gru")
