"""`hylint verify`: eager vs hybridized on the reference runtime, error lines, fixes proven in memory,
the HY102 evidence loop, usage errors (exit 2), the [[tool.hylint.verify]] gate."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import runner
from hylint.cli import main
from verifyrun import CLEAN, HEAD, as_json, verify, write

ROOT = Path(__file__).resolve().parents[2]
BROKEN_SHAPE = HEAD + "        h = x.reshape((x.shape[0], -1))\n        return h * 2\n"          # line 6: trace error
BROKEN_MEAN = HEAD + "        y = x * 3\n        return y - y.mean(axis=1, keepdims=True)\n"  # line 7: graph error
SILENT = HEAD + "        h = F.relu(x)\n        return h[0] * 2\n"                             # silently different
NO_FIX = HEAD + "        return F.array(x.asnumpy())\n"                                         # no fix: fails
TWO_INPUTS = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
              "    def hybrid_forward(self, F, x, y):\n        z = F.relu(x)\n        return z + y\n")  # only HY102


# ---------------------------------------------------------------------------------------------
# verdicts


def test_trace_error_located_and_fixed(project):
    write(project, "m.py", BROKEN_SHAPE)
    result, [report] = as_json(["m.py::N", "--input", "2x3x4"])
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "fixed"
    assert report["eager"]["status"] == "ok" and report["eager"]["shapes"] == [[2, 12]]
    hybrid = report["hybridized"]
    assert (hybrid["status"], hybrid["error_type"], hybrid["phase"]) == ("error", "AttributeError", "trace")
    assert hybrid["location"] == {"file": "m.py", "line": 6, "code": "h = x.reshape((x.shape[0], -1))"}
    assert [(f["code"], f["line"], f["evidence"]) for f in report["fixes"]] == [("HY201", 6, False)]
    assert report["fixed"]["status"] == "ok" and report["fixed"]["max_abs_diff"] == 0.0
    assert report["fixed"]["shapes"] == [[2, 12]]
    assert report["written"] is False
    assert (project / "m.py").read_text() == BROKEN_SHAPE  # never written without --fix


def test_only_the_targets_fixes_are_listed(project):
    """A file's other blocks have fixes too: the target's result lists only those on lines it runs (issue 41)."""
    other = ("\n\nclass Other(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
             "        h = F.relu(x)\n        return h.reshape((h.shape[0], -1))\n")
    write(project, "m.py", BROKEN_SHAPE + other)
    result, [report] = as_json(["m.py::N", "--input", "2x3x4"])
    assert result.exit_code == 0, result.output
    assert [(f["code"], f["line"]) for f in report["fixes"]] == [("HY201", 6)]
    assert report["verdict"] == "fixed"
    result, [report] = as_json(["m.py::Other", "--input", "2x3x4"])
    assert [(f["code"], f["line"]) for f in report["fixes"]] == [("HY201", 13)]


def test_graph_error_traced_to_the_line_that_created_the_node(project):
    write(project, "m.py", BROKEN_MEAN)
    result, [report] = as_json(["m.py::N", "--input", "2x3"])
    hybrid = report["hybridized"]
    assert (hybrid["status"], hybrid["phase"], hybrid["error_type"]) == ("error", "graph", "MXNetError")
    assert "expected [2,3], got [2,1]" in hybrid["message"]
    assert hybrid["location"]["line"] == 7
    assert report["verdict"] == "fixed" and result.exit_code == 0


def test_silently_different_reports_shapes(project):
    write(project, "m.py", SILENT)
    result, [report] = as_json(["m.py::N", "--input", "3x4"])
    hybrid = report["hybridized"]
    assert hybrid["status"] == "different"
    assert hybrid["shapes"] == [[3, 4]] and hybrid["expected_shapes"] == [[4]]
    assert hybrid["max_abs_diff"] is None  # shapes differ: no elementwise difference
    assert report["fixed"]["status"] == "ok" and report["verdict"] == "fixed"


def test_values_differ_reports_max_abs_difference(project):
    # a branch on the argument's type takes the other side once x is a Symbol: same shape, other values
    write(project, "m.py", "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def hybrid_forward(self, F, x):\n"
                           "        return x * 2 if isinstance(x, nd.NDArray) else x * 3\n")
    result, [report] = as_json(["m.py::N", "--input", "2x3"])
    hybrid = report["hybridized"]
    assert hybrid["status"] == "different" and hybrid["shapes"] == hybrid["expected_shapes"] == [[2, 3]]
    assert hybrid["max_abs_diff"] > 0
    assert report["verdict"] == "fails" and result.exit_code == 1


def test_clean_block_hybridizes_as_is(project):
    write(project, "m.py", CLEAN)
    result, [report] = as_json(["m.py::N", "--input", "2x3"])
    assert result.exit_code == 0
    assert report["verdict"] == "hybridizes" and report["fixes"] == [] and report["fixed"] is None
    assert report["hybridized"]["status"] == "ok"


def test_failure_without_a_fix_exits_1(project):
    write(project, "m.py", NO_FIX)
    result = verify(["m.py::N", "--input", "2x3"])
    assert result.exit_code == 1
    assert "FAILS" in result.stdout and "m.py:6" in result.stdout
    assert "HY401 line 6" in result.stdout  # what remains is shown


def test_eager_failure_exits_1(project):
    write(project, "m.py", CLEAN)
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--input", "2x3"])  # one input too many
    assert result.exit_code == 1 and report["verdict"] == "eager-error"
    assert report["eager"]["status"] == "error" and report["hybridized"] is None


def test_hy102_evidence_loop(project):
    write(project, "m.py", TWO_INPUTS)
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--input", "1x3"])
    assert report["hybridized"]["phase"] == "graph" and report["hybridized"]["location"]["line"] == 7
    assert [(f["code"], f["evidence"], f["source"]) for f in report["fixes"]] == [("HY102", True, "return z + y")]
    assert report["verdict"] == "fixed" and result.exit_code == 0
    assert any("HY102" in note for note in report["notes"])
    # equal shapes: nothing fails, no evidence, no fix
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--input", "2x3"])
    assert report["verdict"] == "hybridizes" and report["fixes"] == []


def test_evidence_loop_handles_several_operators(project):
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def hybrid_forward(self, F, x, y, z):\n        return F.relu(x) * y + z\n")
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--input", "1x3", "--input", "2x1"])
    assert sorted(f["code"] for f in report["fixes"]) == ["HY102", "HY102"]
    assert report["verdict"] == "fixed"


def test_kwargs_and_factory_functions(project):
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def __init__(self, units, **kw):\n        super().__init__(**kw)\n"
                           "        with self.name_scope():\n            self.fc = nn.Dense(units)\n\n"
                           "    def hybrid_forward(self, F, x):\n        return self.fc(x)\n\n\n"
                           "def make():\n    return N(5)\n\n\nVALUE = 3\n")
    result, [report] = as_json(["m.py::N", "--input", "2x3", "--kwargs", '{"units": 4}'])
    assert report["eager"]["shapes"] == [[2, 4]] and report["verdict"] == "hybridizes"
    result, [report] = as_json(["m.py::make", "--input", "2x3"])
    assert report["eager"]["shapes"] == [[2, 5]] and result.exit_code == 0
    result = verify(["m.py::N", "--input", "2x3"])  # missing constructor argument
    assert result.exit_code == 2 and "units" in result.stderr
    result = verify(["m.py::VALUE", "--input", "2x3"])
    assert result.exit_code == 2 and "neither a Block subclass nor a function" in result.stderr


def test_same_parameters_and_inputs_for_the_same_seed(project):
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def __init__(self, **kw):\n        super().__init__(**kw)\n"
                           "        with self.name_scope():\n            self.fc = nn.Dense(3)\n\n"
                           "    def hybrid_forward(self, F, x):\n        return self.fc(x)\n")
    from hylint import verify as v
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    def eager(seed):
        report = v.verify_target(v.Target(Path("m.py"), "N", [(2, 4)], seed=seed), Linter(select_rules()))
        return report.eager.outputs[0]

    assert (eager(0) == eager(0)).all() and not (eager(0) == eager(1)).all()


# ---------------------------------------------------------------------------------------------
# --fix


def test_fix_writes_exactly_what_check_fix_writes(project):
    write(project, "m.py", BROKEN_SHAPE + "\n\n# a comment\n")
    write(project, "c.py", BROKEN_SHAPE + "\n\n# a comment\n")
    assert runner().invoke(main, ["check", "--fix", "c.py"]).exit_code == 0
    result, [report] = as_json(["m.py::N", "--input", "2x3x4", "--fix"])
    assert result.exit_code == 0 and report["written"] is True
    assert (project / "m.py").read_text() == (project / "c.py").read_text() != BROKEN_SHAPE


def test_fix_does_not_write_when_the_block_is_clean(project):
    write(project, "m.py", CLEAN)
    result = verify(["m.py::N", "--input", "2x3", "--fix"])
    assert result.exit_code == 0 and (project / "m.py").read_text() == CLEAN


# ---------------------------------------------------------------------------------------------
# usage errors: exit 2, one clear message


@pytest.mark.parametrize("args, message", [
    (["missing.py", "--input", "2x3"], "is not path/to/file.py::Name"),
    # an existing file without ::Name is a PATH (every block in it, built and fed by hylint): no --input
    (["m.py", "--input", "2x3"], "--input needs a TARGET (file.py::Name)"),
    (["missing.py::N", "--input", "2x3"], "missing.py: no such file"),
    (["m.py::Nope", "--input", "2x3"], "defines no 'Nope'"),
    (["m.py::N"], "--input"),
    (["m.py::N", "--input", "2xa"], "'2xa' is not like 16x1x28x28"),
    (["m.py::N", "--input", "2x0"], "positive dimensions"),
    (["m.py::N", "--input", "2x3", "--kwargs", "{units"], "--kwargs is not valid JSON"),
    (["m.py::N", "--input", "2x3", "--kwargs", "[1]"], "--kwargs must be a JSON object"),
    (["--input", "2x3"], "--input and --kwargs need a TARGET"),
])
def test_usage_errors_exit_2(project, args, message):
    write(project, "m.py", CLEAN)
    result = verify(args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_import_failure_shows_the_users_traceback_only(project):
    write(project, "helper.py", "def broken():\n    return 1 / 0\n")
    write(project, "m.py", "import helper\n\nVALUE = helper.broken()\n")
    result = verify(["m.py::N", "--input", "2x3"])
    assert result.exit_code == 2
    err = result.stderr
    assert "m.py: importing it failed: ZeroDivisionError" in err
    assert 'File "m.py", line 3, in <module>' in err and "helper.py\", line 2, in broken" in err
    assert "hylint" not in err.split("importing it failed")[1].replace("hylint's", "")  # no hylint frames
    assert err.rstrip().endswith("ZeroDivisionError: division by zero")


def test_syntax_error_in_the_users_file(project):
    write(project, "m.py", "def broken(:\n    pass\n")
    result = verify(["m.py::N", "--input", "2x3"])
    assert result.exit_code == 2 and "SyntaxError" in result.stderr and "m.py" in result.stderr


def test_exit_codes_in_a_real_process(project):
    write(project, "ok.py", CLEAN)
    write(project, "bad.py", NO_FIX)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    def code(*args):
        return subprocess.run([sys.executable, "-m", "hylint", "verify", *args], cwd=project, env=env,
                              capture_output=True, text=True).returncode
    assert code("ok.py::N", "--input", "2x3") == 0
    assert code("bad.py::N", "--input", "2x3") == 1
    assert code("ok.py::N") == 2


def test_mxnet_backend_missing_is_a_clear_exit_2(project):
    write(project, "m.py", CLEAN)
    program = ("import sys; sys.modules['mxnet'] = None; from hylint.cli import main; "
               "main(['verify', 'm.py::N', '--input', '2x3', '--backend', 'mxnet'])")
    done = subprocess.run([sys.executable, "-c", program], cwd=project, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2
    assert "the mxnet backend needs MXNet" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------------
# [[tool.hylint.verify]]: the CI gate


GATE = """[tool.hylint]

