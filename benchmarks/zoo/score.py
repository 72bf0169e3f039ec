"""The zoo scorer: hylint's diagnostics on real library code, judged by the labels MXNet gave the models.

    python benchmarks/zoo/score.py                  # lint the pinned sources, join with labels/, write RESULTS.md
    python benchmarks/zoo/score.py --verify         # also show verify_zoo.py's measurement (verify/summary.json)

Runs without MXNet: it needs only the committed labels (labels/*.jsonl), the library sources (sources.py
downloads them from PyPI) and hylint (run as `python -m hylint` from --hylint-root, default this checkout).

Definitions (all per library; a line is joined on its whole statement, since tracing reports the line
an instruction starts on and hylint the line of the flagged expression):
- executed: a statement whose lines ran while MXNet traced hybrid_forward (the first hybridized call) of a model;
- root cause of a failure (TRACE_FAIL, GRAPH_FAIL): the innermost library frame of its traceback (a line),
  flagged by a diagnostic there or on the call in the frame just outside it (`Binarize()(w)` in
  hybrid_forward, when the failure is inside `Binarize.forward`);
  when the traceback holds no library frame, and for DIFF, the innermost block that differs (or fails) when
  hybridized alone: its hybrid_forward (a block root cause, flagged when a diagnostic lies in that method, or,
  when that block is the whole model, on a statement that only models of this root cause ran in their traces:
  a helper or a distribution's method its hybrid_forward calls);
- recall: distinct root causes (not models) with a diagnostic on the statement (or in the block);
- false alarm: a default-on diagnostic on a statement that an OK model executed and that is no root cause;
  the rules whose hazard shows in training (trace state HY805-HY807, HY810) are judged apart by the
  train-mode call: true when a model that executed the statement differed or failed in train mode
  hybridized, a false alarm when one had equal train-mode outputs eagerly and hybridized;
- unknown: a diagnostic on a statement no model executed (e.g. code of models the zoo does not build), or
  on a statement that OK models executed while the flagged expression itself ran in none of them, as
  measured by spans.py (`size if size is not None else x.shape[2:]` with a size given): lines alone would
  call that false.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
WORK = HERE / ".work"
LABELS = HERE / "labels"
RESULTS = HERE / "RESULTS.md"
SUMMARY = HERE / "results.json"
# rules whose hazard shows in training: judged by the train-mode call (HY810: a traced autograd.Function
# keeps its predict path, or fails, when the hybridized block trains)
TRACE_STATE_RULES = ("HY805", "HY806", "HY807", "HY810")
FAILURES = ("TRACE_FAIL", "GRAPH_FAIL")

sys.path.insert(0, str(HERE))
from models import LIBRARIES  # noqa: E402
from statements import Statements, statement_key  # noqa: E402,F401 (Statements: tests read it here)


# ---------------------------------------------------------------------------------------------------- inputs

def read_labels(directory: Path) -> dict:
    """{library: [label, ...]} from <directory>/<library>.jsonl (the last label of a name wins)."""
    labels = {}
    for library in LIBRARIES:
        path = directory / f"{library}.jsonl"
        if not path.exists():
            continue
        by_name = {}
        for line in path.read_text().splitlines():
            if line.strip():
                label = json.loads(line)
                by_name[label["name"]] = label
        labels[library] = [by_name[name] for name in sorted(by_name)]
    return labels


def run_hylint(source: Path, select: str | None, hylint_root: Path, jobs: int, cache: bool) -> list:
    """Diagnostics of `python -m hylint check` over `source`, as (code, relative path, row, message)."""
    command = [sys.executable, "-m", "hylint", "check", "--output-format", "json", "--exit-zero", "-j", str(jobs),
               str(source)]
    if select:
        command[4:4] = ["--select", select]
    if not cache:
        command.append("--no-cache")
    env = dict(os.environ, PYTHONPATH=str(hylint_root))
    WORK.mkdir(exist_ok=True)
    done = subprocess.run(command, cwd=WORK, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"score: hylint failed (exit {done.returncode}) on {source}:\n{done.stderr[-2000:]}")
    diagnostics = []
    for item in json.loads(done.stdout or "[]"):
        path = Path(item["filename"]).resolve().relative_to(source.resolve()).as_posix()
        start, end = item["location"], item.get("end_location") or item["location"]
        # the flagged range as CPython's co_positions give it: 0-based columns, end exclusive
        extent = (start["row"], start["column"] - 1, end["row"], end["column"] - 1)
        diagnostics.append((item["code"], path, start["row"], item["message"], extent))
    return diagnostics


def expression_ran(entry: dict | None, extent, ok_models) -> bool:
    """False when spans.py measured, in every OK model that ran the statement, that no instruction inside the
    diagnostic's own range ran (the statement ran, the flagged expression did not); True otherwise."""
    if not entry or extent is None or not set(ok_models) <= set(entry.get("models", ())):
        return True
    row, col, end_row, end_col = extent
    return any((row, col) <= (line, column) and (end_line, end_column) <= (end_row, end_col)
               for line, column, end_line, end_column in entry["positions"])


