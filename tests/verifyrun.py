"""`hylint verify` in this process (click's CliRunner), for the verify tests and the runtime tests that
compare saved outputs; the backends a verdict test runs on. The `project` fixture is in conftest.py."""
from __future__ import annotations

import json
import sys

import pytest

from clirun import runner

HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
CLEAN = HEAD + "        return F.relu(x) * 2 + x\n"


def verify(args):
    from hylint.cli import main

    return runner().invoke(main, ["verify"] + args, catch_exceptions=False)


def as_json(args):
    result = verify(args + ["--output-format", "json"])
    return result, json.loads(result.stdout)


def write(project, name, text):
    (project / name).write_text(text)
    return name


def mxnet_available():
    try:
        import mxnet  # noqa: F401
    except Exception:
        return False
    return not getattr(sys.modules.get("mxnet"), "__hylint_runtime__", False)


BACKENDS = ["numpy", pytest.param("mxnet", marks=[pytest.mark.mxnet, pytest.mark.skipif(
    not mxnet_available(), reason="MXNet 1.x is not importable")])]
