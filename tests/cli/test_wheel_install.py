"""hylint as a user installs it: a wheel built from this checkout, in a clean virtual environment without the
tests' extras (the rest of the suite runs an editable install, where docs/rules.md lies beside the package).

hylint declares no rules page (pyproject's [project.urls] "Rules"): every diagnostic's url is None, which made
`--output-format github` an internal error (exit 2); never a file:// link (an editable install linked to the
checkout's docs/rules.md). `hylint rule` prints the documentation from the package itself. And `hylint server`
needs pygls and lsprotocol, which were an extra: it exited 2 after README's install.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from hylint.report import FORMATS

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
# what a wheel is built from (a copy: building in the checkout would leave build/ and *.egg-info there)
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "hylint")
OFFLINE = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
           "Failed to establish a new connection")


def _toml():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib.loads(PYPROJECT.read_text("utf-8"))


def test_the_server_dependencies_are_hylints_own():
    project = _toml()["project"]
    names = {requirement.split(">")[0].split("=")[0].split("<")[0].split(";")[0].strip()
             for requirement in project["dependencies"]}
    assert {"pygls", "lsprotocol"} <= names
    assert "server" in project["optional-dependencies"]  # `pip install 'hylint[server]'` still resolves


def _clean_env(home: Path) -> dict:
    """The machine's environment less what would let the checkout or the test's venv leak in."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "HYLINT_DOCS_URL", "HYLINT_DEBUG",
                          "HYLINT_CACHE_DIR", "PIP_USER")}
    env["PATH"] = os.pathsep.join([str(home / "bin"), env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    return env


def _pip(python: Path, *args: str, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    done = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)
    if done.returncode != 0 and any(word in done.stdout + done.stderr for word in OFFLINE):
        pytest.skip(f"the package index cannot be reached: {done.stderr[-500:]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _install(work: Path):
    """A wheel of this checkout installed in a new venv: (its bin folder, its environment, a folder holding a
    copy of examples/)."""
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    wheels = work / "wheels"
    home = work / "venv"
    env = _clean_env(home)
    # with build isolation, as `pip install /path/to/hylint` builds: pip fetches the build backend itself
    _pip(Path(sys.executable), "wheel", "--no-deps", "-w", str(wheels), str(source), env=env)
    (wheel,) = wheels.glob("hylint-*.whl")
    venv.EnvBuilder(with_pip=True, clear=True).create(home)  # a clean venv: no system site-packages
    python = home / "bin" / "python"
    _pip(python, "install", "-q", str(wheel), env=env)
    listed = _pip(python, "list", "--format", "json", env=env)
    names = {item["name"].lower() for item in json.loads(listed.stdout)}
    assert "hylint" in names and not names & {"pytest", "hypothesis", "mxnet"}, names  # no test extra
    project = work / "project"
    shutil.copytree(ROOT / "examples", project / "examples")
    done = subprocess.run([str(python), "-c", "import hylint; print(hylint.__file__)"], capture_output=True,
                          text=True, env=env, cwd=str(project), timeout=120)
    assert done.returncode == 0 and "site-packages" in done.stdout, done.stdout + done.stderr
    assert not Path(done.stdout.strip()).resolve().is_relative_to(ROOT.resolve())  # not the checkout
    return home / "bin", env, project


def _run(bin_folder: Path, env: dict, cwd: Path, *args: str, stdin: bytes = b"", timeout: float = 300):
    done = subprocess.run([str(bin_folder / "hylint"), *args], cwd=str(cwd), capture_output=True, env=env,
                          input=stdin, timeout=timeout)
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in out + err and "internal error" not in err, err
    return done.returncode, out, err


def _check_format(bin_folder: Path, env: dict, project: Path, fmt: str) -> None:
    code, out, err = _run(bin_folder, env, project, "check", "--no-cache", "examples/", "--output-format", fmt)
    assert code == 1, (code, err)  # the examples have diagnostics
    shown = out if fmt != "sarif" else json.dumps(json.loads(out)["runs"][0]["results"])  # not the rules' pages
    assert "HY201" in shown and "None" not in shown and "file://" not in shown  # (sarif's SRCROOT is a file URI)
    if fmt == "sarif":
        driver = json.loads(out)["runs"][0]["tool"]["driver"]
        assert "informationUri" not in driver and not any("helpUri" in rule for rule in driver["rules"])
    if fmt in ("full", "github", "junit", "sarif"):  # no docs page beside the package: where to read instead
        assert "hylint rule HY201" in shown


def _check_server(bin_folder: Path, env: dict, project: Path) -> None:
    """`hylint server` answers initialize and shuts down cleanly: no `[server]` extra needed."""
    def frame(message: dict) -> bytes:
        body = json.dumps(message).encode("utf-8")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    messages = b"".join(frame(m) for m in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": project.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
        {"jsonrpc": "2.0", "method": "exit", "params": None},
    ])
    code, out, err = _run(bin_folder, env, project, "server", stdin=messages, timeout=120)
    assert code == 0, (code, err)
    assert '"id": 1' in out.replace('"id":1', '"id": 1') and "capabilities" in out, out[-2000:]


@pytest.mark.slow
def test_a_normal_install_runs_every_output_format_rule_and_the_server(tmp_path):
    """One test, so that the wheel is built and installed once (pytest-xdist would set a module-scoped
    fixture up again in each worker that runs one of its tests)."""
    bin_folder, env, project = _install(tmp_path)
    failures = {}
    for fmt in sorted(FORMATS):
        try:
            _check_format(bin_folder, env, project, fmt)
        except AssertionError as error:
            failures[fmt] = str(error)[:2000]
    assert not failures, failures
    code, out, err = _run(bin_folder, env, project, "rule", "HY101")
    assert code == 0 and "broadcast-arithmetic" in out and "## What it does" in out, err
    _check_server(bin_folder, env, project)
