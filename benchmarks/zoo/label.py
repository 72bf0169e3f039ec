"""The zoo labeller: real MXNet 1.9.1 labels each model OK / TRACE_FAIL / GRAPH_FAIL / DIFF / EAGER_FAIL.

    python benchmarks/zoo/label.py --python /work/venv-mx/bin/python            # every library, resumable
    python benchmarks/zoo/label.py --library gluoncv2 --limit 50                 # a slice
    python benchmarks/zoo/label.py --make-venv benchmarks/zoo/.venv             # a fresh labelling venv

The parent process (any Python >= 3.8, no MXNet needed) drives one worker process per job (`--jobs`, default 1)
under the labelling interpreter (`--python`). A worker labels models one by one and is restarted after a
crash, a time-out (`--timeout`, default 120 s per model) or every `RESTART_EVERY` models (MXNet keeps memory).
Each label is appended to `labels/<library>.jsonl` at once; names already there are skipped (resume).
`--sort` rewrites the files sorted by name (done at the end of a run, for stable diffs).

Per model (the worker, `label_one`), all seeds fixed before each call:
  1. build (pretrained=False), initialize; every nn.Dropout gets rate 0 (MXNet's eager and cached-op Dropout
     draw different masks for the same seed, which would make every train-mode comparison differ);
  2. one eager call in predict mode; the library FILES run while building and calling eagerly are recorded;
  3. if a library file the model ran reads the training mode in Python (autograd.is_training, is_recording,
     train_mode, predict_mode: hybridize() freezes such branches at trace time), one eager call in train mode
     (autograd.train_mode(); parameters restored afterwards, since BatchNorm updates its running statistics).
     MXNet's BatchNorm and Dropout read the mode inside the operator, so they alone do not need the call;
  4. hybridize(); the first hybridized call traces hybrid_forward: the library LINES run are recorded;
     a second hybridized call; then the train-mode call again, hybridized;
  5. verdict: TRACE_FAIL (raised while tracing hybrid_forward with Symbols), GRAPH_FAIL (raised after the
     trace: shape inference, graph build, cached-op run), DIFF (outputs differ: |h - e| > ATOL + RTOL*max|e|),
     OK, or EAGER_FAIL (build or eager call failed, time-out or crash: left out, with the reason).
A train-mode pair whose hybridized output changes with the seed is random (e.g. a raw F.Dropout): it is
recorded as "random" and not compared.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels"
WORK = HERE / ".work"  # git-ignored: logs, downloads, fixed copies
SEED = 1234
ATOL, RTOL = 1e-4, 1e-3
RESTART_EVERY = 60
CHEAP = re.compile(r"cifar|svhn")
# Dense prediction, detection, video and the largest classifiers: minutes each on a shared core, labelled last
COSTLY = re.compile(r"cityscapes|voc|coco|ade|celeb|_cub|kinetics|ucf|hmdb|sthsth|rcnn|^ssd|yolo|center_net|pose|"
                    r"deeplab|psp|fcn|icnet|danet|monodepth|siamrpn|nasnet_[567]|senet_154|int8|_citys|ntsnet|lffd|"
                    r"bert_24|roberta_24|elmo_2x4096")


def _cost_rank(name):
    return (0 if CHEAP.search(name) else 2 if COSTLY.search(name) else 1, name)
# Where the labelling venv's pins live (Python <= 3.11, numpy < 1.24: what MXNet 1.9.1 runs on).
VENV_REQUIREMENTS = ("mxnet==1.9.1", "numpy==1.23.5", "gluoncv2==0.0.64", "gluoncv==0.10.5.post0",
                     "gluonnlp==0.10.0", "gluonts==0.8.1", "gluonfr==1.0.2", "opencv-python-headless<4.9",
                     "scipy<1.12", "scikit-learn<1.4", "tqdm")
# Frames and lines are recorded for these packages (paths are relative to site-packages, so that labels
# made on one machine score on another). mxnet: only the Gluon layer code, not the framework itself.
TRACED_PREFIXES = ("gluoncv2/", "gluoncv/", "gluonnlp/", "gluonts/", "gluonfr/", "sockeye/", "mxnet/gluon/model_zoo/",
                   "mxnet/gluon/nn/", "mxnet/gluon/rnn/", "mxnet/gluon/contrib/")


# ============================================================================ worker (runs under MXNet)

class _Tracer:
    """A context manager that installs `self._global` as sys.settrace's global trace function."""

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


