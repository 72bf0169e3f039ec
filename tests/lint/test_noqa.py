"""noqa parsing, the unused-noqa rule (HY090), --add-noqa, per-file-ignores and --force-exclude, end to end."""
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from hylint.batch.add_noqa import add_noqa_source
from hylint.cli import main
from hylint.lint.engine import Linter
from hylint.syntax.noqa import comment_directives, parse_noqa
from hylint.selection import select_rules

ROOT = Path(__file__).resolve().parents[2]
HEAD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"


def body(*lines):
    return HEAD + "".join(f"        {line}\n" for line in lines)


def run(*args):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def codes(source, *extend):
    return [(d.code, d.start[0]) for d in Linter(select_rules(extend_select=list(extend))).lint_source(source).diagnostics]


# -- parsing -----------------------------------------------------------------------------------------

def test_parse_noqa_merges_every_directive_on_a_line():
    found = parse_noqa(["x = '# noqa: E501'  # noqa: HY301", "y  # noqa", "z  # noqa:HY1,hy2 # noqa"])
    assert found[1].codes == {"E501", "HY301"}
    assert found[2].codes is None
    assert found[3].codes is None and found[3].suppresses("HY999")


def test_comment_directives_ignore_strings_and_keep_spelling():
    source = 's = "# noqa: HY301"\nt = 1  # type: ignore  # noqa:hy301, E501\n'
    (directive,) = comment_directives(source)
    assert directive.row == 2 and directive.codes == ("hy301", "E501")
    line = source.splitlines()[1]
    assert line[directive.start:directive.end] == "# noqa:hy301, E501"
    assert line[directive.codes_start:directive.end] == "hy301, E501"
    assert comment_directives("x = (  # noqa\n") is None  # does not tokenize


def test_noqa_suppresses_only_its_codes_and_line():
    assert codes(body("return x[0]  # noqa: HY301")) == []
    assert codes(body("return x[0]  # noqa: HY201")) == [("HY301", 3)]
    assert codes(body("y = x[0]  # noqa", "return y[0]")) == [("HY301", 4)]


# -- unused-noqa -------------------------------------------------------------------------------------

def test_unused_noqa_is_off_by_default():
    assert codes(body("return F.relu(x)  # noqa: HY301")) == []
    assert codes(body("return F.relu(x)  # noqa: HY301"), "HY090") == [("HY090", 3)]


def test_unused_noqa_reports_unknown_codes_with_the_unused_ones():
    linter = Linter(select_rules(extend_select=["HY090"]))
    (d,) = linter.lint_source(body("return x[0]  # noqa: HY301, HY999, HY20")).diagnostics
    assert d.message == "Unused `noqa` directive (unknown: `HY999`, `HY20`)"
    (d,) = linter.lint_source(body("return F.relu(x)  # noqa: HY301, HY999")).diagnostics
    assert d.message == "Unused `noqa` directive (unused: `HY301`; unknown: `HY999`)"


def test_unused_noqa_leaves_codes_of_rules_not_selected_alone():
    source = body("return F.relu(x)  # noqa: HY301")
    assert codes(source, "HY090") == [("HY090", 3)]
    only_hy2 = Linter(select_rules(select=["HY2", "HY090"]))
    assert only_hy2.lint_source(source).diagnostics == []


def test_unused_noqa_in_a_file_without_hybrid_code_and_with_crlf():
    source = "import os  # noqa: HY301\r\nimport sys  # noqa: F401\r\n"
    linter = Linter(select_rules(extend_select=["HY090"]))
    assert [(d.code, d.start) for d in linter.lint_source(source).diagnostics] == [("HY090", (1, 12))]
    fixed = linter.fix_source(source)
    assert fixed.source == "import os\r\nimport sys  # noqa: F401\r\n"


