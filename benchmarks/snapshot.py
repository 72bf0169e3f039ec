"""Record what hylint prints on real code, to prove a refactoring changes nothing.

    python benchmarks/snapshot.py OUT_DIR                 # this checkout's hylint
    python benchmarks/snapshot.py OUT_DIR --hylint "env PYTHONPATH=/other/checkout python -m hylint"
    diff -r BEFORE_DIR AFTER_DIR                           # empty when behaviour is unchanged

Each target (the PyPI corpus of ``benchmarks/corpus.py``, the zoo sources when
``benchmarks/zoo/sources.py`` has fetched them, ``fixtures/`` and ``examples/``) is checked with the
JSON output (every diagnostic with its fix edits), default rules and ``--select ALL``, and with
``--diff`` (safe fixes, then unsafe ones too).  Paths are made relative so two checkouts compare.
Exit codes are recorded beside each output.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

RUNS = {
    "json-default": ["--output-format", "json"],
    "json-all": ["--output-format", "json", "--select", "ALL"],
    "diff-safe": ["--diff"],
    "diff-unsafe": ["--diff", "--unsafe-fixes", "--select", "ALL"],
}


def targets() -> dict:
    found = {"fixtures": ROOT / "fixtures", "examples": ROOT / "examples"}
    corpus = HERE / ".corpus" / "src"
    if not corpus.is_dir():
        subprocess.run([sys.executable, str(HERE / "corpus.py")], check=True)
    found["corpus"] = corpus
    zoo = HERE / "zoo" / ".work" / "sources"
    if zoo.is_dir():
        found["zoo"] = zoo
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--hylint", default=shutil.which("hylint") or "hylint", help="the command (split like a shell)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CI="true", NO_COLOR="1")
    for target, path in targets().items():
        for run, flags in RUNS.items():
            result = subprocess.run(
                [*shlex.split(args.hylint), "check", ".", "--no-cache", *flags],
                cwd=path, env=env, capture_output=True, text=True,
            )
            (args.out / f"{target}.{run}.out").write_text(result.stdout)
            (args.out / f"{target}.{run}.err").write_text(f"exit {result.returncode}\n{result.stderr}")
            print(f"{target:9} {run:12} exit {result.returncode}  {len(result.stdout.splitlines())} lines")


if __name__ == "__main__":
    main()
