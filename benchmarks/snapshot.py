"""Record what hylint prints on real code, to prove a refactoring changes nothing.

    python benchmarks/snapshot.py OUT_DIR                             # this checkout's hylint
    python benchmarks/snapshot.py OUT_DIR --checkout /other/checkout  # another checkout's hylint and fixtures
    python benchmarks/snapshot.py --compare BEFORE_DIR AFTER_DIR      # exit 0 when every digest is equal

Each source set (the PyPI corpus of ``benchmarks/corpus.py``, the zoo sources when
``benchmarks/zoo/sources.py`` has fetched them, the checkout's ``fixtures/`` and ``examples/``) is checked
in four modes: the JSON output (every diagnostic with its fix edits) with the default rules and with
``--select ALL``, ``--diff`` (safe fixes) and ``--diff --unsafe-fixes``.  hylint runs in the source set's
folder on ``.`` with ``--no-cache``, so the paths it prints are relative; what else names a folder (the
checkout, in a rule's documentation URL, and the source set) is replaced by ``<checkout>`` and ``<source>``,
so two checkouts compare.  OUT_DIR gets ``<source>.<mode>.out`` (stdout), ``<source>.<mode>.err`` (the
exit code, then stderr) and ``digests.txt``: one SHA-256 of both per (source set, mode), and seconds taken.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MODES = {
    "json-default": ["--output-format", "json"],
    "json-all": ["--output-format", "json", "--select", "ALL"],
    "diff": ["--diff"],
    "diff-unsafe": ["--diff", "--unsafe-fixes"],
}
DIGESTS = "digests.txt"


def source_sets(checkout: Path, corpus: Path, zoo: Path, only: list[str] | None) -> dict[str, Path]:
    """The source sets asked for (all by default) that exist, by name: a missing corpus is fetched,
    missing zoo sources are skipped."""
    found = {"fixtures": checkout / "fixtures", "examples": checkout / "examples", "corpus": corpus, "zoo": zoo}
    found = {name: path for name, path in found.items() if not only or name in only}
    if "corpus" in found and not corpus.is_dir():
        subprocess.run([sys.executable, str(HERE / "corpus.py")], check=True)
    return {name: path for name, path in found.items() if path.is_dir()}


def neutral(text: str, checkout: Path, source: Path) -> str:
    """``text`` with the absolute folders of this run replaced by names that do not depend on them."""
    for path, name in sorted(((str(source), "<source>"), (str(checkout), "<checkout>")), key=lambda p: -len(p[0])):
        text = text.replace(path, name)
    return text


def record(out: Path, checkout: Path, sets: dict[str, Path], jobs: int) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CI="true", NO_COLOR="1", PYTHONPATH=str(checkout))
    digests = {}
    lines = []
    for name, path in sets.items():
        for mode, flags in MODES.items():
            start = time.monotonic()
            result = subprocess.run(
                [sys.executable, "-m", "hylint", "check", ".", "--no-cache", "--jobs", str(jobs), *flags],
                cwd=path, env=env, capture_output=True, text=True,
            )
            seconds = time.monotonic() - start
            stdout = neutral(result.stdout, checkout, path)
            stderr = f"exit {result.returncode}\n" + neutral(result.stderr, checkout, path)
            (out / f"{name}.{mode}.out").write_text(stdout)
            (out / f"{name}.{mode}.err").write_text(stderr)
            key = f"{name}.{mode}"
            digests[key] = hashlib.sha256(f"{len(stdout)}\n{stdout}{stderr}".encode()).hexdigest()
            lines.append(f"{key} {digests[key]} {seconds:.1f}s")
            print(f"{key:24} {digests[key][:16]}  exit {result.returncode}  "
                  f"{len(stdout.splitlines())} lines  {seconds:.1f} s", flush=True)
    (out / DIGESTS).write_text("\n".join(lines) + "\n")
    return digests


def read_digests(folder: Path) -> dict[str, str]:
    return dict(line.split()[:2] for line in (folder / DIGESTS).read_text().splitlines() if line.strip())


def compare(before: Path, after: Path, context: int = 20) -> int:
    """Print each (source set, mode) as equal, different (with the start of a diff) or missing; 0 if all equal."""
    old, new = read_digests(before), read_digests(after)
    differing = 0
    for key in sorted(old.keys() | new.keys()):
        if key not in old or key not in new:
            print(f"{key:24} only in {before if key in old else after}")
            differing += 1
            continue
        if old[key] == new[key]:
            print(f"{key:24} equal      {old[key]}")
            continue
        differing += 1
        print(f"{key:24} DIFFERENT  {old[key][:16]} -> {new[key][:16]}")
        for suffix in ("out", "err"):
            a, b = (folder / f"{key}.{suffix}" for folder in (before, after))
            diff = list(difflib.unified_diff(a.read_text().splitlines(), b.read_text().splitlines(),
                                             str(a), str(b), lineterm=""))
            for line in diff[:context]:
                print("    " + line)
            if len(diff) > context:
                print(f"    ... {len(diff) - context} more diff lines")
    print(f"{len(old.keys() | new.keys()) - differing} equal, {differing} different")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", help="the folder to write the snapshot to")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="compare two snapshot folders instead of recording one")
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="the hylint checkout to run (put first on PYTHONPATH) and whose fixtures/ and "
                             "examples/ to check (default: this one)")
    parser.add_argument("--corpus", type=Path, default=HERE / ".corpus" / "src")
    parser.add_argument("--zoo", type=Path, default=HERE / "zoo" / ".work" / "sources")
    parser.add_argument("--only", nargs="*", help="source sets to record (default: all that exist)")
    parser.add_argument("--jobs", type=int, default=0, help="hylint's --jobs (default 0: one per core)")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT_DIR, or --compare BEFORE AFTER")
    checkout = args.checkout.resolve()
    sets = source_sets(checkout, args.corpus.resolve(), args.zoo.resolve(), args.only)
    record(args.out, checkout, sets, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
