"""Real library models on the NumPy runtime, compared with real MXNet 1.9.1.

For each model (gluoncv2's ``get_model(name)``, ``mxnet.gluon.model_zoo.vision.get_model(name)``, a few
gluoncv and gluonnlp ones) one worker process on real MXNet builds it with a fixed seed, runs it eagerly
and hybridized on a fixed input and saves its parameters (by structural name) and outputs; a second worker
builds the same model under ``hylint.runtime.activate()``, loads those parameters, runs it eagerly and
hybridized, and compares each output with MXNet's. Each failure is reduced to a cause (the exception type
and message, ``AttributeError: module 'mxnet.gluon.nn' has no attribute 'Conv3D'``) and the causes are
tallied by frequency.

    python benchmarks/runtime_models.py --lib gluoncv2 --sample 150 --seed 0
    python benchmarks/runtime_models.py --lib vision
    python benchmarks/runtime_models.py --lib gluoncv2 --names resnet18,mobilenet_w1

A model passes when every output has MXNet's shape and ``|runtime - mxnet| <= atol + rtol * max|mxnet|``
(atol = rtol = 1e-4; float32 rounding grows with the output's scale: AlexNet's logits reach 300), both
eagerly and hybridized, and its parameters have MXNet's names (name scopes). A model whose hybridized call
fails on MXNet passes when its eager outputs match and its hybridized call fails with the same exception
type. Models MXNet itself cannot build or run eagerly on the default input are listed apart, not counted.
Needs the venv with real MXNet and the libraries (``/work/venv-mx``); run from the repository root.
"""
import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATOL = RTOL = 1e-4

# per library: how to list the models, how to build one, the default input shape
GLUONNLP_MODELS = ("standard_lstm_lm_200", "awd_lstm_lm_600", "awd_lstm_lm_1150", "big_rnn_lm_2048_512",
                   "bert_12_768_12", "roberta_12_768_12")


def list_models(lib):
    if lib == "gluoncv2":
        from gluoncv2.model_provider import _models
        return sorted(_models)
    if lib == "vision":  # MXNet keeps the table inside get_model; its error message lists every name
        from mxnet.gluon.model_zoo.vision import get_model
        try:
            get_model("?")
        except ValueError as exc:
            return sorted(str(exc).split("\n\t")[1:])
    if lib == "gluoncv":
        from gluoncv.model_zoo.model_zoo import _models
        return sorted(_models)
    if lib == "gluonnlp":
        return list(GLUONNLP_MODELS)
    raise SystemExit("unknown --lib %r" % lib)


def build(lib, name):
    """The model (uninitialised) and its input arrays (numpy), for ``lib`` under the current ``mxnet``."""
    if lib == "gluoncv2":
        from gluoncv2.model_provider import get_model
        net = get_model(name)
    elif lib == "vision":
        from mxnet.gluon.model_zoo.vision import get_model
        net = get_model(name)
    elif lib == "gluoncv":
        from gluoncv.model_zoo import get_model
        try:  # detection/video models download a pretrained backbone unless told not to
            net = get_model(name, pretrained=False, pretrained_base=False)
        except TypeError:
            net = get_model(name, pretrained=False)
    else:
        import gluonnlp
        kwargs = dict(dataset_name=None, vocab=gluonnlp.Vocab(gluonnlp.data.count_tokens(
            ["w%d" % i for i in range(50)])), pretrained=False)
        if name.startswith(("bert", "roberta")):
            kwargs.update(use_decoder=False)
            if name.startswith("bert"):
                kwargs.update(use_pooler=True, use_classifier=False)
        net = gluonnlp.model.get_model(name, **kwargs)
        if isinstance(net, tuple):
            net = net[0]
    return net, make_inputs(lib, name, net)


