"""`hylint verify`: unsafe fixes proven on the given inputs, `module:attr` targets, keyword and typed inputs,
per-phase time and memory in the JSON report. Each verdict test runs on the runtime and on real MXNet."""
import json
import sys
from pathlib import Path

import pytest

from verifyrun import BACKENDS, as_json, verify, write

ROOT = Path(__file__).resolve().parents[2]



BLOCKS = '''from mxnet.gluon import nn


class Residual(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.left = nn.HybridLambda(lambda F, x: 2 * x)  # may return its input: HY501's fix is unsafe
            self.right = nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        out = self.left(x)
        out += self.right(x)
        return out


class Zeros(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        z = F.zeros(x.shape)
        return x + z + 1


class ZerosPlusHalf(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.zeros(x.shape) + 0.5


class Unused(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        x += 1
        return x
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, line, code, replacement", [
    ("Residual", 13, "HY501", "out = out + self.right(x)"),
    ("Zeros", 19, "HY201", "F.zeros_like(x)"),
])
def test_unsafe_fix_proven_on_the_inputs_gives_fixed(project, backend, name, line, code, replacement):
    write(project, "m.py", BLOCKS)
    result, [report] = as_json([f"m.py::{name}", "--input", "2x3", "--backend", backend])
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "fixed"
    assert report["hybridized"]["status"] == "error"
    assert report["fixed"]["status"] == "ok" and report["fixed"]["max_abs_diff"] == 0
    [fix] = [f for f in report["fixes"] if f["applicability"] == "unsafe"]
    assert (fix["code"], fix["line"], fix["proven"], fix["replacement"]) == (code, line, True, replacement)
    assert "unsafe" in fix["why_unsafe"].lower()
    # only the fix on the lines this block runs: the other blocks' unsafe fixes are not applied
    assert [f["code"] for f in report["fixes"]] == [code]
    text = verify([f"m.py::{name}", "--input", "2x3", "--backend", backend]).stdout
    assert "[unsafe, proven on these inputs]" in text and "is unsafe in general" in text
    assert "run with --fix --unsafe-fixes to write it" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_fix_writes_the_proven_unsafe_fix_only_with_unsafe_fixes(project, backend):
    write(project, "m.py", BLOCKS)
    result = verify(["m.py::Residual", "--input", "2x3", "--fix", "--backend", backend])
    assert result.exit_code == 0
    assert (project / "m.py").read_text() == BLOCKS  # no safe fix to write; the unsafe one needs the flag
    assert "written only with --fix --unsafe-fixes" in result.stdout
    result = verify(["m.py::Residual", "--input", "2x3", "--fix", "--unsafe-fixes", "--backend", backend])
    assert result.exit_code == 0 and "; written" in result.stdout
    # exactly what was proven: the exercised line only, not Zeros' or Unused's unsafe fixes
    assert (project / "m.py").read_text() == BLOCKS.replace("out += self.right(x)", "out = out + self.right(x)")
    result, [report] = as_json(["m.py::Residual", "--input", "2x3", "--backend", backend])
    assert report["verdict"] == "hybridizes"


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsafe_fix_that_changes_the_eager_result_is_not_proven(project, backend):
    # an int32 input: F.zeros(x.shape) is float32 (0.5 added), F.zeros_like(x) int32 (0.5 truncated)
    write(project, "m.py", BLOCKS)
    result, [report] = as_json(["m.py::ZerosPlusHalf", "--input", "2x3:int32", "--backend", backend])
    assert result.exit_code == 1, result.output
    assert report["verdict"] == "fails"
    assert not [f for f in report["fixes"] if f["applicability"] == "unsafe"]
    assert any("tried the unsafe fix HY201 line 25" in note and "not proven" in note for note in report["notes"])
    result = verify(["m.py::ZerosPlusHalf", "--input", "2x3:int32", "--fix", "--unsafe-fixes", "--backend", backend])
    assert (project / "m.py").read_text() == BLOCKS


@pytest.mark.parametrize("backend", BACKENDS)
def test_fresh_dense_output_is_fixed_by_the_safe_fix(project, backend):
    # the issue's block: `out` is the fresh output of a Dense, so HY501's fix is safe and --fix writes it
    write(project, "m.py", BLOCKS.replace("nn.HybridLambda(lambda F, x: 2 * x)", "nn.Dense(3, flatten=False)"))
    result, [report] = as_json(["m.py::Residual", "--input", "2x3", "--backend", backend])
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "fixed" and report["hybridized"]["status"] == "error"
    assert [(f["code"], f["line"], f["applicability"]) for f in report["fixes"]] == [("HY501", 13, "safe")]
    assert report["fixed"]["status"] == "ok" and report["fixed"]["max_abs_diff"] == 0


def test_float32_input_proves_the_same_fix(project):
    write(project, "m.py", BLOCKS)
    result, [report] = as_json(["m.py::ZerosPlusHalf", "--input", "2x3"])
    assert result.exit_code == 0 and report["verdict"] == "fixed"


# ---------------------------------------------------------------------------------------------
# module:attr targets

PACKAGE = {
    "proj/__init__.py": "",
    "proj/models.py": ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
                       "    def __init__(self, units=3, **kwargs):\n        super().__init__(**kwargs)\n"
                       "        with self.name_scope():\n            self.fc = nn.Dense(units)\n\n"
                       "    def hybrid_forward(self, F, x):\n        h = self.fc(x)\n"
                       "        return h.reshape((h.shape[0], -1))\n"),
    "proj/zoo.py": ("from .models import Net\n\n\ndef get_model(name, **kwargs):\n"
                    "    return {'net': Net}[name](**kwargs)\n\n\nINSTANCE = Net(units=2)\n"),
}


@pytest.fixture
def package(project):
    for name, text in PACKAGE.items():
        (project / name).parent.mkdir(exist_ok=True)
        (project / name).write_text(text)
    return project


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target, kwargs, units", [
    ("proj.models:Net", None, 3),
    ("proj.zoo:get_model", '{"name": "net", "units": 5}', 5),
    ("proj.zoo:INSTANCE", None, 2),
])
def test_module_targets_fix_the_file_defining_the_block(package, backend, target, kwargs, units):
    args = [target, "--input", "2x4", "--backend", backend] + (["--kwargs", kwargs] if kwargs else [])
    result, [report] = as_json(args)
    assert result.exit_code == 0, result.output
    assert report["target"] == target and report["file"] == str(Path("proj") / "models.py") or \
        Path(report["file"]).resolve() == (package / "proj" / "models.py").resolve()
    assert report["verdict"] == "fixed" and report["eager"]["shapes"] == [[2, units]]
    assert [f["code"] for f in report["fixes"]] == ["HY201"]
    result = verify(args + ["--fix"])
    assert result.exit_code == 0
    assert "h.reshape((0, -1))" in (package / "proj" / "models.py").read_text()
    _, [report] = as_json(args)
    assert report["verdict"] == "hybridizes"


@pytest.mark.parametrize("target, message", [
    ("nosuchpackage.models:Net", "no module named 'nosuchpackage'"),
    ("proj.models:Missing", "has no attribute 'Missing'"),
    ("proj.zoo:get_model.nothing", "has no attribute 'nothing'"),
    ("proj.models:nn", "nn is neither a Block subclass, a Block instance nor a function returning a Block"),
    ("proj.broken:Net", "importing proj.broken failed: ZeroDivisionError"),
    ("proj models:Net", "is not path/to/file.py::Name"),
])
def test_bad_module_targets_exit_2(package, target, message):
    (package / "proj" / "broken.py").write_text("VALUE = 1 / 0\n")
    result = verify([target, "--input", "2x4"])
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr or "ZeroDivisionError" in message


@pytest.mark.mxnet
def test_module_target_does_not_keep_the_runtime_package_imported(package, monkeypatch):
    pytest.importorskip("mxnet")  # the module is imported first on the real mxnet, then verified
    monkeypatch.syspath_prepend(str(package))
    import importlib

    models = importlib.import_module("proj.models")  # imported before, on whatever mxnet is current
    try:
        result, [report] = as_json(["proj.models:Net", "--input", "2x4"])
        assert report["verdict"] == "fixed"
        assert sys.modules["proj.models"] is models  # put back as it was
    finally:
        for name in [n for n in sys.modules if n == "proj" or n.startswith("proj.")]:
            del sys.modules[name]


# ---------------------------------------------------------------------------------------------
# keyword and typed inputs

KEYWORDS = '''from mxnet.gluon import nn


