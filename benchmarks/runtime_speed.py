"""Forward time of hylint's NumPy runtime against MXNet 1.9.1 on CPU, per model; prints a Markdown table.

    python benchmarks/runtime_speed.py                    # the three built-in networks, 7 timed calls each
    python benchmarks/runtime_speed.py --calls 11 --models cifar_resnet20 mobilenet1_0
    python benchmarks/runtime_speed.py --backends numpy   # the runtime only (no MXNet needed)
    python benchmarks/runtime_speed.py --root /tmp/old    # the runtime of another checkout (before/after)
    python benchmarks/runtime_speed.py --zoo gluoncv2 --sample 20 --seed 0 --modes eager --clock cpu
    python benchmarks/runtime_speed.py --zoo gluoncv2 --names mobilenetb_w1,densenet121

Both backends run in one process and take turns (per round, each makes a warm-up call and a timed
call), so that on a loaded machine both see about the same load; the ratio reported is the median of the
rounds' ratios, and the last line gives the median of the models' ratios per mode; the runtime runs
inside ``hylint.runtime.activate()``. The built-in models are written once against the Gluon API
(``mx.gluon.nn`` layers only), so both backends build the same network: a CIFAR ResNet-20 (basic blocks,
32x32 input), MobileNet 1.0 (depthwise convolutions, 224x224) and ResNet-50 v1 (bottleneck blocks,
224x224), the architectures of ``mxnet.gluon.model_zoo.vision`` and gluoncv's CIFAR zoo. ``--zoo LIB``
times models of the zoo check instead (``benchmarks/zoo``: the labelled models of that library whose
eager call runs on MXNet, built by ``benchmarks/zoo/models.py`` with their natural input, default
initialisation): ``--names`` picks some, ``--sample N --seed S`` a seeded random sample; a model that
fails on either backend, or whose first MXNet call takes longer than ``--max-seconds``, is listed apart
with the cause. Per model and mode (eager, hybridized): ``--calls`` rounds; a call is ``net(*inputs)``
followed by ``.asnumpy()`` of every output (MXNet's calls are asynchronous: this waits for the result);
the median is reported. ``--clock cpu`` measures the process's CPU time (all threads) instead of wall
time: on a shared machine it does not count the time other processes hold the cores, and it is fair
when both backends run one thread (``OMP_NUM_THREADS=1``; MXNet's idle OpenMP workers spin, which CPU
time would count). MXNet's thread count is whatever its defaults give on this machine
(``OMP_NUM_THREADS`` is passed through); NumPy's BLAS likewise (``OPENBLAS_NUM_THREADS``).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZOO = Path(__file__).resolve().parent / "zoo"
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
LIBRARIES = ("gluoncv2", "gluoncv", "gluonnlp")  # the model libraries the zoo's models come from
MODELS = ("cifar_resnet20", "mobilenet1_0", "resnet50_v1")
INPUTS = {"cifar_resnet20": (8, 3, 32, 32), "mobilenet1_0": (1, 3, 224, 224), "resnet50_v1": (1, 3, 224, 224)}


def build(mx, name):
    """The network ``name``, built from ``mx.gluon.nn`` layers (the same code for both backends)."""
    nn = mx.gluon.nn

    class Residual(nn.HybridBlock):
        """``relu(body(x) + x)``, or with a 1x1 strided convolution on the shortcut."""

        def __init__(self, layers, channels, stride, downsample, in_channels, **kwargs):
            super().__init__(**kwargs)
            self.body = nn.HybridSequential(prefix="")
            self.body.add(*layers)
            self.downsample = None
            if downsample:
                self.downsample = nn.HybridSequential(prefix="")
                self.downsample.add(nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels),
                                    nn.BatchNorm())

        def hybrid_forward(self, F, x):
            residual = x if self.downsample is None else self.downsample(x)
            return F.Activation(self.body(x) + residual, act_type="relu")

    def basic_block(channels, stride, downsample=False, in_channels=0):
        return Residual([nn.Conv2D(channels, 3, stride, 1, use_bias=False, in_channels=in_channels),
                         nn.BatchNorm(), nn.Activation("relu"),
                         nn.Conv2D(channels, 3, 1, 1, use_bias=False, in_channels=channels), nn.BatchNorm()],
                        channels, stride, downsample, in_channels)

    def bottleneck(channels, stride, downsample=False, in_channels=0):
        return Residual([nn.Conv2D(channels // 4, 1, stride, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                         nn.Conv2D(channels // 4, 3, 1, 1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                         nn.Conv2D(channels, 1, 1, use_bias=False), nn.BatchNorm()],
                        channels, stride, downsample, in_channels)

    net = nn.HybridSequential(prefix="")
    if name == "cifar_resnet20":
        net.add(nn.Conv2D(16, 3, 1, 1, use_bias=False), nn.BatchNorm())
        in_channels = 16
        for stage, channels in enumerate((16, 32, 64)):
            for index in range(3):
                stride = 2 if stage and not index else 1
                net.add(basic_block(channels, stride, channels != in_channels, in_channels))
                in_channels = channels
        net.add(nn.GlobalAvgPool2D(), nn.Dense(10))
    elif name == "mobilenet1_0":
        def conv(channels, kernel, stride, pad, groups=1):
            net.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False), nn.BatchNorm(),
                    nn.Activation("relu"))
        conv(32, 3, 2, 1)
        dw_channels = [32, 64, 128, 128, 256, 256] + [512] * 6
        channels = [64, 128, 128, 256, 256, 512] + [512] * 5 + [1024]
        strides = [1, 2, 1, 2, 1, 2] + [1] * 5 + [2]
        for dwc, c, s in zip(dw_channels, channels, strides):
            conv(dwc, 3, s, 1, groups=dwc)
            conv(c, 1, 1, 0)
        net.add(nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(1000))
    elif name == "resnet50_v1":
        net.add(nn.Conv2D(64, 7, 2, 3, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(3, 2, 1))
        in_channels = 64
        for stage, (layers, channels) in enumerate(zip((3, 4, 6, 3), (256, 512, 1024, 2048))):
            for index in range(layers):
                stride = 2 if stage and not index else 1
                net.add(bottleneck(channels, stride, index == 0, in_channels))
                in_channels = channels
        net.add(nn.GlobalAvgPool2D(), nn.Dense(1000))
    else:
        raise SystemExit(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    return net


def zoo_names(library, sample, seed):
    """The labelled models of ``library`` whose eager call runs on MXNet; ``sample`` of them, seeded."""
    labels = [json.loads(line) for line in (ZOO / "labels" / f"{library}.jsonl").read_text().splitlines() if line]
    names = sorted(row["name"] for row in labels if row["verdict"] != "EAGER_FAIL")
    return sorted(random.Random(seed).sample(names, sample)) if sample and sample < len(names) else names


def _builder(zoo):
    """``make(mx, name) -> (net, inputs)``: an initialised network and the inputs of one call."""
    import numpy as np

    if zoo is None:
        def make(mx, name):
            net = build(mx, name)
            net.initialize(mx.init.Xavier())
            return net, [mx.nd.array(np.random.RandomState(0).standard_normal(INPUTS[name]).astype("float32"))]
        return make
    sys.path.insert(0, str(ZOO))
    import models as zoo_models  # benchmarks/zoo/models.py: each model's natural input

    def make(mx, name):
        mx.random.seed(0)
        net, inputs = zoo_models.build(zoo, name)
        net.initialize()
        return net, inputs
    return make


def _wait(out):
    """``asnumpy()`` every output (nested lists and tuples too): MXNet computes asynchronously."""
    if isinstance(out, (list, tuple)):
        for item in out:
            _wait(item)
    elif hasattr(out, "asnumpy"):
        out.asnumpy()


def measure(backends, models, calls, root, zoo=None, modes=("eager", "hybridized"), clock="wall",
            max_seconds=None):
    """In this process: ``({model: {mode: {backend: [seconds...]}}}, {model: why it was skipped})``. The
    backends take turns, one warm-up and one timed call each per round: on a loaded machine both see
    about the same load."""
    import contextlib

    mods, scopes = {}, {}
    if "mxnet" in backends:
        import mxnet

        mods["mxnet"], scopes["mxnet"] = mxnet, contextlib.nullcontext
    if "numpy" in backends:
        sys.path.insert(0, str(root))
        from hylint.runtime import activate

        with activate() as runtime:
            mods["numpy"] = runtime
        scopes["numpy"] = activate  # `import mxnet` gives the runtime only while it runs
    make, now = _builder(zoo), CLOCKS[clock]
    own = {backend: {} for backend in backends}

    @contextlib.contextmanager
    def scope(backend):
        """The backend's ``mxnet`` and its own copies of the model libraries: gluoncv2's modules bind
        ``mxnet`` when first imported, so each backend imports them once for itself."""
        with scopes[backend]():
            others = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] in LIBRARIES}
            sys.modules.update(own[backend])
            try:
                yield
            finally:
                own[backend] = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] in LIBRARIES}
                sys.modules.update(others)

    results, skipped = {}, {}
    for name in models:
        nets, inputs = {}, {}
        try:
            for backend in backends:
                with scope(backend):
                    nets[backend], inputs[backend] = make(mods[backend], name)
                    start = time.perf_counter()
                    _wait(nets[backend](*inputs[backend]))  # deferred initialisation
                    if max_seconds and time.perf_counter() - start > max_seconds:
                        raise TimeoutError(f"first {backend} call took more than {max_seconds} s")
        except Exception as error:  # a model one backend cannot run: listed apart with its cause
            skipped[name] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:160]
            continue
        times = {}
        for mode in modes:
            samples = {backend: [] for backend in backends}
            try:
                for backend in backends:
                    if mode == "hybridized":
                        with scope(backend):
                            nets[backend].hybridize()
                for _ in range(calls):
                    for backend in backends:
                        with scope(backend):
                            # a warm-up call first (the trace, for hybridized): it also absorbs the other
                            # backend's worker threads, which spin for a while after their last call
                            _wait(nets[backend](*inputs[backend]))
                            start = now()
                            _wait(nets[backend](*inputs[backend]))
                            samples[backend].append(now() - start)
            except Exception as error:
                skipped[f"{name} ({mode})"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"[:160]
                continue
            times[mode] = samples
        results[name] = times
    return results, skipped


def _shape_label(name, zoo):
    return f"{name} ({'x'.join(map(str, INPUTS[name]))})" if zoo is None else name


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--zoo", choices=("gluoncv2", "mxnet", "gluoncv", "gluonnlp"),
                        help="time models of the zoo check (benchmarks/zoo) instead of the built-in networks")
    parser.add_argument("--names", help="with --zoo: comma-separated model names")
    parser.add_argument("--sample", type=int, default=0, help="with --zoo: a seeded random sample of this size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=5.0,
                        help="with --zoo: skip a model whose first call takes longer (either backend)")
    parser.add_argument("--modes", nargs="+", default=["eager", "hybridized"], choices=["eager", "hybridized"])
    parser.add_argument("--clock", default="wall", choices=sorted(CLOCKS))
    parser.add_argument("--calls", type=int, default=7)
    parser.add_argument("--backends", nargs="+", default=["numpy", "mxnet"], choices=["numpy", "mxnet"])
    parser.add_argument("--root", default=str(ROOT),
                        help="the checkout whose hylint.runtime runs (e.g. an older one, for a before/after table)")
    args = parser.parse_args(argv)
    if args.zoo:
        models = args.names.split(",") if args.names else zoo_names(args.zoo, args.sample, args.seed)
    else:
        models = args.models
    found, skipped = measure(args.backends, models, args.calls, Path(args.root).resolve(), args.zoo, args.modes,
                             args.clock, args.max_seconds if args.zoo else None)
    print(f"median of {args.calls} forward calls, milliseconds of {args.clock} time (input shape in brackets); "
          f"numpy / mxnet: the median of the {args.calls} rounds' ratios")
    if "numpy" in args.backends:  # the runtime's matrix products run in numpy's OpenBLAS, at its kernel's speed
        import numpy
        try:
            from hylint.runtime.blas import openblas_kernel
        except ImportError:  # an older checkout (--root)
            openblas_kernel = None
        kernel = openblas_kernel() if openblas_kernel else None
        print(f"numpy {numpy.__version__}, " + (f"{kernel[1].split('  ')[0]} running its {kernel[0]} kernel"
                                                if kernel else "its BLAS not read"))
    print()
    header = ["model", "mode"] + [f"{b} ms" for b in args.backends]
    if len(args.backends) == 2:
        header.append("numpy / mxnet")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    per_mode = {mode: [] for mode in args.modes}
    for name in found:
        for mode in found[name]:
            medians = [statistics.median(found[name][mode][b]) * 1000 for b in args.backends]
            row = [_shape_label(name, args.zoo), mode] + [f"{m:.1f}" for m in medians]
            if len(medians) == 2:  # the median of the rounds' ratios: each round's two calls saw the same load
                ratios = [a / b for a, b in zip(*(found[name][mode][b] for b in args.backends))]
                per_mode[mode].append(statistics.median(ratios))
                row.append(f"{statistics.median(ratios):.2f}x")
            print("| " + " | ".join(row) + " |")
    for mode, ratios in per_mode.items():
        if ratios:
            print(f"\n{mode}: median over {len(ratios)} models {statistics.median(ratios):.2f}x "
                  f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x; {sum(r <= 2 for r in ratios)} within 2x)")
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
