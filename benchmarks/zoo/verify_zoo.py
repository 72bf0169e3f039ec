"""`hylint verify` on the NumPy runtime, model by model, against MXNet's labels (score.py --verify N).

Each model is reached through a small driver file (`.work/verify/<library>/<name>.py`) whose `model()` builds
it exactly as the labeller does (models.build), so `hylint verify driver.py::model --input <shape>` runs the
library's real code on hylint's runtime (which stands in for `import mxnet`). Compared with the label:
- same verdict: the runtime's hybridized status (ok vs failed/differs) equals MXNet's (OK vs the rest);
- same output: the runtime's output shapes equal the label's (verify's JSON holds shapes and the eager vs
  hybridized difference, not the values, and seeds its own parameters, so values are not compared with MXNet's);
- runtime could not run: verify stopped before the hybridized call (the runtime lacks something the library
  uses; the reason is counted).
Models with non-float inputs (token ids, lengths) are skipped: `hylint verify --input` makes float inputs.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
TIMEOUT = 180

DRIVER = '''import sys
sys.path.insert(0, {here!r})
from models import build


def model():
    return build({library!r}, {name!r})[0]
'''


def _float_inputs(label: dict):
    """The input shapes as `--input` texts, or None when an input is not a plain float tensor."""
    shapes = label.get("inputs") or []
    if not shapes or any(not isinstance(shape, list) or not all(isinstance(n, int) for n in shape) for shape in shapes):
        return None
    if label["library"] in ("gluonnlp",) or any(len(shape) < 2 for shape in shapes):
        return None
    return ["x".join(str(n) for n in shape) for shape in shapes]


def pick(labels: list, limit: int) -> list:
    """Up to `limit` models spread evenly over the names, failing ones first (they matter most)."""
    usable = [label for label in labels if label["verdict"] != "EAGER_FAIL" and _float_inputs(label)]
    failing = [label for label in usable if label["verdict"] != "OK"]
    ok = [label for label in usable if label["verdict"] == "OK"]
    chosen = failing[:limit]
    if len(chosen) < limit and ok:
        step = max(1, len(ok) // (limit - len(chosen)))
        chosen += ok[::step][:limit - len(chosen)]
    return chosen


def verify_one(label: dict, hylint_root: Path, python: str) -> dict:
    folder = WORK / "verify" / label["library"]
    folder.mkdir(parents=True, exist_ok=True)
    driver = folder / (label["name"].replace(".", "_").replace("-", "_") + ".py")
    driver.write_text(DRIVER.format(here=str(HERE), library=label["library"], name=label["name"]))
    command = [python, "-m", "hylint", "verify", f"{driver}::model", "--backend", "numpy",
               "--output-format", "json"]
    for shape in _float_inputs(label):
        command += ["--input", shape]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT,
                              env=dict(os.environ, PYTHONPATH=str(hylint_root)))
    except subprocess.TimeoutExpired:
        return {"name": label["name"], "status": "unsupported", "reason": f"over {TIMEOUT} s",
                "seconds": TIMEOUT}
    seconds = round(time.perf_counter() - started, 2)
    try:
        report = json.loads(done.stdout)[0]
    except (ValueError, IndexError, KeyError):
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1][:120]
        return {"name": label["name"], "status": "unsupported", "reason": reason, "seconds": seconds}
    hybridized = report.get("hybridized")
    if not hybridized:
        eager = report.get("eager") or {}
        reason = f"{eager.get('error_type')}: {(eager.get('message') or '')[:100]}"
        return {"name": label["name"], "status": "unsupported", "reason": reason, "seconds": seconds}
    runtime_ok = hybridized.get("status") == "ok"
    shapes = [list(shape) for shape in report["eager"].get("shapes") or []]
    label_shapes = [entry[0] for entry in label.get("fingerprint") or []]
    return {"name": label["name"], "status": "ran", "same_verdict": runtime_ok == (label["verdict"] == "OK"),
            "same_output": shapes == label_shapes, "runtime": hybridized.get("status"), "seconds": seconds}


def verify_models(labels: dict, limit: int, hylint_root: Path, python: str = sys.executable) -> dict:
    """`python` needs the libraries (gluoncv2, ...) importable; MXNet itself is not used (the runtime stands in)."""
    summary = {}
    for library, library_labels in labels.items():
        results = []
        chosen = pick(library_labels, limit)
        for index, label in enumerate(chosen, 1):
            results.append(verify_one(label, hylint_root, python))
            print(f"\rverify: {library} {index}/{len(chosen)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        ran = [r for r in results if r["status"] == "ran"]
        label_seconds = {label["name"]: label.get("seconds") for label in chosen}
        summary[library] = {
            "tried": len(results), "same_verdict": sum(1 for r in ran if r["same_verdict"]),
            "same_output": sum(1 for r in ran if r["same_output"] and r["same_verdict"]),
            "unsupported": len(results) - len(ran),
            "median_seconds": round(statistics.median([r["seconds"] for r in results]), 2) if results else None,
            "median_label_seconds": round(statistics.median([label_seconds[r["name"]] or 0 for r in results]), 2)
            if results else None,
            "reasons": dict(Counter(r["reason"] for r in results if r["status"] != "ran")),
            "models": results}
    return summary
