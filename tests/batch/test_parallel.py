"""--jobs: worker processes give exactly what a serial run gives, in the same order; crashes are clear."""
import inspect
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import hylint.batch.parallel as parallel
from hylint.cli import main
from hylint.lint.engine import Linter
from hylint.batch.parallel import WorkerError, check_files
from hylint.selection import select_rules
from hylint.batch.runner import DIFF, FIX, LINT, process_path

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from mxnet.gluon import nn\n\n\nclass N{i}(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
BODIES = [
    "        return x[0] + x.mean(axis=1, keepdims=True)\n",
    "        y = x.asnumpy()\n        return x\n",
    "        return F.relu(x)\n",
    "        x += 1\n        return x\n",
]


def make_project(folder: Path, count: int = 24, padding: int = 0) -> list:
    paths = []
    for i in range(count):
        text = HEAD.format(i=i) + BODIES[i % len(BODIES)] + "# padding\n" * padding
        if i % 5 == 4:
            text = "def plain(a):\n    return a\n"
        path = folder / f"m{i:02d}.py"
        path.write_text(text)
        paths.append(path)
    return paths


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    return make_project(tmp_path)


def linter():
    return Linter(select_rules(select=["ALL"]))


@pytest.mark.parametrize("mode", [LINT, DIFF])
def test_workers_equal_serial(files, mode):
    serial = [process_path(p, linter(), mode, True) for p in files]
    parallel_outcomes = check_files(files, mode, True, linter, jobs=2)
    assert parallel_outcomes == serial
    assert sum(len(o.diagnostics) for o in serial) > 10


def test_workers_fix_like_serial(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    serial_files = make_project(tmp_path / "a")
    worker_files = make_project(tmp_path / "b")
    serial = [process_path(p, linter(), FIX, True) for p in serial_files]
    in_workers = check_files(worker_files, FIX, True, linter, jobs=2)
    for s_path, w_path in zip(serial_files, worker_files):
        assert s_path.read_text() == w_path.read_text()
    assert [(o.fixed_by_code, [d.code for d in o.diagnostics]) for o in serial] == \
        [(o.fixed_by_code, [d.code for d in o.diagnostics]) for o in in_workers]
    assert any(o.fixed_by_code for o in in_workers)


def test_small_runs_stay_in_process(tmp_path, monkeypatch):
    files = make_project(tmp_path, count=3)

    def refuse(*args, **kwargs):
        raise AssertionError("workers started for a small run")

    monkeypatch.setattr(parallel, "_analyse_in_workers", refuse)
    assert len(check_files(files, LINT, False, linter, jobs=4)) == 3


def test_progress_advances_once_per_file(files):
    ticks = []
    check_files(files, LINT, False, linter, jobs=2, advance=lambda: ticks.append(1))
    assert len(ticks) == len(files)


def _crash(task):
    os.kill(os.getpid(), signal.SIGKILL)


def _fail(task):
    raise ValueError("boom in a worker")


def test_a_dead_worker_is_a_clear_error_not_a_hang(files, monkeypatch):
    monkeypatch.setattr(parallel, "_worker_task", _crash)
    with pytest.raises(WorkerError, match="worker process died .* while checking .*m0"):
        check_files(files, LINT, False, linter, jobs=2)


def test_an_exception_in_a_worker_reaches_the_caller(files, monkeypatch):
    monkeypatch.setattr(parallel, "_worker_task", _fail)
    with pytest.raises(ValueError, match="boom in a worker"):
        check_files(files, LINT, False, linter, jobs=2)


def test_cli_crash_exits_2_with_one_line(files, monkeypatch):
    monkeypatch.chdir(files[0].parent)
    monkeypatch.setattr(parallel, "_worker_task", _crash)
    kwargs = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters else {}
    result = CliRunner(**kwargs).invoke(main, ["check", "--no-cache", "--jobs", "2", "."])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "worker process died" in result.stderr, result.stderr


def test_spawned_workers_build_their_own_linters(files, monkeypatch):
    """Where fork is unavailable (macOS, Windows) the workers import the rules themselves."""
    import multiprocessing

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    serial = [process_path(p, linter(), LINT, False) for p in files[:6]]
    assert check_files(files[:6], LINT, False, linter, jobs=2) == serial


def test_cli_jobs_output_identical(tmp_path):
    """Through the real command line: --jobs 1 and --jobs 2 print the same bytes."""
    make_project(tmp_path, count=40, padding=400)  # above the in-process threshold
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    outputs = []
    for jobs in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "hylint", "check", "--no-cache", "--select", "ALL",
                               "--output-format", "concise", "--jobs", jobs, "."],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        outputs.append((proc.returncode, proc.stdout, proc.stderr))
    assert outputs[0] == outputs[1] and outputs[0][0] == 1


def test_jobs_must_not_be_negative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--jobs", "-1", "."])
    assert result.exit_code == 2


def _children(pid: int) -> list:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers in /proc")
def test_workers_do_not_outlive_a_killed_parent(tmp_path):
    """SIGKILL (a CI time-out, the OOM killer) runs no clean-up in the parent: the workers end anyway."""
    import time

    make_project(tmp_path, count=400, padding=50)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "hylint", "check", "--no-cache", "--jobs", "2", "."],
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    workers = []
    deadline = time.monotonic() + 120
    while not workers and process.poll() is None and time.monotonic() < deadline:
        workers = _children(process.pid)
        time.sleep(0.005)
    assert workers, "the run started no worker"
    time.sleep(0.2)  # the workers are running their initializer, or checking files
    workers = _children(process.pid) or workers
    process.kill()
    process.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in workers if _alive(pid)] == []