class _Recorder(_Tracer):
    """sys.settrace restricted to the traced packages: files seen (cheap: call events only) or lines run."""

    def __init__(self, package_roots):
        self.roots = package_roots          # absolute dir of site-packages-like parent -> used to relativize
        self.relative = {}                  # co_filename -> relative path or None (cache: one check per file)
        self.files = set()
        self.lines = {}
        self.want_lines = False

    def relpath(self, filename):
        try:
            return self.relative[filename]
        except KeyError:
            pass
        found = None
        for root in self.roots:
            if filename.startswith(root):
                candidate = filename[len(root):].lstrip(os.sep).replace(os.sep, "/")
                if candidate.startswith(TRACED_PREFIXES):
                    found = candidate
                break
        self.relative[filename] = found
        return found

    def _global(self, frame, event, arg):
        code = frame.f_code
        if code.co_name == "<module>":  # an import, not the model running (imports happen once per process)
            return None
        rel = self.relpath(code.co_filename)
        if rel is None:
            return None
        self.files.add(rel)
        if not self.want_lines:
            return None
        lines = self.lines.setdefault(rel, set())

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local
        return local


def _package_roots():
    """The directories that hold the traced packages (the fixed copy first when one is on sys.path)."""
    import importlib.util
    roots = []
    for package in ("gluoncv2", "gluoncv", "gluonnlp", "gluonts", "gluonfr", "sockeye", "mxnet"):
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            root = os.path.dirname(list(spec.submodule_search_locations)[0])
            if root not in roots:
                roots.append(root)
    # a fixed copy on sys.path holds only some packages: longest roots first so the copy wins
    return sorted(roots, key=len, reverse=True)


_HEX = re.compile(r"0x[0-9a-fA-F]+")


def _clean_message(error):
    message = str(error).split("Stack trace")[0].strip()
    return _HEX.sub("0x?", message)[:400]


def _frames(error, recorder):
    import traceback
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        rel = recorder.relpath(frame.filename)
        if rel is not None:
            frames.append([rel, frame.lineno, frame.name])
    return frames


def _flatten(output):
    import mxnet as mx
    if isinstance(output, mx.nd.NDArray):
        return [output.asnumpy()]
    if isinstance(output, (list, tuple)):
        return [array for item in output for array in _flatten(item)]
    if isinstance(output, dict):  # by key (sockeye's model returns its outputs by name)
        return [array for key in sorted(output) for array in _flatten(output[key])]
    return []


def _fingerprint(arrays):
    import numpy as np

    def stat(value):
        return float(f"{float(value):.5g}")
    result = []
    for array in arrays:
        finite = np.nan_to_num(array.astype("float64"), nan=0.0, posinf=0.0, neginf=0.0)
        result.append([list(array.shape), str(array.dtype), stat(finite.mean()), stat(finite.std()),
                       stat(np.abs(finite).max() if finite.size else 0.0)])
    return result


def _difference(expected, actual):
    """None when equal within ATOL + RTOL*scale, else a short description."""
    import numpy as np
    if len(expected) != len(actual):
        return f"{len(expected)} outputs eagerly, {len(actual)} hybridized"
    worst = 0.0
    for index, (e, a) in enumerate(zip(expected, actual)):
        if e.shape != a.shape:
            return f"output {index}: shape {e.shape} eagerly, {a.shape} hybridized"
        if e.size == 0:
            continue
        e64, a64 = e.astype("float64"), a.astype("float64")
        if not np.array_equal(np.isnan(e64), np.isnan(a64)):
            return f"output {index}: NaN in different places"
        e64, a64 = np.nan_to_num(e64), np.nan_to_num(a64)
        scale = float(np.abs(e64).max())
        diff = float(np.abs(e64 - a64).max())
        if diff > ATOL + RTOL * scale:
            return f"output {index}: max |difference| {diff:.3g} (max |eager| {scale:.3g})"
        worst = max(worst, diff)
    return None


