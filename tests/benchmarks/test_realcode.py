"""hylint on real MXNet-Gluon code: gluoncv 0.10.5.post0, gluonnlp 0.10.0 and mxnet 1.9.1's Python sources
(about 780 files, 380 hybrid_forward methods), downloaded once by tests/realcode.py (slow; run by .ci/run).
"""
from __future__ import annotations

import ast
import shutil
import warnings
from pathlib import Path

import pytest

from clirun import hylint

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus() -> Path:
    import realcode

    try:
        folder = realcode.ensure_corpus()
    except Exception as error:  # no network, no pip: say so instead of failing obscurely
        pytest.skip(f"cannot download the real-code corpus: {error}")
    files = realcode.corpus_files(folder)
    methods = sum(p.read_text("utf-8", "replace").count("def hybrid_forward(") for p in files)
    assert len(files) > 700 and methods > 350, (len(files), methods)
    return folder


def _snapshot(folder: Path):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*.py"))}


def _compiles(data: bytes, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences in the originals
        ast.parse(data, name)
        compile(data, name, "exec", dont_inherit=True)


def test_check_and_fix_real_code(corpus, tmp_path):
    work = tmp_path / "src"
    shutil.copytree(corpus, work, symlinks=True)
    original = _snapshot(work)

    lint = hylint("check", "--output-format", "concise", ".", cwd=work, timeout=1800)
    assert lint.code in (0, 1), lint.err
    assert "internal error" not in lint.err and lint.err_lines == [], lint.err
    assert _snapshot(work) == original  # checking writes nothing

    fix = hylint("check", "--fix", "--output-format", "concise", ".", cwd=work, timeout=1800)
    assert fix.code in (0, 1), fix.err
    assert "internal error" not in fix.err, fix.err
    fixed = _snapshot(work)
    assert fixed.keys() == original.keys()
    changed = [name for name in original if fixed[name] != original[name]]
    assert changed, "the corpus has fixable diagnostics; --fix changed nothing"
    for name in changed:
        _compiles(fixed[name], str(name))

    again = hylint("check", "--fix", "--output-format", "concise", ".", cwd=work, timeout=1800)
    assert again.code in (0, 1) and "internal error" not in again.err
    assert _snapshot(work) == fixed, "a second --fix changed something"
    # what remains after fixing is what the fixed files report without --fix
    recheck = hylint("check", "--output-format", "concise", ".", cwd=work, timeout=1800)
    assert _same_diagnostics(recheck.out, again.out)


def _same_diagnostics(a: str, b: str) -> bool:
    keep = lambda text: [line for line in text.splitlines() if ": HY" in line]  # noqa: E731
    return keep(a) == keep(b)


def test_jobs_1_and_parallel_give_the_same_output(corpus, tmp_path):
    helps = hylint("check", "--help")
    if "--jobs" not in helps.out:
        pytest.skip("`hylint check --jobs` does not exist on this branch yet (issue 8)")
    outputs = {}
    for jobs in ("1", "2"):
        for fmt in ("concise", "json"):
            run = hylint("check", "--jobs", jobs, "--output-format", fmt, ".", cwd=corpus, timeout=1800)
            assert run.code in (0, 1) and "internal error" not in run.err
            outputs[jobs, fmt] = (run.code, run.out, run.err)
    assert outputs["1", "concise"] == outputs["2", "concise"]
    assert outputs["1", "json"] == outputs["2", "json"]
    work1, work2 = tmp_path / "one", tmp_path / "two"
    shutil.copytree(corpus, work1, symlinks=True)
    shutil.copytree(corpus, work2, symlinks=True)
    fix1 = hylint("check", "--fix", "--jobs", "1", "--output-format", "concise", ".", cwd=work1, timeout=1800)
    fix2 = hylint("check", "--fix", "--jobs", "2", "--output-format", "concise", ".", cwd=work2, timeout=1800)
    assert (fix1.code, fix1.out, fix1.err) == (fix2.code, fix2.out, fix2.err)
    assert _snapshot(work1) == _snapshot(work2)
