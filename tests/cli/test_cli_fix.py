"""`hylint check` fix modes: --fix, --unsafe-fixes, --diff, --show-fixes, --exit-non-zero-on-fix, stdin, config."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import runner
from hylint.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
SAFE = HEAD + "        return x - x.mean(axis=1, keepdims=True)\n"
SAFE_FIXED = HEAD + "        return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))\n"
UNSAFE = HEAD + "        x += 1\n        return x\n"
UNSAFE_FIXED = HEAD + "        x = x + 1\n        return x\n"
NO_FIX = HEAD + "        return x.asnumpy()\n"


def run(args, stdin=None):
    return runner().invoke(main, ["check"] + args, input=stdin, catch_exceptions=False)


def test_fix_writes_safe_fixes_and_exits_0_when_nothing_remains(project):
    (project / "a.py").write_text(SAFE)
    result = run(["--fix", "a.py"])
    assert result.exit_code == 0, result.output
    assert (project / "a.py").read_text() == SAFE_FIXED


def test_remaining_diagnostics_decide_the_exit_code(project):
    (project / "a.py").write_text(SAFE + "\n\nclass M(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                                  "        return x.asnumpy()\n")
    result = run(["--fix", "--output-format", "concise", "a.py"])
    assert result.exit_code == 1
    assert "HY401" in result.stdout and "HY101" not in result.stdout
    assert "F.broadcast_sub" in (project / "a.py").read_text()


def test_unsafe_fixes_need_the_flag(project):
    (project / "a.py").write_text(UNSAFE)
    result = run(["--fix", "--output-format", "concise", "a.py"])
    assert result.exit_code == 1 and (project / "a.py").read_text() == UNSAFE
    assert "--unsafe-fixes" in result.stdout  # shown as available
    result = run(["--fix", "--unsafe-fixes", "a.py"])
    assert result.exit_code == 0 and (project / "a.py").read_text() == UNSAFE_FIXED


def test_unsafe_fixes_without_fix_show_them_in_json(project):
    (project / "a.py").write_text(UNSAFE)
    result = run(["--unsafe-fixes", "--output-format", "json", "a.py"])
    assert result.exit_code == 1 and (project / "a.py").read_text() == UNSAFE
    [diagnostic] = json.loads(result.stdout)
    assert diagnostic["fix"]["applicability"] == "unsafe"
    assert diagnostic["fix"]["edits"][0]["content"] == "x = x + 1"


def test_json_fills_fix_for_every_fixable_diagnostic(project):
    (project / "a.py").write_text(HEAD + "        y = x[0] + nd.array([[1, 1]])\n        return y.asnumpy()\n")
    result = run(["--output-format", "json", "a.py"])
    diagnostics = json.loads(result.stdout)
    assert {d["code"] for d in diagnostics} == {"HY301", "HY402", "HY101", "HY401"}
    for d in diagnostics:
        assert (d["fix"] is None) == (d["code"] == "HY401")


def test_diff_prints_writes_nothing_and_exits_1(project):
    (project / "a.py").write_text(SAFE)
    result = run(["--diff", "a.py"])
    assert result.exit_code == 1
    assert "-        return x - x.mean(axis=1, keepdims=True)\n" in result.stdout
    assert "+        return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))\n" in result.stdout
    assert (project / "a.py").read_text() == SAFE
    (project / "b.py").write_text(NO_FIX)
    assert run(["--diff", "b.py"]).exit_code == 0


def test_show_fixes_lists_what_was_fixed(project):
    (project / "a.py").write_text(SAFE)
    result = run(["--fix", "--show-fixes", "a.py"])
    assert result.exit_code == 0
    assert "HY101" in result.stdout and "1" in result.stdout


def test_exit_non_zero_on_fix(project):
    (project / "a.py").write_text(SAFE)
    assert run(["--fix", "--exit-non-zero-on-fix", "a.py"]).exit_code == 1
    assert run(["--fix", "--exit-non-zero-on-fix", "a.py"]).exit_code == 0  # nothing left to fix


def test_stdin_fix_writes_the_fixed_source_to_stdout(project):
    result = run(["--fix", "-"], stdin=SAFE)
    assert result.exit_code == 0
    assert result.stdout == SAFE_FIXED


def test_stdin_fix_keeps_unfixable_source_and_reports_on_stderr(project):
    result = runner().invoke(main, ["check", "--fix", "--stdin-filename", "m.py", "-"],
                                                input=NO_FIX)
    assert result.exit_code == 1 and result.stdout == NO_FIX
    assert "HY401" in result.stderr


def test_config_fix_and_unsafe_fixes(project):
    (project / "pyproject.toml").write_text("[tool.hylint]\nfix = true\nunsafe-fixes = true\n")
    (project / "a.py").write_text(UNSAFE)
    assert run(["a.py"]).exit_code == 0
    assert (project / "a.py").read_text() == UNSAFE_FIXED
    (project / "b.py").write_text(SAFE)
    assert run(["--no-fix", "b.py"]).exit_code == 1 and (project / "b.py").read_text() == SAFE


def test_read_only_file_is_an_error_not_a_damaged_file(project):
    path = project / "a.py"
    path.write_text(SAFE)
    path.chmod(0o444)
    try:
        result = runner().invoke(main, ["check", "--fix", "a.py"])
        if result.exit_code == 0:  # running as root: the write is allowed
            pytest.skip("permissions are not enforced for this user")
        assert result.exit_code == 2 and "cannot write" in result.stderr
        assert path.read_text() == SAFE
    finally:
        path.chmod(0o644)


def test_exit_codes_in_a_real_process(tmp_path):
    (tmp_path / "a.py").write_text(SAFE)
    (tmp_path / "b.py").write_text(NO_FIX)

    def code(*args):
        return subprocess.run([sys.executable, "-m", "hylint", "check", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=60).returncode

    assert code("--diff", str(tmp_path / "a.py")) == 1
    assert code("--fix", str(tmp_path / "a.py")) == 0
    assert code("--fix", str(tmp_path / "b.py")) == 1
    assert code("--fix", "--select", "HY999", str(tmp_path / "b.py")) == 2
    assert (tmp_path / "a.py").read_text() == SAFE_FIXED


def test_fix_counts_what_check_found(project):
    # gluoncv's monodepthv2 layers.py: `depth.reshape(self.n, 1, -1) * points`. check read the varargs reshape
    # as of unknown shape; --fix's HY902 wrote the tuple, and its next pass found the HY101 check had not:
    # "Found 59 errors" then "Found 60 errors (28 fixed, ...)". Both now count the same diagnostics.
    (project / "a.py").write_text(
        HEAD + "        points = F.batch_dot(x, x)\n        return x.reshape(self.n, 1, -1) * points\n")
    found = run(["--output-format", "concise", "a.py"])
    assert found.exit_code == 1
    assert "Found 2 errors." in found.stdout and "[*] 2 fixable" in found.stdout, found.stdout
    fixed = run(["--fix", "--output-format", "concise", "a.py"])
    assert "Found 2 errors (2 fixed, 0 remaining)." in fixed.stdout, fixed.stdout
