"""Jupyter notebooks: checked, fixed, verified (hylint/batch/notebook.py).

The notebooks in tests/data/notebooks/ are written by build.py from the two seed pages (MXNet's
hybridize tutorial, d2l's hybrid programming chapter), with the tutorial's six documented patterns.
"""
import difflib
import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from clirun import check, hylint, invoke
from hylint.batch import notebook
from hylint.batch.files import encode, read_source

DATA = Path(__file__).resolve().parents[1] / "data" / "notebooks"
TUTORIAL, D2L = "hybridize_tutorial.ipynb", "d2l_hybridize.ipynb"

# (notebook, cell, row, column, code, the text at that position): cells count every cell, as Jupyter shows them
EXPECTED = [
    (D2L, 5, 9, 9, "HY805", "print('x: ', x)"),
    (D2L, 5, 11, 9, "HY805", "print('hidden: ', x)"),
    (D2L, 6, 9, 9, "HY501", "a += b"),
    (D2L, 6, 10, 16, "HY101", "a - b.mean(axis=1, keepdims=True)"),
    (TUTORIAL, 4, 21, 24, "HY201", "x.shape"),
    (TUTORIAL, 4, 26, 16, "HY101", "x + nd.ones((1, 10))"),
    (TUTORIAL, 4, 26, 20, "HY403", "nd.ones((1, 10))"),
    (TUTORIAL, 9, 4, 16, "HY101", "x + F.ones((1, 1))"),
    (TUTORIAL, 11, 3, 16, "HY301", "x[:, 0]"),
    (TUTORIAL, 13, 3, 35, "HY402", "nd.array([[1, 1, 1]])"),
    (TUTORIAL, 15, 4, 9, "HY501", "y *= 2"),
    (TUTORIAL, 17, 3, 12, "HY401", "x.asnumpy()"),
]
# cell 9's `x + F.ones((1, 1))`: `x` is a tensor by assumption only, so its HY101 fix is unsafe (issue 41)
REMAINING = [(D2L, 5, 9, "HY805"), (D2L, 5, 11, "HY805"), (TUTORIAL, 9, 4, "HY101"), (TUTORIAL, 17, 3, "HY401")]


