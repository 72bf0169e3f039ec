"""How gluoncv models' parameters come out of ``initialize()``, on MXNet 1.9.1 or on the runtime (one backend per
process: ``activate()`` swaps ``sys.modules``, and gluoncv keeps the mxnet it imported first).

    python tests/runtime/initializer_probe.py {mxnet|runtime} OUT.json MODEL[,MODEL...]

For each model and initialiser: a fresh model, ``initialize(init)``, one call (deferred shapes are inferred
there), and the outcome; then a model initialised by default and called once, ``initialize(init,
force_reinit=True)``, and the outcome. An outcome is an error (where, type, first line) or each parameter as
("const", value, dtype, shape) or ("varied", dtype, shape, mean, std)."""
import json
import os
import sys
import warnings

import numpy as np

#: name -> (get_model keywords, input shape): no download (pretrained_base=False, the int8 graphs ship in gluoncv)
MODELS = {
    "cifar_resnet20_v1": ({}, (1, 3, 32, 32)),
    "mobilenetv3_small": ({}, (1, 3, 32, 32)),
    "ssd_512_mobilenet1.0_custom": ({"classes": ["a", "b"], "pretrained_base": False}, (1, 3, 128, 128)),
    "yolo3_mobilenet1.0_custom": ({"classes": ["a", "b"], "pretrained_base": False}, (1, 3, 64, 64)),
    "simple_pose_resnet18_v1b": ({"pretrained_base": False}, (1, 3, 64, 48)),
    "resnet50_v1_int8": ({}, (1, 3, 32, 32)),
    "mobilenet1.0_int8": ({}, (1, 3, 32, 32)),
    "simple_pose_resnet18_v1b_int8": ({}, (1, 3, 64, 48)),
}
INITIALIZERS = {"Uniform": lambda init: init.Uniform(), "Normal": lambda init: init.Normal(0.5),
                "Xavier": lambda init: init.Xavier(), "MSRAPrelu": lambda init: init.MSRAPrelu(),
                "Orthogonal": lambda init: init.Orthogonal(), "Constant": lambda init: init.Constant(0.5),
                "One": lambda init: init.One(), "Zero": lambda init: init.Zero()}


def _error(where, err):
    text = [line for line in str(err).strip().splitlines() if line.strip()]
    text = text[-1] if text else ""
    text = text[len("MXNetError: "):] if text.startswith("MXNetError: ") else text
    return ["error", where, type(err).__name__, text.split("(name=")[0]]


def _state(net):
    out = {}
    for name, param in net.collect_params().items():
        values = param.data().asnumpy()
        if values.size > 1 and (values == values.flat[0]).all():
            out[name] = ["const", float(values.flat[0]), str(values.dtype), list(values.shape)]
        else:
            out[name] = ["varied", str(values.dtype), list(values.shape), float(values.astype(np.float64).mean()),
                         float(values.astype(np.float64).std())]
    return out


def probe(mx, names):
    from gluoncv.model_zoo import get_model
    results = {}
    for name in names:
        kwargs, shape = MODELS[name]
        x = mx.nd.ones(shape)
        for init_name, make in sorted(INITIALIZERS.items()):
            net = get_model(name, **kwargs)
            try:
                net.initialize(make(mx.init))
                try:
                    net(x)
                    results["%s|%s|fresh" % (name, init_name)] = ["ok", _state(net)]
                except Exception as err:  # noqa: BLE001 - the error is the outcome compared
                    results["%s|%s|fresh" % (name, init_name)] = _error("call", err)
            except Exception as err:  # noqa: BLE001
                results["%s|%s|fresh" % (name, init_name)] = _error("initialize", err)
        net = get_model(name, **kwargs)
        net.initialize()
        net(x)
        results["%s|default" % name] = ["ok", _state(net)]
        for init_name, make in sorted(INITIALIZERS.items()):
            try:
                net.initialize(make(mx.init), force_reinit=True)
                results["%s|%s|force_reinit" % (name, init_name)] = ["ok", _state(net)]
            except Exception as err:  # noqa: BLE001
                results["%s|%s|force_reinit" % (name, init_name)] = _error("initialize", err)
    return results


def main(backend, out_path, names):
    warnings.simplefilter("ignore")
    if backend == "runtime":
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        from hylint.runtime import activate
        with activate() as mx:
            results = probe(mx, names)
    else:
        import mxnet as mx
        results = probe(mx, names)
    with open(out_path, "w") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3].split(","))
