"""Where a cold hylint run spends its time, phase by phase, in one process (no workers), CPU time.

    python benchmarks/phases.py            # the benchmark corpus, default rules
    python benchmarks/phases.py --select ALL --whole-file

Times, over the whole corpus (benchmarks/corpus.py), each phase of what ``hylint check --no-cache``
does for every file: start-up (importing the CLI, then the engine and the rules), discovery, read
and decode, text prefilter, locating the regions to parse (CPython ``ast``, hylint/lint/regions.py: counted in
the reach for the files whose tree the reach parsed, as a run makes them there; here the rest), the
libcst parse, the analysis (``analyze_module``), the rules (traversal, positions, fixes, noqa), and
the report (the ``concise`` format into a string); and the start-up of a pool of forked workers.
The sum of the per-file phases is what ``--jobs 1`` costs beyond start-up; ``--whole-file`` parses
whole files (``HYLINT_WHOLE_FILE=1``). Figures for docs/performance.md.
"""
from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402


def _import_time(module: str) -> float:
    """Seconds to start a fresh interpreter that imports ``module`` (minus a bare interpreter)."""
    def run(code: str) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO,
                           env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
            best = min(best, time.perf_counter() - start)
        return best
    return run(f"import {module}") - run("pass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--select", default=None, help="rule codes, comma-separated, or ALL (default: the defaults)")
    parser.add_argument("--whole-file", action="store_true", help="parse whole files (no region reduction)")
    args = parser.parse_args()

    root = corpus.ensure_corpus()
    timings = {}
    timings["start-up: import hylint.cli (wall)"] = _import_time("hylint.cli")
    timings["start-up: import engine + rules (wall)"] = _import_time("hylint.lint.engine, hylint.selection; "
                                                      "hylint.selection.all_rules()")

    from hylint.lint import regions
    from hylint.batch.reach import ReachIndex
    from hylint.analysis.reach import FileReach
    from hylint.analysis import analyze_module
    from hylint.batch.discovery import DEFAULT_EXCLUDE, discover
    from hylint.lint.engine import Linter, _gc_relaxed, _same_layout, parse_module
    from hylint.batch.files import read_source
    from hylint.lint.prefilter import might_hold_hybrid_code
    from hylint.selection import all_rules, select_rules
    from hylint.report import Report, render
    from hylint.batch.runner import FileOutcome

    rules = all_rules()
    if args.select == "ALL":
        selected = list(rules.values())
    elif args.select:
        selected = [rules[c] for c in args.select.split(",")]
    else:
        selected = list(select_rules())
    linter = Linter(selected)
    reduce = not args.whole_file and linter.regions

    clock = time.process_time  # CPU time: the machine is shared
    start = clock()
    files = discover([str(root)], DEFAULT_EXCLUDE, root)
    timings["discovery"] = clock() - start
    start = clock()
    # no cache folder: every package's reach computed; the files to check get their regions from its parse
    # (as check.py's preparer does); --whole-file: none
    index = ReachIndex(None, (lambda: lambda path, raw, tree, plain: linter.prepare(raw.decode("utf-8"), tree, plain))
                       if reduce else None)
    index.prefetch(files, 1)
    reaches = {path: index.for_file(path) for path in files}
    timings["reach (packages read, parsed with ast, analysed; the regions of the files it parsed)"] = clock() - start
    phase = dict.fromkeys(["read", "prefilter", "locate regions (ast; files the reach did not parse)", "parse (libcst)", "analysis",
                           "rules + positions + noqa"], 0.0)
    parsed_lines = total_lines = kept = whole_again = 0
    outcomes = []

    def lint(text: str, original: str, filename: str, t3: float, reach=None):
        module = parse_module(text)
        t4 = clock()
        phase["parse (libcst)"] += t4 - t3
        analyze_module(module, reach)
        t5 = clock()
        phase["analysis"] += t5 - t4
        # _lint_module analyses again: its time minus the analysis's is the rules' share
        diagnostics = linter._lint_module(module, original, filename, reach=reach)
        phase["rules + positions + noqa"] += max(0.0, clock() - t5 - (t5 - t4))
        return diagnostics

    for path in files:
        relaxed = _gc_relaxed()  # as Linter.lint_source does per lint
        relaxed.__enter__()
        t0 = clock()
        source = read_source(path)
        t1 = clock()
        phase["read"] += t1 - t0
        plain = reaches[path]
        reach = FileReach.from_plain(plain) if plain else None
        reach = reach if reach is not None and reach.functions else None
        keep = reach is not None or might_hold_hybrid_code(source.text, linter.prefilter_keys)
        t2 = clock()
        phase["prefilter"] += t2 - t1
        if not keep:
            outcomes.append(FileOutcome(str(path), linter._check_noqa(source.text, str(path), set()), source.text))
            relaxed.__exit__(None, None, None)
            continue
        kept += 1
        text = source.text
        prepared = index.prepared_for(path)
        if reduce and prepared is not None:  # made from the reach's parse, timed with it
            reduced = prepared.reduced
            t3 = t2
            if reduced is not None:
                text = reduced
        elif reduce:  # a file the trace reaches keeps its reached functions (as the engine does)
            reduced = regions.reduce_source(text, linter.reads, None,
                                            [f.qualname for f in reach.functions] if reach is not None else ())
            t3 = clock()
            phase["locate regions (ast; files the reach did not parse)"] += t3 - t2
            if reduced is not None:
                text = reduced
        else:
            t3 = t2
        total_lines += sum(1 for line in source.text.splitlines() if line.strip())
        parsed_lines += sum(1 for line in text.splitlines() if line.strip())
        diagnostics = lint(text, source.text, str(path), t3, reach)
        if text is not source.text and any(d.fix is not None for d in diagnostics) and (
                linter.needs_whole_file(diagnostics) or not _same_layout(parse_module(text), source.text)):
            # a fix that may read the whole module: the engine lints the whole file again (hylint/lint/regions.py)
            whole_again += 1
            diagnostics = lint(source.text, source.text, str(path), clock(), reach)
        outcomes.append(FileOutcome(str(path), diagnostics, source.text))
        relaxed.__exit__(None, None, None)
    timings.update(phase)
    start = clock()
    diagnostics = [d for o in outcomes for d in o.diagnostics]
    sources = {o.filename: o.text for o in outcomes if o.diagnostics}
    out = io.StringIO()
    render("concise", Report(diagnostics, sources, False, {}, False, False, False, len(outcomes)), out)
    timings["report (concise)"] = clock() - start

    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(abs, [1, 2]))
    timings["worker start-up (2 forked workers, round trip, wall)"] = time.perf_counter() - start

    print(f"{len(files)} files, {kept} parsed ({parsed_lines:,} of their {total_lines:,} non-blank lines handed "
          f"to libcst; {whole_again} linted whole again for a fix), {len(diagnostics)} diagnostics; "
          f"{'whole files' if not reduce else 'regions'}; rules: {args.select or 'default'}")
    per_file = sum(phase.values())
    for name, seconds in timings.items():
        share = f"{100 * seconds / per_file:5.1f} %" if name in phase else ""
        print(f"| {name} | {seconds:.3f} | {share} |")
    print(f"| sum of the per-file phases | {per_file:.3f} | 100 % |")


if __name__ == "__main__":
    main()
