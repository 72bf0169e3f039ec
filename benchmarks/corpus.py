"""Build (once) the benchmark corpus: real MXNet-Gluon code from three PyPI releases.

    python benchmarks/corpus.py            # download on first use, print the corpus statistics

The wheels are fetched with ``pip download --no-deps --only-binary :all:``, the sdist straight from
the package index (PEP 691 JSON of ``https://pypi.org/simple/``, or ``$HYLINT_CORPUS_INDEX``; the
sha256 the index gives is checked), into ``benchmarks/.corpus/downloads``; nothing is built (``pip
download`` of an sdist would prepare its metadata: for gluonnlp, compiling Cython and, with
``--no-binary :all:``, its build dependencies from source, minutes on a fresh machine). The Python
files are extracted under ``benchmarks/.corpus/src/<package>/`` (both folders git-ignored):

* ``gluoncv==0.10.5.post0``  the wheel
* ``gluonnlp==0.10.0``       the sdist
* ``mxnet==1.9.1``           the wheel, Python sources only
"""
from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

HERE = Path(__file__).resolve().parent
CORPUS = HERE / ".corpus"
DOWNLOADS = CORPUS / "downloads"
SOURCES = CORPUS / "src"

# (requirement, archive kind, file name prefix of the downloaded archive)
PACKAGES: List[Tuple[str, str, str]] = [
    ("gluoncv==0.10.5.post0", "wheel", "gluoncv-0.10.5.post0-"),
    ("gluonnlp==0.10.0", "sdist", "gluonnlp-0.10.0."),
    ("mxnet==1.9.1", "wheel", "mxnet-1.9.1-"),
]


def _archive(prefix: str, downloads: Path = DOWNLOADS) -> Path:
    found = sorted(p for p in downloads.glob(prefix + "*") if p.suffix in (".whl", ".gz", ".zip"))
    return found[0] if found else None


def _download(requirement: str, kind: str, downloads: Path = DOWNLOADS, python: str = "3.8") -> None:
    downloads.mkdir(parents=True, exist_ok=True)
    if kind == "sdist":
        _download_sdist(requirement, downloads)
        return
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--only-binary", ":all:", "--platform", "manylinux2014_x86_64", "--python-version", python,
               "-d", str(downloads), requirement]
    print("corpus: " + " ".join(command[3:]), file=sys.stderr)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def _download_sdist(requirement: str, downloads: Path = DOWNLOADS) -> None:
    """Fetch the ``.tar.gz`` of ``name==version`` from the index's PEP 691 JSON page; check its sha256."""
    name, version = requirement.split("==")
    index = os.environ.get("HYLINT_CORPUS_INDEX", "https://pypi.org/simple/").rstrip("/")
    request = urllib.request.Request(f"{index}/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    wanted = f"{name}-{version}.tar.gz"
    entry = next((f for f in files if f["filename"] == wanted), None)
    if entry is None:
        raise SystemExit(f"corpus: {index}/{name}/ lists no {wanted}")
    print(f"corpus: fetching {entry['url']}", file=sys.stderr)
    with urllib.request.urlopen(entry["url"], timeout=120) as response:
        data = response.read()
    expected = entry.get("hashes", {}).get("sha256")
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise SystemExit(f"corpus: {wanted} does not match the sha256 the index gives")
    partial = downloads / (wanted + ".partial")
    partial.write_bytes(data)
    partial.rename(downloads / wanted)


def _extract(archive: Path, target: Path) -> None:
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as handle:
            for member in handle.namelist():
                if member.endswith(".py") and ".data/" not in member:
                    handle.extract(member, tmp)
    else:
        with tarfile.open(archive) as handle:
            for member in handle.getmembers():
                if member.isfile() and member.name.endswith(".py"):
                    handle.extract(member, tmp, filter="data") if hasattr(tarfile, "data_filter") \
                        else handle.extract(member, tmp)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)


def ensure_corpus() -> Path:
    """The corpus folder, downloading and extracting what is missing (one process at a time: parallel test
    workers share the download)."""
    if all((SOURCES / requirement.split("==")[0]).is_dir() for requirement, _, _ in PACKAGES):
        return SOURCES
    CORPUS.mkdir(parents=True, exist_ok=True)
    with open(CORPUS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for requirement, kind, prefix in PACKAGES:
            name = requirement.split("==")[0]
            target = SOURCES / name
            if target.is_dir():
                continue
            if _archive(prefix) is None:
                _download(requirement, kind)
            archive = _archive(prefix)
            if archive is None:
                raise SystemExit(f"corpus: pip did not leave an archive for {requirement} in {DOWNLOADS}")
            _extract(archive, target)
    return SOURCES


def corpus_files(root: Path = SOURCES) -> List[Path]:
    return sorted(root.rglob("*.py"))


def statistics(root: Path = SOURCES) -> Dict[str, int]:
    files = corpus_files(root)
    lines = methods = with_hybrid = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines += text.count("\n")
        count = text.count("def hybrid_forward(")
        methods += count
        with_hybrid += 1 if "hybrid_forward" in text else 0
    return {"files": len(files), "lines": lines, "hybrid_forward_methods": methods,
            "files_with_hybrid_forward": with_hybrid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    root = ensure_corpus()
    stats = statistics(root)
    print(f"{root}: " + ", ".join(f"{value} {key.replace('_', ' ')}" for key, value in stats.items()))


if __name__ == "__main__":
    main()
