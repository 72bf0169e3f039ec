"""ruff's command-line conventions (issue 44, item 5): -q/--quiet, -o/--output-file, --show-settings without a
path and with the excludes that apply, hylint.toml found as pyproject.toml is, and a bad output-format in the
configuration named with its file and key."""
import re
from pathlib import Path

from clirun import hylint, invoke

HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
SAFE = HEAD + "        return x - x.mean(axis=1, keepdims=True)\n"  # HY101, a safe fix
SHAPE = HEAD + "        return x.shape[0]\n"  # HY201, no fix
CLEAN = HEAD + "        return F.relu(x)\n"


def _diagnostic_lines(text):
    return [line for line in text.splitlines() if ": HY" in line]


# -- -q/--quiet ------------------------------------------------------------------------------------

def test_quiet_prints_the_diagnostics_and_no_summary(project):
    (project / "a.py").write_text(SAFE)
    (project / "b.py").write_text(SHAPE)
    loud = invoke("check", "--no-cache", "--output-format", "concise", ".", cwd=project)
    quiet = invoke("check", "--no-cache", "--output-format", "concise", "-q", ".", cwd=project)
    assert loud.code == quiet.code == 1
    assert "Found 2 errors." in loud.out and "[*] 1 fixable" in loud.out
    assert quiet.out.splitlines() == _diagnostic_lines(loud.out) and len(_diagnostic_lines(quiet.out)) == 2
    full = invoke("check", "--no-cache", "--quiet", ".", cwd=project)  # full keeps its code frames (as ruff)
    assert "Found" not in full.out and "fixable" not in full.out and "^^^" in full.out


def test_quiet_clean_run_fix_and_diff_print_no_summary(project):
    (project / "a.py").write_text(CLEAN)
    assert invoke("check", "--no-cache", "-q", ".", cwd=project).out == ""  # no "All checks passed!"
    (project / "a.py").write_text(SAFE)
    diff = invoke("check", "--no-cache", "-q", "--diff", ".", cwd=project)
    assert diff.code == 1 and "+++ b/a.py" in diff.out and diff.err == ""  # no "Would fix 1 file."
    fix = invoke("check", "--no-cache", "-q", "--fix", "--show-fixes", ".", cwd=project)
    assert (fix.code, fix.out) == (0, "") and "F.broadcast_sub" in (project / "a.py").read_text()


def test_quiet_drops_warnings_not_errors(project):
    (project / "empty").mkdir()
    assert "no Python files" in invoke("check", "empty", cwd=project).err
    assert invoke("check", "-q", "empty", cwd=project).err == ""
    bad = invoke("check", "-q", "--select", "HY999", ".", cwd=project)
    assert bad.code == 2 and "HY999" in bad.err


# -- -o/--output-file ------------------------------------------------------------------------------

def test_output_file_gets_the_report_and_stdout_nothing(project):
    (project / "a.py").write_text(SAFE)
    on_stdout = invoke("check", "--no-cache", "--output-format", "json", ".", cwd=project)
    to_file = invoke("check", "--no-cache", "--output-format", "json", "-o", "out/report.json", ".", cwd=project)
    assert to_file.code == on_stdout.code == 1 and to_file.out == ""
    assert (project / "out" / "report.json").read_text("utf-8") == on_stdout.out  # its folder made
    full = invoke("check", "--no-cache", "--output-file", "report.txt", ".", cwd=project)
    text = (project / "report.txt").read_text("utf-8")
    assert full.out == "" and "Found 1 error." in text and "\x1b" not in text


def test_output_file_with_diff_and_with_stdin_fix(project):
    (project / "a.py").write_text(SAFE)
    diff = invoke("check", "--no-cache", "--diff", "-o", "changes.diff", "a.py", cwd=project)
    assert diff.code == 1 and diff.out == "" and "+++ b/a.py" in (project / "changes.diff").read_text()
    # `- --fix`: the fixed source stays on stdout, the report goes to the file (not to stderr)
    fixed = hylint("check", "--fix", "--output-format", "concise", "-o", "report.txt", "-", cwd=project,
                   stdin=SHAPE.replace("x.shape[0]", "x - x.mean(axis=1, keepdims=True)").encode())
    assert "F.broadcast_sub" in fixed.out and "Found 1 error (1 fixed, 0 remaining)." in \
        (project / "report.txt").read_text()
    assert "Found" not in fixed.err


def test_an_output_file_that_cannot_be_written_is_exit_2(project):
    (project / "a.py").write_text(SAFE)
    (project / "taken").write_text("")  # a file where the output file's folder should be
    run = hylint("check", "--no-cache", "-o", "taken/report.txt", "a.py", cwd=project)
    assert run.code == 2 and "taken/report.txt: cannot write the output file" in run.err


# -- --show-settings -------------------------------------------------------------------------------

def _settings(run):
    assert run.code == 0, run.err
    return dict(line.split(" = ", 1) for line in run.out.splitlines())


