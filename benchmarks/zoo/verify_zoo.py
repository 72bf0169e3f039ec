"""`hylint verify` on the NumPy runtime vs real MXNet 1.9.1, model by model, over the labelled zoo models.

For each chosen model, `hylint verify` runs twice on the same driver file, with the same deterministic
parameters (seeded by structural name) and the same seeded inputs: once on hylint's NumPy runtime (which
stands in for `import mxnet`) and once with `--backend mxnet` (the reference), each with `--save-outputs`.
Compared:
- **verdict**: the runtime's hybridized status (ok vs error/different, train mode included) against the
  label's MXNet verdict (OK vs TRACE_FAIL/GRAPH_FAIL/DIFF), and against verify's own verdict on MXNet;
- **outputs**: the runtime's eager and hybridized outputs against MXNet's, per output
  `max|runtime - mxnet| <= 1e-4 * max(1, max|mxnet|)`: 1e-4 absolute for outputs of unit scale, 1e-4 relative
  to the largest value otherwise (float32 sums of a deep network, computed in a different order, drift by
  ~1e-6 relative per layer; an absolute bound alone would judge a logit of 300 by a stricter rule than one of
  0.3); NaN and infinities (a box decoded by an overflowing exp) must sit at the same places. The largest absolute
  and relative differences are recorded, so a stricter reading can be checked.

Each model is reached through a small driver file (`.work/verify/<library>/<name>.py`) whose `model()` builds
it exactly as the labeller does (models.build). Inputs follow the label's shapes: float images as seeded
normal values, token ids as whole numbers in float32 (`:int`), lengths and ids as their own ranges, RNN states
as list inputs. The train-mode comparison (`--train-mode`) runs where the label has one (a library file the
model ran reads the training mode), except where MXNet's eager train-mode call killed the labeller's process.

gluonfr lives in another interpreter (with MXNet): `--library-python gluonfr=<python>` runs both backends of its
models there (without it they are left out; with `--runtime-python`, the runtime side runs in the interpreter it
names, which must have gluonfr too); its losses' 1-D inputs are class ids. hylint's own dependencies
(click, rich, libcst) must import there too: a PYTHONPATH given to this script is kept after the checkout.

Resumable: results go one JSON line per model to `verify/results.jsonl`; a model already there is skipped.
`--render` writes `verify/RESULTS.md` and `verify/summary.json` from them.

A row keeps the code it ran with, and the runtime changes while a coverage run goes on: `--recheck N` runs
again, on the current code, a seeded sample of N rows already written (among those whose two runs took at most
`--recheck-seconds` together), into `verify/recheck.jsonl` (each row with the commit it ran on), and the render
says how many kept their verdict and output equality.

    nice -n 10 python benchmarks/zoo/verify_zoo.py --python /work/venv-mx/bin/python --per-library 40
    python benchmarks/zoo/verify_zoo.py --render
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = HERE / ".work"
OUT = HERE / "verify"
RESULTS = OUT / "results.jsonl"
RECHECK = OUT / "recheck.jsonl"  # rows run again on later code (--recheck)
TIMEOUT = 300  # seconds per verify run (each backend)
# the comparison of the runtime's outputs with MXNet's: max|r - m| <= TOLERANCE * max(1, max|m|)
TOLERANCE = 1e-4
# models whose hybridized call on MXNet adds ROIAlign outputs MXNet never wrote (render: the measured cause)
FPN_ROI_ALIGN = "faster_rcnn_fpn_"
LIBRARIES = ("gluoncv2", "gluoncv", "mxnet", "gluonnlp", "gluonfr")
# libraries installed in another interpreter (with MXNet): run only when --library-python names it
OWN_PYTHON = ("gluonfr",)

DRIVER = '''import sys
sys.path.insert(0, {here!r})
from models import build


def model():
    return build({library!r}, {name!r})[0]
'''


# ---- inputs ------------------------------------------------------------------------------------------------

def _shape(shape) -> str:
    return "x".join(str(n) for n in shape)


def _spec(shape) -> str:
    """A label input shape (or a nested list of them: RNN states) as an `--input` text, float32 normal."""
    if shape and isinstance(shape[0], list):
        return "[" + ", ".join(_spec(item) for item in shape) + "]"
    return _shape(shape)


def input_texts(label: dict):
    """The `--input` texts for a label's inputs, as models.build makes them, or None when there are none."""
    shapes = label.get("inputs") or []
    if not shapes:
        return None
    name = label["name"]
    if label["library"] == "gluonnlp":
        tokens = f"{_shape(shapes[0])}:float32:0..8:int"  # ids into the 8-letter vocabulary, float32 as built
        if len(shapes) == 1:  # the model did not build (an EAGER_FAIL label): its token input alone
            return [tokens]
        if name.startswith("transformer"):
            return [tokens, tokens, f"{_shape(shapes[2])}:float32:1..6:int", f"{_shape(shapes[3])}:float32:1..6:int"]
        if name.startswith("elmo"):
            return [f"{_shape(shapes[0])}:float32:0..262:int", _spec(shapes[1]), f"{_shape(shapes[2])}:float32:1..2:int"]
        if name.startswith(("bert", "ernie")):
            return [tokens, f"{_shape(shapes[1])}:float32:0..1:int", f"{_shape(shapes[2])}:float32:1..6:int",
                    f"{_shape(shapes[3])}:float32:0..5:int"]
        if name.startswith("roberta"):
            return [tokens, f"{_shape(shapes[1])}:float32:1..6:int", f"{_shape(shapes[2])}:float32:0..5:int"]
        if name.startswith("distilbert"):
            return [tokens, f"{_shape(shapes[1])}:float32:1..6:int"]
        return [tokens] + [_spec(shape) for shape in shapes[1:]]  # language models: tokens, begin_state
    if label["library"] == "gluonfr":  # the losses' 1-D inputs are class ids (models.build: 0, 1, 2, 1)
        return [f"{_shape(shape)}:float32:0..4:int" if len(shape) == 1 else _spec(shape) for shape in shapes]
    if label["library"] == "gluoncv2" and len(shapes) == 2:
        if name.startswith(("jasper", "quartznet")):  # mel features and their valid length (all frames)
            frames = shapes[0][-1]
            return [_shape(shapes[0]), f"{_shape(shapes[1])}:int32:{frames}..{frames + 1}"]
        if name.startswith(("voca", "nvpattexp", "visemenet")):  # audio windows and an id (3, as built)
            return [_shape(shapes[0]), f"{_shape(shapes[1])}:float32:3..4:int"]
    return [_spec(shape) for shape in shapes]