_VERSIONS = {}
_PROGRESS = None  # the worker's result pipe: phase reports go there, so a crash or time-out keeps what was measured


def _phase(name, label):
    """Tell the parent which phase starts, with the label so far (used if the process dies in that phase)."""
    if _PROGRESS is not None:
        _PROGRESS.write(json.dumps({"phase": name, "partial": label}, sort_keys=True) + "\n")


def _seed():
    import random
    import mxnet as mx
    import numpy as np
    random.seed(SEED)
    np.random.seed(SEED)
    mx.random.seed(SEED)


def _train_sensitive(recorder, roots):
    """Whether a library file the model ran reads the training mode in Python (autograd.is_training() and
    the like), which hybridize() freezes at trace time. MXNet's own BatchNorm and Dropout read the mode inside
    the operator at run time, so they need no train-mode call (the comparison would cost two more passes)."""
    for rel in recorder.files:
        if rel.startswith("mxnet/"):
            continue
        for root in roots:
            path = os.path.join(root, rel)
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                if any(word in text for word in ("is_training", "is_recording", "train_mode", "predict_mode")):
                    return True
                break
    return False


def _snapshot(net):
    return {name: [d.copy() for d in param.list_data()] for name, param in net.collect_params().items()
            if param._data is not None}


def _restore(net, saved):
    for name, param in net.collect_params().items():
        if name in saved:
            try:
                for target, value in zip(param.list_data(), saved[name]):
                    value.copyto(target)
            except Exception:  # noqa: BLE001 -- e.g. a weight kept in an MKLDNN layout refuses copyto
                param.set_data(saved[name][0])


def _disable_dropout(net):
    from mxnet.gluon import nn
    if isinstance(net, nn.Dropout):
        net._rate = 0.0
    for child in net._children.values():
        _disable_dropout(child)


def _phase_of_hybrid_failure(error):
    """TRACE_FAIL if the error was raised inside the Python trace of hybrid_forward, else GRAPH_FAIL."""
    import traceback
    names = [(frame.filename.replace(os.sep, "/"), frame.name) for frame in traceback.extract_tb(error.__traceback__)]
    in_trace = any(path.endswith("mxnet/gluon/block.py") and name == "_get_graph" for path, name in names)
    return "TRACE_FAIL" if in_trace else "GRAPH_FAIL"


