"""`hylint verify` keeps its promises to a gate (issue 23, item 3), each case as the issue found it:
MXNet's own model zoo as a target, a plain gluon.Block, a FIXED block in the [[tool.hylint.verify]] gate,
and a failing constructor. Each verdict test runs on the runtime and on real MXNet."""
import sys

import pytest

from test_verify import as_json, project  # noqa: F401 (project: a fixture)
from test_verify_targets import BACKENDS


# ---------------------------------------------------------------------------------------------
# `hylint verify mxnet.gluon.model_zoo.vision:resnet18_v1 --input 1x3x224x224`


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