class Masked(nn.HybridBlock):
    def hybrid_forward(self, F, x, mask=None, valid_length=None, scale=2.0):
        out = x * scale
        if mask is not None:
            out = F.broadcast_mul(out, mask)
        if valid_length is not None:
            out = F.SequenceMask(out, sequence_length=valid_length, use_sequence_length=True, axis=1)
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_keyword_inputs_of_several_dtypes(project, backend):
    write(project, "m.py", KEYWORDS)
    args = ["m.py::Masked", "--input", "x=2x5x3:float32", "--input", "valid_length=2:float32:1..6",
            "--backend", backend]
    result, [report] = as_json(args)
    assert result.exit_code == 0, result.output
    assert report["verdict"] == "hybridizes" and report["eager"]["shapes"] == [[2, 5, 3]]
    assert report["inputs"] == [{"name": "x", "shape": [2, 5, 3], "dtype": "float32"},
                                {"name": "valid_length", "shape": [2], "dtype": "float32", "low": 1.0, "high": 6.0}]
    text = verify(args).stdout
    assert "input x=2x5x3 valid_length=2:float32:1.0..6.0" in text
    # a positional input, then a keyword one after a skipped optional input (its default, None, is passed)
    result, [report] = as_json(["m.py::Masked", "--input", "2x5x3", "--input", "valid_length=2:int32:1..6",
                                "--backend", backend])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args, message", [
    (["--input", "x=2x3:float8"], "unknown dtype 'float8'"),
    (["--input", "x=2x3", "--input", "4x3"], "positional inputs come before keyword inputs"),
    (["--input", "x=2x3", "--input", "x=2x3"], "keyword input `x` is given twice"),
    (["--input", "2x3:int32:5..1"], "LOW..HIGH needs LOW < HIGH"),
    (["--input", "2x3:int32:0.5..3"], "an integer dtype needs integer bounds"),
    (["--input", "2x3:"], "is not [name=]SHAPE[:DTYPE[:LOW..HIGH]]"),
    (["--input", "y=2x3"], "keyword input `y` does not name an input of Masked"),
    (["--input", "2x5x3", "--input", "x=2x3"], "keyword input `x` does not name an input of Masked"),
])
def test_bad_inputs_exit_2(project, args, message):
    write(project, "m.py", KEYWORDS)
    result = verify(["m.py::Masked"] + args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr


def test_a_required_input_before_a_keyword_one_must_be_given(project):
    write(project, "m.py", "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
                           "    def hybrid_forward(self, F, x, y):\n        return x + y\n")
    result = verify(["m.py::N", "--input", "y=2x3"])
    assert result.exit_code == 2
    assert "input `x` of N comes before `y` and has no default: give it with --input" in result.stderr


# ---------------------------------------------------------------------------------------------
# phases


def test_json_reports_time_and_peak_memory_of_each_phase(project):
    write(project, "m.py", BLOCKS)
    _, [report] = as_json(["m.py::Residual", "--input", "2x3"])
    names = [phase["phase"] for phase in report["phases"]]
    assert names == ["import", "build", "eager", "hybrid build", "hybridize and trace", "hybridized call", "fixes"]
    for phase in report["phases"]:
        assert phase["seconds"] >= 0
        assert phase["peak_rss_mib"] is None or phase["peak_rss_mib"] > 1
        assert phase["peak_rss_kind"] in ("phase", "process")
    json.dumps(report)


def test_pyproject_entry_with_a_module_target_and_typed_inputs(package, monkeypatch):
    (package / "pyproject.toml").write_text(
        '[tool.hylint]\n\n[[tool.hylint.verify]]\ntarget = "proj.models:Net"\ninputs = ["x=2x4:float32:-2..2"]\n'
        'kwargs = { units = 6 }\n')
    (package / "sub").mkdir()
    monkeypatch.chdir(package / "sub")  # the module is found from the pyproject.toml's folder
    result, [report] = as_json([])
    assert result.exit_code == 1, result.output  # FIXED fails the gate: it does not hybridize as committed
    assert report["target"] == "proj.models:Net" and report["verdict"] == "fixed"
    assert report["eager"]["shapes"] == [[2, 6]]
    assert report["inputs"] == [{"name": "x", "shape": [2, 4], "dtype": "float32", "low": -2.0, "high": 2.0}]


@pytest.mark.parametrize("backend", BACKENDS)
def test_module_target_fixes_the_file_of_the_failing_line(package, backend):
    (package / "proj" / "layers.py").write_text(
        "from mxnet.gluon import nn\n\n\nclass Flat(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        return x.reshape((x.shape[0], -1))\n")
    (package / "proj" / "stack.py").write_text(
        "from mxnet.gluon import nn\n\nfrom .layers import Flat\n\n\nclass Stack(nn.HybridBlock):\n"
        "    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
        "        with self.name_scope():\n            self.flat = Flat()\n            self.fc = nn.Dense(2)\n\n"
        "    def hybrid_forward(self, F, x):\n        return self.fc(self.flat(x))\n")
    result, [report] = as_json(["proj.stack:Stack", "--input", "2x3x4", "--backend", backend])
    assert result.exit_code == 0, result.output
    assert report["hybridized"]["location"]["line"] == 6
    assert Path(report["file"]).resolve() == (package / "proj" / "layers.py").resolve()
    assert report["verdict"] == "fixed" and [f["code"] for f in report["fixes"]] == ["HY201"]


@pytest.mark.parametrize("name, line", [("Residual", 18), ("Shifted", 24)])
def test_readme_unsafe_example_runs_as_documented(name, line):
    result, [report] = as_json([str(ROOT / "examples" / "unsafe_fixes.py") + f"::{name}", "--input", "2x8"])
    assert result.exit_code == 0 and report["verdict"] == "fixed"
    [fix] = report["fixes"]
    assert (fix["line"], fix["applicability"], fix["proven"]) == (line, "unsafe", True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rewrite_several_diagnostics_share_is_quoted_once(project, backend):
    """Issue 44: gluoncv's GroupNorm (a training-mode BatchNorm over the groups) has five HY201 diagnostics
    that one unsafe rewrite of the whole `with` block fixes; verify quotes that block once, naming every line."""
    source = (ROOT / "fixtures" / "HY201_6" / "before.py").read_text()
    write(project, "m.py", source)
    result, [report] = as_json(["m.py::GroupNorm4", "--input", "2x8x3x3", "--backend", backend])
    unsafe = [f for f in report["fixes"] if f["code"] == "HY201" and f["applicability"] == "unsafe"]
    rows = sorted({f["line"] for f in unsafe})
    assert len(unsafe) == 5 and rows == [23, 24, 25]  # `data.context` twice on each of two lines
    text = verify(["m.py::GroupNorm4", "--input", "2x8x3x3", "--backend", backend]).stdout
    assert text.count("out = data.expand_dims(0).reshape((0, 0, 4, -1))") == 1, text
    assert "HY201 line 24, HY201 line 25" in text and "HY201 line 24, HY201 line 24" not in text  # the verdict
    lines = ", ".join(str(row) for row in rows)
    assert f"HY201 lines {lines}, `with autograd.train_mode():" in text


def test_unsafe_notes_name_the_lines_of_one_rewrite_together():
    from hylint.verify.prove import unsafe_notes
    from hylint.verify.results import AppliedFix

    def fix(line, replaced):
        return AppliedFix("HY201", "ndarray-only-attribute", line, "m", "unsafe", proven=True, why_unsafe="why",
                          replacement="new", replaced=replaced)

    notes = unsafe_notes([fix(3, "block"), fix(5, "block"), fix(5, "block"), fix(9, "other")])
    assert [note.split(", `")[0] for note in notes] == ["HY201 lines 3, 5", "HY201 line 9"]
    assert sum(note.count("`block`") for note in notes) == 1
