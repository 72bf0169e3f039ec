"""`hylint verify PATH` on installed Gluon libraries: per library, the blocks found, built and fed, the verdicts
and the time, with the zoo labels (benchmarks/zoo/labels/*.jsonl) held against the blocks it calls failing.

    python benchmarks/verify_path/measure.py run LIBRARY PATH [PATH ...] [--backend numpy|mxnet] [--jobs 2] [--timeout 30]
        [--train-mode]
    python benchmarks/verify_path/measure.py report     # writes benchmarks/verify_path/RESULTS.md

`run` writes .work/<LIBRARY>-<backend>.json (the JSON report) and .work/<LIBRARY>-<backend>.meta.json (the command
and its wall time); neither is committed. `report` reads them all."""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = HERE / ".work"
LABELS = ROOT / "benchmarks" / "zoo" / "labels"
sys.path.insert(0, str(ROOT))

from hylint.verify.render import survey_kind, survey_line  # noqa: E402


def run(args: argparse.Namespace) -> None:
    """One `hylint verify PATH` per path given (their JSON reports joined, their times added)."""
    WORK.mkdir(exist_ok=True)
    (WORK / ".gitignore").write_text("*\n")
    commands = [[sys.executable, "-m", "hylint", "verify", path, "--backend", args.backend, "--no-cache",
                 "-j", str(args.jobs), "--timeout", str(args.timeout), "--output-format", "json"]
                + (["--train-mode"] if args.train_mode else [])
                for path in args.path]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "hylint"], cwd=ROOT, capture_output=True, text=True).stdout
    start = time.monotonic()
    results, codes, errors = [], [], []
    for command in commands:
        done = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                              text=True)
        results += json.loads(done.stdout or "[]")
        codes.append(done.returncode)
        errors.append(done.stderr.strip()[-300:])
    seconds = time.monotonic() - start
    name = f"{args.library}-{args.backend}"
    (WORK / f"{name}.json").write_text(json.dumps(results))
    shown = "; ".join(" ".join(command[1:]).replace(sys.executable, "python") for command in commands)
    (WORK / f"{name}.meta.json").write_text(json.dumps({
        "library": args.library, "backend": args.backend, "path": " ".join(args.path), "seconds": round(seconds, 1),
        "exit_code": max(codes), "command": f"python {shown}", "jobs": args.jobs, "timeout": args.timeout,
        "train_mode": args.train_mode,
        "commit": commit.strip() + (" (with uncommitted changes to hylint/)" if dirty.strip() else "")}))
    print(f"{name}: exit {max(codes)} in {seconds:.1f} s; {' '.join(errors)[-500:]}")


def _site_relative(path: str) -> str:
    marker = "site-packages/"
    return path.split(marker, 1)[1] if marker in path else path


def _ok_lines() -> Dict[str, Set[Tuple[str, int]]]:
    """Per labelled library: (file, line) pairs a model labelled OK (hybridizes, equal outputs) executed."""
    lines: Dict[str, Set[Tuple[str, int]]] = {}
    for file in sorted(LABELS.glob("*.jsonl")):
        seen: Set[Tuple[str, int]] = set()
        for row in map(json.loads, file.read_text().splitlines()):
            if row.get("verdict") == "OK":
                for name, numbers in (row.get("trace_lines") or {}).items():
                    seen.update((name, n) for n in numbers)
        lines[file.stem] = seen
    return lines


def _failing_files() -> Dict[str, List[str]]:
    """file -> the models labelled TRACE_FAIL or DIFF whose error frames name it."""
    files: Dict[str, List[str]] = {}
    for file in sorted(LABELS.glob("*.jsonl")):
        for row in map(json.loads, file.read_text().splitlines()):
            if row.get("verdict") in ("TRACE_FAIL", "DIFF"):
                for frame in (row.get("error") or {}).get("frames") or []:
                    files.setdefault(frame[0], [])
                    if row["name"] not in files[frame[0]]:
                        files[frame[0]].append(row["name"])
    return files