def label_one(library, name, train_mode=True):
    """Label one model; returns the label dict (without the time, which the caller adds)."""
    import mxnet as mx
    from mxnet import autograd
    from models import build
    roots = _package_roots()
    recorder = _Recorder(roots)
    label = {"library": library, "name": name, "versions": _VERSIONS}

    def fail(verdict, phase, error):
        label.update(verdict=verdict, phase=phase, error={
            "type": type(error).__name__, "message": _clean_message(error), "frames": _frames(error, recorder)})
        return label

    _phase("eager", label)
    _seed()
    try:
        with recorder:
            net, inputs = build(library, name)
            net.initialize()
            _disable_dropout(net)
            _seed()
            eager = _flatten(net(*inputs))
    except Exception as error:  # noqa: BLE001 -- any failure here is the model's, and is the label
        label["eager_files"] = sorted(recorder.files)
        return fail("EAGER_FAIL", "eager", error)
    label["eager_files"] = sorted(recorder.files)
    label["inputs"] = [_shape_of(value) for value in inputs]
    label["fingerprint"] = _fingerprint(eager)
    train_sensitive = _train_sensitive(recorder, roots)
    eager_train = None
    if train_sensitive and not train_mode:
        label["train"] = {"verdict": "EAGER_FAIL", "reason": "the process died in the eager train-mode call"}
    elif train_sensitive:
        _phase("eager-train", label)
        saved = _snapshot(net)
        try:
            _seed()
            with autograd.train_mode():
                eager_train = _flatten(net(*inputs))
        except Exception as error:  # noqa: BLE001
            label["train"] = {"verdict": "EAGER_FAIL", "reason": f"{type(error).__name__}: {_clean_message(error)}"}
        _restore(net, saved)

    _phase("hybrid", label)
    net.hybridize()
    recorder.want_lines = True
    recorder.lines = {}
    try:
        _seed()
        with recorder:
            first = _flatten(net(*inputs))
    except Exception as error:  # noqa: BLE001
        label["trace_lines"] = _lines(recorder)
        fail(_phase_of_hybrid_failure(error), "hybrid", error)
        if not label["error"]["frames"]:
            _phase("locating", label)
            label["blocks"] = _differing_blocks(net, inputs, "predict", recorder)
        return label
    finally:
        recorder.want_lines = False
    label["trace_lines"] = _lines(recorder)
    _phase("hybrid-second-call", label)
    try:
        _seed()
        second = _flatten(net(*inputs))
    except Exception as error:  # noqa: BLE001
        return fail("GRAPH_FAIL", "hybrid-second-call", error)
    difference = _difference(eager, first) or _difference(eager, second)
    verdict = "OK"
    if difference:
        verdict = "DIFF"
        label["diff"] = {"mode": "predict", "detail": difference}
    if eager_train is not None:
        _phase("hybrid-train", label)
        saved = _snapshot(net)
        train = {}
        try:
            _seed()
            with autograd.train_mode():
                hybrid_train = _flatten(net(*inputs))
            train_difference = _difference(eager_train, hybrid_train)
            train["verdict"] = "DIFF" if train_difference else "OK"
            if train_difference:
                train["detail"] = train_difference
                mx.random.seed(SEED + 1)  # a difference that follows the seed is randomness, not a finding
                with autograd.train_mode():
                    reseeded = _flatten(net(*inputs))
                if _difference(hybrid_train, reseeded):
                    train = {"verdict": "random"}
        except Exception as error:  # noqa: BLE001
            train = {"verdict": "GRAPH_FAIL", "reason": f"{type(error).__name__}: {_clean_message(error)}"}
        _restore(net, saved)
        label["train"] = train
        if verdict == "OK" and train["verdict"] in ("DIFF", "GRAPH_FAIL"):
            verdict = "DIFF"
            label["diff"] = {"mode": "train", "detail": train.get("detail") or train.get("reason")}
    label["verdict"] = verdict
    if verdict == "DIFF":
        _phase("locating", label)
        label["diff"]["blocks"] = _differing_blocks(net, inputs, label["diff"]["mode"], recorder)
    return label


def _shape_of(value):
    import mxnet as mx
    if isinstance(value, mx.nd.NDArray):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shape_of(item) for item in value]
    return repr(value)


def _lines(recorder):
    return {path: sorted(lines) for path, lines in sorted(recorder.lines.items()) if lines}


LOCATE_BUDGET = 60.0  # seconds for locating a DIFF's blocks; what was found by then is kept


