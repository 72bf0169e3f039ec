"""Run the real `hylint` command line in a subprocess (exit codes, stderr, no tracebacks)."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def err_lines(self):
        return [line for line in self.err.splitlines() if line.strip()]


def hylint(*args: str, cwd: Optional[Path] = None, stdin: bytes = b"", timeout: float = 120,
           env: Optional[dict] = None, preexec_fn=None) -> Run:
    environment = dict(os.environ)
    environment.pop("HYLINT_DEBUG", None)
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    environment["NO_COLOR"] = "1"
    environment.update(env or {})
    process = subprocess.run([sys.executable, "-m", "hylint", *args], cwd=str(cwd) if cwd else None, input=stdin,
                             capture_output=True, timeout=timeout, env=environment, preexec_fn=preexec_fn)
    run = Run(process.returncode, process.stdout.decode("utf-8", "replace"),
              process.stderr.decode("utf-8", "replace"))
    assert "Traceback" not in run.err and "Traceback" not in run.out, run.err
    return run


def check(paths: Sequence[str], *options: str, cwd: Optional[Path] = None, **kwargs) -> Run:
    """`hylint check --output-format concise OPTIONS PATHS` (no pyproject.toml above cwd is assumed)."""
    return hylint("check", "--output-format", "concise", *options, *paths, cwd=cwd, **kwargs)


def codes_at(run: Run):
    """[(file name, row, code)] from concise output."""
    found = []
    for line in run.out.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit() and parts[3].strip()[:2] == "HY":
            found.append((parts[0], int(parts[1]), parts[3].split()[0]))
    return found


def runner():
    """click's CliRunner with stdout and stderr apart (click < 8.2 mixes them unless told not to)."""
    from click.testing import CliRunner

    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        return CliRunner(mix_stderr=False)
    return CliRunner()


def invoke(*args: str, cwd: Path) -> Run:
    """The same command line in this process (click's CliRunner): for the many variants of one case."""
    from click.testing import CliRunner

    from hylint.cli import main

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), env={"NO_COLOR": "1", "HYLINT_DEBUG": None})
    finally:
        os.chdir(previous)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"hylint raised {result.exception!r}") from result.exception
    run = Run(result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in run.err and "Traceback" not in run.out, run.err
    return run