# ---------------------------------------------------------------------------------------------------- the join

def root_causes(label: dict):
    """The root causes of one failing or differing label: [("line"|"block", path, line)]; [] if unlocated."""
    if label["verdict"] in FAILURES:
        frames = label.get("error", {}).get("frames") or []
        if frames:
            path, line = frames[-1][0], frames[-1][1]
            return [("line", path, line)]
    blocks = (label.get("diff") or {}).get("blocks") or label.get("blocks") or []
    return [("block", block["path"], block["line"]) for block in blocks if block.get("path")]


def score_library(library: str, labels: list, default: list, everything: list, statements: Statements,
                  positions: dict | None = None) -> dict:
    """The four figures for one library (verify apart). positions: spans.py's measurements for this library."""
    positions = positions or {}
    executed_ok = defaultdict(set)      # (path, span) -> OK models that ran it in the trace
    executed_any = defaultdict(set)
    train_ok = defaultdict(set)         # models whose train-mode call was compared equal
    train_diff = defaultdict(set)
    for label in labels:
        for path, lines in (label.get("trace_lines") or {}).items():
            spans = {statements.span(path, line) for line in lines}
            for span in spans:
                key = (path, span)
                executed_any[key].add(label["name"])
                if label["verdict"] == "OK":
                    executed_ok[key].add(label["name"])
                train = (label.get("train") or {}).get("verdict")
                if train == "OK":
                    train_ok[key].add(label["name"])
                elif train in ("DIFF", "GRAPH_FAIL"):
                    train_diff[key].add(label["name"])

    causes = {}  # (kind, path, line) -> {"models": [...], "error": str, "verdict": str}
    unlocated = []
    whole_model = {}  # model -> its block root cause when that block is the whole model (its trace is the model's)
    for label in labels:
        if label["verdict"] not in FAILURES + ("DIFF",):
            continue
        found = root_causes(label)
        if not found:
            unlocated.append(label["name"])
        blocks = (label.get("diff") or {}).get("blocks") or label.get("blocks") or []
        if len(found) == 1 and found[0][0] == "block" and [b.get("block") for b in blocks] == ["net"]:
            whole_model[label["name"]] = found[0]
        for cause in found:
            frames = [f[:2] for f in label.get("error", {}).get("frames", [])]
            entry = causes.setdefault(cause, {"models": [], "verdict": label["verdict"], "error": _reason(label),
                                              "frames": frames,
                                              "caller": frames[-2] if cause[0] == "line" and len(frames) > 1 else None})
            entry["models"].append(label["name"])

    def cause_key(path, row):
        """The root cause a diagnostic at (path, row) lands on, or None."""
        span = statements.span(path, row)
        for kind, cause_path, line in causes:
            caller = causes[(kind, cause_path, line)]["caller"]
            if kind == "line" and caller and caller[0] == path and statements.span(path, caller[1]) == span:
                return (kind, cause_path, line)  # the call in the caller's frame (see root_causes)
            if cause_path != path:
                continue
            if kind == "line" and statements.span(path, line) == span:
                return (kind, cause_path, line)
            if kind == "block":
                first, last = statements.function(path, line)
                if first <= row <= last:
                    return (kind, cause_path, line)
        return None

    def traced_in_block(key):
        """The whole-model block root cause a statement belongs to: it ran in the traces of models of that one
        cause only (no OK model, no model of another cause ran it), so it is code the failing block's trace ran,
        reached from its hybrid_forward (a helper, a distribution's method), not an unrelated line."""
        ran = executed_any.get(key)
        if not ran or executed_ok.get(key) or not all(name in whole_model for name in ran):
            return None
        found = {whole_model[name] for name in ran}
        return found.pop() if len(found) == 1 else None

    def judge(diagnostics):
        """Per diagnostic: true (root cause), false (ran in an OK model), failing (ran only in failing models),
        unknown (never ran); trace-state rules by the train-mode call."""
        by_rule = defaultdict(Counter)
        flagged = defaultdict(set)
        false_alarms, not_run = [], []
        for code, path, row, message, *extent in diagnostics:
            key = (path, statements.span(path, row))
            cause = cause_key(path, row) or traced_in_block(key)
            if cause is not None:
                flagged[cause].add(code)
            if code in TRACE_STATE_RULES:
                if train_diff.get(key):
                    verdict = "true"
                elif train_ok.get(key):
                    verdict = "false"
                else:
                    verdict = "unknown"
            elif cause is not None:
                verdict = "true"
            elif executed_ok.get(key):
                verdict = "false"
                if not expression_ran(positions.get(statement_key(*key)), extent[0] if extent else None,
                                      executed_ok[key]):
                    verdict = "unknown"
                    not_run.append({"code": code, "path": path, "line": row, "message": message,
                                    "ok_models": len(executed_ok[key])})
            elif executed_any.get(key):
                verdict = "failing"
            else:
                verdict = "unknown"
            by_rule[code][verdict] += 1
            by_rule[code]["total"] += 1
            if verdict == "false":
                models = sorted(executed_ok.get(key) or train_ok.get(key))
                false_alarms.append({"code": code, "path": path, "line": row, "message": message,
                                     "ok_models": len(models), "example_model": models[0]})
        return by_rule, flagged, false_alarms, not_run

    default_rules, default_flagged, false_alarms, not_run = judge(default)
    all_rules, all_flagged, _, _ = judge(everything)
    cause_list = []
    for cause in sorted(causes):
        entry = causes[cause]
        cause_list.append({"kind": cause[0], "path": cause[1], "line": cause[2], "verdict": entry["verdict"],
                           "models": len(entry["models"]), "example_model": entry["models"][0],
                           "error": entry["error"], "default": sorted(default_flagged.get(cause, ())),
                           "all": sorted(all_flagged.get(cause, ()))})
    verdicts = Counter(label["verdict"] for label in labels)
    timeouts = sum(1 for label in labels if (label.get("error") or {}).get("type") == "Timeout")
    return {"library": library, "models": len(labels), "verdicts": dict(sorted(verdicts.items())), "timeouts": timeouts,
            "executed_statements": len(executed_any), "ok_statements": len(executed_ok),
            "root_causes": cause_list, "unlocated": unlocated,
            "default": {code: dict(counts) for code, counts in sorted(default_rules.items())},
            "all": {code: dict(counts) for code, counts in sorted(all_rules.items())},
            "false_alarms": sorted(false_alarms, key=lambda a: (a["code"], a["path"], a["line"])),
            "expression_not_run": sorted(not_run, key=lambda a: (a["code"], a["path"], a["line"]))}