def _differing_blocks(net, inputs, mode, recorder):
    """Where a DIFF (or a failure without library frames) comes from: the innermost HybridBlocks whose own
    output differs, or that fail, when hybridized alone.

    Each block's eager input is captured with a forward pre-hook in one eager call of the whole model. Then,
    top-down from the model, the children of a differing block are run alone on their captured input,
    eagerly and hybridized (a fresh trace), in the same mode; the search descends only into children that
    differ. A differing block none of whose children differ is returned, with the file and line of its
    hybrid_forward.
    """
    from mxnet import autograd
    from mxnet.gluon import HybridBlock
    captured = {}
    blocks = []

    def collect(block, path):
        blocks.append((path, block))
        for key, child in block._children.items():
            collect(child, f"{path}.{key}")
    collect(net, "net")
    # before the hooks: MXNet's hybridize() formats a warning with repr(block) for a block with pre-hooks, and
    # the repr of some blocks raises (gluonts' validated repr of a block whose argument it cannot serialize)
    net.hybridize(active=False)
    hooks = []
    for path, block in blocks:
        def pre(block, args, path=path):
            captured.setdefault(path, [a.copy() if hasattr(a, "copy") else a for a in args])
        hooks.append(block.register_forward_pre_hook(pre))
    saved = _snapshot(net)
    try:
        _seed()
        if mode == "train":
            with autograd.train_mode():
                net(*inputs)
        else:
            net(*inputs)
    except Exception:  # noqa: BLE001
        return []
    finally:
        for hook in hooks:
            hook.detach()
    _restore(net, saved)

    def run(block, args):
        _seed()
        if mode == "train":
            with autograd.train_mode():
                return _flatten(block(*args))
        return _flatten(block(*args))

    def differs(path, block):
        args = captured[path]
        try:
            block.hybridize(active=False)
            eager = run(block, args)
        except Exception:  # noqa: BLE001 -- a block that cannot run alone eagerly is not a finding
            _restore(net, saved)
            return False
        _restore(net, saved)
        try:
            block.hybridize()
            if mode == "train":  # as in the model: traced by a predict-mode call, then called in train mode
                _seed()
                block(*args)
                _restore(net, saved)
            hybrid = run(block, args)
        except Exception:  # noqa: BLE001 -- runs eagerly alone, fails hybridized alone: it is where it breaks
            _restore(net, saved)
            return True
        _restore(net, saved)
        return _difference(eager, hybrid) is not None

    deadline = time.perf_counter() + LOCATE_BUDGET
    innermost = []
    frontier = [("net", net)]
    while frontier and time.perf_counter() < deadline:
        path, block = frontier.pop()
        children = [(f"{path}.{key}", child) for key, child in block._children.items()
                    if isinstance(child, HybridBlock) and f"{path}.{key}" in captured]
        bad = [(child_path, child) for child_path, child in children if differs(child_path, child)]
        if bad:
            frontier.extend(bad)
        elif path != "net" or isinstance(block, HybridBlock):
            innermost.append((path, block))
    found = {}  # one entry per hybrid_forward (many blocks share a class), with the first block and the count
    for path, block in sorted(innermost, key=lambda item: item[0]):
        code = type(block).hybrid_forward.__code__
        key = (code.co_filename, code.co_firstlineno)
        if key in found:
            found[key]["count"] += 1
            continue
        found[key] = {"block": path, "class": type(block).__name__, "path": recorder.relpath(code.co_filename),
                      "line": code.co_firstlineno, "count": 1}
    return list(found.values())


def _versions():
    import importlib.metadata as metadata
    versions = {}
    for distribution in ("mxnet", "gluoncv2", "gluoncv", "gluonnlp", "gluonts", "gluonfr", "sockeye", "numpy"):
        try:
            versions[distribution] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            pass
    return versions


def worker_main(library):
    """Read names on stdin, write one JSON label per line on the result pipe (the real stdout)."""
    global _PROGRESS
    results = _PROGRESS = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever the models print goes to the log, not into the results
    sys.stdout = sys.stderr
    import logging
    import warnings
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sys.path.insert(0, str(HERE))
    from models import import_library
    import_library(library)  # before any recording: what runs at import time is no model's doing
    _VERSIONS.update(_versions())
    results.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        if name == "__list__":
            from models import model_names
            results.write(json.dumps({"names": model_names(library)}) + "\n")
            continue
        name, _, option = name.partition("\t")
        started = time.perf_counter()
        try:
            label = label_one(library, name, train_mode=option != "no-train")
        except Exception as error:  # noqa: BLE001 -- a labeller bug must not lose the run: record it
            label = {"library": library, "name": name, "verdict": "EAGER_FAIL", "phase": "labeller",
                     "error": {"type": type(error).__name__, "message": _clean_message(error), "frames": []}}
        label["seconds"] = round(time.perf_counter() - started, 2)
        label["versions"] = _VERSIONS
        results.write(json.dumps(label, sort_keys=True) + "\n")


