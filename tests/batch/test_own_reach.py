"""Sources that are modules of their own get the reach of their own text: a notebook, stdin without a
name or naming a lone module (an editor's unsaved buffer), and ``check_source``/``fix_source``.

The model is one of issue 22's patterns written in one file: an object built in the trace keeps the tensor
and reads ``.shape`` in a method (HY201 there, on MXNet 1.9.1 `AttributeError: 'Symbol' object has no
attribute 'shape'` once hybridized). Before, only a ``.py`` file on disk got it.
"""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hylint.batch.reach import reach_of_text
from hylint.check import check_source, fix_source
from hylint.cli import main

CELLS = [
    "from mxnet.gluon import nn",
    "class Distr:\n    def __init__(self, F, p):\n        self.F = F\n        self.p = p\n\n"
    "    def size(self):\n        return self.p.shape[-1]",
    "class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        d = Distr(F, x)\n"
    "        return x.reshape((-1, d.size()))",
]
MODULE = "\n\n\n".join(CELLS) + "\n"
SHAPE_ROW = 10  # `return self.p.shape[-1]` in MODULE


def notebook(cells) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": cell, "outputs": [],
                                  "execution_count": None} for cell in cells],
                       "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})


def run(args, stdin=None):
    return CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", *args], input=stdin)


def codes_rows(result):
    return [(d["code"], d["location"]["row"]) for d in json.loads(result.output)]


def test_the_text_alone_gives_the_reach():
    plain = reach_of_text(MODULE)
    assert plain and [entry[0] for entry in plain] == ["Distr.__init__", "Distr.size"]  # built in the trace
    assert [entry[4] for entry in plain] == ["reached from Net.hybrid_forward via Distr",
                                             "reached from Net.hybrid_forward via d.size"]  # the chains
    assert reach_of_text(MODULE.replace("hybrid_forward", "forward")) is None


def test_a_notebook_gets_the_reach_of_its_cells(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("model.ipynb").write_text(notebook(CELLS))
    result = run(["model.ipynb"])
    found = json.loads(result.output)
    assert [(d["code"], d["cell"], d["location"]["row"]) for d in found] == [("HY201", 2, 7)], result.output
    assert "Reached from Net.hybrid_forward via d.size" in found[0]["help"]
    Path("model.py").write_text(MODULE)  # the same code as a lone module on disk: the same diagnostic
    assert codes_rows(run(["model.py"])) == [("HY201", SHAPE_ROW)]


def test_stdin_without_a_name_and_a_lone_module_use_the_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert codes_rows(run(["-"], MODULE)) == [("HY201", SHAPE_ROW)]
    # a lone module named on stdin: the buffer, not the file as saved, decides (here the file has no hazard)
    Path("model.py").write_text(MODULE.replace("self.p.shape[-1]", "1"))
    assert codes_rows(run(["--stdin-filename", "model.py", "-"], MODULE)) == [("HY201", SHAPE_ROW)]
    assert codes_rows(run(["model.py"])) == []


def test_check_source_and_fix_source(tmp_path):
    found = check_source(MODULE, str(tmp_path / "model.py"))
    assert [(d.code, d.start[0]) for d in found] == [("HY201", SHAPE_ROW)]
    assert "via d.size" in found[0].help
    fixed = fix_source(MODULE, str(tmp_path / "model.py"))
    assert fixed.source == MODULE and [d.code for d in fixed.diagnostics] == ["HY201"]


def test_a_module_of_a_package_reads_the_package_with_its_own_text(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODULE.replace("d.size()", "1"))
    # check_source of a package module: the package's other files as saved and the text given as that module
    # decide what is reached (here `size`, which only the text calls), as for stdin named as a module of a
    # package and the language server (issue 44: before, the file as saved decided, and `size` was missed)
    assert [(d.code, d.start[0]) for d in check_source(MODULE, str(package / "model.py"))] == [("HY201", SHAPE_ROW)]
    (package / "model.py").write_text(MODULE)  # saved: what `hylint check` reports on the file
    assert [(d["code"], d["location"]["row"]) for d in json.loads(run([str(package / "model.py")]).stdout)] == \
        [("HY201", SHAPE_ROW)]
    assert check_source(MODULE.replace("d.size()", "1"), str(package / "model.py")) == []  # and the other way
    assert [d.code for d in check_source(MODULE, str(tmp_path / "model.py"))] == ["HY201"]  # a lone module