[[tool.hylint.verify]]
target = "models/clean.py::N"
inputs = ["2x3"]

[[tool.hylint.verify]]
target = "models/shape.py::N"
inputs = ["2x3x4"]
backend = "numpy"
"""


def test_pyproject_gate(project):
    (project / "models").mkdir()
    write(project, "models/clean.py", CLEAN)
    write(project, "models/shape.py", BROKEN_SHAPE)
    write(project, "pyproject.toml", GATE)
    result, reports = as_json([])
    assert result.exit_code == 1, result.output  # a FIXED entry does not hybridize as committed
    assert [r["verdict"] for r in reports] == ["hybridizes", "fixed"]
    assert [r["exit_code"] for r in reports] == [0, 1] and "HY201 line 6" in reports[1]["gate_failure"]
    write(project, "models/clean.py", NO_FIX)
    result = verify([])
    assert result.exit_code == 1
    assert "models/clean.py::N" in result.stdout and "models/shape.py::N" in result.stdout


def test_pyproject_gate_runs_from_a_subfolder(project, monkeypatch):
    (project / "models").mkdir()
    write(project, "models/clean.py", CLEAN)
    write(project, "models/shape.py", BROKEN_SHAPE)
    write(project, "pyproject.toml", GATE)
    monkeypatch.chdir(project / "models")
    result = verify([])  # the entries are found (no config: exit 2); shape.py needs a fix (exit 1)
    assert result.exit_code == 1  # paths are shown relative to the current folder
    assert result.stdout.startswith("clean.py::N  (") and "\nshape.py::N  (" in result.stdout
    write(project, "models/shape.py", CLEAN)
    assert verify([]).exit_code == 0


@pytest.mark.parametrize("entry, message", [
    ('target = "m.py::N"\ninputs = ["2x3"]\nshape = 1\n', "unknown key `shape`"),
    ('target = "m.py::N"\ninputs = "2x3"\n', "`inputs` must be a list"),
    ('target = "m.py::N"\ninputs = ["2x3"]\nkwargs = 3\n', "`kwargs` must be a table"),
    ('target = "m.py::N"\ninputs = ["2x3"]\nbackend = "torch"\n', "`backend` must be one of"),
    ('inputs = ["2x3"]\n', "`target` is required"),
    ('target = "m.py::N"\n', "`inputs` is required"),
    ('target = "m.py::N"\ninputs = ["2by3"]\n', "is not like 16x1x28x28"),
    ('target = "m.py"\ninputs = ["2x3"]\n', "is not path/to/file.py::Name"),
])
def test_pyproject_entry_errors_exit_2_naming_the_key(project, entry, message):
    write(project, "m.py", CLEAN)
    write(project, "pyproject.toml", "[tool.hylint]\n\n[[tool.hylint.verify]]\n" + entry)
    result = verify([])
    assert result.exit_code == 2
    assert message in result.stderr and "entry 1" in result.stderr


def test_no_target_and_no_entries_exit_2(project):
    result = verify([])
    assert result.exit_code == 2 and "[[tool.hylint.verify]]" in result.stderr


def test_entries_accept_kwargs_and_int_lists(project):
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def __init__(self, units, **kw):\n        super().__init__(**kw)\n"
                           "        with self.name_scope():\n            self.fc = nn.Dense(units)\n\n"
                           "    def hybrid_forward(self, F, x):\n        return self.fc(x)\n")
    write(project, "pyproject.toml", "[tool.hylint]\n\n[[tool.hylint.verify]]\ntarget = \"m.py::N\"\n"
                                     "inputs = [[2, 3]]\nkwargs = { units = 7 }\n")
    result, [report] = as_json([])
    assert report["eager"]["shapes"] == [[2, 7]] and result.exit_code == 0


# ---------------------------------------------------------------------------------------------
# the README example


def test_readme_example_runs_as_documented():
    """examples/tutorial_net.py is broken on purpose: the trace fails at line 26, hylint's fixes repair it."""
    result = runner().invoke(main, ["verify", str(Path("examples") / "tutorial_net.py") + "::Net",
                                    "--input", "4x1x28x28", "--output-format", "json"])
    os_cwd_ok = (ROOT / "examples" / "tutorial_net.py").is_file()
    assert os_cwd_ok
    if result.exit_code == 2:  # run from another folder
        result = runner().invoke(main, ["verify", str(ROOT / "examples" / "tutorial_net.py") + "::Net",
                                        "--input", "4x1x28x28", "--output-format", "json"])
    [report] = json.loads(result.stdout)
    assert report["verdict"] == "fixed"
    assert report["hybridized"]["location"]["line"] == 26
    assert sorted(f["code"] for f in report["fixes"]) == ["HY101", "HY101", "HY201"]
    assert report["fixed"]["status"] == "ok" and report["fixed"]["shapes"] == [[4, 10]]