def make_inputs(lib, name, net):
    rs = np.random.RandomState(0)
    if lib == "gluonnlp":
        tokens = rs.randint(0, 50, size=(8, 2)).astype("float32")
        if name.startswith("bert"):
            return [tokens.T.copy(), np.zeros((2, 8), "float32"), np.array([8, 5], "float32")]
        if name.startswith("roberta"):
            return [tokens.T.copy(), np.array([8, 5], "float32")]
        if name.startswith("big_rnn"):  # its forward needs the begin state
            return [tokens, [s.asnumpy() for s in net.begin_state(batch_size=2)]]
        return [tokens]
    size = getattr(net, "in_size", None) or (224, 224)
    if lib == "vision" and name.startswith("inception"):
        size = (299, 299)
    if lib == "gluoncv" and "cifar" in name:
        size = (32, 32)
    channels = getattr(net, "in_channels", 3) if isinstance(getattr(net, "in_channels", 3), int) else 3
    return [rs.normal(size=(1, channels) + tuple(size)).astype("float32")]


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _flat(o)]
    return [out.asnumpy()]


def cause_of(exc):
    """One line naming why a model failed: the exception type and the first line of its message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return ("%s: %s" % (type(exc).__name__, text))[:160]


class Timeout(BaseException):  # not caught by the "hybridize failed" handler
    pass


def _alarm(signum, frame):
    raise Timeout("model took longer than the time limit")


def worker(backend, lib, names, out_dir, limit):
    """Run ``names`` on one backend, writing ``<out_dir>/<name>.<backend>.npz`` and one JSON line per model."""
    if backend == "runtime":
        sys.path.insert(0, ROOT)
        from hylint.runtime import activate
        active = activate()              # the whole worker runs on the runtime (kept referenced: the
        active.__enter__()               # context restores the real mxnet when collected)
    import mxnet as mx
    assert getattr(mx, "__hylint_runtime__", False) == (backend == "runtime"), mx
    signal.signal(signal.SIGALRM, _alarm)
    log = open(os.path.join(out_dir, "log.%s.jsonl" % backend), "a")
    for name in names:
        log.write(json.dumps({"name": name, "event": "start"}) + "\n")
        log.flush()
        record = {"name": name, "event": "done"}
        path = os.path.join(out_dir, "%s.%s.npz" % (name, backend))
        signal.alarm(limit)
        stage = "import"
        try:
            mx.random.seed(0)
            np.random.seed(0)
            stage = "build"
            net, inputs = build(lib, name)
            if backend == "mxnet":
                net.initialize()
            else:
                net.initialize()
                ref = np.load(os.path.join(out_dir, "%s.mxnet.npz" % name))
                stage = "load"
            args = [[mx.nd.array(b) for b in a] if isinstance(a, list) else mx.nd.array(a) for a in inputs]
            stage = "eager"
            if backend == "runtime":
                _load_deferred(net, ref, args)
            t = time.perf_counter()
            eager = _flat(net(*args))
            record["eager_s"] = time.perf_counter() - t
            stage = "hybridized"
            net.hybridize()
            t = time.perf_counter()
            try:
                hybrid = _flat(net(*args))
            except Exception as exc:  # noqa: B902 - a model that does not hybridize: its error is the verdict
                hybrid, record["hybrid_error"] = [], cause_of(exc)
            record["hybrid_s"] = time.perf_counter() - t
            arrays = {"eager_%d" % i: a for i, a in enumerate(eager)}
            arrays.update({"hybrid_%d" % i: a for i, a in enumerate(hybrid)})
            names = np.array(sorted(k[len(net.prefix):] for k in net.collect_params().keys()))
            if backend == "mxnet":
                arrays.update({"param:" + k: p.data().asnumpy() for k, p in net._collect_params_with_prefix().items()})
                np.savez(path, names=names, **arrays)
            elif "names" in ref.files and list(names) != list(ref["names"]):
                wrong = sorted(set(names) ^ set(ref["names"]))
                record.update(status="differs", cause="parameter names (name scopes) differ from MXNet's", where=wrong[:4])
            else:
                record.update(compare(ref, arrays))
                theirs = refs_log(out_dir)[name].get("hybrid_error")
                ours = record.get("hybrid_error")
                if record.get("status", "ok") == "ok" and (theirs or ours) and \
                        (theirs or "").split(":")[0] != (ours or "").split(":")[0]:
                    record.update(status="differs", cause="hybridized: %s, MXNet: %s" % (
                        ours or "runs", theirs or "runs"))
            record["status"] = record.get("status", "ok")
        except BaseException as exc:  # noqa: B902 - a model's failure, whatever it is, is the measurement
            if isinstance(exc, KeyboardInterrupt):
                raise
            record.update(status="error", stage=stage, cause=cause_of(exc),
                          where=_user_frame(exc))
        finally:
            signal.alarm(0)
        log.write(json.dumps(record) + "\n")
        log.flush()


def refs_log(out_dir):
    """The MXNet worker's records by model name."""
    with open(os.path.join(out_dir, "log.mxnet.jsonl")) as f:
        return {r["name"]: r for r in map(json.loads, f) if r["event"] == "done"}