# ---- which models ------------------------------------------------------------------------------------------

def pick(labels: list, per_library: int) -> list:
    """Every failing label (TRACE_FAIL, GRAPH_FAIL, DIFF) and up to `per_library` OK ones spread evenly over
    the sorted names (labels that ran eagerly, with inputs)."""
    usable = sorted((label for label in labels if label["verdict"] != "EAGER_FAIL" and input_texts(label)),
                    key=lambda label: label["name"])
    failing = [label for label in usable if label["verdict"] != "OK"]
    ok = [label for label in usable if label["verdict"] == "OK"]
    if per_library >= len(ok):
        return failing + ok
    step = len(ok) / per_library
    # in an order whose every prefix is spread too (a run stopped early): 0, 1/2, 1/4, 3/4, ... of the list
    order = sorted(range(per_library), key=_spread_key)
    return failing + [ok[int(index * step)] for index in order]


def _spread_key(index: int) -> float:
    """The van der Corput number of ``index`` (its binary digits mirrored after the point)."""
    key, weight = 0.0, 0.5
    while index:
        key, index, weight = key + weight * (index & 1), index >> 1, weight / 2
    return key


def load_labels() -> dict:
    return {library: [json.loads(line) for line in (HERE / "labels" / f"{library}.jsonl").open()]
            for library in LIBRARIES}


def chosen_models(labels: dict, per_library: int) -> list:
    """The picks of every library, interleaved (one of each in turn), so a run stopped early is still spread."""
    picks = [pick(labels[library], per_library) for library in LIBRARIES]
    order = []
    for index in range(max(len(p) for p in picks)):
        order.extend(p[index] for p in picks if index < len(p))
    return order


# ---- one model ---------------------------------------------------------------------------------------------

