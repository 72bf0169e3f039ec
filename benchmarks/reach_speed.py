"""CPU time of the trace reach alone, for several checkouts taking turns, on the PyPI corpus's packages.

    python benchmarks/reach_speed.py ROOT [ROOT ...] [--rounds 3] [--sources DIR ...]

Each round runs, for each checkout in turn, a fresh interpreter with that checkout first on the path,
which computes the reach of every package under the corpus's sources (``hylint.batch.reach._compute``,
the cyclic collector paused as in a run; the modules are read before the clock starts) and prints the CPU
seconds per package; the medians per checkout and package follow. ``--sources`` adds other folders (the
zoo's: ``benchmarks/zoo/.work/sources``). With ``--dump DIR``, each checkout's summaries are written to
``DIR/<n>.json`` (checkout n, in the order given), to compare with ``cmp``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

CHILD = r"""
import gc, json, sys, time
from pathlib import Path
from hylint.batch import reach as br
import hylint.analysis.reach  # imported before the clock, as in a run (the linter imports it first)

folders, dump = json.loads(sys.argv[1]), sys.argv[2]
roots = sorted({br.package_root(f)[0] for folder in folders for f in Path(folder).rglob("*.py")
                if br.package_root(f)[1]})
times, summaries = {}, {}
for root in roots:
    raws = br._read(sorted(root.rglob("*.py")))
    gc.collect()
    gc.disable()
    start = time.process_time()
    found = br._compute(root, raws, True)
    times[str(root)] = time.process_time() - start
    gc.enable()
    summaries[str(root)] = {path: found[path] for path in sorted(found)}
if dump:
    Path(dump).write_text(json.dumps(summaries, sort_keys=True, indent=0))
print(json.dumps(times))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sources", nargs="*", type=Path, default=[])
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    folders = [str(corpus.ensure_corpus())] + [str(folder.resolve()) for folder in args.sources]
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    runs = {root: [] for root in args.roots}
    for round_ in range(args.rounds):
        for n, root in enumerate(args.roots):
            dump = str(args.dump / f"{n}.json") if args.dump and round_ == 0 else ""
            # in the checkout's folder: `python -c` puts the current folder first on the path
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(folders), dump], check=True,
                                 capture_output=True, text=True, cwd=root.resolve(),
                                 env={"PYTHONPATH": str(root.resolve()), "PATH": "/usr/bin:/bin"})
            times = json.loads(out.stdout)
            runs[root].append(times)
            print(f"round {round_ + 1} {root}: {sum(times.values()):.2f} s", flush=True)
    print("\n| checkout | total CPU s, median (min) | largest packages, median s |\n|---|---|---|")
    for root, rounds in runs.items():
        totals = [sum(times.values()) for times in rounds]
        packages = sorted(rounds[0], key=lambda name: -statistics.median(times[name] for times in rounds))[:4]
        largest = ", ".join(f"{Path(name).name} {statistics.median(times[name] for times in rounds):.2f}"
                            for name in packages)
        print(f"| {root} | {statistics.median(totals):.2f} ({min(totals):.2f}) | {largest} |")


if __name__ == "__main__":
    main()