# ============================================================================ parent (no MXNet needed)

class Worker:
    def __init__(self, python, library, log, extra_path=None):
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MXNET_CPU_WORKER_NTHREADS="1", PYTHONHASHSEED="0", MXNET_HOME=str(WORK / "mxnet-home"),
                   MXNET_ENGINE_TYPE="NaiveEngine")
        if extra_path:  # a fixed copy of the library goes first on sys.path
            env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.process = subprocess.Popen([python, "-u", str(Path(__file__).resolve()), "--worker", library],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env,
                                        bufsize=0)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.done = 0
        self.pending = b""
        if self.read(300) is None:
            raise RuntimeError(f"the labelling worker did not start; see {log.name}")

    def read(self, timeout):
        """The next JSON line of the worker, None on time-out or end of file. Reads the pipe unbuffered:
        a buffered readline could swallow two lines while select() waits for a third."""
        deadline = time.time() + timeout
        while b"\n" not in self.pending:
            if not self.selector.select(max(0.0, deadline - time.time())):
                return None
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def ask(self, name, timeout):
        """The worker's answer for `name`; (None, last phase report) when it timed out or died."""
        self.process.stdin.write(name.encode() + b"\n")
        self.done += 1
        deadline = time.time() + timeout
        phase = {"phase": "start", "partial": {}}
        while True:
            answer = self.read(max(0.0, deadline - time.time()))
            if answer is None:
                return None, phase
            if "partial" in answer:  # a phase report, not the label
                phase = answer
            else:
                return answer, phase

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def read_labels(path):
    labels = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                label = json.loads(line)
                labels[label["name"]] = label
    return labels


def sort_file(path):
    labels = read_labels(path)
    path.write_text("".join(json.dumps(labels[name], sort_keys=True) + "\n" for name in sorted(labels)))


def run_library(args, library, out_dir, log):
    out_path = out_dir / f"{library}.jsonl"
    done = read_labels(out_path)
    worker = Worker(args.python, library, log, args.library_path)
    names = worker.ask("__list__", 300)[0]["names"]
    if args.names:
        wanted = set(args.names)
        names = [name for name in names if name in wanted]
    if args.match:
        names = [name for name in names if re.search(args.match, name)]
    # cheap models first (32x32 inputs), so that a run cut short has labelled as many models as it could
    todo = sorted((name for name in names if name not in done), key=_cost_rank)
    if args.limit is not None:
        todo = todo[:args.limit]
    try:
        _label_all(args, library, todo, out_path, log, worker)
    finally:
        if args.sort:
            sort_file(out_path)


def _died(worker):
    try:
        return worker.process.wait(timeout=5) is not None
    except subprocess.TimeoutExpired:
        return False


def _lost(worker, library, name, phase, timeout):
    """The label of a model whose worker died or timed out, from the last phase it reported.

    A crash (a signal, e.g. SIGFPE inside an operator) while hybridized is a GRAPH_FAIL: eager ran. A crash
    before, or any time-out, leaves the model out (EAGER_FAIL) with the reason. A crash or time-out while
    locating a DIFF's blocks keeps the verdict already measured, without the blocks.
    """
    try:
        code = worker.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    where = phase["phase"]
    label = dict(phase.get("partial") or {"library": library, "name": name})
    if code is None:
        error = {"type": "Timeout", "message": f"over {timeout:g} s during {where}", "frames": []}
    else:
        error = {"type": "Crash", "message": f"worker died (exit {code}) during {where}", "frames": []}
    if where == "locating":
        label.setdefault("verdict", "GRAPH_FAIL")
        label["located"] = error["message"]
        return label
    crashed_hybridized = code is not None and where.startswith("hybrid")
    label.update(verdict="GRAPH_FAIL" if crashed_hybridized else "EAGER_FAIL", phase=where, error=error)
    return label