def _reason(label: dict) -> str:
    if label.get("error"):
        return f"{label['error']['type']}: {label['error']['message'].splitlines()[0][:160]}"
    diff = label.get("diff") or {}
    return f"DIFF ({diff.get('mode')}): {diff.get('detail')}"


# ---------------------------------------------------------------------------------------------------- report

def totals(rules: dict, skip=TRACE_STATE_RULES) -> Counter:
    total = Counter()
    for code, counts in rules.items():
        if code not in skip:
            total.update(counts)
    return total


def render(results: list, meta: dict, fixes: dict | None, verify: dict | None) -> str:
    out = ["# Zoo check: hylint on real models labelled by MXNet", ""]
    sizes = ", ".join(f"{r['library']} {r['models']}" for r in results)
    out.append(f"Generated by `{meta['command']}` on {meta['date']}; hylint at {meta['commit']}; "
               f"scoring took {meta['seconds']:.0f} s. Labels: {meta['labelled']} models ({sizes}), measured on "
               f"{meta['versions']}.")
    out.append("")
    out.append("## Labels")
    out.append("")
    sizes = meta.get("model_lists") or {}
    out.append("EAGER_FAIL counts the models left out, with the reason: they do not build or run eagerly with "
               "these inputs, or took longer than the time limit (`time-outs`, included in EAGER_FAIL).")
    out.append("")
    out.append("| library | models in the zoo | labelled | OK | TRACE_FAIL | GRAPH_FAIL | DIFF | EAGER_FAIL "
               "| of them time-outs | statements traced | of them by OK models |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        v = r["verdicts"]
        out.append(f"| {r['library']} | {len(sizes.get(r['library'], ())) or '?'} | {r['models']} | "
                   f"{v.get('OK', 0)} | {v.get('TRACE_FAIL', 0)} | "
                   f"{v.get('GRAPH_FAIL', 0)} | {v.get('DIFF', 0)} | {v.get('EAGER_FAIL', 0)} | {r['timeouts']} | "
                   f"{r['executed_statements']} | {r['ok_statements']} |")
    out.append("")
    out.append("## The four figures (default rules; recall also with `--select ALL`)")
    out.append("")
    out.append("| library | diagnostics | on root causes | false alarms | on failing models' lines | unknown "
               "| root causes | flagged (default) | flagged (ALL) | unlocated failures |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    grand = Counter()
    for r in results:
        t = totals(r["default"])
        causes = r["root_causes"]
        row = Counter(total=t["total"], true=t["true"], false=t["false"], failing=t["failing"],
                      unknown=t["unknown"], causes=len(causes),
                      flagged=sum(1 for c in causes if c["default"]), flagged_all=sum(1 for c in causes if c["all"]),
                      unlocated=len(r["unlocated"]))
        grand.update(row)
        out.append(_figure_row(r["library"], row))
    out.append(_figure_row("**all**", grand))
    out.append("")
    out.append("Rules judged by the train-mode call (trace state HY805-HY807, traced autograd.Function HY810):")
    out.append("")
    out.append("| library | rule | diagnostics | true (train-mode DIFF) | false (train-mode equal) | unknown |")
    out.append("|---|---|---:|---:|---:|---:|")
    for r in results:
        for code in TRACE_STATE_RULES:
            c = r["default"].get(code)
            if c:
                out.append(f"| {r['library']} | {code} | {c.get('total', 0)} | {c.get('true', 0)} | "
                           f"{c.get('false', 0)} | {c.get('unknown', 0)} |")
    out.append("")
    out.append("## Per rule (default rules; ALL in brackets where it differs)")
    out.append("")
    out.append("| rule | diagnostics | root causes | false alarms | failing lines | unknown |")
    out.append("|---|---:|---:|---:|---:|---:|")
    per_rule, per_rule_all = defaultdict(Counter), defaultdict(Counter)
    for r in results:
        for code, counts in r["default"].items():
            per_rule[code].update(counts)
        for code, counts in r["all"].items():
            per_rule_all[code].update(counts)
    for code in sorted(set(per_rule) | set(per_rule_all)):
        d, a = per_rule.get(code, Counter()), per_rule_all.get(code, Counter())
        cells = []
        for key in ("total", "true", "false", "failing", "unknown"):
            cells.append(f"{d[key]}" if d[key] == a[key] else f"{d[key]} [{a[key]}]")
        out.append(f"| {code} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("## Root causes of failure (distinct lines; the list the precision work needs)")
    out.append("")
    out.append("| library | where | verdict | models | flagged (default) | flagged (ALL) | error (example model) |")
    out.append("|---|---|---|---:|---|---|---|")
    for r in results:
        for c in r["root_causes"]:
            where = f"`{c['path']}:{c['line']}`" + (" (block)" if c["kind"] == "block" else "")
            error = c["error"].replace("|", "\\|")
            out.append(f"| {r['library']} | {where} | {c['verdict']} | {c['models']} | "
                       f"{', '.join(c['default']) or '**no**'} | {', '.join(c['all']) or '**no**'} | "
                       f"{error} ({c['example_model']}) |")
    unlocated = [(r["library"], name) for r in results for name in r["unlocated"]]
    if unlocated:
        out.append("")
        out.append(f"Unlocated failures (no library frame and no differing block found): {len(unlocated)}: "
                   + ", ".join(f"{lib}/{name}" for lib, name in unlocated[:40])
                   + (" ..." if len(unlocated) > 40 else ""))
    out.append("")
    out.append("## False alarms (default rules; one line per diagnostic)")
    out.append("")
    alarms = [(r["library"], a) for r in results for a in r["false_alarms"]]
    out.append("| library | rule | where | OK models that ran it | message |")
    out.append("|---|---|---|---:|---|")
    for library, a in alarms[:300]:
        message = a["message"].replace("|", "\\|")[:140]
        out.append(f"| {library} | {a['code']} | `{a['path']}:{a['line']}` | {a['ok_models']} "
                   f"(e.g. {a['example_model']}) | {message} |")
    if len(alarms) > 300:
        out.append(f"| ... | {len(alarms) - 300} more in results.json | | | |")
    not_run = [(r["library"], a) for r in results for a in r.get("expression_not_run", ())]
    if not_run:
        out.append("")
        out.append("Counted unknown, not false: the statement ran in OK models, but `spans.py` measured (opcode "
                   "tracing, labels/spans.json) that the flagged expression itself ran in none of them:")
        out.append("")
        out.append("| library | rule | where | OK models that ran the statement | message |")
        out.append("|---|---|---|---:|---|")
        for library, a in not_run:
            message = a["message"].replace("|", "\\|")[:140]
            out.append(f"| {library} | {a['code']} | `{a['path']}:{a['line']}` | {a['ok_models']} | {message} |")
    if fixes:
        out.append("")
        out.extend(render_fixes(fixes))
    if verify:
        out.append("")
        out.extend(render_verify(verify))
    return "\n".join(out) + "\n"


def _figure_row(name: str, row: Counter) -> str:
    def pct(part, whole):
        return f"{part} ({100 * part / whole:.0f}%)" if whole else f"{part}"
    return (f"| {name} | {row['total']} | {row['true']} | {pct(row['false'], row['total'])} | {row['failing']} | "
            f"{row['unknown']} | {row['causes']} | {pct(row['flagged'], row['causes'])} | "
            f"{pct(row['flagged_all'], row['causes'])} | {row['unlocated']} |")


def render_fixes(fixes: dict) -> list:
    out = ["## Fixes on real code (`hylint check --fix`, then `--unsafe-fixes`, re-labelled on MXNet)", ""]
    out.append("Only the files that labelled models run are fixed. Harmed: eager output changed or no longer runs "
               "eagerly; repaired: failing before, OK after; broken: OK before, failing hybridized after.")
    out.append("")
    out.append("| library | fixes | fixes applied (per rule) | files changed | models re-labelled (of those affected) | harmed | repaired "
               "| broken | still failing | not measured (time-out) |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(fixes):
        f = fixes[key]
        rules = ", ".join(f"{code} {n}" for code, n in sorted((f.get("fixes_by_rule") or {}).items())) or "none"
        out.append(f"| {f['library']} | {f['mode']} | {rules} | {f['files_changed']} | "
                   f"{f.get('relabelled', 0)} of {f.get('affected', '?')} | "
                   f"{len(f.get('harmed', []))} | {len(f.get('repaired', []))} | {len(f.get('broken', []))} | "
                   f"{len(f.get('still_failing', []))} | {len(f.get('not_measured', []))} |")
    for key in sorted(fixes):
        f = fixes[key]
        if f.get("note"):
            out.append(f"- {f['library']} {f['mode']}: {f['note']}")
        for kind in ("harmed", "repaired", "broken", "still_failing", "not_measured"):
            if f.get(kind):
                shown = "; ".join(f"{item['name']}: {item['reason']}" for item in f[kind][:25])
                out.append(f"- {f['library']} {f['mode']} {kind.replace('_', ' ')} ({len(f[kind])}): {shown}"
                           + (" ..." if len(f[kind]) > 25 else ""))
    return out


def render_verify(verify: dict) -> list:
    """verify_zoo.py's summary (runtime vs MXNet per model; its own report: verify/RESULTS.md)."""
    out = ["## `hylint verify` on the NumPy runtime vs MXNet 1.9.1", "",
           f"By `benchmarks/zoo/verify_zoo.py` (the list of models, the misses and their causes: "
           f"`benchmarks/zoo/verify/RESULTS.md`). Outputs equal: max|runtime - MXNet| <= "
           f"{verify['tolerance']:g} * max(1, max|MXNet|) per predict-mode output (eager and hybridized).", "",
           "| library | models | failing labels | same verdict as the label | outputs equal | both |",
           "|---|---:|---:|---:|---:|---:|"]
    rows = dict(verify["by_library"], all=verify["total"])
    for library, v in rows.items():
        out.append(f"| {library} | {v['tried']} | {v['failing_labels']} | {v['same_verdict']} | "
                   f"{v['outputs_equal']} | {v['both']} |")
    return out


# ---------------------------------------------------------------------------------------------------- main

def _git(root: Path, *args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def score(labels: dict, hylint_root: Path, jobs: int, cache: bool, sources_dir=None, spans=None) -> list:
    from sources import library_source
    spans = spans or {}
    results = []
    for library in LIBRARIES:
        if library not in labels:
            continue
        source = Path(sources_dir) / library if sources_dir else library_source(library)
        default = run_hylint(source, None, hylint_root, jobs, cache)
        everything = run_hylint(source, "ALL", hylint_root, jobs, cache)
        print(f"score: {library}: {len(default)} default diagnostics, {len(everything)} with ALL", file=sys.stderr)
        results.append(score_library(library, labels[library], default, everything, Statements(source),
                                     spans.get(library)))
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", type=Path, default=LABELS, help="folder of <library>.jsonl labels")
    parser.add_argument("--hylint-root", type=Path, default=REPO, help="checkout whose hylint is scored")
    parser.add_argument("--jobs", type=int, default=0, help="hylint -j (0: one per core)")
    parser.add_argument("--no-cache", action="store_true", help="run hylint without its result cache")
    parser.add_argument("--verify", action="store_true",
                        help="also show the runtime-vs-MXNet measurement of verify_zoo.py (verify/summary.json)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    # README no longer holds a zoo section (the figures live in RESULTS.md); the flag stays accepted
    # so that existing scripts and notes that pass it keep working.
    parser.add_argument("--no-readme", action="store_true", help="accepted and ignored (README has no zoo section)")
    args = parser.parse_args(argv)
    started = time.time()
    labels = read_labels(args.labels)
    if not labels:
        parser.error(f"no labels in {args.labels}")
    spans_path = args.labels / "spans.json"
    spans = json.loads(spans_path.read_text()) if spans_path.exists() else {}
    results = score(labels, args.hylint_root.resolve(), args.jobs, not args.no_cache, spans=spans)
    fixes = None
    fixes_path = args.labels / "fixes.json"
    if fixes_path.exists():
        fixes = json.loads(fixes_path.read_text())
    verify = None
    if args.verify:
        measured = HERE / "verify" / "summary.json"
        if not measured.exists():
            parser.error(f"--verify: no {measured}; run benchmarks/zoo/verify_zoo.py first")
        verify = json.loads(measured.read_text())
    versions = {}
    for library_labels in labels.values():
        for label in library_labels:
            versions.update(label.get("versions") or {})
    meta = {"command": "python benchmarks/zoo/score.py" + (" --verify" if args.verify else ""),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git(args.hylint_root, "rev-parse", "--short", "HEAD"),
            "seconds": time.time() - started, "labelled": sum(len(v) for v in labels.values()),
            "versions": ", ".join(f"{k} {v}" for k, v in sorted(versions.items())),
            "model_lists": json.loads(lists.read_text()) if (lists := args.labels / "model_lists.json").exists() else {}}
    report = render(results, meta, fixes, verify)
    args.output.write_text(report)
    SUMMARY.write_text(json.dumps({"results": results, "verify": verify}, indent=1, sort_keys=True) + "\n")
    print(report.split("\n## Per rule", 1)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
