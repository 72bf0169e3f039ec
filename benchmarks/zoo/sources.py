"""The exact library sources the labels were measured on, downloaded from PyPI (never committed).

    python benchmarks/zoo/sources.py            # download (pip download, pinned) and unpack; prints the folder

Each library's lint roots (models.LINT_ROOTS) are unpacked to `.work/sources/<library>/`, keeping the paths
relative to site-packages (`gluoncv2/models/lednet.py`, `mxnet/gluon/nn/basic_layers.py`): the same paths the
labels record, so diagnostics and labels join on (path, line) on any machine.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
DOWNLOADS = WORK / "downloads"
SOURCES = WORK / "sources"

sys.path.insert(0, str(HERE))
from models import DISTRIBUTIONS, LINT_ROOTS  # noqa: E402  (models.py imports nothing heavy at module level)


def _archive(distribution: str) -> Path:
    """The downloaded archive of `name==version`, downloading it with pip when missing."""
    name, version = distribution.split("==")
    stem = f"{name}-{version}"
    found = sorted(DOWNLOADS.glob(f"{stem}-*.whl")) + sorted(DOWNLOADS.glob(f"{stem}.tar.gz"))
    if found:
        return found[0]
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(DOWNLOADS), distribution]
    if name == "mxnet":  # a binary-only package: ask for the Linux wheel whatever this machine is
        command[4:4] = ["--only-binary=:all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.8"]
    subprocess.run(command, check=True)
    found = sorted(DOWNLOADS.glob(f"{stem}-*.whl")) + sorted(DOWNLOADS.glob(f"{stem}.tar.gz"))
    if not found:
        raise SystemExit(f"sources: pip download {distribution} gave no archive in {DOWNLOADS}")
    return found[0]


def _members(archive: Path):
    """(relative path inside site-packages, read function) for every .py file of the archive."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for name in wheel.namelist():
                if name.endswith(".py"):
                    yield name, wheel.read(name)
        return
    with tarfile.open(archive) as sdist:  # an sdist: <name-version>/src/<package>/... or <name-version>/<package>/
        for member in sdist.getmembers():
            if not member.isfile() or not member.name.endswith(".py"):
                continue
            parts = member.name.split("/")[1:]
            if parts and parts[0] == "src":
                parts = parts[1:]
            yield "/".join(parts), sdist.extractfile(member).read()


def library_source(library: str) -> Path:
    """The folder holding `library`'s lint roots, unpacked from its pinned PyPI archive."""
    target = SOURCES / library
    marker = target / ".complete"
    if marker.exists():
        return target
    roots = tuple(root + "/" for root in LINT_ROOTS[library])
    count = 0
    for relative, data in _members(_archive(DISTRIBUTIONS[library])):
        if relative.startswith(roots):
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            count += 1
    if not count:
        raise SystemExit(f"sources: no file of {roots} in the archive of {DISTRIBUTIONS[library]}")
    marker.write_text(f"{DISTRIBUTIONS[library]}\n{count} files\n")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", action="append", choices=sorted(LINT_ROOTS))
    args = parser.parse_args(argv)
    for library in args.library or sorted(LINT_ROOTS):
        print(library, library_source(library))
    return 0


if __name__ == "__main__":
    sys.exit(main())