def _labelled_causes(library: str) -> Dict[Tuple[str, str, int], List[str]]:
    """The root causes of the library's labelled failing or differing models (benchmarks/zoo/score.py's:
    a failure's innermost library frame, a difference's block), each with its models."""
    sys.path.insert(0, str(ROOT / "benchmarks" / "zoo"))
    from score import FAILURES, root_causes

    causes: Dict[Tuple[str, str, int], List[str]] = {}
    file = LABELS / f"{library}.jsonl"
    for row in map(json.loads, file.read_text().splitlines() if file.is_file() else []):
        if row.get("verdict") in FAILURES + ("DIFF",):
            for cause in root_causes(row):
                causes.setdefault(tuple(cause), []).append(row["name"])
    return causes


def _statement_start(path: str, line: int) -> int:
    """The first line of the innermost statement holding ``line`` of ``path`` (``line`` when unreadable)."""
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return line
    best = line
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For,
                                                                ast.While, ast.With, ast.Try)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            best = node.lineno if node.lineno <= line else best
    return best


def _found_causes(library: str, results: List[Dict[str, Any]], site: str, paths: List[str] = ()
                  ) -> Tuple[List[str], List[str]]:
    """``(found, missed)`` root causes of the labelled models, as lines of text: a line cause is found when a
    block verify calls failing (or fixes) failed hybridized at that statement, or when verify's proven fixes
    of a block it fixed change that statement; a block cause (a difference) when verify calls that class
    failing (or fixes it). Only the causes in files under ``paths`` (the run's) count, when given."""
    failing = [r for r in results if survey_kind(r) in ("FAILS", "DIFFERS", "FIXED")]
    found, missed = [], []
    for (kind, path, line), models in sorted(_labelled_causes(library).items()):
        full = f"{site}/{path}"
        if paths and not any(full == p or full.startswith(p.rstrip("/") + "/") for p in paths):
            continue
        hits = []
        for result in failing:
            location = ((result.get("hybridized") or {}).get("location") or {})
            where = _site_relative(str(location.get("file", "")))
            fixed_lines = [f.get("line") for f in result.get("fixes") or [] if survey_kind(result) == "FIXED"]
            if kind == "line" and where == path and location.get("line") and \
                    _statement_start(full, int(location["line"])) == _statement_start(full, line):
                hits.append(result)
            elif kind == "line" and _site_relative(result["file"]) == path and line in fixed_lines:
                hits.append(result)
            elif kind == "block" and _site_relative(result["file"]) == path and \
                    line in _class_lines(result["file"], result["target"].split("::")[1]):
                hits.append(result)
        text = f"`{path}:{line}` ({kind}; {len(models)} model(s): {', '.join(models[:2])}" \
               f"{' ...' if len(models) > 2 else ''})"
        if hits:
            found.append(text + " by " + ", ".join(f"`{h['target'].split('::')[1]}` {survey_kind(h)}"
                                                  for h in hits[:3]))
        else:
            missed.append(text)
    return found, missed


def _class_lines(path: str, name: str) -> range:
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return range(0)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return range(node.lineno, (node.end_lineno or node.lineno) + 1)
    return range(0)


