"""Which parts of a statement ran: expression-level evidence for diagnostics the scorer judges false.

    python benchmarks/zoo/spans.py --python /work/venv-mx/bin/python     # after score.py; writes labels/spans.json

The labels record the *lines* a model's hybridized trace ran. A line can hold code that did not run: in
`size = self.size if self.size is not None else x.shape[2:]`, the trace runs the line while `x.shape` is
never read when the block was given a size. Judging a diagnostic on `x.shape` false from the line alone
calls a hazard false because the model that ran the line took the other branch.

For every statement on which score.py found a false alarm, this re-runs each OK model that executed it
(under MXNet, as label.py does: build, initialise, eager call, hybridize, first call traced) with opcode
tracing limited to that statement, and records the source positions (CPython 3.11's `co_positions`: line,
column, end line, end column) of every instruction that ran there. score.py then judges a diagnostic on such
a statement false only when an instruction inside the diagnostic's own range ran; when none did, in any of
the OK models that ran the statement, the diagnostic is "unknown" (counted apart as "statement ran, the
flagged expression did not"), as it is for code that no model ran at all.

Output: labels/spans.json, {library: {"path:first-last": {"models": [...], "positions": [[l, c, el, ec], ...],
"failed": {model: reason}}}}. Measured data; commit it with the labels it was measured against.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
SPANS = HERE / "labels" / "spans.json"
TIMEOUT = 300

from statements import statement_key  # noqa: E402


# ============================================================================ worker (runs under MXNet)

from label import _Tracer  # noqa: E402  (benchmarks/zoo/label.py: no MXNet needed to import)


class _PositionRecorder(_Tracer):
    """sys.settrace with opcode events, in the given files only, keeping instruction positions on given lines."""

    def __init__(self, wanted):
        self.wanted = wanted                # absolute filename -> {line: key}
        self.positions = {}                 # key -> set of (line, col, end_line, end_col)

    def _global(self, frame, event, arg):
        lines = self.wanted.get(frame.f_code.co_filename)
        if lines is None:
            return None
        frame.f_trace_opcodes = True
        positions = list(frame.f_code.co_positions())  # (line, end line, column, end column) per code unit

        def local(frame, event, arg):
            if event == "opcode":
                index = frame.f_lasti // 2
                if index < len(positions):
                    line, end_line, column, end_column = positions[index]
                    key = lines.get(line)
                    if key is not None and None not in (end_line, column, end_column):
                        self.positions.setdefault(key, set()).add((line, column, end_line, end_column))
            return local
        return local


def run_model(library: str, name: str, statements: dict) -> dict:
    """statements: {key: (path, first, last)}; returns {key: positions} for the model's hybridized trace."""
    from label import _disable_dropout, _package_roots, _seed
    from models import build
    roots = _package_roots()
    wanted = {}
    for key, (path, first, last) in statements.items():
        for root in roots:
            filename = os.path.join(root, *path.split("/"))
            if os.path.exists(filename):
                for line in range(first, last + 1):
                    wanted.setdefault(filename, {})[line] = key
                break
    _seed()
    net, inputs = build(library, name)
    net.initialize()
    _disable_dropout(net)
    _seed()
    net(*inputs)
    net.hybridize()
    recorder = _PositionRecorder(wanted)
    _seed()
    with recorder:
        net(*inputs)
    return {key: sorted(positions) for key, positions in recorder.positions.items()}


def worker_main(library: str) -> int:
    """One job per stdin line: {"name": model, "statements": {key: [path, first, last]}}; one JSON answer each."""
    import logging
    import warnings
    results = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    from models import import_library
    import_library(library)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            found = run_model(library, job["name"], {k: tuple(v) for k, v in job["statements"].items()})
            results.write(json.dumps({"positions": found}) + "\n")
        except Exception as error:  # noqa: BLE001 -- a model that fails here is recorded, not fatal
            results.write(json.dumps({"error": f"{type(error).__name__}: {error}"[:300]}) + "\n")
    return 0


# ============================================================================ parent (no MXNet needed)

def jobs_from_results(results: dict, labels: dict, sources) -> dict:
    """{library: {model: {key: (path, first, last)}}} for the statements of the scorer's false alarms."""
    from statements import Statements
    jobs = {}
    for result in results["results"]:
        library = result["library"]
        statements = Statements(sources(library))
        for alarm in result["false_alarms"]:
            span = statements.span(alarm["path"], alarm["line"])
            key = statement_key(alarm["path"], span)
            for label in labels.get(library, []):
                if label["verdict"] != "OK":
                    continue
                ran = (label.get("trace_lines") or {}).get(alarm["path"], ())
                if any(span[0] <= line <= span[1] for line in ran):
                    jobs.setdefault(library, {}).setdefault(label["name"], {})[key] = (alarm["path"], *span)
    return jobs


def run_jobs(python: str, library: str, models: dict) -> dict:
    """Runs each model in a fresh worker (one model per process: no state carried between models)."""
    measured = {}
    for name, statements in sorted(models.items()):
        print(f"spans: {library} {name}: {len(statements)} statement(s)", file=sys.stderr, flush=True)
        job = json.dumps({"name": name, "statements": statements}) + "\n"
        try:
            done = subprocess.run([python, str(Path(__file__).resolve()), "--worker", library], input=job,
                                  capture_output=True, text=True, timeout=TIMEOUT, cwd=HERE)
            answer = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else {
                "error": f"worker exited {done.returncode}: {done.stderr.strip()[-300:]}"}
        except subprocess.TimeoutExpired:
            answer = {"error": f"over {TIMEOUT} s"}
        for key in statements:
            entry = measured.setdefault(key, {"models": [], "positions": [], "failed": {}})
            if "error" in answer:
                entry["failed"][name] = answer["error"]
                continue
            entry["models"].append(name)
            entry["positions"] = sorted({tuple(p) for p in entry["positions"]} |
                                        {tuple(p) for p in answer["positions"].get(key, [])})
    return measured


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", help="interpreter with MXNet 1.9.1 and the libraries (label.py's)")
    parser.add_argument("--results", type=Path, default=HERE / "results.json", help="score.py's results.json")
    parser.add_argument("--labels", type=Path, default=HERE / "labels")
    parser.add_argument("--output", type=Path, default=SPANS)
    parser.add_argument("--worker", metavar="LIBRARY", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)
    if not args.python:
        parser.error("--python is required (an interpreter that imports mxnet 1.9.1)")
    from score import read_labels
    from sources import library_source
    labels = read_labels(args.labels)
    jobs = jobs_from_results(json.loads(args.results.read_text()), labels, library_source)
    spans = json.loads(args.output.read_text()) if args.output.exists() else {}
    for library, models in sorted(jobs.items()):
        measured = run_jobs(args.python, library, models)
        spans.setdefault(library, {}).update(measured)
    args.output.write_text(json.dumps(spans, indent=1, sort_keys=True) + "\n")
    total = sum(len(v) for v in jobs.values())
    print(f"spans: {total} model run(s) over {sum(len(v) for v in spans.values())} statement(s) -> {args.output}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
