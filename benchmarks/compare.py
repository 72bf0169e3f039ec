"""CPU time of linting the corpus in one process, this checkout against another revision, alternating.

    python benchmarks/compare.py e791678              # 3 alternations, best of 3 lints each
    python benchmarks/compare.py HEAD~3 --alternations 5 --select ALL

On a noisy machine the ratio of two benchmark runs minutes apart says little; two checkouts measured
turn about, in the same minutes, say more. Each measurement is a fresh interpreter that imports one
checkout's hylint, lints every corpus file the prefilter keeps (regions, parse, analysis, rules,
positions: what a worker does) three times and reports the best CPU time. The other revision is
exported with `git archive` into a temporary folder. Figures for docs/performance.md.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

MEASURE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hylint.lint.engine import Linter
from hylint.lint.prefilter import might_hold_hybrid_code
from hylint.selection import select_rules
linter = Linter(list(select_rules(select=sys.argv[3].split(",")) if sys.argv[3] else select_rules()))
sources = []
for path in Path(sys.argv[2]).rglob("*.py"):
    text = path.read_text(encoding="utf-8", errors="replace")
    if might_hold_hybrid_code(text, linter.prefilter_keys):
        sources.append((str(path), text))
best, count = float("inf"), 0
for _ in range(3):
    start = time.process_time()
    count = sum(len(linter.lint_source(text, name).diagnostics) for name, text in sources)
    best = min(best, time.process_time() - start)
print(len(sources), count, best)
"""


def measure(root: Path, corpus_root: Path, select: str) -> tuple:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(root), str(corpus_root), select],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare: measuring {root} failed:\n{done.stderr}")
    out = done.stdout.split()
    return int(out[0]), int(out[1]), float(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare this checkout with")
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--select", default="", help="rule codes, comma-separated, or ALL (default: the defaults)")
    args = parser.parse_args()
    corpus_root = corpus.ensure_corpus()
    with tempfile.TemporaryDirectory() as other:
        archive = subprocess.run(["git", "archive", args.revision], cwd=REPO, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", other], input=archive, check=True)
        times = {args.revision: [], "this checkout": []}
        for _ in range(args.alternations):
            for name, root in ((args.revision, Path(other)), ("this checkout", REPO)):
                files, diagnostics, seconds = measure(root, corpus_root, args.select)
                times[name].append(seconds)
                print(f"compare: {name:>14}: {files} files, {diagnostics} diagnostics, {seconds:.2f} s CPU",
                      file=sys.stderr)
    before, after = (statistics.median(times[name]) for name in times)
    print(f"{args.revision}: {' / '.join(f'{t:.2f}' for t in times[args.revision])} s; this checkout: "
          f"{' / '.join(f'{t:.2f}' for t in times['this checkout'])} s; medians {before:.2f} -> {after:.2f} s "
          f"({(after - before) / before:+.0%})")


if __name__ == "__main__":
    main()
