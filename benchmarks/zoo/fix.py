"""Fixes on real code: `hylint check --fix` (then with `--unsafe-fixes`) on a copy of each library, re-labelled.

Only the library files that labelled models run (eagerly or in their trace) are fixed: a change anywhere
else could not be judged by a re-label.

    python benchmarks/zoo/fix.py --python /work/venv-mx/bin/python            # both modes, every library
    python benchmarks/zoo/fix.py --python ... --mode safe --library gluoncv2   # one slice
    python benchmarks/zoo/fix.py --python ... --mode unsafe --library gluoncv2 --select HY809 --work /tmp/zoo-fix
        # only HY809's fixes (so only what they change is re-labelled, every affected model); copies in /tmp

With `--select`, hylint applies only those rules' fixes; the re-labels go to labels/fixed-<mode>-<codes>/ and
the summary entry is `<library>-<mode>-<codes>`, beside the unrestricted runs. `--work` puts the fixed copies
and the mirror trees somewhere else than .work/ (two runs at once must not share them).

For each library and mode: the pinned sources (sources.py) are copied and fixed by hylint; the changed files
are laid over the installed packages in a mirror tree (symlinks to the installed package, real files for the
changed ones, so compiled parts such as libmxnet.so still load), which goes first on the worker's sys.path.
Only the models that ran a changed file (eagerly or in their trace) are re-labelled. Compared with the
original labels:
- harmed: the eager output changed (fingerprint beyond 1e-4 relative) or the model no longer builds/runs
  eagerly. Must be 0 for safe fixes. An output that differs from the committed label is checked against a
  control run of the unfixed library: equal to it, the model is listed as reference_not_reproduced instead;
- repaired: a failing (TRACE_FAIL/GRAPH_FAIL/DIFF) model that is now OK;
- broken: an OK model that now fails or differs when hybridized (not harm in the eager sense; reported apart);
- still failing: the failing models that remain, with their reason.
The re-labels go to labels/fixed-<mode>/, the summary to labels/fixes.json (read by score.py).
"""
from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
WORK = HERE / ".work"
LABELS = HERE / "labels"
sys.path.insert(0, str(HERE))
from models import LIBRARIES  # noqa: E402
from score import read_labels  # noqa: E402
from sources import library_source  # noqa: E402

FAILING = ("TRACE_FAIL", "GRAPH_FAIL", "DIFF")


def fixed_copy(library: str, mode: str, hylint_root: Path, files=None, select=(), work: Path = WORK,
               ) -> tuple[Path, list, dict]:
    """A fixed copy of the library's sources and the relative paths hylint changed. With `files` (relative
    paths), only those are fixed: the files labelled models run, the only ones a re-label can judge. With
    `select` (rule codes), only those rules run, so only their fixes apply."""
    source = library_source(library)
    target = work / f"fixed-{mode}" / library
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".complete"))
    paths = [str(target / f) for f in sorted(files) if (target / f).exists()] if files is not None else [str(target)]
    if not paths:
        return target, [], {}
    command = [sys.executable, "-m", "hylint", "check", "--fix", "--show-fixes", "--exit-zero", "--no-cache", "-j", "0",
               "--output-format", "concise", *paths]
    if mode == "unsafe":
        command.insert(4, "--unsafe-fixes")
    if select:
        command[4:4] = ["--select", ",".join(select)]
    done = subprocess.run(command, cwd=work, env=dict(os.environ, PYTHONPATH=str(hylint_root)),
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"fix: hylint --fix failed on {library} ({mode}): {done.stderr[-2000:]}")
    by_rule = {}  # the `--show-fixes` summary: "     2 × HY301"
    for line in done.stdout.split("Fixed:", 1)[-1].splitlines() if "Fixed:" in done.stdout else ():
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit() and parts[2].startswith("HY"):
            by_rule[parts[2]] = by_rule.get(parts[2], 0) + int(parts[0])
    changed = []
    for path in sorted(target.rglob("*.py")):
        relative = path.relative_to(target).as_posix()
        if not filecmp.cmp(path, source / relative, shallow=False):
            changed.append(relative)
    return target, changed, by_rule


