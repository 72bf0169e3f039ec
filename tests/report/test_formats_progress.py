"""The progress bar: on a terminal's stderr for long runs only; never in pipes, CI, or the report."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pty = pytest.importorskip("pty")


def _files(tmp_path, count):
    for i in range(count):
        (tmp_path / f"m{i}.py").write_text(f"x = {i}\n")
    (tmp_path / "net.py").write_text("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[0]\n")


def _run(tmp_path, stderr_tty, ci=None, fmt="json"):
    env = dict(os.environ, TERM="xterm")
    env.pop("CI", None)
    env.pop("NO_COLOR", None)
    if ci is not None:
        env["CI"] = ci
    master = slave = None
    if stderr_tty:
        master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "hylint", "check", str(tmp_path), "--output-format", fmt],
                            stdout=subprocess.PIPE, stderr=slave if stderr_tty else subprocess.PIPE, env=env, cwd=ROOT)
    if stderr_tty:
        os.close(slave)
    out = proc.stdout.read().decode()
    err = b""
    if stderr_tty:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
    else:
        err = proc.stderr.read()
    proc.wait()
    return proc.returncode, out, err.decode("utf-8", "replace")


def test_bar_on_a_terminal_and_the_report_stays_clean(tmp_path):
    _files(tmp_path, 60)
    code, out, err = _run(tmp_path, stderr_tty=True)
    assert code == 1
    assert "/61" in err and "hylint" in err  # the bar counted the files
    (d,) = json.loads(out)  # stdout is the report and nothing else
    assert d["code"] == "HY301"


@pytest.mark.parametrize("ci", ["true", "1"])
def test_no_bar_in_ci(tmp_path, ci):
    _files(tmp_path, 60)
    code, out, err = _run(tmp_path, stderr_tty=True, ci=ci)
    assert code == 1 and err == ""
    assert json.loads(out)[0]["code"] == "HY301"


def test_no_bar_in_a_pipe_or_for_few_files(tmp_path):
    _files(tmp_path, 60)
    assert _run(tmp_path, stderr_tty=False)[2] == ""
    few = tmp_path / "few"
    few.mkdir()
    _files(few, 5)
    assert _run(few, stderr_tty=True)[2] == ""
