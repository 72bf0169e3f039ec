"""The parameter name patterns of the labelled gluoncv zoo, and MXNet 1.9.1's outcome of ``Xavier`` on each, for
tests/runtime/test_runtime_zoo_xavier.py (written to zoo_init_patterns.json beside this file).

    python tests/runtime/zoo_init_patterns.py          # in a venv with MXNet 1.9.1 and gluoncv (some minutes)
    python tests/runtime/zoo_init_patterns.py A,B      # walk models A and B again, merged into the file

MXNet's initializers dispatch on a parameter's own ``init`` (``running_mean`` is ``zeros``) and, where it has
none, on the end of its name (``weight``, ``bias``, ``gamma``, ``beta``, ``min``, ``max``, ``weight_quantize``,
``bias_quantize``; anything else fails), and Xavier fails on fewer than two dimensions. So a parameter's outcome
depends on its pattern only: the end of its name after the last token holding a digit (``resnetv10_conv0_weight``
-> ``weight``, ``..._batchnorm0_running_mean`` -> ``running_mean``), its ``init`` (as MXNet stores it: an
initializer's JSON or a name), its number of dimensions and its dtype. Every labelled gluoncv model that runs
eagerly on MXNet is built (``pretrained=False``, benchmarks/zoo/models.py), with no call: its parameters' shapes
keep their unknown dimensions as 0, their number is known; a SymbolBlock's (no shape at all before a call) come
from MXNet's shape inference on the model's input (``infer_shape``, nothing computed). Each pattern is then initialised on MXNet as
``net.initialize(mx.init.Xavier(), force_reinit=True)`` initialises it (``Parameter.initialize`` with Xavier as
the default initializer and a shape of 2s), and the outcome recorded."""
import json
import os
import re
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "zoo_init_patterns.json")


def pattern_of(name):
    """The end of ``name`` that MXNet's dispatch can read: the tokens after the last one holding a digit."""
    tokens = name.split("_")
    last = max((i for i, token in enumerate(tokens) if re.search(r"\d", token)), default=-1)
    return "_".join(tokens[last + 1:]) or tokens[-1]


def init_text(init):
    """A parameter's ``init`` as a comparable string: None, a name, or an initializer's JSON (``dumps()``); the
    initializer Gluon registers for each constant (``Constant_<name>_<id>``) as ``gluon-constant``."""
    if init is None:
        return None
    if isinstance(init, str):
        return "gluon-constant" if init.startswith("Constant_") else init
    return init.dumps()


def outcome(mx, pattern, init, ndim, dtype):
    """("ok", "const" value or "varied") or ("error", type) of Xavier as the default initializer, force_reinit;
    ("custom", its JSON) for a parameter whose own initializer is the model library's (gluoncv's ``ZeroUniform``:
    not registered with MXNet outside the model, and it runs instead of Xavier's dispatch)."""
    if init == "gluon-constant":  # a constant's own values: neither Xavier's dispatch nor comparable by name
        return ["custom", init]
    if init is not None and init.startswith("["):
        try:
            init = mx.init.create(init)
        except (AssertionError, ValueError, KeyError):
            return ["custom", init]
    param = mx.gluon.Parameter("p0_" + pattern, shape=(2,) * ndim, dtype=dtype, init=init)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            param.initialize(default_init=mx.init.Xavier(), force_reinit=True)
        values = param.data().asnumpy()
    except Exception as err:  # noqa: BLE001 - the error is the outcome compared
        return ["error", type(err).__name__]
    return ["ok", float(values.flat[0]) if (values == values.flat[0]).all() else "varied"]


def walk(mx, only=None, before=None):
    """{pattern key: {"models": [...], "mxnet": outcome}}, the models each pattern occurs in; with ``only``, the
    walk of those models replaces theirs in ``before`` (an earlier result)."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "zoo"))
    import models

    labels = [json.loads(line) for line in open(os.path.join(ROOT, "benchmarks", "zoo", "labels", "gluoncv.jsonl"))]
    names = sorted(row["name"] for row in labels if row["verdict"] != "EAGER_FAIL")
    found, skipped, unshaped = {}, {}, {}
    if only:
        for key, entry in before["patterns"].items():
            kept = set(entry["models"]) - set(only)
            if kept:
                found[key] = {"models": kept, "example": entry["example"]}
        skipped = {k: v for k, v in before["skipped"].items() if k not in only}
        unshaped = {k: v for k, v in before["unshaped"].items() if k not in only}
    for number, name in enumerate(only or names, 1):
        try:
            net, inputs = models.build("gluoncv", name)
            if any(param.shape is None for param in net.collect_params().values()):
                net.infer_shape(*inputs)  # a SymbolBlock's shapes: MXNet's shape inference, no computation
        except Exception as err:  # noqa: BLE001 - listed apart
            skipped[name] = "%s: %s" % (type(err).__name__, str(err).splitlines()[0][:120] if str(err) else "")
            continue
        for param_name, param in net.collect_params().items():
            if param.shape is None:  # its number of dimensions is decided by the first call
                unshaped.setdefault(name, []).append(param_name)
                continue
            key = json.dumps([pattern_of(param_name), init_text(param.init), len(param.shape),
                              np.dtype(param.dtype).name])
            found.setdefault(key, {"models": set(), "example": param_name})["models"].add(name)
        print("%d/%d %s: %d patterns so far" % (number, len(only or names), name, len(found)), flush=True)
    patterns = {}
    for key, entry in sorted(found.items()):
        pattern, init, ndim, dtype = json.loads(key)
        patterns[key] = {"models": sorted(entry["models"]), "example": entry["example"],
                         "mxnet": outcome(mx, pattern, init, ndim, dtype)}
    return {"models": names, "skipped": skipped, "unshaped": unshaped, "patterns": patterns}


if __name__ == "__main__":
    import mxnet

    only = sys.argv[1].split(",") if len(sys.argv) > 1 else None  # models to walk again, merged into OUT
    result = walk(mxnet, only, json.load(open(OUT)) if only else None)
    result["versions"] = {"mxnet": mxnet.__version__, "gluoncv": __import__("gluoncv").__version__}
    with open(OUT, "w") as out:
        json.dump(result, out, indent=1, sort_keys=True)
        out.write("\n")
    print("%d patterns from %d models (%d skipped) -> %s" % (len(result["patterns"]), len(result["models"]),
                                                            len(result["skipped"]), OUT))
