"""The result cache (.hylint_cache/): same results as without it, never stale, never a crash."""
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hylint.batch.cache import CACHE_DIR, RACY_NS, CachedResult, ResultCache, cache_key, content_digest
from hylint.cli import main
from hylint.diagnostic import Applicability, Diagnostic, Edit, Fix

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
BAD = HEAD + "        return x[0] + x.mean(axis=1, keepdims=True)\n"
CLEAN = HEAD + "        return F.relu(x)\n"
PLAIN = "def add(a, b):\n    return a + b\n"


def run(args):
    kwargs = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters else {}
    return CliRunner(**kwargs).invoke(main, ["check"] + args, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    (tmp_path / "pkg" / "plain.py").write_text(PLAIN)
    return tmp_path


def cache_files(project):
    return sorted((project / CACHE_DIR).rglob("*.json"))


def entries(project):
    (path,) = cache_files(project)
    return json.loads(path.read_text())["entries"]


def age(path: Path, seconds: float = 10) -> None:
    """Make a file's mtime older, as if it had been written a while ago (outside the racy window)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


@pytest.mark.parametrize("args", [[], ["--output-format", "json"], ["--statistics"], ["--diff"],
                                  ["--select", "ALL", "--output-format", "concise"]])
def test_warm_run_gives_what_a_cold_run_gives(project, args):
    uncached = run(args + ["--no-cache", "pkg"])
    assert not (project / CACHE_DIR).exists()
    cold = run(args + ["pkg"])
    warm = run(args + ["pkg"])
    for result in (cold, warm):
        assert (result.exit_code, result.stdout, result.stderr) == \
            (uncached.exit_code, uncached.stdout, uncached.stderr)
    assert uncached.exit_code == 1


def test_cache_folder_is_ignored_by_git_and_tagged(project):
    run(["pkg"])
    assert (project / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (project / CACHE_DIR / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert set(entries(project)) == {str(project / "pkg" / n) for n in ("bad.py", "clean.py", "plain.py")}


def test_an_edited_file_is_checked_again(project):
    assert run(["pkg/clean.py"]).exit_code == 0
    (project / "pkg" / "clean.py").write_text(BAD)
    result = run(["--output-format", "concise", "pkg/clean.py"])
    assert result.exit_code == 1 and "HY301" in result.stdout
    (project / "pkg" / "clean.py").write_text(CLEAN)
    assert run(["pkg/clean.py"]).exit_code == 0


def test_same_size_same_mtime_edit_is_seen(project):
    """An edit that keeps size and mtime (a tool restoring timestamps) is caught by the content hash."""
    path = project / "pkg" / "clean.py"
    age(path)
    assert run(["pkg/clean.py"]).exit_code == 0
    st = path.stat()
    edited = CLEAN.replace("F.relu(x)", "x[0][0]  ")
    assert len(edited) == len(CLEAN)
    path.write_text(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert run(["pkg/clean.py"]).exit_code == 1


def test_unchanged_files_are_not_read_on_a_warm_run(project, monkeypatch):
    for name in ("bad.py", "clean.py", "plain.py"):
        age(project / "pkg" / name)
    run(["pkg"])
    import hylint.batch.parallel

    reads = []
    original = hylint.batch.parallel.read_source
    monkeypatch.setattr(hylint.batch.parallel, "read_source", lambda p: reads.append(p.name) or original(p))
    result = run(["--output-format", "concise", "pkg"])
    assert result.exit_code == 1
    assert reads == ["bad.py"]  # only a file with diagnostics is read (its text is shown in code frames)
    reads.clear()
    (project / "pkg" / "plain.py").write_text(PLAIN + "\n")
    run(["--output-format", "concise", "pkg"])
    assert sorted(reads) == ["bad.py", "plain.py"]


def test_recently_modified_files_are_hashed_not_trusted(project, tmp_path):
    """Within the racy window a matching stat is not enough: the file is read and hashed."""
    path = project / "pkg" / "clean.py"
    cache = ResultCache.open(project, "k")
    st = path.stat()
    cache.store(path, "pkg/clean.py", path.read_bytes(), st, CachedResult([], [], {}, "", None))
    cached, trusted = cache.lookup(path, "pkg/clean.py", st)
    assert cached is not None and not trusted  # just written
    assert cache.verify(path, path.read_bytes(), st)
    assert not cache.verify(path, path.read_bytes() + b"#", st)
    age(path, RACY_NS / 1e9 + 1)
    st = path.stat()
    cache.store(path, "pkg/clean.py", path.read_bytes(), st, CachedResult([], [], {}, "", None))
    assert cache.lookup(path, "pkg/clean.py", st)[1] is True


@pytest.mark.parametrize("garbage", [b"", b"\x00\xff garbage", b'{"format": 1, "entries": ', b"[]",
                                     b'{"format": 1, "entries": {"x": 1}}', b'{"format": 1, "entries": []}'])
def test_a_corrupt_cache_is_rebuilt(project, garbage):
    expected = run(["--output-format", "json", "--no-cache", "pkg"])
    run(["pkg"])
    (path,) = cache_files(project)
    key = path.stem
    path.write_bytes(garbage)
    result = run(["--output-format", "json", "pkg"])
    assert (result.exit_code, result.stdout, result.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    assert len(json.loads(path.read_text())["entries"]) == 3 and path.stem == key


def test_corrupt_entries_are_misses(project):
    expected = run(["--output-format", "json", "--no-cache", "pkg"])
    run(["--output-format", "json", "pkg"])
    (path,) = cache_files(project)
    data = json.loads(path.read_text())
    for name, entry in data["entries"].items():
        entry[-1] = {"d": [["HY301", "x"]]} if "bad" in name else "nonsense"
    path.write_text(json.dumps(data))
    result = run(["--output-format", "json", "pkg"])
    assert (result.exit_code, result.stdout) == (expected.exit_code, expected.stdout)


def test_no_cache_flag_and_config_key(project):
    run(["--no-cache", "pkg"])
    assert not (project / CACHE_DIR).exists()
    (project / "pyproject.toml").write_text("[tool.hylint]\ncache = false\n")
    run(["pkg"])
    assert not (project / CACHE_DIR).exists()
    (project / "pyproject.toml").write_text("[tool.hylint]\ncache = true\n")
    run(["pkg"])
    assert (project / CACHE_DIR).is_dir()


def test_cache_lives_at_the_project_root(project, monkeypatch):
    (project / "pyproject.toml").write_text("[tool.hylint]\n")
    monkeypatch.chdir(project / "pkg")
    assert run(["bad.py"]).exit_code == 1
    assert (project / CACHE_DIR).is_dir() and not (project / "pkg" / CACHE_DIR).exists()


def test_an_unwritable_cache_is_skipped_silently(project):
    (project / CACHE_DIR).write_text("a file where the folder should be")
    expected = run(["--no-cache", "pkg"])
    result = run(["pkg"])
    assert (result.exit_code, result.stdout, result.stderr) == (expected.exit_code, expected.stdout, expected.stderr)


def test_configuration_changes_use_another_cache(project):
    assert run(["--output-format", "concise", "pkg"]).exit_code == 1
    result = run(["--output-format", "concise", "--ignore", "HY301,HY101", "pkg"])
    assert "HY301" not in result.stdout
    assert len(cache_files(project)) == 2
    keys = {cache_key(mode=m, unsafe=u, select=(), extend_select=(), ignore=(), per_file_ignores=())
            for m in ("lint", "fix", "diff") for u in (False, True)}
    assert len(keys) == 6


def test_unknown_rule_code_is_an_error_with_a_warm_cache(project):
    run(["pkg"])
    result = run(["--select", "HY999", "pkg"])
    assert result.exit_code == 2 and "HY999" in result.stderr


def test_fix_mode_never_serves_a_stale_file(project):
    path = project / "pkg" / "bad.py"
    run(["--fix", "--unsafe-fixes", "pkg"])
    fixed = path.read_text()
    assert fixed != BAD
    second = run(["--fix", "--unsafe-fixes", "--show-fixes", "pkg"])
    assert path.read_text() == fixed and "Fixed:" not in second.stdout
    path.write_text(BAD)  # back to the original: fixed again, not served from the cache
    run(["--fix", "--unsafe-fixes", "pkg"])
    assert path.read_text() == fixed


def test_diff_mode_is_replayed_exactly(project):
    cold = run(["--diff", "pkg"])
    warm = run(["--diff", "pkg"])
    assert cold.exit_code == warm.exit_code == 1
    assert cold.stdout == warm.stdout and "+++ b/pkg/bad.py" in warm.stdout
    assert (project / "pkg" / "bad.py").read_text() == BAD


def test_deleted_files_leave_the_cache(project):
    run(["pkg"])
    (project / "pkg" / "plain.py").unlink()
    (project / "pkg" / "new.py").write_text(PLAIN)
    run(["pkg"])
    assert set(entries(project)) == {str(project / "pkg" / n) for n in ("bad.py", "clean.py", "new.py")}


def test_concurrent_saves_merge_and_never_leave_a_broken_file(project):
    paths = [project / "pkg" / n for n in ("bad.py", "clean.py", "plain.py")]
    first, second = ResultCache.open(project, "k"), ResultCache.open(project, "k")
    result = CachedResult([Diagnostic("HY301", "tensor-subscript", "m", "x", (1, 2), (1, 3),
                                      Fix(Applicability.SAFE, "t", (Edit("y", (1, 2), (1, 3), 5, 6),)), 1)],
                          ["note"], {"HY301": 1}, "diff", "fixed")
    first.store(paths[0], "a", b"1", paths[0].stat(), result)
    second.store(paths[1], "b", b"2", paths[1].stat(), result)
    first.save()
    second.save()
    third = ResultCache.open(project, "k")
    assert set(third.entries) == {str(paths[0]), str(paths[1])}
    loaded, _ = third.lookup(paths[0], "a", paths[0].stat())
    assert loaded.to_json() == result.to_json() and loaded.diagnostics[0].filename == "a"
    assert third.lookup(paths[0], "renamed", paths[0].stat()) == (None, False)


@pytest.mark.slow
def test_concurrent_runs(project):
    """Several hylint processes on the same project at once: all right, and the cache stays whole."""
    for index in range(12):
        (project / "pkg" / f"m{index}.py").write_text(BAD if index % 2 else PLAIN)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "hylint", "check", "--output-format", "json", "--jobs", "1", "pkg"]
    expected = subprocess.run(command + ["--no-cache"], capture_output=True, text=True, env=env)
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert (proc.returncode, out, err) == (expected.returncode, expected.stdout, expected.stderr)
    assert len(entries(project)) == 15
    assert not list((project / CACHE_DIR).rglob("*.tmp"))


def test_content_digest_is_of_the_bytes():
    assert content_digest(b"a") != content_digest(b"a\n") and len(content_digest(b"")) == 32


# -- where the cache lives (issue 23, item 2) ---------------------------------------------------------
def test_cache_dir_option_environment_and_clean(tmp_path):
    from clirun import check, hylint

    (tmp_path / "m.py").write_text(HEAD_FOR_CACHE)
    chosen = tmp_path / "chosen"
    assert check(["."], "--cache-dir", str(chosen), cwd=tmp_path).code == 1
    assert list(chosen.rglob("*.json")) and not (tmp_path / CACHE_DIR).exists()
    by_env = tmp_path / "by-env"
    assert check(["."], cwd=tmp_path, env={"HYLINT_CACHE_DIR": str(by_env)}).code == 1
    assert list(by_env.rglob("*.json"))
    run = hylint("clean", "--cache-dir", str(chosen), cwd=tmp_path)
    assert run.code == 0 and not chosen.exists()
    (tmp_path / "not-a-cache").mkdir()
    refused = hylint("clean", "--cache-dir", str(tmp_path / "not-a-cache"), cwd=tmp_path)
    assert refused.code == 2 and (tmp_path / "not-a-cache").is_dir() and "not a hylint cache" in refused.err
    check(["."], cwd=tmp_path)
    assert (tmp_path / CACHE_DIR).is_dir()
    assert hylint("clean", cwd=tmp_path).code == 0 and not (tmp_path / CACHE_DIR).exists()
    assert "No cache" in hylint("clean", cwd=tmp_path).err


HEAD_FOR_CACHE = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                  "        return x.shape[0]\n")