# verdicts read by hand (the source at the failing line), keyed by target
READ_BY_HAND = {
    "gluoncv2/models/scnet.py::ScConv": "true for the block as built: with its default `in_size=None` it reads "
    "`x.shape[2:]` (line 116); the models labelled OK build it with `in_size` given, so the same line takes the "
    "other branch of its conditional expression there",
    "gluoncv2/models/scnet.py::ScBottleneck": "true for the block as built: line 116 of its ScConv, which it "
    "builds with its own default `in_size=None`",
    "gluoncv2/models/scnet.py::ScUnit": "true for the block as built: line 116 of its ScConv, through its "
    "ScBottleneck, with the default `in_size=None`",
    "gluoncv2/models/common.py::InterpolationBlock": "true for the block as built: with the default "
    "`out_size=None` (and `bilinear=True`) `calc_out_size` reads `x.shape[2:]` (line 1449, HY201 reports it); "
    "the models labelled OK give it `out_size` or call it with `size`, so they never read the shape; "
    "irevnet301, labelled failing, fails elsewhere in common.py",
    "gluoncv2/models/fractalnet_cifar.py::FractalBlock": "true: `assert (out.shape[0] == curr_num_columns)` in "
    "the join helper it calls with F; the labelled fractalnet models fail (at line 385, another `.shape`) before "
    "reaching it; no rule reports line 237: a miss of the static rules that running found",
    "gluoncv2/models/fractalnet_cifar.py::FractalUnit": "true: the same line 237, through its FractalBlock",
    "gluoncv2/models/bisenet.py::PyramidPoolingZeroBranch": "true for the block as built: its required `in_size` "
    "is compared with None (`self.in_size if self.in_size is not None else x.shape[2:]`, line 44), so verify "
    "gives it None and the shape is read; bisenet_resnet18_celebamaskhq, labelled failing, fails at line 316 "
    "of the same file, another `.shape`",
    "gluoncv2/models/deeplabv3.py::ASPPAvgBranch": "true for the block as built: its required "
    "`upscale_out_size` is compared with None (line 86), so verify gives it None and `x.shape[2:]` is read; "
    "the deeplabv3 models labelled OK build it with a size, so the same line takes the other branch there",
    "gluoncv2/models/fpenet.py::FPENet": "true: fpenet_cityscapes() as the zoo defines it (fixed_size=False) "
    "builds InterpolationBlocks with out_size=None, which read `x.shape` (common.py:1449); on MXNet 1.9.1 it "
    "runs eagerly at 1x3x64x64 and fails hybridized with the same AttributeError (checked by hand); the zoo "
    "labels have no fpenet model",
    "gluoncv2/models/cgnet.py::CGNet": "true, and the labels' root cause: cgnet_cityscapes() (fixed_size=False) "
    "reads `x.shape[2:]` at line 404, where the labelled model fails on MXNet 1.9.1",
    "gluoncv2/models/dabnet.py::DABNet": "true, and the labels' root cause: dabnet_cityscapes() reads "
    "`x.shape[2:]` at line 541, where the labelled model fails on MXNet 1.9.1",
    "gluoncv2/models/bisenet.py::BiSeNet": "true, and the labels' root cause: bisenet_resnet18_celebamaskhq() "
    "is built for 640x480 (fed that, its in_size) and reads `x.shape` at line 316, where the labelled model "
    "fails on MXNet 1.9.1",
    "gluoncv2/models/resdropresnet_cifar.py::CIFARResDropResNet": "true as labelled (DIFF in train mode): "
    "resdropresnet20_cifar10()'s units drop residual branches at random in train mode; the labels' root "
    "cause is the unit's class (ResDropResUnit, line 64), which verify builds with a guessed life_prob=0.0, "
    "so the unit alone never drops and hybridizes",
    "gluoncv2/models/lednet.py::PoolingBranch": "true, and the labels' root cause: with `in_size=None` (compared "
    "with None in its forward) line 375 reads `x.shape[2:]`, where lednet_cityscapes fails on MXNet 1.9.1",
    "gluoncv2/models/bisenet.py::AttentionRefinementBlock": "true: `x * w` multiplies (N, C, H, W) by the "
    "(N, C, 1, 1) of AdaptiveAvgPooling2D: NDArray broadcasts, a Symbol does not; no default-on rule reports it, "
    "and verify's evidence step (the opt-in broadcast rules' fix, applied when the run fails at their operator) "
    "did not fix it here",
    "gluoncv2/models/bisenet.py::PyramidPoolingMainBranch": "true: the same line 80, through its "
    "AttentionRefinementBlock",
}


def _cause(reason: str) -> str:
    """The error behind a NOT RUN reason, numbers as N (for counting)."""
    first = reason.split(" | ")[0]
    if first.startswith("no input") and "): " in first:
        first = first.rsplit("): ", 1)[1]
    elif first.startswith("could not build"):
        first = first.split(": ", 2)[-1]
    return re.sub(r"\d+", "N", first)[:120]


def _site_command(command: str) -> str:
    return command.replace("/work/main/.venv/lib/python3.11/site-packages", "$SITE")


