"""Real Gluon code that hylint was never tuned on: fetch it, lint it, and list what to read by hand.

    python benchmarks/unseen.py              # download once (pinned, from PyPI), lint, print every diagnostic
    python benchmarks/unseen.py --select ALL
    python benchmarks/unseen.py --unread     # the releases of benchmarks/UNSEEN_READ.md instead (into src2/)

The zoo check and the PyPI corpus (benchmarks/corpus.py) are the code hylint's precision work was measured
on. These five releases were not: reading hylint's diagnostics on them by hand is the check that the fixes
generalise. The archives go to benchmarks/.unseen/ (git-ignored; never commit them); the by-hand verdicts
are in benchmarks/UNSEEN.md, and for the `--unread` releases (read later, and labelled on MXNet by
benchmarks/unseen_label.py) in benchmarks/UNSEEN_READ.md.
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
# benchmarks/UNSEEN_READ.md's releases, as PACKAGES, with the Python version whose wheel to take; each goes to
# src2/<folder> (the folder benchmarks/unseen_label.py reads)
UNREAD = [("turicreate==5.4", "wheel", "turicreate-5.4-", "3.6", "turicreate"),
          ("cnstd==0.1.1", "wheel", "cnstd-0.1.1-", "3.8", "cnstd"),
          ("cnocr==1.2.2", "wheel", "cnocr-1.2.2-", "3.8", "cnocr"),
          ("mxnet-donkeycar==1.0", "wheel", "mxnet_donkeycar-1.0-", "3.8", "mxnet_donkeycar"),
          ("monk-gluon-cpu==0.0.1", "wheel", "monk_gluon_cpu-0.0.1-", "3.8", "monk_gluon_cpu"),
          ("autogluon.text==0.2.0", "wheel", "autogluon.text-0.2.0-", "3.8", "autogluon.text"),
          ("autogluon.vision==0.2.0", "wheel", "autogluon.vision-0.2.0-", "3.8", "autogluon.vision"),
          ("dgl==0.4.3.post2", "wheel", "dgl-0.4.3.post2-", "3.7", "dgl"),
          ("dglke==0.1.2", "wheel", "dglke-0.1.2-", "3.8", "dglke"),
          ("d2l==1.0.3", "wheel", "d2l-1.0.3-", "3.8", "d2l"),
          ("d2lzh==1.0.0", "sdist", "d2lzh-1.0.0.", None, "d2lzh"),
          ("gluonbook==0.8.10", "sdist", "gluonbook-0.8.10.", None, "gluonbook"),
          ("mxnet-octave-conv==0.1.0", "sdist", "mxnet-octave-conv-0.1.0.", None, "mxnet-octave-conv")]


def fetch(unread: bool = False) -> Path:
    """Downloads each release once (wheels with pip, sdists straight from the index: nothing is built)."""
    sys.path.insert(0, str(HERE))
    from corpus import _archive, _download, _extract
    downloads, sources = UNSEEN / "downloads", UNSEEN / ("src2" if unread else "src")
    releases = UNREAD if unread else [(r, k, p, "3.8", r.split("==")[0]) for r, k, p in PACKAGES]
    for requirement, kind, prefix, python, folder in releases:
        target = sources / folder
        if target.exists():
            continue
        if _archive(prefix, downloads) is None:
            _download(requirement, kind, downloads, python or "3.8")
        _extract(_archive(prefix, downloads), target)
    return sources


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--select", help="hylint --select (default: the default rules)")
    parser.add_argument("--unread", action="store_true", help="benchmarks/UNSEEN_READ.md's releases instead")
    args = parser.parse_args(argv)
    sources = fetch(args.unread)
    command = [sys.executable, "-m", "hylint", "check", "--no-cache", "--exit-zero", "--output-format", "concise",
               str(sources)]
    if args.select:
        command[4:4] = ["--select", args.select]
    return subprocess.run(command, cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
