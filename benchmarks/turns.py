"""Cold, warm and touched `hylint check .` on the PyPI corpus for several checkouts, turn about, in one run.

    python benchmarks/turns.py ROOT [ROOT ...] [--rounds 5]      # ROOT: a checkout (a git worktree)

Two runs of benchmarks/run.py minutes apart compare badly on a shared machine; here every round runs
each checkout cold (its cache folder removed first), warm, and touched (after a comment line was added to
benchmarks/run.py's touched file, the median-sized one with ``hybrid_forward``: its package's reach and
that file are computed again), one after the other, on the same copy of the corpus (benchmarks/run.py's),
and the medians of wall and CPU time (the process and its workers,
benchmarks/run.py's ``measure``) are reported per checkout, with the load average over the run. Each
checkout's modules are byte-compiled first, as an installed hylint's are (with PYTHONDONTWRITEBYTECODE
set, as on CI machines, every run would otherwise compile them again: that is not the code's speed).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
from run import measure, prepare_work, touched_file  # noqa: E402


KINDS = ("cold", "warm", "touched")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-compile", action="store_true", help="leave the checkouts' modules uncompiled")
    args = parser.parse_args()
    work = prepare_work(corpus.ensure_corpus())
    touched = touched_file(corpus.corpus_files(work))
    edits = 0
    cache = work / ".hylint_cache"
    roots = [root.resolve() for root in args.roots]
    for root in roots:
        if not args.no_compile:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "hylint")], check=True)
        else:
            for folder in (root / "hylint").rglob("__pycache__"):
                shutil.rmtree(folder)
    samples = {(root, kind): [] for root in roots for kind in KINDS}
    loads = [os.getloadavg()[0]]
    for round_index in range(args.rounds):
        for root in roots:
            env = dict(os.environ, PYTHONPATH=str(root), NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
            env.pop("CI", None)
            command = [sys.executable, "-m", "hylint", "check", "."]
            shutil.rmtree(cache, ignore_errors=True)
            for kind in KINDS:
                if kind == "touched":
                    edits += 1
                    with open(touched, "a", encoding="utf-8") as handle:
                        handle.write(f"# turns edit {edits}\n")
                result = measure(command, work, env)
                samples[(root, kind)].append(result)
                print(f"turns: round {round_index + 1} {root.name:>16} {kind}: {result['wall']:6.2f} s wall "
                      f"{result['cpu']:6.2f} s CPU (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
        loads.append(os.getloadavg()[0])
    print(f"{args.rounds} rounds, load average {min(loads):.1f} to {max(loads):.1f}; medians (min) in seconds\n")
    print(f"touched file: {touched.relative_to(work)}\n")
    print("| checkout | " + " | ".join(f"{kind} {key}" for kind in KINDS for key in ("CPU", "wall")) + " |")
    print("|---" * (1 + 2 * len(KINDS)) + "|")
    for root in roots:
        cells = []
        for kind in KINDS:
            for key in ("cpu", "wall"):
                series = [sample[key] for sample in samples[(root, kind)]]
                cells.append(f"{statistics.median(series):.2f} ({min(series):.2f})")
        print(f"| {root.name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