def test_show_settings_without_a_path_is_the_current_folder_or_the_first_path(project):
    (project / "pkg").mkdir()
    (project / "pkg" / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY201"]\n')
    here = _settings(invoke("check", "--show-settings", cwd=project))
    assert here["file"] == "." and here["config"] == "(none: the defaults)"
    first = _settings(invoke("check", "pkg", "--show-settings", cwd=project))
    assert first["config"] == str(project / "pkg" / "pyproject.toml") and first["ignore"] == "['HY201']"
    named = _settings(invoke("check", "--show-settings", "pkg", cwd=project))  # a value is still a path
    assert named == first


def test_show_settings_shows_the_excludes_that_apply(project):
    from hylint.batch.discovery import DEFAULT_EXCLUDE

    defaults = _settings(invoke("check", "--show-settings", cwd=project))
    assert defaults["exclude"] == str(list(DEFAULT_EXCLUDE)) and "'.venv'" in defaults["exclude"]
    (project / "pyproject.toml").write_text('[tool.hylint]\nexclude = ["gen"]\nextend-exclude = ["old"]\n')
    replaced = _settings(invoke("check", "--show-settings", cwd=project))
    assert (replaced["exclude"], replaced["extend-exclude"]) == ("['gen']", "['old']")


# -- hylint.toml -----------------------------------------------------------------------------------

def test_hylint_toml_is_found_without_config(project):
    (project / "pkg").mkdir()
    (project / "pkg" / "m.py").write_text(SHAPE)
    assert invoke("check", "--no-cache", "pkg", cwd=project).code == 1
    (project / "hylint.toml").write_text('ignore = ["HY201"]\n')  # top-level settings, as in ruff.toml
    run = invoke("check", "--no-cache", "pkg", cwd=project)
    assert (run.code, run.out) == (0, "All checks passed!\n")
    assert _settings(invoke("check", "--show-settings", "pkg/m.py", cwd=project))["config"] == \
        str(project / "hylint.toml")
    # from another folder too, as for pyproject.toml
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    assert hylint("check", "--no-cache", str(project / "pkg"), cwd=elsewhere).code == 0


def test_config_files_of_one_folder_in_ruffs_order(project):
    (project / "m.py").write_text(SHAPE)
    (project / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY201"]\n')
    (project / "hylint.toml").write_text('extend-select = ["HY090"]\n')  # wins over pyproject.toml
    assert _settings(invoke("check", "--show-settings", cwd=project))["config"] == str(project / "hylint.toml")
    assert invoke("check", "--no-cache", ".", cwd=project).code == 1
    (project / ".hylint.toml").write_text('ignore = ["HY2"]\n')  # wins over hylint.toml
    assert _settings(invoke("check", "--show-settings", cwd=project))["config"] == str(project / ".hylint.toml")
    assert invoke("check", "--no-cache", ".", cwd=project).code == 0


def test_a_nearer_pyproject_without_a_hylint_table_does_not_hide_a_hylint_toml(project):
    (project / "hylint.toml").write_text('ignore = ["HY201"]\n')
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text("[tool.black]\n")
    (project / "sub" / "m.py").write_text(SHAPE)
    assert invoke("check", "--no-cache", "sub", cwd=project).code == 0


def test_an_error_in_hylint_toml_names_the_file_and_the_key(project):
    (project / "m.py").write_text(SHAPE)
    (project / "hylint.toml").write_text('ignore = "HY201"\n')
    run = invoke("check", ".", cwd=project)
    assert run.code == 2
    assert run.err.strip() == (f"hylint: error: {project / 'hylint.toml'}: `ignore` must be a list of strings, "
                               "got 'HY201'")


# -- a bad output-format in the configuration ------------------------------------------------------

def test_a_bad_output_format_in_pyproject_names_the_file_and_the_key(project):
    (project / "m.py").write_text(SHAPE)
    (project / "pyproject.toml").write_text('[tool.hylint]\noutput-format = "xml"\n')
    run = hylint("check", ".", cwd=project)  # a real process: exit 2, one line, no traceback (clirun checks)
    assert run.code == 2 and len(run.err_lines) == 1
    assert run.err.startswith(f"hylint: error: {project / 'pyproject.toml'}: [tool.hylint]: `output-format`: "
                              "unknown output format 'xml' (choose from: full, concise")
    (project / "pyproject.toml").write_text('[tool.hylint]\noutput-format = "concise"\n')
    assert hylint("check", ".", cwd=project).out.startswith("m.py:6:16: HY201")


# -- README ----------------------------------------------------------------------------------------

def test_readme_names_every_option_of_check_and_the_configuration_files():
    from hylint.cli.check_command import check

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    for param in check.params:
        for name in getattr(param, "opts", []) + getattr(param, "secondary_opts", []):
            if name.startswith("--") and name != "--help":
                assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", readme), name
    assert "`-q/--quiet`" in readme and "`-o/--output-file PATH`" in readme
    assert "`hylint.toml`" in readme and "`.hylint.toml`" in readme
    # the whole suite's measured time, beside the fast suite's few minutes
    assert re.search(r"the whole suite took \d+ minutes on 2 cores", readme)
