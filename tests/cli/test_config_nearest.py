"""The configuration of a checked file is the nearest ``[tool.hylint]`` above it, wherever hylint runs
from (issue 23, item 2), for paths and for ``--stdin-filename`` alike; ``--show-settings FILE`` and
``--show-files`` tell which."""
from clirun import check, hylint

HAZARD = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
          "        return x.shape[0]\n")


def _projects(tmp_path):
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY201"]\n')
    (project / "pkg" / "m.py").write_text(HAZARD)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[tool.hylint]\nextend-select = ["HY090"]\n')
    (other / "m.py").write_text(HAZARD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return project, other, elsewhere


def test_a_run_from_another_folder_reads_the_project_config(tmp_path):
    project, _, elsewhere = _projects(tmp_path)
    run = check([str(project / "pkg" / "m.py")], "--no-cache", cwd=elsewhere)
    assert (run.code, run.out) == (0, "All checks passed!\n")


def test_stdin_filename_reads_the_config_of_that_file(tmp_path):
    project, _, elsewhere = _projects(tmp_path)
    run = check(["-"], "--stdin-filename", str(project / "pkg" / "m.py"), cwd=elsewhere, stdin=HAZARD.encode())
    assert run.code == 0
    assert check(["-"], cwd=elsewhere, stdin=HAZARD.encode()).code == 1  # no config above the current folder


def test_each_path_gets_its_own_config(tmp_path):
    project, other, elsewhere = _projects(tmp_path)
    run = check([str(project), str(other)], "--no-cache", cwd=elsewhere)
    assert run.code == 1
    assert [line.split(":")[0] for line in run.out.splitlines() if ": HY" in line] == [str(other / "m.py")]


def test_show_settings_and_show_files(tmp_path):
    project, _, elsewhere = _projects(tmp_path)
    settings = hylint("check", "--show-settings", str(project / "pkg" / "m.py"), cwd=elsewhere)
    assert settings.code == 0
    lines = dict(line.split(" = ", 1) for line in settings.out.splitlines())
    assert lines["config"] == str(project / "pyproject.toml") and lines["ignore"] == "['HY201']"
    assert "HY201" not in lines["rules"] and "HY301" in lines["rules"]
    files = hylint("check", "--show-files", str(project), cwd=elsewhere)
    assert (files.code, files.out.splitlines()) == (0, [str(project / "pkg" / "m.py")])
    assert not (project / ".hylint_cache").exists()  # nothing was checked


def test_the_in_memory_api_uses_the_settings_of_the_path(tmp_path):
    from hylint.check import CheckOptions, check_source, fix_source

    project, other, _ = _projects(tmp_path)
    assert check_source(HAZARD, str(project / "pkg" / "m.py")) == []  # HY201 ignored there
    assert [d.code for d in check_source(HAZARD, str(other / "m.py"))] == ["HY201"]
    assert [d.code for d in check_source(HAZARD, str(other / "m.py"), CheckOptions(ignore=("HY201",)))] == []
    indexed = HAZARD.replace("x.shape[0]", "x[0]")
    assert fix_source(indexed, str(other / "m.py")).source == indexed  # HY301's fix is unsafe
    fixed = fix_source(indexed, str(other / "m.py"), CheckOptions(unsafe_fixes=True))
    assert fixed.fixed_by_code == {"HY301": 1} and "F.slice_axis(x, axis=0, begin=0, end=1)" in fixed.source


def _sub_project(tmp_path):
    """proj ignores HY201; proj/sub has its own table (HY201 on, legacy/ excluded), as ruff reads nested ones."""
    project, _, elsewhere = _projects(tmp_path)
    sub = project / "sub"
    (sub / "legacy").mkdir(parents=True)
    (sub / "pyproject.toml").write_text('[tool.hylint]\nextend-exclude = ["legacy"]\n')
    (sub / "m.py").write_text(HAZARD)
    (sub / "legacy" / "m.py").write_text(HAZARD)
    return project, sub, elsewhere


def test_a_folder_walk_checks_each_file_with_its_nearest_config(tmp_path):
    project, sub, elsewhere = _sub_project(tmp_path)
    run = check([str(project)], "--no-cache", cwd=elsewhere)
    assert run.code == 1
    # pkg/m.py under proj's table (HY201 ignored); sub/m.py under sub's; sub/legacy excluded by sub's table
    assert [line.split(":")[0] for line in run.out.splitlines() if ": HY201" in line] == [str(sub / "m.py")]
    files = hylint("check", "--show-files", str(project), cwd=elsewhere)
    assert sorted(files.out.splitlines()) == sorted([str(project / "pkg" / "m.py"), str(sub / "m.py")])
    # the same diagnostics as naming the file alone
    alone = check([str(sub / "m.py")], "--no-cache", cwd=elsewhere)
    assert [line for line in alone.out.splitlines() if ": HY" in line] == \
        [line for line in run.out.splitlines() if line.startswith(str(sub / "m.py"))]


def test_config_option_applies_one_table_to_every_file(tmp_path):
    project, sub, elsewhere = _sub_project(tmp_path)
    run = check([str(project)], "--no-cache", "--config", str(project / "pyproject.toml"), cwd=elsewhere)
    assert (run.code, run.out) == (0, "All checks passed!\n")  # HY201 ignored everywhere
    files = hylint("check", "--show-files", "--config", str(project / "pyproject.toml"), str(project), cwd=elsewhere)
    assert str(sub / "legacy" / "m.py") in files.out.splitlines()  # sub's excludes are not read


def test_find_pyproject_with_a_memo_finds_what_it_finds_alone(tmp_path):
    """A run looks up the nearest table for every folder holding a file, sharing what earlier lookups found."""
    from hylint.config import find_pyproject

    (tmp_path / "pyproject.toml").write_text("[tool.hylint]\n")
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.black]\n")  # no [tool.hylint]: not this one
    (tmp_path / "a" / "b" / "pyproject.toml").write_text("[tool.hylint]\nignore = []\n")
    (tmp_path / "d" / "e").mkdir(parents=True)
    folders = [tmp_path / "a" / "b" / "c", tmp_path / "a", tmp_path / "d" / "e", tmp_path / "a" / "b",
               tmp_path / "d", tmp_path]
    memo = {}
    assert [find_pyproject(folder, memo) for folder in folders] == [find_pyproject(folder) for folder in folders] == [
        tmp_path / "a" / "b" / "pyproject.toml", tmp_path / "pyproject.toml", tmp_path / "pyproject.toml",
        tmp_path / "a" / "b" / "pyproject.toml", tmp_path / "pyproject.toml", tmp_path / "pyproject.toml"]
