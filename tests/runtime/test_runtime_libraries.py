"""Real Gluon libraries on the runtime: gluoncv 0.10.5.post0, gluoncv2 0.0.64, gluonnlp 0.10.0 and the
runtime's own ``mxnet.gluon.model_zoo.vision`` import under ``hylint.runtime.activate()``, and their models
build and run eagerly and hybridized; where MXNet imports, with MXNet's parameters and MXNet's outputs
(atol/rtol 1e-4, by ``benchmarks/runtime_models.py``, the driver of the zoo-wide measurement).

``activate()`` swaps ``sys.modules``, and a library imported under it keeps the runtime, so every check
runs in a fresh interpreter."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRARIES = {"gluoncv": "gluoncv", "gluoncv2": "gluoncv2.model_provider", "gluonnlp": "gluonnlp",
             "vision": "mxnet.gluon.model_zoo.vision"}


def installed(lib):
    return lib == "vision" or importlib.util.find_spec(lib) is not None


def run_python(code, timeout=600):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("lib", sorted(LIBRARIES))
def test_library_imports_under_activate(lib):
    if not installed(lib):
        pytest.skip("%s is not installed" % lib)
    out = run_python("""
        import warnings
        warnings.simplefilter("ignore")
        from hylint.runtime import activate
        with activate() as mx:
            import importlib
            import sys
            name = %r
            module = importlib.import_module(name)
            import mxnet
            print(mxnet.__hylint_runtime__, sys.modules[name] is module)
    """ % LIBRARIES[lib])
    assert out.split() == ["True", "True"]


# a small model per library that builds and runs eagerly and hybridized on the runtime alone
SMALL_MODELS = {
    "gluoncv2": "from gluoncv2.model_provider import get_model\nnet = get_model('resnet10')\nshape = (1, 3, 224, 224)",
    "vision": "from mxnet.gluon.model_zoo.vision import get_model\nnet = get_model('mobilenetv2_0.25')\n"
              "shape = (1, 3, 224, 224)",
    "gluoncv": "from gluoncv.model_zoo import get_model\nnet = get_model('cifar_resnet20_v1')\nshape = (2, 3, 32, 32)",
    "gluonnlp": "import gluonnlp\nnet = gluonnlp.model.Highway(input_size=8, num_layers=2)\nshape = (3, 8)",
}


@pytest.mark.slow
@pytest.mark.parametrize("lib", sorted(SMALL_MODELS))
def test_a_model_runs_eagerly_and_hybridized_on_the_runtime(lib):
    if not installed(lib):
        pytest.skip("%s is not installed" % lib)
    out = run_python("""
        import json, warnings
        warnings.simplefilter("ignore")
        import numpy as np
        from hylint.runtime import activate
        with activate() as mx:
            mx.random.seed(0)
%s
            net.initialize()
            x = [mx.nd.array(np.random.RandomState(0).uniform(-1, 1, size=shape))]
            def flat(out):
                return [a for o in out for a in flat(o)] if isinstance(out, (list, tuple)) else [out.asnumpy()]
            eager = flat(net(*x))
            net.hybridize()
            hybrid = flat(net(*x))
            again = flat(net(*x))
            print(json.dumps([[list(a.shape) for a in eager],
                              max(float(np.abs(a - b).max()) for a, b in zip(eager, hybrid)),
                              max(float(np.abs(a - b).max()) for a, b in zip(hybrid, again))]))
    """ % textwrap.indent(SMALL_MODELS[lib], " " * 12))
    shapes, eager_vs_hybrid, hybrid_vs_again = json.loads(out.strip().splitlines()[-1])
    assert shapes and all(all(d > 0 for d in s) for s in shapes)
    assert eager_vs_hybrid <= 1e-4 and hybrid_vs_again == 0.0


# models compared with MXNet 1.9.1: the runtime loads MXNet's parameters and must give MXNet's outputs
MXNET_COMPARED = {
    "gluoncv2": ["resnet10", "mobilenet_wd4", "squeezenet_v1_1", "shufflenetv2_wd2", "airnet50_1x64d_r16"],
    "vision": ["resnet18_v1", "mobilenetv2_0.25", "squeezenet1.1"],
    "gluoncv": ["cifar_resnet20_v1", "mobilenetv3_small", "resnet18_v1b"],
    "gluonnlp": ["standard_lstm_lm_200", "bert_12_768_12"],
}


@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("lib", sorted(MXNET_COMPARED))
def test_models_match_mxnet(lib, tmp_path):
    from runtime_harness import real_mx
    if real_mx() is None:
        pytest.skip("MXNet does not import here")
    if not installed(lib):
        pytest.skip("%s is not installed" % lib)
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "runtime_models.py"), "--lib", lib,
                           "--names", ",".join(MXNET_COMPARED[lib]), "--out", str(tmp_path / "work"),
                           "--json", str(report)], capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(report.read_text())
    assert sorted(result["mxnet"]) == sorted(MXNET_COMPARED[lib])
    failures = {name: r.get("cause") for name, r in result["runtime"].items() if r["status"] != "ok"}
    assert not failures, failures
    assert sorted(result["runtime"]) == sorted(n for n, r in result["mxnet"].items() if r["status"] == "ok")