def mirror(installed_root: Path, fixed: Path, changed: list, site: Path) -> None:
    """site/<package>: symlinks to the installed package, except the changed files (copied from `fixed`)."""
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    changed_set = set(changed)
    changed_dirs = {"/".join(path.split("/")[:i]) for path in changed for i in range(1, path.count("/") + 1)}

    def walk(relative: str) -> None:
        for entry in sorted((installed_root / relative).iterdir()):
            child = f"{relative}/{entry.name}"
            if child in changed_set:
                shutil.copyfile(fixed / child, site / child)
            elif child in changed_dirs:
                (site / child).mkdir()
                walk(child)
            elif entry.name != "__pycache__":
                os.symlink(entry, site / child)
    for package in sorted({path.split("/")[0] for path in changed}):
        (site / package).mkdir()
        walk(package)


def installed_site_packages(python: str) -> Path:
    out = subprocess.run([python, "-c", "import mxnet, os; print(os.path.dirname(os.path.dirname(mxnet.__file__)))"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def _fingerprint_changed(before: list, after: list) -> bool:
    if len(before) != len(after):
        return True
    for b, a in zip(before, after):
        if b[:2] != a[:2]:
            return True
        for x, y in zip(b[2:], a[2:]):
            if abs(x - y) > 1e-4 * max(1.0, abs(x)):
                return True
    return False


def compare(original: dict, fixed: dict) -> dict:
    """harmed / repaired / broken / still failing, from the original and the re-labelled models."""
    result = {"harmed": [], "repaired": [], "broken": [], "still_failing": [], "not_measured": []}
    for name, after in sorted(fixed.items()):
        before = original[name]
        if before["verdict"] == "EAGER_FAIL":
            continue
        if (after.get("error") or {}).get("type") == "Timeout":  # the shared machine, not the fix: no verdict
            result["not_measured"].append({"name": name, "reason": after["error"]["message"]})
            continue
        if after["verdict"] == "EAGER_FAIL":
            reason = f"no longer runs eagerly: {after['error']['type']}: {after['error']['message'][:120]}"
            result["harmed"].append({"name": name, "reason": reason})
            continue
        if _fingerprint_changed(before.get("fingerprint") or [], after.get("fingerprint") or []):
            result["harmed"].append({"name": name, "reason": "eager output changed"})
            continue
        if before["verdict"] in FAILING and after["verdict"] == "OK":
            result["repaired"].append({"name": name, "reason": f"was {before['verdict']}"})
        elif before["verdict"] == "OK" and after["verdict"] != "OK":
            result["broken"].append({"name": name, "reason": _reason(after)})
        elif after["verdict"] in FAILING:
            result["still_failing"].append({"name": name, "reason": _reason(after)})
    return result


def control_unchanged(result: dict, library: str, relabelled: list, args) -> None:
    """A model whose eager output differs from its committed label only, not from the unfixed library run
    now, is no harm: the committed fingerprint does not reproduce here (yolo3_darknet53_coco's boxes overflow
    to 1e19, and those values vary with the machine). Each such model is labelled again unfixed (a control
    run) and moved to ``reference_not_reproduced`` when the fixed run equals the control."""
    suspects = [h["name"] for h in result["harmed"] if h["reason"] == "eager output changed"]
    if not suspects:
        return
    out = args.work / f"control-{library}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    subprocess.run([sys.executable, str(HERE / "label.py"), "--python", args.python, "--library", library,
                    "--out", str(out), "--timeout", str(args.timeout), "--log", str(args.work / "label.log"),
                    "--names", *suspects], check=True)
    control = {label["name"]: label for label in read_labels(out).get(library, [])}
    fixed = {label["name"]: label for label in relabelled}
    moved = [name for name in suspects if name in control and not _fingerprint_changed(
        control[name].get("fingerprint") or [], fixed[name].get("fingerprint") or [])]
    result["harmed"] = [h for h in result["harmed"] if h["name"] not in moved]
    result["reference_not_reproduced"] = [
        {"name": name, "reason": "eager output differs from the committed label, but equals a fresh run of the "
                                 "unfixed library (control)"} for name in moved]


def _reason(label: dict) -> str:
    if label.get("error"):
        return f"{label['verdict']} {label['error']['type']}: {label['error']['message'][:120]}"
    return f"DIFF {(label.get('diff') or {}).get('detail')}"


