"""`hylint verify` keeps its promises to a gate (issue 23, item 3), each case as the issue found it:
MXNet's own model zoo as a target, a plain gluon.Block, a FIXED block in the [[tool.hylint.verify]] gate,
and a failing constructor. Each verdict test runs on the runtime and on real MXNet."""
import sys

import pytest

from verifyrun import BACKENDS, CLEAN, as_json, verify, write

BROKEN_SHAPE_LINE = 6  # test_verify.BROKEN_SHAPE: `h = x.reshape((x.shape[0], -1))`, fixed by HY201
BROKEN_SHAPE = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                "        h = x.reshape((x.shape[0], -1))\n        return h * 2\n")


# ---------------------------------------------------------------------------------------------
# `hylint verify mxnet.gluon.model_zoo.vision:resnet18_v1 --input 1x3x224x224`


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_mxnet_model_zoo_target(project, backend):
    """Without MXNet it failed with "no module named 'mxnet'" (the runtime ships the zoo); with MXNet with
    "returned a ResNetV1, not a gluon Block": the mxnet package was imported a second time."""
    before = sys.modules.get("mxnet")
    result, [report] = as_json(["mxnet.gluon.model_zoo.vision:resnet18_v1", "--input", "1x3x224x224",
                                "--backend", backend])
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "hybridizes"
    assert report["eager"]["shapes"] == [[1, 1000]] and report["hybridized"]["status"] == "ok"
    assert "mxnet.gluon.model_zoo.vision is part of MXNet: nothing to fix" in report["notes"]
    assert report["fixes"] == [] and report["file"] is None  # MXNet's code is never fixed
    assert sys.modules.get("mxnet") is before  # the backend's package is neither replaced nor dropped


# ---------------------------------------------------------------------------------------------
# a plain gluon.Block


