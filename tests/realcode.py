"""The real-code corpus for the slow tests: MXNet-Gluon sources from three PyPI releases.

    python tests/realcode.py        # download on first use, print where the corpus is

Same interface and same cache folder as ``benchmarks/corpus.py`` (the performance harness): when
that module exists it is used, so both build one corpus; otherwise this file fetches it itself with
``pip download --no-deps`` into ``benchmarks/.corpus/`` (git-ignored):

* ``gluoncv==0.10.5.post0``  the wheel
* ``gluonnlp==0.10.0``       the sdist
* ``mxnet==1.9.1``           the wheel, Python sources only
"""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / ".corpus"
DOWNLOADS = CORPUS / "downloads"
SOURCES = CORPUS / "src"

PACKAGES: List[Tuple[str, str, str]] = [
    ("gluoncv==0.10.5.post0", "wheel", "gluoncv-0.10.5.post0-"),
    ("gluonnlp==0.10.0", "sdist", "gluonnlp-0.10.0."),
    ("mxnet==1.9.1", "wheel", "mxnet-1.9.1-"),
]


def _shared_module():
    path = ROOT / "benchmarks" / "corpus.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("hylint_benchmarks_corpus", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module if hasattr(module, "ensure_corpus") else None


def _archive(prefix: str) -> Optional[Path]:
    found = sorted(p for p in DOWNLOADS.glob(prefix + "*") if p.suffix in (".whl", ".gz", ".zip"))
    return found[0] if found else None


def _download(requirement: str, kind: str) -> None:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(DOWNLOADS)]
    if kind == "wheel":  # a wheel for any platform: only its Python files are used
        command += ["--only-binary", ":all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.8"]
    else:
        command += ["--no-binary", ":all:"]  # pip prepares its metadata in an isolated build env
    subprocess.run(command + [requirement], check=True, stdout=subprocess.DEVNULL)


def _extract(archive: Path, target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as handle:
            for member in handle.namelist():
                if member.endswith(".py") and ".data/" not in member:
                    handle.extract(member, partial)
    else:
        with tarfile.open(archive) as handle:
            for member in handle.getmembers():
                if member.isfile() and member.name.endswith(".py"):
                    if hasattr(tarfile, "data_filter"):
                        handle.extract(member, partial, filter="data")
                    else:  # pragma: no cover - Python without extraction filters
                        handle.extract(member, partial)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def ensure_corpus() -> Path:
    """The folder holding one sub-folder of Python sources per package; downloads what is missing."""
    shared = _shared_module()
    if shared is not None:
        return Path(shared.ensure_corpus())
    for requirement, kind, prefix in PACKAGES:
        target = SOURCES / requirement.split("==")[0]
        if target.is_dir():
            continue
        if _archive(prefix) is None:
            _download(requirement, kind)
        archive = _archive(prefix)
        if archive is None:
            raise RuntimeError(f"pip left no archive for {requirement} in {DOWNLOADS}")
        _extract(archive, target)
    return SOURCES


def corpus_files(root: Path = SOURCES) -> List[Path]:
    return sorted(root.rglob("*.py"))


if __name__ == "__main__":
    folder = ensure_corpus()
    files = corpus_files(folder)
    methods = sum(p.read_text(encoding="utf-8", errors="replace").count("def hybrid_forward(") for p in files)
    print(f"{folder}: {len(files)} files, {methods} hybrid_forward methods")