def test_unused_noqa_fix_through_the_cli_is_idempotent(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(body("y = F.relu(x)  # noqa: HY301,HY402  # why", "return y[0]  # noqa: HY301, HY201"))
    code, out, err = run("check", str(path), "--extend-select", "HY090", "--fix", "--output-format", "concise")
    assert code == 0, out + err
    assert path.read_text() == body("y = F.relu(x)  # why", "return y[0]  # noqa: HY301")
    code, out, _ = run("check", str(path), "--extend-select", "HY090", "--fix")
    assert code == 0 and path.read_text() == body("y = F.relu(x)  # why", "return y[0]  # noqa: HY301")


# -- --add-noqa --------------------------------------------------------------------------------------

ADOPT = HEAD + (
    "        a = x[0]\n"
    "        b = x[1]  # keep this comment\n"
    "        c = x[2]  # noqa: E501\n"
    "        d = F.concat(x[3],\n"
    "                     x.shape[0])\n"
    "        e = x[4] + len('''one\n"
    "two''')\n"
    "        f = x[5] + \\\n"
    "            1\n"
    "        return a + b + c + d + e + f\n"
)


def test_add_noqa_suppresses_every_diagnostic_and_keeps_comments():
    linter = Linter(select_rules())
    new, outcome = add_noqa_source(ADOPT, "adopt.py", linter)
    cst.parse_module(new)
    lines = new.splitlines()
    assert lines[2] == "        a = x[0]  # noqa: HY301"
    assert lines[3] == "        b = x[1]  # keep this comment  # noqa: HY301"
    assert lines[4] == "        c = x[2]  # noqa: E501, HY301"
    assert lines[5] == "        d = F.concat(x[3],  # noqa: HY301"
    assert lines[6] == "                     x.shape[0])  # noqa: HY201"
    # lines that cannot take a comment are named, not touched
    assert lines[7] == "        e = x[4] + len('''one" and lines[9] == "        f = x[5] + \\"
    assert [m.split(": cannot")[0] for m in outcome.messages] == ["adopt.py:8", "adopt.py:10"]
    assert outcome.added == 5
    remaining = [(d.code, d.start[0]) for d in linter.lint_source(new).diagnostics]
    assert remaining == [("HY301", 8), ("HY301", 10)]
    # nothing left to add, nothing unused
    again, outcome = add_noqa_source(new, "adopt.py", linter)
    assert again == new and outcome.added == 0
    assert [d for d in Linter(select_rules(extend_select=["HY090"])).lint_source(new).diagnostics
            if d.code == "HY090"] == []


def test_add_noqa_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_bytes(body("y = x[0]", "return y.shape[0]").replace("\n", "\r\n").encode())
    (tmp_path / "clean.py").write_text(body("return F.relu(x)"))
    code, out, err = run("check", ".", "--add-noqa")
    assert (code, out) == (0, "") and err == "Added 2 noqa directives.\n"
    assert (tmp_path / "a.py").read_bytes() == body("y = x[0]  # noqa: HY301", "return y.shape[0]  # noqa: HY201") \
        .replace("\n", "\r\n").encode()
    assert run("check", ".")[0] == 0
    assert run("check", ".", "--add-noqa")[2] == "Added 0 noqa directives.\n"
    assert run("check", ".", "--add-noqa", "--fix")[0] == 2


# -- per-file-ignores / --force-exclude --------------------------------------------------------------

def test_per_file_ignores_globs_and_no_fix_of_ignored_codes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hylint]\nper-file-ignores = { "tests/**/*.py" = ["HY301"], "__init__.py" = ["HY3"] }\n')
    source = body("x = F.relu(x)", "return x[0]")  # a proven tensor: the fix is safe
    for name in ("tests/test_a.py", "tests/deep/test_b.py", "pkg/__init__.py", "pkg/mod.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    code, out, _ = run("check", ".", "--output-format", "pylint")
    assert out.splitlines() == ["pkg/mod.py:4: [HY301] `x[0]` indexes graph outputs after hybridize(), not rows of `x`"]
    run("check", ".", "--fix")
    # an ignored diagnostic is not fixed either
    assert (tmp_path / "tests" / "deep" / "test_b.py").read_text() == source
    assert (tmp_path / "pkg" / "__init__.py").read_text() == source
    assert (tmp_path / "pkg" / "mod.py").read_text() != source


def test_force_exclude_holds_for_explicit_files_in_excluded_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nextend-exclude = ["generated", "legacy_*.py"]\n')
    bad = body("return x[0]")
    for name in ("src/generated/deep/model.py", "src/legacy_net.py", "src/ok.py", "build/out.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(bad)
    explicit = ["src/generated/deep/model.py", "src/legacy_net.py", "build/out.py"]
    # without --force-exclude, explicit files are checked (ruff's behaviour)
    assert run("check", *explicit)[0] == 1
    code, out, err = run("check", "--force-exclude", *explicit)
    assert (code, out) == (0, "All checks passed!\n"), out + err
    assert run("check", "--force-exclude", *explicit, "src/ok.py")[0] == 1
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nextend-exclude = ["generated"]\nforce-exclude = true\n')
    assert run("check", "src/generated/deep/model.py")[0] == 0


def test_exit_codes_through_a_real_process(tmp_path):
    (tmp_path / "a.py").write_text(body("return x[0]"))
    proc = subprocess.run([sys.executable, "-m", "hylint", "check", str(tmp_path / "a.py"), "--add-noqa", "--diff"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr.startswith("hylint: error: ") and "Traceback" not in proc.stderr