def _affected(original: dict, changed: list) -> list:
    """The labelled models that ran a changed file, eagerly or in their trace."""
    return sorted(name for name, label in original.items()
                  if set(changed) & (set(label.get("eager_files") or ()) | set(label.get("trace_lines") or ())))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", required=True, help="interpreter with MXNet 1.9.1 and the libraries")
    parser.add_argument("--library", action="append", choices=LIBRARIES)
    parser.add_argument("--mode", action="append", choices=("safe", "unsafe"))
    parser.add_argument("--hylint-root", type=Path, default=REPO)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--select", action="append", metavar="CODE",
                        help="apply only these rules' fixes (repeatable); labels/fixed-<mode>-<codes>/")
    parser.add_argument("--work", type=Path, default=WORK, help="where the fixed copies and mirror trees go")
    parser.add_argument("--resume", action="store_true",
                        help="keep the labels of a stopped run whose fixed files are byte for byte the same "
                             "(their digest is in fixes.json); otherwise start the slice again")
    parser.add_argument("--compare-only", action="store_true",
                        help="recompute labels/fixes.json from the committed fixed-*/ labels; run nothing")
    args = parser.parse_args(argv)
    labels = read_labels(LABELS)
    summary_path = LABELS / "fixes.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    if args.compare_only:
        for out in sorted(LABELS.glob("fixed-*/*.jsonl")):  # a run stopped early has labels but no entry yet
            mode, library = out.parent.name.split("-", 1)[1], out.stem
            if f"{library}-{mode}" not in summary and "-" not in mode:  # (`--select` runs always have one)
                copy, source = args.work / f"fixed-{mode}" / library, library_source(library)
                changed = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*.py")
                                 if not filecmp.cmp(p, source / p.relative_to(copy), shallow=False))
                summary[f"{library}-{mode}"] = {"library": library, "mode": mode, "files_changed": len(changed),
                                                "changed_files": changed, "fixes_by_rule": {},
                                                "note": "re-labelling stopped at the time limit"}
        for entry in summary.values():
            original = {label["name"]: label for label in labels[entry["library"]]}
            relabelled = read_labels(LABELS / entry.get("labels", f"fixed-{entry['mode']}")).get(entry["library"], [])
            entry["affected"] = len(_affected(original, entry["changed_files"]))
            result = compare(original, {label["name"]: label for label in relabelled})
            controlled = {r["name"] for r in entry.get("reference_not_reproduced", [])}  # (the control runs' verdict)
            result["harmed"] = [h for h in result["harmed"] if h["name"] not in controlled]
            entry.update(relabelled=len(relabelled), **result)
        summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
        return 0
    installed = installed_site_packages(args.python)
    select = sorted(set(args.select or ()))
    suffix = "-" + "-".join(select) if select else ""
    args.work.mkdir(parents=True, exist_ok=True)
    for mode in args.mode or ("safe", "unsafe"):
        for library in args.library or LIBRARIES:
            if library not in labels:
                continue
            original = {label["name"]: label for label in labels[library]}
            ran = set()
            for label in original.values():
                ran.update(label.get("eager_files") or ())
                ran.update(label.get("trace_lines") or ())
            fixed, changed, by_rule = fixed_copy(library, mode, args.hylint_root.resolve(), ran, select,
                                                 args.work.resolve())
            affected = _affected(original, changed)
            print(f"fix: {library} {mode}: {len(changed)} files changed, {len(affected)} models to re-label",
                  file=sys.stderr)
            out = LABELS / f"fixed-{mode}{suffix}"
            out.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256(b"".join(name.encode() + b"\0" + (fixed / name).read_bytes()
                                             for name in changed)).hexdigest()
            previous = summary.get(f"{library}-{mode}{suffix}", {})
            if args.resume and previous.get("fixed_digest") == digest:
                print(f"fix: {library} {mode}: resuming, the fixed files are the same", file=sys.stderr)
            else:
                (out / f"{library}.jsonl").unlink(missing_ok=True)
            entry = summary[f"{library}-{mode}{suffix}"] = {"fixed_digest": digest,
                "library": library, "mode": mode + (f" ({', '.join(select)} only)" if select else ""),
                "labels": out.name, "files_changed": len(changed), "changed_files": changed, "fixes_by_rule": by_rule,
                "affected": len(affected), "note": "re-labelling stopped before the end (--compare-only counts "
                                                   "what was re-labelled)"}
            summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")  # a run stopped early
            if affected:
                site = args.work / f"site-{mode}{suffix}-{library}"
                mirror(installed, fixed, changed, site)
                command = [sys.executable, str(HERE / "label.py"), "--python", args.python, "--library", library,
                           "--out", str(out), "--library-path", str(site), "--timeout", str(args.timeout),
                           "--log", str(args.work / "label.log"),
                           "--sort", "--names", *affected]
                subprocess.run(command, check=True)
            relabelled = read_labels(out).get(library, [])
            result = compare(original, {label["name"]: label for label in relabelled})
            control_unchanged(result, library, relabelled, args)
            entry.pop("note")
            entry.update(relabelled=len(relabelled), **result)
            summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