def report(_: argparse.Namespace) -> None:
    ok_lines = _ok_lines()
    every_ok = set().union(*ok_lines.values()) if ok_lines else set()
    failing = _failing_files()
    rows, notes, details, agree, causes = [], [], [], [], []
    for meta_file in sorted(WORK.glob("*.meta.json")):
        meta = json.loads(meta_file.read_text())
        results: List[Dict[str, Any]] = json.loads((WORK / meta_file.name.replace(".meta", "")).read_text() or "[]")
        kinds = Counter(survey_kind(r) for r in results)
        reasons = Counter(str(r.get("reason", "")).split(":")[0].split(" after ")[0]
                          for r in results if survey_kind(r) == "NOT RUN")
        ran = len(results) - kinds["NOT RUN"]
        rows.append(f"| {meta['library']} | {meta['backend']} | {len(results)} | {ran} ({100 * ran / max(1, len(results)):.0f} %) "
                    f"| {kinds['HYBRIDIZES']} | {kinds['FIXED']} | {kinds['FAILS']} | {kinds['DIFFERS']} | "
                    f"{kinds['NOT RUN']} ({', '.join(f'{n} {why}' for why, n in reasons.most_common())}) | "
                    f"{meta['seconds']:.0f} s |")
        site = meta["path"].split("site-packages/")[0] + "site-packages" if "site-packages/" in meta["path"] else ""
        library = meta["library"].split("-")[0]  # mxnet-vision: mxnet's labels
        if (LABELS / f"{library}.jsonl").is_file():
            found, missed = _found_causes(library, results, site, meta["path"].split())
            total = len(found) + len(missed)
            causes.append(f"| {meta['library']} | {meta['backend']} | {total} | {len(found)} "
                          f"({100 * len(found) / max(1, total):.0f} %) | {meta['seconds']:.0f} s |")
            causes.extend([f"|  | found | {t} | | |" for t in found] + [f"|  | missed | {t} | | |" for t in missed])
        not_run = Counter(_cause(str(r.get("reason", ""))) for r in results if survey_kind(r) == "NOT RUN")
        details.append(f"\n### {meta['library']} ({meta['backend']})\n\n"
                       f"`python benchmarks/verify_path/measure.py run {meta['library']} "
                       f"{_site_command(meta['path'])} --backend {meta['backend']} --jobs {meta['jobs']} "
                       f"--timeout {meta['timeout']:g}{' --train-mode' if meta.get('train_mode') else ''}`, which runs "
                       f"`{_site_command(meta['command'])}` (exit {meta['exit_code']}; hylint at commit "
                       f"{meta.get('commit', '?')})\n")
        if not_run:
            details.append("Most common errors behind NOT RUN (numbers as N): " + "; ".join(
                f"{n} x `{why}`" for why, n in not_run.most_common(5)) + "\n")
        for result in results:
            kind = survey_kind(result)
            if kind in ("FAILS", "DIFFERS", "FIXED"):
                details.append("- " + _site_relative(survey_line(result)).replace(
                    "/work/main/.venv/lib/python3.11/site-packages/", "")[:400])
                hand = READ_BY_HAND.get(_site_relative(result["target"]))
                if hand:
                    details.append(f"  - read by hand: {hand}")
                # held against the labels: did a model labelled OK (hybridizes with equal outputs) run this?
                location = ((result.get("hybridized") or {}).get("location") or {})
                where = (_site_relative(str(location.get("file", ""))), location.get("line"))
                body = {(_site_relative(result["file"]), n) for n in _class_lines(result["file"],
                                                                                 result["target"].split("::")[1])}
                models = failing.get(_site_relative(result["file"]), [])
                if kind != "FIXED" and models:
                    agree.append(f"- `{_site_relative(result['target'])}` {kind}; in the same file the labels have "
                                 f"{len(models)} failing model(s): {', '.join(models[:3])}")
                if kind == "FAILS" and where in every_ok:
                    notes.append(f"- {meta['library']}: `{_site_relative(result['target'])}` FAILS at "
                                 f"`{where[0]}:{where[1]}`, a line that a model labelled OK executed")
                elif kind in ("FAILS", "DIFFERS") and body & every_ok:
                    notes.append(f"- {meta['library']}: `{_site_relative(result['target'])}` {kind}; "
                                 f"{len(body & every_ok)} lines of the class ran in models labelled OK")
    text = [
        "# `hylint verify PATH` on installed libraries",
        "",
        "Every HybridBlock subclass the folder defines, built (defaults, the package's literal calls, guesses),",
        "fed (what the block implies, then common shapes) and verified eagerly and hybridized, each block in its own",
        "process. Written by `python benchmarks/verify_path/measure.py report` from the runs below",
        "(`measure.py run ...`, the exact commands under each library; `$SITE` is the site-packages of a venv with",
        "MXNet 1.9.1, numpy 1.23.5, gluoncv 0.11.0, gluoncv2 0.0.64 and gluonnlp 0.10.0). A 2-core machine shared",
        "with other work, `--jobs 2`, the time limit per block each run names; times are wall times of the whole",
        "command, no cache. \"built and fed\": blocks that reached a verdict (the rest are NOT RUN, with the reason",
        "counted). Each run names the commit it measured. The times follow the machine's load (a load average of",
        "8 to 16 on 2 cores during the runs of 2 Dec 2026, 06:00 to 07:40 UTC, two runs at a time for most of it),",
        "and a block timed out under that load may run in time on an idle machine.",
        "",
        "The runs of the previous round (same commands; hylint at 3a87fbd to 1aae9d3, the same day, 04:00 to",
        "05:00 UTC), for comparison: gluoncv2 376 of 643 built and fed (58 %; 6 fail, 4 fixed; 267 NOT RUN: 144 no",
        "input found, 99 could not build, 24 timed out; 2427 s), root causes 2 of 10 (3 of 10 on the ten files);",
        "gluoncv 87 of 277 (31 %; `--timeout 30`, no `--train-mode`; 0 of 6 root causes; two wrong FAILS, ICNet",
        "and DLAUp); gluonnlp 16 of 42 (1 of 1); MXNet's vision zoo 13 of 15 (mxnet), 11 of 15 (numpy). Since",
        "then: list inputs, the image size a block is built for, a second run at 64x64 before a small guessed",
        "image's failure is reported, deferred input sizes given, blocks built by the package's own functions",
        "(`cgnet_cityscapes()`), `output_dim` a size. `gluoncv2-causes` is verify on the ten gluoncv2 files that",
        "hold a labelled root cause (on the runtime, and on MXNet with `--train-mode`: one block crashed MXNet",
        "there, `free(): invalid next size`, exit code -6); `gluoncv-causes` on the six gluoncv files that do, on MXNet with",
        "`--train-mode` (three of them differ only in train mode: the labels' DIFF rows name `mode: train`);",
        "the whole gluoncv run has `--train-mode` and `--timeout 60` this time. `gluoncv-verdicts` is verify on the",
        "two files of the earlier wrong verdicts (ICNet, DLAUp). Root causes count only in files under the run's",
        "paths.",
        "",
        "| library | backend | blocks found | built and fed | HYBRIDIZES | FIXED | FAILS | DIFFERS | NOT RUN | time |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "## The labelled failing models' root causes",
        "",
        "Per library, the root causes of the models the zoo labels call failing or differing on MXNet 1.9.1",
        "(benchmarks/zoo/score.py's `root_causes`: a failure's innermost library frame, a difference's block),",
        "and how many `verify PATH` finds with no specs: a block it calls failing (or fixes) failed hybridized at",
        "that statement, or, for a difference, verify calls that class failing. The time is the whole run's.",
        "",
        "| library | backend | root causes | found | time |",
        "|---|---|---|---|---|",
        *causes,
        "",
        "## Against the zoo labels",
        "",
        "A block verify calls failing whose failing line, or whose class body, a model labelled OK (hybridizes, equal",
        "outputs on MXNet 1.9.1; `trace_lines` of benchmarks/zoo/labels/*.jsonl) executed. Such a line is not",
        "necessarily a false verdict (the block was built and fed differently from the model), but each is listed:",
        "",
        *(notes or ["- none"]),
        "",
        "Blocks verify calls failing in a file where the labels have a model failing (`TRACE_FAIL` or `DIFF`, its",
        "error raised in that file):",
        "",
        *(agree or ["- none"]),
        "",
        "## The blocks that do not hybridize as they are",
        *details,
        "",
    ]
    (HERE / "RESULTS.md").write_text("\n".join(text))
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("run")
    one.add_argument("library")
    one.add_argument("path", nargs="+")
    one.add_argument("--backend", default="numpy")
    one.add_argument("--jobs", type=int, default=2)
    one.add_argument("--timeout", type=float, default=30)
    one.add_argument("--train-mode", action="store_true", help="also compare train-mode calls (verify --train-mode)")
    one.set_defaults(func=run)
    sub.add_parser("report").set_defaults(func=report)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