def _label_all(args, library, todo, out_path, log, worker):
    counts = {}
    started = time.time()
    try:
        with out_path.open("a") as out:
            for index, name in enumerate(todo, 1):
                if worker is None or worker.done >= RESTART_EVERY or worker.process.poll() is not None:
                    if worker is not None:
                        worker.close()
                    worker = Worker(args.python, library, log, args.library_path)
                label, phase = worker.ask(name, args.timeout)
                if label is None and phase["phase"] == "eager-train" and _died(worker):
                    # died in the train-mode call alone (e.g. SIGFPE in an operator): label it without that call
                    worker.close()
                    worker = Worker(args.python, library, log, args.library_path)
                    label, phase = worker.ask(name + "\tno-train", args.timeout)
                if label is None:  # time-out or crash: the worker is replaced
                    label = _lost(worker, library, name, phase, args.timeout)
                    worker.close()
                    worker = None
                out.write(json.dumps(label, sort_keys=True) + "\n")
                out.flush()
                counts[label["verdict"]] = counts.get(label["verdict"], 0) + 1
                elapsed = time.time() - started
                summary = " ".join(f"{key}={value}" for key, value in sorted(counts.items()))
                print(f"\r[{library} {index}/{len(todo)} {elapsed / 60:.1f} min] {summary}  {name[:40]:<40}",
                      end="", file=sys.stderr, flush=True)
    finally:
        print(file=sys.stderr)
        if worker is not None:
            worker.close()


def make_venv(target):
    """Create a labelling venv with the pinned versions (needs a Python <= 3.11 as `python3.11`)."""
    python = os.environ.get("ZOO_PYTHON", "python3.11")
    subprocess.run([python, "-m", "venv", str(target)], check=True)
    pip = str(Path(target) / "bin" / "pip")
    subprocess.run([pip, "install", *VENV_REQUIREMENTS], check=True)
    print(f"labelling venv ready: --python {Path(target) / 'bin' / 'python'}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", metavar="LIBRARY", help=argparse.SUPPRESS)
    parser.add_argument("--library", action="append", help="library to label (repeatable; default: all)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with MXNet 1.9.1 and the libraries")
    parser.add_argument("--names", nargs="*", help="only these model names")
    parser.add_argument("--match", help="only names matching this regular expression")
    parser.add_argument("--limit", type=int, help="label at most this many new models per library")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per model (default 120)")
    parser.add_argument("--out", type=Path, default=LABELS, help="directory of the <library>.jsonl labels")
    parser.add_argument("--library-path", type=Path,
                        help="directory put first on the worker's sys.path (a fixed copy of the libraries)")
    parser.add_argument("--sort", action="store_true", help="sort the label files by name when done")
    parser.add_argument("--make-venv", type=Path, metavar="DIR", help="create a labelling venv and exit")
    parser.add_argument("--log", type=Path, default=WORK / "label.log", help="append progress here (default .work/)")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="DIR",
                        help="merge the labels of other --out folders into --out (sorted), and exit")
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.worker)
        return 0
    if args.make_venv:
        make_venv(args.make_venv)
        return 0
    if args.merge:
        for path in sorted({p.name for folder in args.merge for p in folder.glob("*.jsonl")}):
            with (args.out / path).open("a") as out:
                for folder in args.merge:
                    if (folder / path).exists():
                        out.write((folder / path).read_text())
            sort_file(args.out / path)
        return 0
    sys.path.insert(0, str(HERE))
    from models import LIBRARIES
    libraries = args.library or list(LIBRARIES)
    unknown = [library for library in libraries if library not in LIBRARIES]
    if unknown:
        parser.error(f"unknown library {unknown[0]!r}; known: {', '.join(LIBRARIES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    args.log.parent.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally clauses: no orphan workers
    with args.log.open("a") as log:
        for library in libraries:
            run_library(args, library, args.out, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