@pytest.fixture
def project(tmp_path):
    for name in (TUTORIAL, D2L):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def cells_of(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def cell_line(path, cell, row):
    source = cells_of(path)[cell - 1]["source"]
    text = "".join(source) if isinstance(source, list) else source
    return text.splitlines()[row - 1]


def as_json(run):
    return [(Path(d["filename"]).name, d["cell"], d["location"]["row"], d["location"]["column"], d["code"])
            for d in json.loads(run.out)]


def test_notebooks_are_those_build_py_writes(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("build_notebooks", DATA / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    monkeypatch.setattr(build, "HERE", tmp_path)
    build.write("hybridize_tutorial", build.TUTORIAL)
    build.write("d2l_hybridize", build.D2L)
    for name in (TUTORIAL, D2L):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes()


# -- checking: every diagnostic at its cell, row and column -----------------------------------------
def test_each_diagnostic_at_its_cell_row_and_column(project):
    run = invoke("check", "--no-cache", "--output-format", "json", ".", cwd=project)
    assert run.code == 1
    assert as_json(run) == [entry[:5] for entry in EXPECTED]
    for name, cell, row, column, _, text in EXPECTED:
        assert cell_line(project / name, cell, row)[column - 1:].startswith(text)
        assert cells_of(project / name)[cell - 1]["cell_type"] == "code"


def test_concise_and_full_show_the_cell(project):
    run = invoke("check", "--no-cache", "--output-format", "concise", TUTORIAL, cwd=project)
    lines = run.out.splitlines()
    assert lines[0].startswith(f"{TUTORIAL}:cell 4:21:24: HY201 [*] `x.shape` is NDArray-only")
    full = invoke("check", "--no-cache", TUTORIAL, cwd=project).out
    # the code frame shows the cell's own lines, numbered as in the cell
    assert f"{TUTORIAL}:cell 11:3:16: HY301" in full
    frame = full.split(f"{TUTORIAL}:cell 11:3:16: HY301")[1].split("= docs")[0]
    assert "3 |         return x[:, 0]" in frame and "2 |     def hybrid_forward(self, F, x):" in frame
    assert re.search(r"\|\s{16}\^{7} HY301", frame)


def test_magics_are_skipped_and_cell_magic_cells_left_out():
    nb = notebook.parse((DATA / TUTORIAL).read_bytes())
    text = notebook.virtual_text(nb)
    assert "%%time" not in text and "wait_to_read" not in text  # the %%time cell is left out
    assert "    pass" not in text
    assert re.search(r"^pass  # hylint-magic [0-9a-f]{8}: %matplotlib inline$", text, re.M)
    assert re.search(r"^pass  # hylint-magic [0-9a-f]{8}: !echo comparing", text, re.M)
    compile(text, "virtual", "exec")  # the module parses
    # the shown cell texts are the notebook's own
    for cell in nb.python_cells:
        assert notebook.cell_texts(text)[cell.number].rstrip("\n") == cell.text.rstrip("\n")


@pytest.mark.parametrize("lines, magic", [
    (["%time f()"], [True]),
    (["    !ls -l"], [True]),
    (["files = !ls", "x = %env HOME"], [True, True]),
    (["x = 5 % 3", "y = a != b", "z = {'a': 1}"], [False, False, False]),
    (['s = """', "%not a magic", '"""'], [False, False, False]),
    (["t = (1,", "     !2)"], [False, False]),  # inside brackets: not a statement start
    (["u = 1 + \\", "%2"], [False, False]),
    (["s = 'it''s'  # %", "%who"], [False, True]),
])
def test_which_lines_are_magics(lines, magic):
    assert notebook._magic_lines(lines) == magic


IPYTHON_CASES = [
    ["%time f()"], ["    !ls -l"], ["files = !ls", "x = %env HOME"], ["x = 5 % 3", "y = a != b"],
    ['s = """', "%not a magic", '"""'], ["t = (1,", "     !2)"], ["u = 1 + \\", "%2"], ["s = 'it''s'  # %", "%who"],
    ["if True:", "    %time f()", "    x = 1"], ["a, b = !ls"], ["x.y = %pwd"], ["d['k'] = !ls"],
    ["print(1)", "!echo hi # comment"], ["x = (1 +", "%2)"], ["x = 1; %time f()"], ["def f():", "    !ls"],
    ["y = x % 2 if x else 3"], ["s = '''%a", "%b'''", "%c"],
]


@pytest.mark.parametrize("lines", IPYTHON_CASES)
def test_magic_lines_agree_with_ipython(lines):
    """IPython's own input transformer decides which lines it runs as magics or shell commands."""
    pytest.importorskip("IPython")
    from IPython.core.inputtransformer2 import TransformerManager

    transformed = TransformerManager().transform_cell("\n".join(lines) + "\n").splitlines()
    assert len(transformed) == len(lines)
    by_ipython = ["get_ipython()" in new and "get_ipython()" not in old for old, new in zip(lines, transformed)]
    assert notebook._magic_lines(lines) == by_ipython


def test_magic_lines_keep_every_row_in_place(tmp_path):
    cell = ["import mxnet as mx\n", "from mxnet.gluon import nn\n", "%load_ext autoreload\n", "\n",
            "class N(nn.HybridBlock):\n", "    def hybrid_forward(self, F, x):\n", "        !echo traced\n",
            "        return x[:, 0]\n"]
    path = tmp_path / "m.ipynb"
    path.write_text(json.dumps(_nb([_code(cell)]), indent=1))
    run = invoke("check", "--no-cache", "--output-format", "concise", "m.ipynb", cwd=tmp_path)
    assert run.out.startswith("m.ipynb:cell 1:8:16: HY301"), run.out
    invoke("check", "--no-cache", "--fix", "m.ipynb", cwd=tmp_path)
    source = cells_of(path)[0]["source"]
    assert source[2] == "%load_ext autoreload\n" and source[6] == "        !echo traced\n"
    assert source[7].startswith("        return F.squeeze(")


# -- fixing ---------------------------------------------------------------------------------------
def _changed_lines(before: str, after: str):
    """(before, after) line pairs of the replaced lines of two files."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    changed = []
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag != "equal":
            changed.append((before.splitlines()[a1:a2], after.splitlines()[b1:b2]))
    return changed


def test_fix_writes_a_valid_notebook_changing_only_edited_source_lines(project):
    before = {name: (project / name).read_text(encoding="utf-8") for name in (TUTORIAL, D2L)}
    run = invoke("check", "--no-cache", "--fix", "--output-format", "json", ".", cwd=project)
    assert run.code == 1
    assert [(n, c, r, code) for n, c, r, _, code in as_json(run)] == REMAINING
    for name in (TUTORIAL, D2L):
        after = (project / name).read_text(encoding="utf-8")
        assert after.endswith("}\n")
        old, new = json.loads(before[name]), json.loads(after)
        # everything but the code cells' sources is equal (outputs, metadata, counts, ids)
        for cell in old["cells"] + new["cells"]:
            if cell["cell_type"] == "code":
                cell.pop("source")
        assert old == new
        # and byte for byte: each replaced JSON line is a source string of the same indentation
        for removed, added in _changed_lines(before[name], after):
            assert len(removed) == len(added)
            for a, b in zip(removed, added):
                assert re.match(r'^ {4}"', a) and re.match(r'^ {4}"', b), (a, b)
                assert a.endswith(",") == b.endswith(",")
    assert "F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)" in cell_line(project / TUTORIAL, 11, 3)
    assert cell_line(project / TUTORIAL, 15, 4) == "        y = y * 2"
    assert cell_line(project / D2L, 6, 10) == "        return F.broadcast_sub(a, b.mean(axis=1, keepdims=True))"
    nbformat = pytest.importorskip("nbformat")
    for name in (TUTORIAL, D2L):
        nbformat.validate(nbformat.read(str(project / name), as_version=4))


def test_a_second_fix_changes_nothing(project):
    invoke("check", "--no-cache", "--fix", ".", cwd=project)
    fixed = {name: (project / name).read_bytes() for name in (TUTORIAL, D2L)}
    run = invoke("check", "--no-cache", "--fix", "--output-format", "concise", ".", cwd=project)
    assert run.code == 1 and "fixed" not in run.out
    assert {name: (project / name).read_bytes() for name in (TUTORIAL, D2L)} == fixed
    assert invoke("check", "--no-cache", "--diff", ".", cwd=project).code == 0


def test_diff_is_cell_by_cell_and_writes_nothing(project):
    original = (project / TUTORIAL).read_bytes()
    run = invoke("check", "--no-cache", "--diff", TUTORIAL, cwd=project)
    assert run.code == 1 and (project / TUTORIAL).read_bytes() == original
    headers = re.findall(r"^--- a/(.*)$", run.out, re.M)
    assert headers == [f"{TUTORIAL}:cell {n}" for n in (4, 11, 13, 15)]  # (cell 9's fix is unsafe)
    assert "-        y *= 2\n+        y = y * 2\n" in run.out


def test_fix_keeps_a_string_source_a_string(tmp_path):
    """nbformat allows a cell's source to be one string (`multiline_string`): it is valid, so hylint
    reads it like a list and writes it back as a string, rather than calling the notebook bad."""
    source = "from mxnet.gluon import nn\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n" \
             "        return x[:, 0]"
    path = tmp_path / "s.ipynb"
    path.write_text(json.dumps(_nb([_code(source)]), indent=2, sort_keys=True) + "\n")
    run = invoke("check", "--no-cache", "--output-format", "concise", "s.ipynb", cwd=tmp_path)
    assert run.out.startswith("s.ipynb:cell 1:5:16: HY301")
    invoke("check", "--no-cache", "--fix", "s.ipynb", cwd=tmp_path)
    fixed = cells_of(path)[0]["source"]
    assert isinstance(fixed, str) and fixed.endswith("return F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), "
                                                     "axis=1)")


def test_fix_from_stdin_prints_the_whole_notebook(project):
    raw = (project / TUTORIAL).read_bytes()
    run = hylint("check", "--no-cache", "--fix", "--stdin-filename", TUTORIAL, "-", cwd=project, stdin=raw)
    fixed = json.loads(run.out)
    assert len(fixed["cells"]) == len(json.loads(raw)["cells"])
    assert "".join(fixed["cells"][14]["source"]).count("y = y * 2") == 1
    assert "HY401" in run.err


def test_add_noqa_writes_a_valid_notebook_that_then_checks_clean(project):
    run = invoke("check", "--no-cache", "--add-noqa", ".", cwd=project)
    assert run.code == 0 and "Added 11 noqa directives." in run.err  # 12 diagnostics on 11 lines
    assert cell_line(project / TUTORIAL, 4, 26).endswith("return x + nd.ones((1, 10))  # noqa: HY101, HY403")
    assert invoke("check", "--no-cache", ".", cwd=project).code == 0
    for name in (TUTORIAL, D2L):
        json.loads((project / name).read_text(encoding="utf-8"))


def test_add_noqa_names_the_cell_of_a_line_it_cannot_take(tmp_path):
    cell = ["from mxnet.gluon import nn\n", "class N(nn.HybridBlock):\n", "    def hybrid_forward(self, F, x):\n",
            "        return x[:, 0] + \\\n", "            1\n"]
    (tmp_path / "m.ipynb").write_text(json.dumps(_nb([_code(["import mxnet\n"]), _code(cell)]), indent=1))
    run = invoke("check", "--no-cache", "--add-noqa", "m.ipynb", cwd=tmp_path)
    assert "m.ipynb:cell 2:4: cannot add `# noqa: HY301`" in run.err, run.err


def test_a_fix_that_would_cross_cells_is_refused(tmp_path):
    path = tmp_path / "m.ipynb"
    path.write_text(json.dumps(_nb([_code(["x = 1\n"]), _code(["y = 2\n"])]), indent=1))
    source = read_source(path)
    assert source.notebook and source.text.count("# hylint-cell") == 2
    merged = source.text.replace("x = 1\n# hylint-cell", "x = 1\n#", 1)
    with pytest.raises(Exception, match="cross a cell boundary"):
        encode(source, merged)


# -- output formats -------------------------------------------------------------------------------
def test_machine_formats_carry_the_cell_and_the_notebook_row(project):
    text = (project / TUTORIAL).read_text(encoding="utf-8").splitlines()
    lines = invoke("check", "--no-cache", "--output-format", "json-lines", TUTORIAL, cwd=project).out.splitlines()
    first = json.loads(lines[0])
    assert (first["cell"], first["location"], first["noqa_row"]) == (4, {"row": 21, "column": 24}, 21)
    assert first["fix"]["edits"][0]["location"]["row"] == 21  # fix edits in the cell's rows too

    github = invoke("check", "--no-cache", "--output-format", "github", TUTORIAL, cwd=project).out.splitlines()[0]
    row = int(re.search(r",line=(\d+)::", github).group(1))
    assert "x = x.reshape((x.shape[0], -1))" in text[row - 1]  # the row a reader finds in the file
    assert f"HY201 {TUTORIAL}%3Acell 4:21:24" not in github and f"{TUTORIAL}:cell 4:21:24: " in github

    issue = json.loads(invoke("check", "--no-cache", "--output-format", "gitlab", TUTORIAL, cwd=project).out)[0]
    assert issue["location"]["positions"]["begin"]["line"] == row and "cell 4:21:24" in issue["description"]

    grouped = invoke("check", "--no-cache", "--output-format", "grouped", TUTORIAL, cwd=project).out.splitlines()
    assert grouped[0] == f"{TUTORIAL}:" and grouped[1].startswith("  cell 4:21:24 HY201 [*] `x.shape`")
    pylint = invoke("check", "--no-cache", "--output-format", "pylint", TUTORIAL, cwd=project).out.splitlines()
    assert pylint[0].startswith(f"{TUTORIAL}:cell 4:21: [HY201] `x.shape`")

    junit = invoke("check", "--no-cache", "--output-format", "junit", TUTORIAL, cwd=project).out
    assert f"{TUTORIAL}:cell 4:21:24: HY201" in junit and junit.count("<testcase ") == 1

    log = json.loads(invoke("check", "--no-cache", "--output-format", "sarif", TUTORIAL, cwd=project).out)
    result = log["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": row}
    assert result["properties"]["cell"] == 4 and result["properties"]["cellRegion"]["startLine"] == 21
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA.parent / "sarif-2.1.0-rtm.5.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)


def test_python_files_carry_a_null_cell(tmp_path):
    (tmp_path / "m.py").write_text("from mxnet.gluon import nn\nclass N(nn.HybridBlock):\n"
                                   "    def hybrid_forward(self, F, x):\n        return x[:, 0]\n")
    run = invoke("check", "--no-cache", "--output-format", "json", "m.py", cwd=tmp_path)
    assert json.loads(run.out)[0]["cell"] is None


# -- bad notebooks --------------------------------------------------------------------------------
def _code(source):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def _nb(cells, **top):
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5, **top}


@pytest.mark.parametrize("content, reason", [
    ('{"cells": [', "invalid JSON (line 1, column 12"),
    (json.dumps({"nbformat": 3, "worksheets": []}), "nbformat 3 notebook: hylint reads nbformat 4 only"),
    (json.dumps(_nb([{"cell_type": "markdown", "metadata": {}, "source": ["# title"]}])), "no code cells"),
    (json.dumps(_nb([_code(7)])), "the source of cell 1 is neither a string nor a list of strings"),
    (json.dumps(_nb([_code(["a", 1])])), "the source of cell 1 is neither a string nor a list of strings"),
    (json.dumps(_nb("x")), "`cells` is not a list"),
    (json.dumps([1, 2]), "no `nbformat` key"),
    ("\x00\x01", "invalid JSON"),
    ("[" * 100000, "nested too deeply"),
])
def test_bad_notebooks_get_hy001_and_no_traceback(tmp_path, content, reason):
    (tmp_path / "bad.ipynb").write_text(content)
    (tmp_path / "good.py").write_text("from mxnet.gluon import nn\nclass N(nn.HybridBlock):\n"
                                      "    def hybrid_forward(self, F, x):\n        return x[:, 0]\n")
    run = check(["."], "--no-cache", cwd=tmp_path)
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[0].startswith("bad.ipynb:1:1: HY001 Cannot read the file: ") and reason in lines[0], lines[0]
    assert lines[1].startswith("good.py:4:16: HY301")  # the other files are still checked
    assert check(["."], "--no-cache", "--fix", cwd=tmp_path).code == 1  # and --fix leaves it alone
    assert (tmp_path / "bad.ipynb").read_text() == content


def test_non_python_notebooks_and_all_magic_cells_have_nothing_to_check(tmp_path):
    (tmp_path / "r.ipynb").write_text(json.dumps(_nb([_code(["x[0]\n"])], metadata={
        "kernelspec": {"language": "R", "name": "ir", "display_name": "R"}})))
    (tmp_path / "m.ipynb").write_text(json.dumps(_nb([_code(["%%bash\n", "echo hybrid_forward\n"])])))
    assert check(["."], "--no-cache", cwd=tmp_path).code == 0


def test_bad_notebook_on_stdin(tmp_path):
    run = hylint("check", "--no-cache", "--stdin-filename", "x.ipynb", "-", cwd=tmp_path, stdin=b"{nope")
    assert run.code == 1 and "x.ipynb:1:1: HY001 Cannot read the file: not a Jupyter notebook" in run.out


# -- discovery, excludes, per-file-ignores, prefilter, cache -----------------------------------------
def test_discovery_finds_notebooks_and_skips_checkpoints(project):
    (project / ".ipynb_checkpoints").mkdir()
    shutil.copy(project / TUTORIAL, project / ".ipynb_checkpoints" / "hybridize_tutorial-checkpoint.ipynb")
    run = check(["."], "--no-cache", cwd=project)
    assert {line.split(":")[0] for line in run.out.splitlines() if ":cell " in line} == {TUTORIAL, D2L}


def test_excludes_and_per_file_ignores_apply_to_notebooks(project):
    (project / "pyproject.toml").write_text('[tool.hylint]\nextend-exclude = ["d2l_*"]\n'
                                            'per-file-ignores = { "hybridize_*.ipynb" = ["HY4"] }\n')
    run = check(["."], "--no-cache", cwd=project)
    codes = [line.split()[2] for line in run.out.splitlines() if ":cell " in line]
    assert codes == ["HY201", "HY101", "HY101", "HY301", "HY501"]  # no HY401/HY402/HY403, nothing of d2l
    assert D2L not in check([D2L], "--no-cache", "--force-exclude", cwd=project).out
    assert D2L in check([D2L], "--no-cache", cwd=project).out
    # an ignored code is not fixed either
    invoke("check", "--no-cache", "--fix", TUTORIAL, cwd=project)
    assert cell_line(project / TUTORIAL, 13, 3).endswith("nd.array([[1, 1, 1]]))")


def test_prefilter_skips_notebooks_without_hybrid_code(tmp_path):
    # a cell that does not parse, in a notebook that cannot hold a hybrid context: not parsed, as for .py files
    (tmp_path / "plain.ipynb").write_text(json.dumps(_nb([_code(["print(1\n"])])))
    assert check(["."], "--no-cache", cwd=tmp_path).code == 0
    (tmp_path / "plain.ipynb").write_text(json.dumps(_nb([_code(["def hybrid_forward(\n"])])))
    run = check(["."], "--no-cache", cwd=tmp_path)
    assert run.code == 1 and run.out.startswith("plain.ipynb:cell 1:") and "HY000" in run.out


def test_cache_reuses_and_invalidates_notebook_results(project):
    first = check(["."], cwd=project)
    assert list((project / ".hylint_cache").rglob("*.json"))
    again = check(["."], cwd=project)
    assert again.out == first.out and ":cell 4:21:24: HY201" in again.out
    data = json.loads((project / TUTORIAL).read_text())
    data["cells"][14]["source"] = ["class Scale(nn.HybridBlock):\n", "    def hybrid_forward(self, F, x):\n",
                                   "        return F.relu(x)"]
    (project / TUTORIAL).write_text(json.dumps(data, indent=1))
    changed = check(["."], cwd=project)
    assert "cell 15:" not in changed.out and changed.out.count("\n") == first.out.count("\n") - 1


# -- verify ---------------------------------------------------------------------------------------
def test_verify_runs_the_cells_and_proves_the_fixes(project):
    run = hylint("verify", f"{TUTORIAL}::Net", "--input", "4x1x28x28", cwd=project)
    assert run.code == 0, run.out + run.err
    assert "hybridized  error (trace): AttributeError: 'Symbol' object has no attribute 'shape'" in run.out
    assert f"at {TUTORIAL}:cell 4:21" in run.out
    assert "HY201 cell 4 line 21:" in run.out and "HY401 cell 17 line 3:" in run.out
    assert "fixed       ok: output (4, 10) equals the eager output" in run.out
    assert "note        cell 7 raised AttributeError" in run.out  # the notebook's own hybridized call
    assert "FIXED: the fixed source hybridizes and computes the eager output" in run.out


def test_verify_fix_writes_what_check_fix_writes(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    shutil.copy(project / D2L, other / D2L)
    run = hylint("verify", f"{D2L}::Residual", "--input", "3x5", "--fix", cwd=project)
    assert run.code == 0 and "written" in run.out, run.out + run.err
    invoke("check", "--no-cache", "--fix", D2L, cwd=other)
    assert (project / D2L).read_bytes() == (other / D2L).read_bytes()


# -- real Jupyter ---------------------------------------------------------------------------------
def _jupyter():
    for name in ("nbformat", "nbclient", "ipykernel", "mxnet"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    def execute(path):
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
        NotebookClient(nb, timeout=600, kernel_name="python3").execute()
        return "".join("".join(out["text"]) for cell in nb.cells for out in cell.get("outputs", ())
                       if out.get("output_type") == "stream")

    return execute, CellExecutionError


@pytest.mark.mxnet
@pytest.mark.slow
def test_real_jupyter_runs_the_fixed_notebooks_with_hybridized_equal_to_eager(project):
    execute, CellExecutionError = _jupyter()
    with pytest.raises(CellExecutionError, match="'Symbol' object has no attribute 'shape'"):
        execute(project / TUTORIAL)  # as written, the tutorial's notebook breaks once hybridized
    invoke("check", "--no-cache", "--fix", ".", cwd=project)
    # AddOnes' `x + F.ones((1, 1))`: `x` is a tensor by assumption only, so the safe fixes leave it (issue 41)
    with pytest.raises(CellExecutionError, match="addones0__plus0"):
        execute(project / TUTORIAL)
    invoke("check", "--no-cache", "--fix", "--unsafe-fixes", ".", cwd=project)
    printed = execute(project / TUTORIAL) + execute(project / D2L)
    differences = dict(re.findall(r"^(\w+) ([-+.\deE]+)$", printed, re.M))
    assert set(differences) == {"Net", "AddOnes", "FirstRow", "Shift", "Scale", "Residual"}, printed
    assert all(float(value) <= 1e-6 for value in differences.values()), differences


# -- the JSON splice on other layouts ----------------------------------------------------------------
FIXABLE = ["from mxnet.gluon import nn\n", "# é ü → \t tab\n", "class N(nn.HybridBlock):\n",
           "    def hybrid_forward(self, F, x):\n", "        return x[:, 0]  # première ligne"]
LAYOUTS = {
    "nbformat": lambda doc: json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
    "indent 2, ascii escapes": lambda doc: json.dumps(doc, indent=2, ensure_ascii=True),
    "minified": lambda doc: json.dumps(doc, separators=(",", ":"), ensure_ascii=False),
    "crlf": lambda doc: (json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n").replace("\n", "\r\n"),
    "bom": lambda doc: "\ufeff" + json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_splice_keeps_any_json_layout(tmp_path, layout):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# a title"}, _code(list(FIXABLE)),
             _code("%%time\nx = 1"), _code([]), _code(["%pylab inline\n", "y = 2"])]
    cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["é\n"]}]
    raw = LAYOUTS[layout](_nb(cells)).encode("utf-8")
    path = tmp_path / "m.ipynb"
    path.write_bytes(raw)
    source = read_source(path)
    assert notebook.render(raw, source.text) == raw  # nothing edited: the same bytes
    invoke("check", "--no-cache", "--fix", "m.ipynb", cwd=tmp_path)
    fixed = path.read_bytes()
    expected = _nb(cells)
    expected["cells"][1]["source"][-1] = ("        return F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)"
                                          "  # première ligne")
    text = fixed.decode("utf-8")
    assert json.loads(text.lstrip("\ufeff")) == expected
    # only the fixed string differs, and it is written as the layout writes strings
    ascii_only = layout == "indent 2, ascii escapes"
    old_token = json.dumps(FIXABLE[-1], ensure_ascii=ascii_only)
    new_token = json.dumps(expected["cells"][1]["source"][-1], ensure_ascii=ascii_only)
    assert raw.decode("utf-8").count(old_token) == 1
    assert raw.decode("utf-8").replace(old_token, new_token) == text


def test_cells_round_trip_through_the_virtual_text():
    hypothesis = pytest.importorskip("hypothesis")
    from hypothesis import strategies as st

    line = st.sampled_from(["x = 1", "%time f()", "!ls", "'''", '"""', "s = '%'", "(", ")", "  %%bash", "",
                            "a = 5 % 2", "files = !ls", "# hylint", "\\", "é", "\t!x"])
    cell = st.lists(line, max_size=6).map("\n".join) | st.lists(line, max_size=6).map(lambda ls: "\r\n".join(ls))

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(st.lists(cell, min_size=1, max_size=4), st.booleans())
    def round_trip(texts, as_lists):
        raw = json.dumps(_nb([_code(t.splitlines(True) if as_lists else t) for t in texts]), indent=1).encode()
        nb = notebook.parse(raw)
        virtual = notebook.virtual_text(nb)
        assert notebook.render(raw, virtual) == raw
        shown = notebook.cell_texts(virtual)
        for cell_ in nb.python_cells:
            assert shown[cell_.number].rstrip("\n") == cell_.text.rstrip("\n") or \
                shown[cell_.number] == cell_.text + "\n"

    round_trip()


def test_verify_entries_in_pyproject_take_notebooks_and_json_names_the_cells(project):
    (project / "pyproject.toml").write_text('[tool.hylint]\n\n[[tool.hylint.verify]]\n'
                                            f'target = "{D2L}::Residual"\ninputs = ["3x5"]\n')
    run = hylint("verify", "--output-format", "json", cwd=project)
    assert run.code == 1, run.err  # a gate entry that hybridizes only after a fix fails the gate
    report = json.loads(run.out)[0]
    assert report["verdict"] == "fixed"
    assert "HY501 cell 6 line 9" in report["gate_failure"], report["gate_failure"]
    assert [(f["code"], f["cell"], f["line"]) for f in report["fixes"]] == [("HY501", 6, 9), ("HY101", 6, 10)]
    assert [(d["code"], d["cell"], d["line"]) for d in report["remaining"]] == [("HY805", 5, 9), ("HY805", 5, 11)]
    assert report["hybridized"]["location"] == {"file": f"{D2L}:cell 6", "line": 9, "code": "a += b"}


def test_verify_eager_error_is_located_in_its_cell(project):
    run = hylint("verify", f"{TUTORIAL}::Shift", "--input", "2x4", cwd=project)
    assert run.code == 1, run.out + run.err
    assert "eager       error (eager):" in run.out and f"at {TUTORIAL}:cell 13:3" in run.out