def _run(command: list, env: dict, timeout: int):
    """(report or None, why not, seconds)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"over {timeout} s", timeout
    seconds = round(time.perf_counter() - started, 2)
    traceback_seen = "Traceback (most recent call last)" in done.stderr and "last frames" not in done.stderr \
        and "left out" not in done.stderr
    try:
        report = json.loads(done.stdout)[0]
    except (ValueError, IndexError, KeyError):
        lines = done.stderr.strip().splitlines() or ["no output"]
        message = next((line for line in lines if line.startswith("hylint: ")), lines[-1])
        return None, f"exit {done.returncode}: {message[:200]}" + (" [TRACEBACK]" if traceback_seen else ""), seconds
    report["exit"] = done.returncode
    return report, "", seconds


def _status(report: dict):
    """The hybridized status (ok / error / different), or None when verify stopped before it."""
    return (report.get("hybridized") or {}).get("status") if report else None


def compare_outputs(runtime: Path, mxnet: Path) -> dict:
    """Per kind (eager, hybridized, train_*): whether every output is within the tolerance, and the gaps."""
    result = {}
    with np.load(runtime) as ours, np.load(mxnet) as theirs:
        kinds = sorted({key.split("/")[0] for key in theirs.files} & {key.split("/")[0] for key in ours.files})
        for kind in kinds:
            keys = sorted((k for k in theirs.files if k.startswith(kind + "/")), key=lambda k: int(k.split("/")[1]))
            mine = sorted((k for k in ours.files if k.startswith(kind + "/")), key=lambda k: int(k.split("/")[1]))
            if keys != mine:
                result[kind] = {"equal": False, "why": f"{len(mine)} outputs instead of {len(keys)}"}
                continue
            gap_abs = gap_rel = 0.0
            why = None
            for key in keys:
                a, b = ours[key].astype(np.float64), theirs[key].astype(np.float64)
                if a.shape != b.shape:
                    why = f"{key}: shape {a.shape} instead of {b.shape}"
                    break
                if not a.size:
                    continue
                if not np.array_equal(np.isnan(a), np.isnan(b)):
                    why = f"{key}: NaN in other places"
                    break
                if not np.array_equal(a[np.isinf(a) | np.isinf(b)], b[np.isinf(a) | np.isinf(b)]):
                    why = f"{key}: infinities in other places"  # equal where both are the same infinity
                    break
                finite = np.isfinite(b)
                with np.errstate(invalid="ignore"):  # inf - inf, left out by ``finite``
                    diff = float(np.max(np.abs(a - b)[finite], initial=0.0))
                scale = float(np.max(np.abs(b)[finite], initial=0.0))
                gap_abs, gap_rel = max(gap_abs, diff), max(gap_rel, diff / scale if scale else diff)
                if not diff <= TOLERANCE * max(1.0, scale):
                    why = why or f"{key}: max |d| {diff:.3g} (max |mxnet| {scale:.3g})" + (
                        "; equal as rows in another order" if _same_rows(a, b, TOLERANCE * max(1.0, scale)) else "")
            result[kind] = {"equal": why is None, "why": why, "max_abs": gap_abs, "max_rel": gap_rel}
    return result


def _same_rows(a: np.ndarray, b: np.ndarray, tolerance: float) -> bool:
    """Whether ``a`` and ``b`` hold the same rows (last axis) per leading index, in another order: detections
    (boxes) whose scores tie come out of ``topk`` in an order that float32 rounding elsewhere decides."""
    if a.ndim < 2 or a.shape != b.shape:
        return False
    rows_a, rows_b = a.reshape(-1, a.shape[-2], a.shape[-1]), b.reshape(-1, b.shape[-2], b.shape[-1])
    for x, y in zip(rows_a, rows_b):
        x, y = x[np.lexsort(x.T[::-1])], y[np.lexsort(y.T[::-1])]
        if not np.all(np.abs(x - y) <= tolerance):
            return False
    return True


def compares_train_mode(label: dict) -> bool:
    """Train mode where the label compared it; not where MXNet's eager train-mode call killed the labeller's
    process (gluoncv2's shake-shake and shake-drop ResNets: SIGFPE), which leaves no train verdict to compare."""
    return "train" in label and (label["train"] or {}).get("verdict") != "EAGER_FAIL"


def verify_one(label: dict, runtime_python: str, mxnet_python: str, timeout: int = TIMEOUT,
               runtime_env: dict = None) -> dict:
    """Both runs of one model and their comparison. ``runtime_env``: more environment for the runtime's run only
    (``OPENBLAS_CORETYPE``: MXNet's own OpenBLAS reads it too, so it must not reach MXNet's run); recorded."""
    library, name = label["library"], label["name"]
    folder, stem, driver = _driver(library, name)
    texts = input_texts(label)
    row = {"library": library, "name": name, "label": label["verdict"], "inputs": texts,
           "train_mode": compares_train_mode(label)}
    env = _environment()
    for backend, python in (("numpy", runtime_python), ("mxnet", mxnet_python)):
        saved = folder / f"{stem}.{backend}.npz"
        extra = runtime_env if backend == "numpy" and runtime_env else {}
        report, why, seconds = _verify(python, driver, backend, texts, row["train_mode"], saved, dict(env, **extra),
                                       timeout)
        row[backend] = {"status": _status(report), "seconds": seconds, "stopped": why or None}
        if extra:
            row[backend]["env"] = extra
        if report:
            hybridized, eager = report.get("hybridized") or {}, report.get("eager") or {}
            failed = hybridized if hybridized.get("status") not in (None, "ok") else eager
            row[backend].update(verdict=report["verdict"], exit=report["exit"],
                                detail=None if failed.get("status") == "ok" else
                                f"{failed.get('phase')}: {failed.get('error_type') or ''} "
                                f"{(failed.get('message') or '')[:160]}".strip(),
                                eager=eager.get("status"))
    runtime_npz, mxnet_npz = (folder / f"{stem}.{b}.npz" for b in ("numpy", "mxnet"))
    if runtime_npz.exists() and mxnet_npz.exists():
        row["outputs"] = compare_outputs(runtime_npz, mxnet_npz)
    status = row["numpy"]["status"]
    row["same_verdict"] = status is not None and (status == "ok") == (label["verdict"] == "OK")
    row["same_verdict_as_mxnet_verify"] = status is not None and status == row["mxnet"]["status"]
    row["outputs_equal"], row["train_outputs_equal"] = outputs_equal(row)
    if row.get("outputs") and not row["outputs_equal"]:
        row["mxnet_native"] = mxnet_native(mxnet_python, driver, texts, row["train_mode"], mxnet_npz, env, timeout)
    for path in (runtime_npz, mxnet_npz):
        path.unlink(missing_ok=True)
    return json.loads(json.dumps(row).replace(str(ROOT) + "/", ""))  # paths in messages relative to the checkout


def _driver(library: str, name: str):
    """(folder, file stem, driver file) of a model, the driver written afresh."""
    folder = WORK / "verify" / library
    folder.mkdir(parents=True, exist_ok=True)
    stem = name.replace(".", "_").replace("-", "_").replace(":", "_")
    driver = folder / (stem + ".py")
    driver.write_text(DRIVER.format(here=str(HERE), library=library, name=name))
    return folder, stem, driver


def _environment() -> dict:
    # the checkout first; a PYTHONPATH given to this script follows (hylint's own dependencies for an
    # interpreter that lacks them, e.g. gluonfr's)
    paths = [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OMP_NUM_THREADS="1", MXNET_ENGINE_TYPE="NaiveEngine")


def _verify(python: str, driver: Path, backend: str, texts, train_mode: bool, saved: Path, env: dict, timeout: int):
    """One `hylint verify` run of a driver, its outputs saved to ``saved``: (report or None, why not, seconds)."""
    saved.unlink(missing_ok=True)
    command = [python, "-m", "hylint", "verify", f"{driver}::model", "--backend", backend,
               "--output-format", "json", "--save-outputs", str(saved)]
    command += [part for text in texts or () for part in ("--input", text)]
    if train_mode:
        command.append("--train-mode")
    return _run(command, env, timeout)


def mxnet_native(mxnet_python: str, driver: Path, texts, train_mode: bool, onednn_npz: Path, env: dict,
                 timeout: int) -> dict:
    """MXNet against itself, for a model whose outputs the runtime missed: the same verify run on MXNet with
    oneDNN turned off (``MXNET_MKLDNN_ENABLED=0``: MXNet's own native CPU kernels, another float32 summation
    order), its outputs compared with MXNet's oneDNN outputs by the same rule. Where MXNet's two CPU paths are
    further apart than the tolerance, float32 rounding, not the model's arithmetic, decides those outputs."""
    native_npz = onednn_npz.with_suffix(".native.npz")
    report, why, seconds = _verify(mxnet_python, driver, "mxnet", texts, train_mode, native_npz,
                                   dict(env, MXNET_MKLDNN_ENABLED="0"), timeout)
    result = {"status": _status(report), "seconds": seconds, "stopped": why or None, "probed_as": "miss"}
    if native_npz.exists() and onednn_npz.exists():
        result["outputs"] = compare_outputs(native_npz, onednn_npz)
    native_npz.unlink(missing_ok=True)
    return result


#: how far beyond MXNet's own gap (native vs oneDNN) the runtime's gap may be for a miss to count as unsettled:
#: where float32 rounding decides an output, the two gaps are of one order (measured on numpy 1.23's 33 such
#: misses: at most 3.3x), while the FPN Faster R-CNNs' eager boxes are 340x to 6,400x MXNet's own gap
UNSETTLED_FACTOR = 10


def unsettled(row: dict) -> bool:
    """Whether every predict-mode output the runtime missed is one MXNet's own two CPU paths (oneDNN and native)
    also give further apart than the tolerance (`mxnet_native`), with the runtime's gap of the same order as
    MXNet's own (at most UNSETTLED_FACTOR times it): an output float32 rounding decides."""
    ours = row.get("outputs") or {}
    theirs = (row.get("mxnet_native") or {}).get("outputs") or {}
    missed = [kind for kind, v in ours.items() if not v["equal"] and not kind.startswith("train")]
    return bool(missed) and all(
        kind in theirs and not theirs[kind]["equal"]
        and ours[kind].get("max_abs", float("inf")) <= UNSETTLED_FACTOR * theirs[kind].get("max_abs", 0.0)
        for kind in missed)


def mxnet_native_misses(row: dict) -> bool:
    """Whether MXNet's native kernels, probed on this model, miss its oneDNN outputs by the rule the runtime is
    judged by (a predict-mode output apart): MXNet itself would not get MXNet's outputs there."""
    native = (row.get("mxnet_native") or {}).get("outputs") or {}
    return not all(v["equal"] for kind, v in native.items() if not kind.startswith("train"))


def outputs_equal(row: dict):
    """(predict-mode outputs equal: the eager call's, and the hybridized call's where both backends returned
    one; train-mode outputs equal, None when not compared). Train mode apart: random operators (Dropout,
    DropBlock, stochastic depth) draw from each backend's own generator there, so values need not agree."""
    outputs = row.get("outputs") or {}
    predict = bool(outputs.get("eager")) and all(v["equal"] for k, v in outputs.items() if not k.startswith("train"))
    train = [v["equal"] for k, v in outputs.items() if k.startswith("train")]
    return predict, (all(train) if train else None)


# ---- EAGER_FAIL labels: no verdict to compare, but verify must end without a traceback on them too ------------

SHAPES_OF_BUILD = """import json, sys
sys.path.insert(0, {here!r})
from models import build
net, inputs = build({library!r}, {name!r})
def shapes(x):
    return [shapes(i) for i in x] if isinstance(x, (list, tuple)) else list(x.shape)
print(json.dumps(shapes(inputs)))
"""


def eager_fail_labels(labels: dict) -> list:
    """The EAGER_FAIL labels that did not fail by time-out (those are models too slow to label: verify on them
    is the same slow run)."""
    return [label for library in LIBRARIES for label in labels[library] if label["verdict"] == "EAGER_FAIL"
            and "over " not in str((label.get("error") or {}).get("message", "") if isinstance(label.get("error"), dict)
                                   else label.get("error"))]


def with_built_inputs(label: dict, python: str) -> dict:
    """The label with the input shapes models.build gives (EAGER_FAIL labels record none); when building fails
    (that may be why the label failed), the family's usual input."""
    command = [python, "-c", SHAPES_OF_BUILD.format(here=str(HERE), library=label["library"], name=label["name"])]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
        shapes = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        shapes = [[5, 2]] if label["library"] == "gluonnlp" else [[1, 3, 224, 224]]
    return dict(label, inputs=shapes)


def run_eager_fails(python: str, timeout: int) -> None:
    """verify on both backends on the EAGER_FAIL labels (see eager_fail_labels), to `verify/eager_fail.jsonl`."""
    path = OUT / "eager_fail.jsonl"
    done = {json.loads(line)["name"] for line in path.open()} if path.exists() else set()
    for label in eager_fail_labels(load_labels()):
        if label["name"] in done:
            continue
        row = verify_one(with_built_inputs(label, python), python, python, timeout)
        append_row(path, row)
        print(f"{label['library']} {label['name']}: runtime {row['numpy'].get('verdict') or row['numpy']['stopped']}"
              f", mxnet {row['mxnet'].get('verdict') or row['mxnet']['stopped']}", flush=True)


# ---- the run and the report --------------------------------------------------------------------------------

def done_names() -> set:
    if not RESULTS.exists():
        return set()
    return {(row["library"], row["name"]) for row in map(json.loads, RESULTS.open())}


def append_row(path: Path, row: dict) -> None:
    """One model's row, as it is done (the runs are resumable from the rows written)."""
    with path.open("a") as handle:
        handle.write(json.dumps(row, sort_keys=True) + "\n")


def _interpreters(library: str, runtime_python: str, mxnet_python: str, library_python: dict, runtime_own: bool):
    """(the runtime's interpreter, MXNet's) for a library's models: a runtime interpreter of its own (numpy 2, no
    MXNet, --runtime-python) runs every library's runtime side, and the library's own interpreter then stands in
    for MXNet's only."""
    own = library_python.get(library)
    return (runtime_python if runtime_own else own or runtime_python), own or mxnet_python


def run(per_library: int, runtime_python: str, mxnet_python: str, timeout: int, limit: int, match: str,
        libraries: Sequence[str] = (), fastest_first: bool = False, library_python: dict = None,
        runtime_own: bool = False, runtime_env: dict = None) -> None:
    """``library_python``: library -> the interpreter (with MXNet and the library) both backends use for it, or
    only the MXNet backend when ``runtime_own`` (--runtime-python given: that interpreter has every library)."""
    OUT.mkdir(exist_ok=True)
    library_python = library_python or {}
    todo = [label for label in chosen_models(load_labels(), per_library)
            if (label["library"], label["name"]) not in done_names() and match in label["name"]
            and (not libraries or label["library"] in libraries)
            and (label["library"] not in OWN_PYTHON or label["library"] in library_python)]
    if fastest_first:  # most models within a time budget: by the labeller's own time for the model
        todo.sort(key=lambda label: label.get("seconds") or float("inf"))
    for index, label in enumerate(todo[:limit] if limit else todo, 1):
        row = verify_one(label, *_interpreters(label["library"], runtime_python, mxnet_python, library_python,
                                               runtime_own), timeout, runtime_env)
        append_row(RESULTS, row)
        print(f"{index}/{len(todo)} {label['library']} {label['name']}: label {label['verdict']}, runtime "
              f"{row['numpy']['status'] or row['numpy']['stopped']}, mxnet {row['mxnet']['status']}, outputs "
              f"{'equal' if row['outputs_equal'] else 'NOT equal'} ({row['numpy']['seconds']} s + "
              f"{row['mxnet']['seconds']} s)", flush=True)


def probe_mxnet_native(timeout: int, mxnet_python: str, match: str, library_python: dict, control: int = 0) -> None:
    """`mxnet_native` for the rows already written whose outputs the runtime missed (rows written before the
    probe existed): MXNet runs again with and without oneDNN; each row is replaced in place as it is done.
    ``control``: also that many rows whose outputs the runtime got (a seeded sample), to show how often MXNet's
    two paths agree where nothing is amiss."""
    rows = [json.loads(line) for line in RESULTS.open()]
    runnable = [i for i, row in enumerate(rows) if row.get("outputs") and "mxnet_native" not in row
                and match in row["name"] and (row["library"] not in OWN_PYTHON or row["library"] in library_python)]
    todo = [i for i in runnable if not outputs_equal(rows[i])[0]]
    if control:
        equal = [i for i in runnable if outputs_equal(rows[i])[0]]
        todo += sorted(random.Random(0).sample(equal, min(control, len(equal))))
    env = _environment()
    for count, i in enumerate(todo, 1):
        row = rows[i]
        python = library_python.get(row["library"], mxnet_python)
        folder, stem, driver = _driver(row["library"], row["name"])
        onednn_npz = folder / f"{stem}.mxnet.npz"
        _verify(python, driver, "mxnet", row["inputs"], row["train_mode"], onednn_npz, env, timeout)
        row["mxnet_native"] = json.loads(json.dumps(
            mxnet_native(python, driver, row["inputs"], row["train_mode"], onednn_npz, env, timeout))
            .replace(str(ROOT) + "/", ""))
        row["mxnet_native"]["probed_as"] = "miss" if not outputs_equal(row)[0] else "control"
        onednn_npz.unlink(missing_ok=True)
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
        RESULTS.with_suffix(".tmp").write_text(text)
        RESULTS.with_suffix(".tmp").replace(RESULTS)
        native = row["mxnet_native"]
        print(f"{count}/{len(todo)} {row['library']} {row['name']}: MXNet native {native['status'] or native['stopped']}"
              f", {'unsettled' if unsettled(row) else 'settled'}: " + "; ".join(
                  f"{kind} {v.get('why') or 'equal'}" for kind, v in (native.get("outputs") or {}).items())
              + f" ({native['seconds']} s)", flush=True)


def recheck_sample(rows: list, sample: int, max_seconds: float, library_python: dict) -> list:
    """The rows --recheck runs again: a seeded sample (the same for the same results) of the rows whose runtime
    and MXNet runs took at most ``max_seconds`` together."""
    def seconds(run):  # a stopped run has none
        return math.inf if run.get("seconds") is None else run["seconds"]
    quick = sorted((row for row in rows if seconds(row["numpy"]) + seconds(row["mxnet"]) <= max_seconds
                    and (row["library"] not in OWN_PYTHON or row["library"] in library_python)),
                   key=lambda row: (row["library"], row["name"]))
    return random.Random(0).sample(quick, min(sample, len(quick)))


def recheck(sample: int, max_seconds: float, runtime_python: str, mxnet_python: str, timeout: int,
            library_python: dict, runtime_own: bool, runtime_env: dict = None) -> None:
    """Rows already written, run again on the current code into RECHECK (resumable): does a row written by older
    code still stand? The rows themselves are left as they are."""
    rows = [json.loads(line) for line in RESULTS.open()]
    done = {(row["library"], row["name"]) for row in map(json.loads, RECHECK.open())} if RECHECK.exists() else set()
    labels = {(label["library"], label["name"]): label for items in load_labels().values() for label in items}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    chosen = recheck_sample(rows, sample, max_seconds, library_python)
    for count, old in enumerate(chosen, 1):
        key = (old["library"], old["name"])
        if key in done:
            continue
        row = verify_one(labels[key], *_interpreters(old["library"], runtime_python, mxnet_python, library_python,
                                                       runtime_own), timeout, runtime_env)
        row["code"] = commit
        append_row(RECHECK, row)
        print(f"{count}/{len(chosen)} {old['library']} {old['name']}: verdict "
              f"{'kept' if row['same_verdict'] == old['same_verdict'] else 'CHANGED'}, outputs "
              f"{'kept' if row['outputs_equal'] == old['outputs_equal'] else 'CHANGED'} "
              f"({'equal' if row['outputs_equal'] else 'NOT equal'})", flush=True)


def recheck_paragraph(rows: list) -> list:
    """The render's lines on RECHECK: how many rows run again on later code kept their verdict and outputs."""
    if not RECHECK.exists():
        return []
    first = {(row["library"], row["name"]): row for row in rows}
    again = [row for row in map(json.loads, RECHECK.open()) if (row["library"], row["name"]) in first]
    if not again:
        return []
    changed = [row for row in again if (row["same_verdict"], row["outputs_equal"])
               != (first[row["library"], row["name"]]["same_verdict"], first[row["library"], row["name"]]["outputs_equal"])]

    def state(row):
        return f"verdict {'same' if row['same_verdict'] else 'missed'}, outputs {'equal' if row['outputs_equal'] else 'missed'}"
    commits = sorted({row.get("code") or "?" for row in again})
    return ["", f"Rows run again on later code (`--recheck`, a seeded sample of the rows whose two runs took little "
            f"time; code of {', '.join(commits)}): of {len(again)}, {len(again) - len(changed)} kept their verdict and "
            "output equality" + ("" if not changed else "; changed: " + "; ".join(
                f"{row['name']} ({state(first[row['library'], row['name']])} -> {state(row)})" for row in changed))
            + ". The rows above keep their first run."]


#: what verify says (exit 2) when a model's own library uses a numpy alias removed in numpy 1.24 (runtime/base.py)
OLD_NUMPY_LIBRARY = "(removed in numpy 1.24)"


def library_needs_older_numpy(row: dict) -> bool:
    """Whether the runtime run stopped because the model's own library cannot run on this numpy (gluoncv's
    `np.float` on numpy 2): no runtime can run that code, so the model is listed apart, not as a miss."""
    return any(OLD_NUMPY_LIBRARY in (row["numpy"].get(key) or "") for key in ("stopped", "detail"))


def miss_cause(row: dict) -> str:
    ours, theirs = row["numpy"], row["mxnet"]
    if ours["status"] is None:
        return f"runtime stopped: {ours.get('stopped') or ours.get('detail')}"
    if not row["same_verdict"]:
        if ours["status"] == theirs["status"]:
            return (f"MXNet through verify agrees with the runtime ({theirs['status']}), not with the label "
                    f"{row['label']}: {theirs.get('detail') or 'verify and the labeller differ'}")
        return f"runtime {ours['status']} ({ours.get('detail')}), MXNet {theirs['status']} ({theirs.get('detail')})"
    outputs = row.get("outputs") or {}
    if not outputs:
        return f"no outputs to compare (MXNet run: {theirs.get('stopped') or theirs.get('detail')})"
    return "; ".join(f"{kind}: {v['why']}" for kind, v in outputs.items()
                     if not v["equal"] and not kind.startswith("train"))


def native_cell(row: dict) -> str:
    native = row.get("mxnet_native")
    if not native:
        return ""
    if not native.get("outputs"):
        return f"not compared ({native.get('stopped') or native.get('status')})".replace("|", "\\|")
    text = "; ".join(f"{kind}: {v['why']}" if v.get("why") else f"{kind}: equal"
                     for kind, v in native["outputs"].items() if not kind.startswith("train"))
    return ("**unsettled**: " if unsettled(row) else "") + text.replace("|", "\\|")


def render(commands: str = "") -> None:
    """``commands``: the paragraph saying how the results were made, when not the default run's."""
    rows = [json.loads(line) for line in RESULTS.open()]
    for row in rows:  # recomputed: rows written by an earlier version counted train-mode values in
        row["outputs_equal"], row["train_outputs_equal"] = outputs_equal(row)
    by_library = {}
    for library in LIBRARIES:
        mine = [row for row in rows if row["library"] == library]
        if not mine:
            continue
        by_library[library] = {
            "tried": len(mine),
            "failing_labels": sum(row["label"] != "OK" for row in mine),
            "runtime_ran": sum(row["numpy"]["status"] is not None for row in mine),
            "same_verdict": sum(row["same_verdict"] for row in mine),
            "same_verdict_as_mxnet_verify": sum(row["same_verdict_as_mxnet_verify"] for row in mine),
            "outputs_equal": sum(row["outputs_equal"] for row in mine),
            "train_compared": sum(row["train_outputs_equal"] is not None for row in mine),
            "train_outputs_equal": sum(bool(row["train_outputs_equal"]) for row in mine),
            "both": sum(row["same_verdict"] and row["outputs_equal"] for row in mine),
            "median_runtime_seconds": round(statistics.median(row["numpy"]["seconds"] for row in mine), 1),
            "median_mxnet_seconds": round(statistics.median(row["mxnet"]["seconds"] for row in mine), 1),
        }
    total = {key: sum(v[key] for v in by_library.values())
             for key in ("tried", "failing_labels", "runtime_ran", "same_verdict", "same_verdict_as_mxnet_verify",
                         "outputs_equal", "both", "train_compared", "train_outputs_equal")}
    gaps = [row["outputs"][kind]["max_rel"] for row in rows for kind in (row.get("outputs") or {})
            if "max_rel" in row["outputs"][kind] and not kind.startswith("train")]
    gaps_abs = [row["outputs"][kind]["max_abs"] for row in rows for kind in (row.get("outputs") or {})
                if "max_abs" in row["outputs"][kind] and not kind.startswith("train")]
    tracebacks = [row for row in rows for b in ("numpy", "mxnet")
                  if any(mark in (row[b].get("stopped") or "") for mark in ("[TRACEBACK]", "internal error", "exit -"))]
    old_numpy = [row for row in rows if library_needs_older_numpy(row)]
    misses = [row for row in rows if not (row["same_verdict"] and row["outputs_equal"]) and row not in old_numpy]

    def pct(n: int, d: int) -> str:
        return f"{n} ({100 * n / d:.1f}%)" if d else "0"

    out = ["# `hylint verify` on the NumPy runtime vs MXNet 1.9.1, on the labelled zoo models", "",
           "Generated by `python benchmarks/zoo/verify_zoo.py --render` from `results.jsonl` (how the models are "
           "chosen, run and compared: the docstring of `benchmarks/zoo/verify_zoo.py`). Outputs are equal when "
           f"`max|runtime - mxnet| <= {TOLERANCE:g} * max(1, max|mxnet|)` for every output (per output: 1e-4 "
           "absolute up to unit scale, 1e-4 relative to the largest value above it; NaN and infinities must sit at "
           "the same places, with the same signs).", "",
           "| library | models | failing labels | runtime ran | same verdict as the label | same as verify on MXNet "
           "| outputs equal | both | train-mode outputs equal | median s runtime / MXNet |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for library, v in list(by_library.items()) + [("**all**", total)]:
        out.append(f"| {library} | {v['tried']} | {v['failing_labels']} | {v['runtime_ran']} | "
                   f"{pct(v['same_verdict'], v['tried'])} | {pct(v['same_verdict_as_mxnet_verify'], v['tried'])} | "
                   f"{pct(v['outputs_equal'], v['tried'])} | {pct(v['both'], v['tried'])} | "
                   f"{v['train_outputs_equal']} of {v['train_compared']} | "
                   f"{v.get('median_runtime_seconds', '')} / {v.get('median_mxnet_seconds', '')} |")
    out += ["", "*Outputs equal*: the eager outputs and (where both backends returned them) the hybridized outputs in "
            "predict mode. *Train-mode outputs* (`--train-mode`, where the label compared train mode) are shown "
            "apart: random operators (Dropout, DropBlock, stochastic depth) draw from each backend's own "
            "generator in train mode, so their values need not agree; the train-mode *verdict* counts in the "
            "verdict columns."]
    if old_numpy:
        rest = [row for row in rows if row not in old_numpy]
        out += ["", f"{len(old_numpy)} of the {len(rows)} models cannot run on this numpy at all: their own library "
                "uses a numpy alias that numpy 1.24 removed (listed below; verify says so and exits 2). Without them: "
                f"{pct(sum(row['same_verdict'] for row in rest), len(rest))} of {len(rest)} get MXNet's verdict, "
                f"{pct(sum(row['outputs_equal'] for row in rest), len(rest))} its outputs."]
    output_misses = [row for row in misses if row["same_verdict"] and row.get("outputs")]
    probed = [row for row in output_misses if row.get("mxnet_native")]
    unsettled_rows = [row for row in probed if unsettled(row)]
    total["outputs_unsettled"] = len(unsettled_rows)
    if probed:
        rest = [row for row in rows if row not in old_numpy and row not in unsettled_rows]
        out += ["", f"MXNet against itself (`--mxnet-native`): {len(probed)} of the {len(output_misses)} models whose "
                "outputs the runtime missed were run again on MXNet with oneDNN turned off (`MXNET_MKLDNN_ENABLED=0`, "
                "MXNet's native CPU kernels) and compared with MXNet's oneDNN outputs by the same rule. On "
                f"{len(unsettled_rows)} of them MXNet's two paths are further apart than the tolerance on every "
                f"output the runtime missed, and the runtime's gap is at most {UNSETTLED_FACTOR}x MXNet's own (the "
                "others: the runtime is much further off than MXNet is from itself): MXNet itself does not settle those outputs to 1e-4 (float32 rounding "
                "that the model amplifies, or memory MXNet never wrote: the FPN detectors above), and matching them "
                "would take replaying oneDNN's summation order operator by operator. They stay counted as misses "
                "above; without them, "
                f"{pct(sum(row['outputs_equal'] for row in rest), len(rest))} of {len(rest)} models get MXNet's "
                "outputs. The misses table gives both gaps (runtime vs MXNet, MXNet native vs oneDNN)."]
        runnable = [row for row in rows if row not in old_numpy]
        native_misses = [row for row in runnable if mxnet_native_misses(row)]
        out[-1] += (f" The same rule measures MXNet against itself: its native kernels miss its oneDNN outputs on "
                    f"{len(native_misses)} of the models probed, so they would get MXNet's outputs on at most "
                    f"{pct(len(runnable) - len(native_misses), len(runnable))} of the {len(runnable)} models (the "
                    f"runtime: {pct(sum(row['outputs_equal'] for row in runnable), len(runnable))}).")
    control = [row for row in rows if (row.get("mxnet_native") or {}).get("probed_as") == "control"
               and row["mxnet_native"].get("outputs")]
    if control:
        agree = [row for row in control if all(v["equal"] for kind, v in row["mxnet_native"]["outputs"].items()
                                                if not kind.startswith("train"))]
        out += ["", f"The control (`--mxnet-native --control N`, a seeded sample of models whose outputs the runtime "
                f"gets): on {len(agree)} of {len(control)}, MXNet's native outputs are within the tolerance of its "
                "oneDNN outputs too" + (": " + ", ".join(row["name"] for row in control if row not in agree)
                                        + " are not" if len(agree) < len(control) else "") + "."]
    out += recheck_paragraph(rows)
    if gaps:
        within = sum(gap <= TOLERANCE for gap in gaps_abs)
        out += ["", f"Predict-mode output comparisons (eager and hybridized, per model and call): {len(gaps)}; "
                f"largest difference relative to max|mxnet|: median {statistics.median(gaps):.2g}, max "
                f"{max(gaps):.2g}; largest absolute difference: median {statistics.median(gaps_abs):.2g}, max "
                f"{max(gaps_abs):.2g}; within 1e-4 absolute alone: {within} of {len(gaps_abs)}."]
    disagree = [row for row in rows if row["numpy"]["status"] and row["mxnet"]["status"]
                and row["numpy"]["status"] != row["mxnet"]["status"]]
    if disagree:
        fpn = [row for row in disagree if row["name"].startswith(FPN_ROI_ALIGN)]
        deep = [row for row in disagree if not row["name"].startswith(FPN_ROI_ALIGN)]
        out += ["", f"verify on MXNet itself departs from the label on {len(disagree)} model(s): "
                + "; ".join(f"{row['name']} ({row['mxnet'].get('detail')})" for row in disagree) + "."]
        if deep:
            out[-1] += (f" {', '.join(row['name'] for row in deep)}: deep models whose eager and hybridized outputs "
                        "differ on MXNet beyond verify's own tolerance (`atol = rtol = 1e-5`, element-wise), while the "
                        "labeller's is `1e-4 + 1e-3 * max|eager|`; the runtime computes both calls alike.")
        if fpn:
            out[-1] += (f" {', '.join(row['name'] for row in fpn)}: MXNet reads memory it never wrote. gluoncv's "
                        "`_pyramid_roi_feats` (its branch for an MXNet with `contrib.box_encode`) gives the regions "
                        "of the other pyramid levels a batch index of -1, and MXNet 1.9.1's `ROIAlign` leaves such a "
                        "region's output unwritten (measured: with `out=` filled with 7, those rows stay 7); eagerly "
                        "that memory was fresh (zeros), in the hybridized graph it is a reused buffer holding another "
                        "node's values, which `ElementWiseSum` adds into the pooled features (on "
                        "`faster_rcnn_fpn_resnet50_v1b_coco`, eager vs hybridized: the backbone's features and the "
                        "1,000 proposals equal, the pooled features differ on 1,047,577 of 12,544,000 values, by up "
                        "to 103). With gluoncv's other branch (`ROIAlign` of every region, then "
                        "`where`), MXNet's eager and hybridized outputs are equal (max |d| 0, on this model and "
                        "`faster_rcnn_fpn_resnet101_v1d_coco`). The runtime writes zeros there, as MXNet's eager call "
                        "had them; MXNet's stale memory is not reproduced.")
    labelled = sum(1 for library in by_library for label in load_labels()[library] if label["verdict"] != "EAGER_FAIL")
    out += ["", commands or (
            "Commands (on the shared 2-core machine): `nice -n 10 python benchmarks/zoo/verify_zoo.py --python "
            "/work/venv-mx/bin/python --per-library 25` (resumable; rows whose runtime part was fixed during the "
            "session were deleted and run again with the final code), `... --eager-fails --timeout 150`; then, to "
            "extend the coverage, `nice -n 19 python benchmarks/zoo/verify_zoo.py --python <venv with MXNet> "
            "--per-library 100000 --timeout 300 --fastest-first` (every remaining model, the labeller's fastest "
            "first, stopped at a deadline), then `python benchmarks/zoo/verify_zoo.py --render`."),
            "", f"Coverage: {total['tried']} of the {labelled} labelled models of {', '.join(by_library)} that ran "
            f"eagerly on MXNet ({100 * total['tried'] / labelled:.0f}%); gluonfr runs in its own venv "
            "(`--library-python gluonfr=<venv with MXNet and gluonfr>`); gluonts is not run by this script."]
    out += ["", f"Runs that ended in a Python traceback, an internal error or a crash (either backend): {len(tracebacks)}"
            + (": " + ", ".join(sorted({row["name"] for row in tracebacks})) if tracebacks else "") + ".", "",
            f"## Misses ({len(misses)})", "", "| library | model | label | runtime | MXNet (verify) | cause | "
            "MXNet native vs oneDNN |", "|---|---|---|---|---|---|---|"]
    for row in misses:
        cause = miss_cause(row).replace("|", "\\|").replace("\n", " ")
        out.append(f"| {row['library']} | {row['name']} | {row['label']} | {row['numpy']['status']} | "
                   f"{row['mxnet']['status']} | {cause} | {native_cell(row)} |")
    if old_numpy:
        out += ["", f"## Models whose own library cannot run on this numpy ({len(old_numpy)})", "",
                "| library | model | label | verify on the runtime |", "|---|---|---|---|"]
        for row in old_numpy:
            why = (row["numpy"].get("stopped") or row["numpy"].get("detail") or "").replace("|", "\\|")
            out.append(f"| {row['library']} | {row['name']} | {row['label']} | {why} |")
    eager_fails = OUT / "eager_fail.jsonl"
    if eager_fails.exists():
        rows = [json.loads(line) for line in eager_fails.open()]
        bad = [row for row in rows for b in ("numpy", "mxnet")
               if any(mark in (row[b].get("stopped") or "") for mark in ("[TRACEBACK]", "internal error", "exit -"))]
        out += ["", f"## The EAGER_FAIL labels (`--eager-fails`: {len(rows)} that did not fail by time-out)", "",
                "No verdict to compare (MXNet's labeller could not build or run them eagerly); checked for a clean "
                f"end on both backends: {len(rows) - len(bad)} of {len(rows)} ended with a verdict or an exit-2 "
                "message, without a traceback or a crash.", "",
                "| library | model | runtime | MXNet (verify) |", "|---|---|---|---|"]
        for row in rows:
            cells = []
            for b in ("numpy", "mxnet"):
                r = row[b]
                cells.append((f"{r['verdict']}: {r.get('detail') or ''}" if r.get("verdict") else r["stopped"] or "")
                             .replace("|", "\\|").replace("\n", " ")[:220])
            out.append(f"| {row['library']} | {row['name']} | {cells[0]} | {cells[1]} |")
    (OUT / "RESULTS.md").write_text("\n".join(out) + "\n")
    (OUT / "summary.json").write_text(json.dumps({"by_library": by_library, "total": total,
                                                  "tolerance": TOLERANCE}, indent=1, sort_keys=True) + "\n")
    print("\n".join(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with MXNet 1.9.1 and the libraries (the runtime run uses it too: the "
                             "runtime stands in for MXNet under hylint verify --backend numpy)")
    parser.add_argument("--runtime-python", default=None,
                        help="interpreter for the runtime run, if not --python: one without MXNet, on numpy 2 say")
    parser.add_argument("--out", default=None, help="folder of results.jsonl and RESULTS.md (default: verify/)")
    parser.add_argument("--per-library", type=int, default=40, help="OK models per library (all failing ones too)")
    parser.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds per verify run")
    parser.add_argument("--limit", type=int, default=0, help="at most this many models in this run")
    parser.add_argument("--match", default="", help="only models whose name contains this")
    parser.add_argument("--library", action="append", default=[], help="only this library's models (repeatable)")
    parser.add_argument("--library-python", action="append", default=[], metavar="LIBRARY=PYTHON",
                        help="the interpreter both backends use for a library installed elsewhere (repeatable; "
                             f"{', '.join(OWN_PYTHON)} run only with it); with --runtime-python, MXNet's only")
    parser.add_argument("--runtime-env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment for the runtime's runs only (repeatable), e.g. OPENBLAS_CORETYPE=SkylakeX "
                             "where numpy's OpenBLAS does not know the CPU (MXNet's own OpenBLAS would read it too)")
    parser.add_argument("--fastest-first", action="store_true",
                        help="run the models the labeller ran fastest first (most models in a limited time; "
                             "the sample then leans towards small models)")
    parser.add_argument("--render", action="store_true", help="write verify/RESULTS.md from the results")
    parser.add_argument("--commands", default="", help="with --render: the paragraph on how the results were made")
    parser.add_argument("--eager-fails", action="store_true",
                        help="verify the EAGER_FAIL labels on both backends (no traceback check) instead")
    parser.add_argument("--mxnet-native", action="store_true",
                        help="for rows already written whose outputs the runtime missed: MXNet against itself, "
                             "with and without oneDNN (see mxnet_native)")
    parser.add_argument("--recheck", type=int, default=0,
                        help="run again, on the current code, this many rows already written (a seeded sample) into "
                             "recheck.jsonl, to see whether rows of older code still stand")
    parser.add_argument("--recheck-seconds", type=float, default=60.0,
                        help="with --recheck: only rows whose runtime and MXNet runs took at most this together")
    parser.add_argument("--control", type=int, default=0,
                        help="with --mxnet-native: also this many rows whose outputs the runtime got (seeded sample)")
    args = parser.parse_args()
    if args.out:
        global OUT, RESULTS, RECHECK
        OUT = Path(args.out).resolve()
        RESULTS = OUT / "results.jsonl"
        RECHECK = OUT / "recheck.jsonl"
        OUT.mkdir(parents=True, exist_ok=True)
    if args.render:
        render(args.commands)
        return 0
    if args.mxnet_native:
        probe_mxnet_native(args.timeout, args.python, args.match, dict(item.split("=", 1) for item in args.library_python),
                           args.control)
        return 0
    runtime_env = dict(item.split("=", 1) for item in args.runtime_env)
    if args.recheck:
        recheck(args.recheck, args.recheck_seconds, args.runtime_python or args.python, args.python, args.timeout,
                dict(item.split("=", 1) for item in args.library_python), runtime_own=args.runtime_python is not None,
                runtime_env=runtime_env)
        return 0
    if args.eager_fails:
        OUT.mkdir(exist_ok=True)
        run_eager_fails(args.python, args.timeout)
        return 0
    run(args.per_library, args.runtime_python or args.python, args.python, args.timeout, args.limit, args.match,
        args.library, args.fastest_first, dict(item.split("=", 1) for item in args.library_python),
        runtime_own=args.runtime_python is not None, runtime_env=runtime_env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