def _load_deferred(net, ref, args):
    """Give the runtime model MXNet's parameter values (``set_data`` also ends a deferred initialisation)."""
    params = net._collect_params_with_prefix()
    missing = sorted(set(k[6:] for k in ref.files if k.startswith("param:")) ^ set(params))
    if missing:
        raise KeyError("parameter names differ from MXNet's: %s" % missing[:5])
    for k, p in params.items():
        p.set_data(ref["param:" + k])


def _user_frame(exc):
    """The innermost frame outside the runtime: where in the library the failure shows."""
    frames = traceback.extract_tb(exc.__traceback__)
    inner = [f for f in frames if "hylint" not in f.filename]
    if not inner:
        return None
    f = inner[-1]
    return "%s:%d" % (os.path.relpath(f.filename, os.path.dirname(os.path.dirname(f.filename))), f.lineno)


def compare(ref, arrays):
    result = {}
    for mode in ("eager", "hybrid"):
        keys = sorted((k for k in arrays if k.startswith(mode + "_")), key=lambda k: int(k.split("_")[1]))
        want = sorted((k for k in ref.files if k.startswith(mode + "_")), key=lambda k: int(k.split("_")[1]))
        
        if len(keys) != len(want):
            return {"status": "differs", "cause": "%s: %d outputs, MXNet %d" % (mode, len(keys), len(want))}
        worst = 0.0
        for k in keys:
            a, b = arrays[k], ref[k]
            if a.shape != b.shape:
                return {"status": "differs", "cause": "%s: shape %s, MXNet %s" % (mode, a.shape, b.shape)}
            excess = np.abs(a.astype("float64") - b) - (ATOL + RTOL * float(np.nanmax(np.abs(b), initial=0)))
            worst = max(worst, float(np.nanmax(excess)) if excess.size else 0.0)
            if np.isnan(a).any() != np.isnan(b).any():
                worst = float("inf")
        result["%s_excess" % mode] = worst
        if worst > 0:
            return dict(result, status="differs", cause="%s output differs (by %.3g beyond tolerance)" % (mode, worst))
    return result


def _read_log(log):
    """Records by name, and the model a worker started last without finishing (it died on it), or None."""
    records, started = {}, None
    for line in open(log) if os.path.exists(log) else ():
        r = json.loads(line)
        if r["event"] == "start":
            started = r["name"]
        else:
            records[r["name"]] = r
            started = None
    return records, started


