"""The pre-commit hooks, run by the real pre-commit on a temporary git repository.

1. `pre-commit try-repo <snapshot of this repository>` (both hooks) on a staged broken file: `hylint`
   fails and names the diagnostic, `hylint-fix` fixes the file (and fails, since it changed it); a file
   in a configured exclude passes even though pre-commit names it explicitly (--force-exclude).
2. The hooks installed with `pre-commit install` from a .pre-commit-config.yaml: a commit of a broken
   file is refused, the fixed commit goes through.

The snapshot is a commit of this working tree (tracked and untracked, not ignored files), so the test
checks the hooks as they are now, committed or not. Slow: pre-commit builds the hook's virtualenv
(pip installs hylint and its dependencies), once per step.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# `x[:, 0]`: a tuple index proves `x` a tensor, so the fix is safe
BROKEN = ("class Net(HybridBlock):\n"
          "    def hybrid_forward(self, F, x):\n"
          "        return x[:, 0]\n")
FIXED = ("class Net(HybridBlock):\n"
         "    def hybrid_forward(self, F, x):\n"
         "        return F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)\n")



def test_hooks_file():
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"hylint", "hylint-fix"}
    assert hooks["hylint"]["entry"] == "hylint check --force-exclude"
    assert hooks["hylint-fix"]["entry"] == "hylint check --fix --exit-non-zero-on-fix --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is False


def _env(tmp_path):
    env = dict(os.environ)
    env.update({
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "hylint test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "hylint test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        "PRE_COMMIT_COLOR": "never",
    })
    env.pop("PRE_COMMIT", None)
    # the hook runs in its own virtualenv: nothing of this interpreter's should leak into it
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    return env


def _run(args, cwd, env, check=True):
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def _snapshot(tmp_path, env):
    """A git repository holding this working tree as one commit; returns (path, sha)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, env, check=False)
    if listed.returncode != 0:
        pytest.fail("the pre-commit test needs this repository as a git checkout")
    snap = tmp_path / "hylint-snapshot"
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():
            (snap / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snap / name)
    _run(["git", "init", "-q"], snap, env)
    _run(["git", "add", "-A"], snap, env)
    _run(["git", "commit", "-q", "-m", "snapshot"], snap, env)
    sha = _run(["git", "rev-parse", "HEAD"], snap, env).stdout.strip()
    return snap, sha


def _work_repo(tmp_path, env):
    work = tmp_path / "work"
    work.mkdir()
    _run(["git", "init", "-q"], work, env)
    (work / "pyproject.toml").write_text('[tool.hylint]\nextend-exclude = ["generated"]\n')
    (work / "generated").mkdir()
    (work / "generated" / "model.py").write_text(BROKEN)
    (work / "net.py").write_text(BROKEN)
    (work / "clean.py").write_text(FIXED)
    _run(["git", "add", "-A"], work, env)
    return work


@pytest.fixture
def setup(tmp_path):
    pytest.importorskip("pre_commit")
    env = _env(tmp_path)
    snap, sha = _snapshot(tmp_path, env)
    return env, snap, sha, _work_repo(tmp_path, env)


@pytest.mark.slow
def test_precommit_try_repo_and_commit(setup):
    env, snap, sha, work = setup
    pre_commit = [sys.executable, "-m", "pre_commit"]

    # 1. try-repo, both hooks, on the staged files (the excluded one named explicitly)
    tried = _run(pre_commit + ["try-repo", str(snap), "--ref", sha, "--files", "net.py", "clean.py",
                               "generated/model.py"], work, env, check=False)
    out = tried.stdout
    assert tried.returncode == 1, out + tried.stderr
    check_block = out.split("hylint (fix)")[0]
    assert "hylint..." in check_block and "Failed" in check_block
    assert "net.py:3:16: HY301" in check_block
    assert "clean.py" not in check_block and "generated" not in check_block  # excludes hold (--force-exclude)
    assert "files were modified by this hook" in out
    assert (work / "net.py").read_text() == FIXED
    assert (work / "generated" / "model.py").read_text() == BROKEN  # excluded: not fixed either

    # 2. installed hooks: a broken commit is refused, the fixed one goes through
    (work / "net.py").write_text(BROKEN)
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {snap}\n  rev: {sha}\n  hooks:\n  - id: hylint\n")
    _run(["git", "add", "-A"], work, env)
    _run(pre_commit + ["install"], work, env)
    refused = _run(["git", "commit", "-q", "-m", "broken"], work, env, check=False)
    assert refused.returncode != 0
    assert "net.py:3:16: HY301" in refused.stdout + refused.stderr
    assert _run(["git", "rev-list", "--all"], work, env, check=False).stdout == ""  # nothing committed
    (work / "net.py").write_text(FIXED)
    _run(["git", "add", "-A"], work, env)
    committed = _run(["git", "commit", "-q", "-m", "clean"], work, env, check=False)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert "hylint" in committed.stdout + committed.stderr and "Passed" in committed.stdout + committed.stderr
