"""Real Gluon code that hylint was never tuned on: fetch it, lint it, and list what to read by hand.

    python benchmarks/unseen.py              # download once (pinned, from PyPI), lint, print every diagnostic
    python benchmarks/unseen.py --select ALL

The zoo check and the PyPI corpus (benchmarks/corpus.py) are the code hylint's precision work was measured
on. These five releases were not: reading hylint's diagnostics on them by hand is the check that the fixes
generalise. The archives go to benchmarks/.unseen/ (git-ignored; never commit them); the by-hand verdicts
are in benchmarks/UNSEEN.md.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
UNSEEN = HERE / ".unseen"
# (requirement, archive kind, file name prefix of the archive), as benchmarks/corpus.py's PACKAGES
PACKAGES = [("gluonts==0.8.1", "wheel", "gluonts-0.8.1-"), ("sockeye==2.3.17", "wheel", "sockeye-2.3.17-"),
            ("d2l==0.17.6", "wheel", "d2l-0.17.6-"), ("gluonfr==1.0.2", "sdist", "gluonfr-1.0.2."),
            ("autogluon==0.0.15", "wheel", "autogluon-0.0.15-")]


def fetch() -> Path:
    """Downloads each release once (wheels with pip, sdists straight from the index: nothing is built)."""
    sys.path.insert(0, str(HERE))
    from corpus import _archive, _download, _extract
    downloads, sources = UNSEEN / "downloads", UNSEEN / "src"
    for requirement, kind, prefix in PACKAGES:
        target = sources / requirement.split("==")[0]
        if target.exists():
            continue
        if _archive(prefix, downloads) is None:
            _download(requirement, kind, downloads)
        _extract(_archive(prefix, downloads), target)
    return sources


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--select", help="hylint --select (default: the default rules)")
    args = parser.parse_args(argv)
    sources = fetch()
    command = [sys.executable, "-m", "hylint", "check", "--no-cache", "--exit-zero", "--output-format", "concise",
               str(sources)]
    if args.select:
        command[4:4] = ["--select", args.select]
    return subprocess.run(command, cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