def run_backend(backend, lib, names, out_dir, limit):
    """Run the worker until every name has a record (a worker that dies is restarted after the model it died on)."""
    log = os.path.join(out_dir, "log.%s.jsonl" % backend)
    records = _read_log(log)[0]          # a rerun in the same --out directory resumes
    todo = [n for n in names if n not in records]
    while todo:
        python = sys.executable
        proc = subprocess.run([python, os.path.abspath(__file__), "--worker", backend, "--lib", lib,
                               "--out", out_dir, "--limit", str(limit), "--names", ",".join(todo)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        records, started = _read_log(log)
        if started is not None and started not in records:
            tail = proc.stderr.strip().splitlines()[-1:] or ["exit %d" % proc.returncode]
            records[started] = {"name": started, "status": "error", "stage": "crash", "cause": "crash: " + tail[0][:120]}
            with open(log, "a") as f:
                f.write(json.dumps(dict(records[started], event="done")) + "\n")
        todo = [n for n in names if n not in records]
        if todo and proc.returncode == 0:
            raise SystemExit("worker ended without records for %s: %s" % (todo[:3], proc.stderr[-2000:]))
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="gluoncv2", choices=("gluoncv2", "vision", "gluoncv", "gluonnlp"))
    ap.add_argument("--sample", type=int, default=0, help="a random sample of this many models (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--names", default="", help="comma-separated model names instead of a sample")
    ap.add_argument("--limit", type=int, default=300, help="seconds per model and backend")
    ap.add_argument("--out", default="", help="work directory (kept; default: a temporary one)")
    ap.add_argument("--json", default="", help="write every model's record here")
    ap.add_argument("--merge", default="", help="comma-separated work directories of runs over parts of one "
                                                  "sample: report them together (the latest record per model)")
    ap.add_argument("--worker", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    names = [n for n in args.names.split(",") if n]
    if args.worker:
        return worker(args.worker, args.lib, names, args.out, args.limit)
    if args.merge:
        ref, got = {}, {}
        for directory in args.merge.split(","):
            ref.update(_read_log(os.path.join(directory, "log.mxnet.jsonl"))[0])
            got.update(_read_log(os.path.join(directory, "log.runtime.jsonl"))[0])
        names = sorted(ref)
        return report(args, names, ref, {n: r for n, r in got.items() if n in ref}, 0.0)
    if not names:
        names = list_models(args.lib)
        if args.sample:
            names = sorted(random.Random(args.seed).sample(names, args.sample))
    out_dir = args.out or tempfile.mkdtemp(prefix="runtime_models_")
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    ref = run_backend("mxnet", args.lib, names, out_dir, args.limit)
    ok_names = [n for n in names if ref[n]["status"] == "ok"]
    got = run_backend("runtime", args.lib, ok_names, out_dir, args.limit)
    report(args, names, ref, got, time.time() - t0)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"lib": args.lib, "names": names, "mxnet": ref, "runtime": got}, f, indent=1, sort_keys=True)


def _timed_out(record):
    return "Timeout" in record.get("cause", "") or "Timeout" in record.get("hybrid_error", "")


def report(args, names, ref, got, elapsed):
    mx_fail = [n for n in names if ref[n]["status"] != "ok"]
    passed = [n for n in got if got[n]["status"] == "ok"]
    timed_out = [n for n in got if got[n]["status"] != "ok" and _timed_out(got[n])]
    measured = len(got) - len(timed_out)
    not_run = len(names) - len(mx_fail) - len(got)
    print("%s: %d models, MXNet runs %d (fails on %d); runtime matches MXNet on %d/%d = %.1f%%; %d more ran out "
          "of time on the runtime, %d not run (%.0f s)"
          % (args.lib, len(names), len(names) - len(mx_fail), len(mx_fail), len(passed), measured,
             100.0 * len(passed) / max(1, measured), len(timed_out), not_run, elapsed))
    causes = collections.Counter(got[n]["cause"] for n in got if got[n]["status"] != "ok" and n not in timed_out)
    for cause, count in causes.most_common():
        examples = [n for n in got if got[n].get("cause") == cause][:3]
        print("  %3d  %s   (%s)" % (count, cause, ", ".join(examples)))
    if timed_out:
        print("ran out of time: " + ", ".join(timed_out))
    if mx_fail:
        print("MXNet itself fails on: " + ", ".join("%s (%s)" % (n, ref[n]["cause"][:60]) for n in mx_fail))
    slow = sorted((got[n]["eager_s"] / max(ref[n]["eager_s"], 1e-6), n) for n in passed)
    if slow:
        print("eager time runtime/MXNet: median %.1fx, worst %s" % (
            slow[len(slow) // 2][0], ", ".join("%s %.0fx" % (n, r) for r, n in slow[-3:])))


if __name__ == "__main__":
    main()
