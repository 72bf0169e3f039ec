"""What a run says when there is nothing to report (issue 23, item 5): ruff's "All checks passed!" in the
human formats, nothing extra in the machine formats; a tree without Python files says so; a file-level
``# hylint: noqa`` skips the file (ruff's ``# ruff: noqa``)."""
import json

import pytest

from clirun import check, hylint

HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
CLEAN = HEAD + "        return F.relu(x)\n"
HAZARD = HEAD + "        return x.shape[0]\n"


@pytest.mark.parametrize("fmt", ["full", "concise", "grouped"])
def test_a_clean_run_says_all_checks_passed(tmp_path, fmt):
    (tmp_path / "m.py").write_text(CLEAN)
    run = check(["."], "--no-cache", "--output-format", fmt, cwd=tmp_path)
    assert (run.code, run.out) == (0, "All checks passed!\n")


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "junit", "github", "gitlab", "pylint"])
def test_machine_formats_get_nothing_extra(tmp_path, fmt):
    (tmp_path / "m.py").write_text(CLEAN)
    run = check(["."], "--no-cache", "--output-format", fmt, cwd=tmp_path)
    assert run.code == 0 and "All checks passed" not in run.out + run.err


def test_a_run_with_diagnostics_does_not_say_it(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD)
    run = check(["."], "--no-cache", cwd=tmp_path)
    assert run.code == 1 and "All checks passed" not in run.out


def test_a_tree_without_python_files_says_so(tmp_path):
    (tmp_path / "README.md").write_text("# nothing to check\n")
    run = check(["."], "--no-cache", cwd=tmp_path)
    assert run.code == 0
    assert run.err_lines == ["hylint: warning: no Python files found under the given paths"]


def test_a_file_level_noqa_skips_the_file(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD.replace("class N", "# hylint: noqa\nclass N"))
    run = check(["."], "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert (run.code, json.loads(run.out)) == (0, [])
    stdin = hylint("check", "-", "--output-format", "json", stdin=HAZARD.replace("class N", "#HYLINT:NOQA\nclass N").encode())
    assert (stdin.code, json.loads(stdin.out)) == (0, [])


def test_a_file_level_noqa_with_codes_ignores_only_those(tmp_path):
    source = HAZARD.replace("return x.shape[0]", "y = x.asnumpy()\n        return x.shape[0]")
    (tmp_path / "m.py").write_text("# hylint: noqa: HY201\n" + source)
    codes = [d["code"] for d in json.loads(check(["."], "--no-cache", "--output-format", "json",
                                                 cwd=tmp_path).out)]
    assert codes and "HY201" not in codes


def test_a_noqa_inside_code_or_after_code_is_not_file_level(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD.replace("return x.shape[0]", "return x.shape[0]  # hylint: noqa"))
    assert check(["."], "--no-cache", cwd=tmp_path).code == 1
