"""A model library that uses a numpy alias removed in numpy 1.24 (gluoncv's ``np.float``, met on numpy 2):
verify says so in one line and exits 2, on either backend, instead of calling the block broken (issue 24)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

# what numpy >= 1.24 raises for np.float, raised by hand so that the test runs on numpy 1.23 too
BLOCK = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def __init__(self, **kw):\n"
         "        super().__init__(**kw)\n"
         "        raise AttributeError(\"module 'numpy' has no attribute 'float'.\\n`np.float` was a deprecated \"\n"
         "                             \"alias for the builtin `float`.\")\n\n"
         "    def hybrid_forward(self, F, x):\n        return x\n")


@pytest.mark.parametrize("backend", ["numpy", "mxnet"])
def test_a_library_needing_old_numpy_is_one_line_and_exit_2(tmp_path, backend):
    if backend == "mxnet":
        pytest.importorskip("mxnet")
    (tmp_path / "m.py").write_text(BLOCK)
    run = subprocess.run([sys.executable, "-m", "hylint", "verify", "m.py::N", "--input", "2x3", "--backend", backend],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith("hylint: error: the model's own library uses np.float, which numpy ")
    assert "needs numpy < 1.24" in run.stderr and "(used at " in run.stderr and "m.py:7)" in run.stderr


def test_the_json_report_of_the_gate_keeps_going(tmp_path):
    """In the JSON output the stop is still exit 2 (no report of a verdict: nothing ran)."""
    (tmp_path / "m.py").write_text(BLOCK)
    run = subprocess.run([sys.executable, "-m", "hylint", "verify", "m.py::N", "--input", "2x3", "--output-format",
                          "json"], cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and "needs numpy < 1.24" in run.stderr
    assert run.stdout.strip() in ("", "[]") or all(r.get("exit_code") == 2 for r in json.loads(run.stdout))