PLAIN = ("from mxnet.gluon import nn\n\n\nclass N(nn.Block):\n    def __init__(self, **kw):\n"
         "        super().__init__(**kw)\n        with self.name_scope():\n            self.fc = nn.Dense(3)\n\n"
         "    def forward(self, x):\n        return self.fc(x) * 2\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_block_is_not_called_hybridizes(project, backend):
    write(project, "m.py", PLAIN)
    result, [report] = as_json(["m.py::N", "--input", "2x4", "--backend", backend])
    assert report["verdict"] == "not-hybrid" and result.exit_code == 1
    assert any("N is a plain gluon.Block, not a HybridBlock" in note for note in report["notes"])
    text = verify(["m.py::N", "--input", "2x4", "--backend", backend]).stdout
    assert "NOT-HYBRID: a plain gluon.Block, not a HybridBlock: hybridize() does not trace it" in text
    assert "HYBRIDIZES" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_block_with_a_broken_hybrid_child_is_judged_by_the_child(project, backend):
    """hybridize() on a Block hybridizes its HybridBlock children: their failures and fixes still count."""
    write(project, "m.py", BROKEN_SHAPE + "\n\nclass Outer(nn.Block):\n    def __init__(self, **kw):\n"
                           "        super().__init__(**kw)\n        with self.name_scope():\n"
                           "            self.inner = N()\n\n    def forward(self, x):\n        return self.inner(x)\n")
    result, [report] = as_json(["m.py::Outer", "--input", "2x3x4", "--backend", backend])
    assert report["hybridized"]["status"] == "error"
    assert report["hybridized"]["location"]["line"] == BROKEN_SHAPE_LINE
    assert report["verdict"] == "fixed" and result.exit_code == 0
    assert any("Outer is a plain gluon.Block" in note for note in report["notes"])


# ---------------------------------------------------------------------------------------------
# the [[tool.hylint.verify]] gate: a block that hybridizes only after a fix fails it


GATE = '[tool.hylint]\n\n[[tool.hylint.verify]]\ntarget = "m.py::N"\ninputs = ["2x3x4"]\n'


@pytest.mark.parametrize("backend", BACKENDS)
def test_gate_fails_on_a_block_that_needs_a_fix(project, backend):
    write(project, "m.py", BROKEN_SHAPE)
    write(project, "pyproject.toml", GATE + f'backend = "{backend}"\n')
    result, [report] = as_json([])
    assert report["verdict"] == "fixed" and report["exit_code"] == 1 and result.exit_code == 1
    assert report["gate_failure"] == (
        f"fails: the gate needs the block to hybridize as committed, and it does only with the fixes "
        f"HY201 line {BROKEN_SHAPE_LINE}; `hylint verify --fix` writes them")
    text = verify([]).stdout
    assert f"  gate        {report['gate_failure']}\n" in text
    # the same block as a TARGET on the command line: FIXED exits 0 (hylint can fix it), as documented
    result, [report] = as_json(["m.py::N", "--input", "2x3x4", "--backend", backend])
    assert report["verdict"] == "fixed" and result.exit_code == 0 and "gate_failure" not in report
    # --fix writes the fix: the gate passes in that run and on the fixed file
    result = verify(["--fix"])
    assert result.exit_code == 0, result.output
    assert "  gate  " not in result.stdout and "; written" in result.stdout
    result, [report] = as_json([])
    assert report["verdict"] == "hybridizes" and result.exit_code == 0 and report["gate_failure"] is None


def test_gate_names_the_evidence_fix_and_verify_fix_writes_it(project):
    """HY102 is retired (`hylint check` never makes its fix), but a hybridized run that fails at the operator
    proves its broadcast fix needed: the gate names it, and `hylint verify --fix` writes it."""
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def hybrid_forward(self, F, x, y):\n        z = F.relu(x)\n        return z + y\n")
    write(project, "pyproject.toml", '[tool.hylint]\n\n[[tool.hylint.verify]]\ntarget = "m.py::N"\n'
                                     'inputs = ["2x3", "1x3"]\n')
    result, [report] = as_json([])
    assert report["verdict"] == "fixed" and result.exit_code == 1
    assert report["gate_failure"].endswith("HY102 line 7; `hylint verify --fix` writes them")
    result = verify(["--fix"])
    assert result.exit_code == 0, result.output
    assert "return F.broadcast_add(z, y)" in (project / "m.py").read_text()
    result, [report] = as_json([])
    assert report["verdict"] == "hybridizes" and result.exit_code == 0 and report["gate_failure"] is None


def test_gate_passes_blocks_that_hybridize_as_committed(project):
    write(project, "m.py", CLEAN)
    write(project, "pyproject.toml", GATE.replace("2x3x4", "2x3"))
    result, [report] = as_json([])
    assert report["verdict"] == "hybridizes" and result.exit_code == 0 and report["gate_failure"] is None


# ---------------------------------------------------------------------------------------------
# a constructor that fails: exit 2, as README's exit codes say


FAILING_INIT = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def __init__(self, **kw):\n"
                "        super().__init__(**kw)\n        raise ValueError('no such layer size')\n\n"
                "    def hybrid_forward(self, F, x):\n        return x\n\n\n"
                "def make():\n    return N()\n")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["N", "make"])
def test_failing_constructor_exits_2(project, backend, name):
    write(project, "m.py", FAILING_INIT)
    result, [report] = as_json([f"m.py::{name}", "--input", "2x3", "--backend", backend])
    assert result.exit_code == 2 and report["exit_code"] == 2
    assert report["verdict"] == "eager-error" and report["eager"]["phase"] == "construct"
    assert report["eager"]["message"] == "constructing: no such layer size"
    assert report["eager"]["location"]["line"] == 7
    # in the gate too: the worst code
    write(project, "pyproject.toml", GATE.replace("2x3x4", "2x3").replace("m.py::N", f"m.py::{name}"))
    assert verify([]).exit_code == 2


def test_eager_failure_still_exits_1(project):
    write(project, "m.py", CLEAN)
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--input", "2x3"])  # one input too many
    assert report["verdict"] == "eager-error" and report["eager"]["phase"] == "eager" and result.exit_code == 1


# ---------------------------------------------------------------------------------------------
# a slow BLAS kernel is said, on the runtime only (hylint/runtime/blas.py decides when)


@pytest.mark.parametrize("note", ["numpy's OpenBLAS 0.3.20 runs its generic Prescott kernel", None])
def test_a_slow_blas_kernel_is_a_note_on_the_runtime(project, monkeypatch, note):
    from hylint.runtime import blas

    monkeypatch.setattr(blas, "slow_blas_note", lambda: note)
    write(project, "m.py", CLEAN)
    result, [report] = as_json(["m.py::N", "--input", "2x3"])
    assert result.exit_code == 0, result.output
    assert (note in report["notes"]) if note else not any("OpenBLAS" in n for n in report["notes"])
