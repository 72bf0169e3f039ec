"""Forward time of hylint's NumPy runtime against MXNet 1.9.1 on CPU, per model; prints a Markdown table.

    python benchmarks/runtime_speed.py                    # every model, 7 timed calls each
    python benchmarks/runtime_speed.py --calls 11 --models cifar_resnet20 mobilenet1_0
    python benchmarks/runtime_speed.py --backends numpy   # the runtime only (no MXNet needed)
    python benchmarks/runtime_speed.py --root /tmp/old    # the runtime of another checkout (before/after)

Both backends run in one process and take turns (per round, each makes a warm-up call and a timed
call), so that on a loaded machine both see about the same load; the ratio reported is the median of the
rounds' ratios; the runtime runs inside ``hylint.runtime.activate()``. The models are written
once against the Gluon API (``mx.gluon.nn`` layers only), so both backends build the same network:
a CIFAR ResNet-20 (basic blocks, 32x32 input), MobileNet 1.0 (depthwise convolutions, 224x224) and
ResNet-50 v1 (bottleneck blocks, 224x224), the architectures of ``mxnet.gluon.model_zoo.vision`` and
gluoncv's CIFAR zoo. Per model and mode (eager, hybridized): ``--calls`` rounds; a call is ``net(x)``
followed by ``.asnumpy()`` (MXNet's calls are asynchronous: this waits for the
result); the median is reported. MXNet's thread count is whatever its defaults give on this machine
(``OMP_NUM_THREADS`` is passed through); NumPy's BLAS likewise.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def measure(backends, models, calls, root):
    """In this process: ``{model: {mode: {backend: [seconds...]}}}``. The backends take turns, one
    warm-up and one timed call each per round: on a loaded machine both see about the same load."""
    import contextlib

    import numpy as np

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
    results = {}
    for name in models:
        nets, inputs = {}, {}
        for backend in backends:
            with scopes[backend]():
                mx = mods[backend]
                nets[backend] = build(mx, name)
                nets[backend].initialize(mx.init.Xavier())
                inputs[backend] = mx.nd.array(np.random.RandomState(0).standard_normal(INPUTS[name]).astype("float32"))
                nets[backend](inputs[backend]).asnumpy()  # deferred initialisation
        times = {}
        for mode in ("eager", "hybridized"):
            samples = {backend: [] for backend in backends}
            for backend in backends:
                if mode == "hybridized":
                    nets[backend].hybridize()
            for _ in range(calls):
                for backend in backends:
                    with scopes[backend]():
                        # a warm-up call first (the trace, for hybridized): it also absorbs the other
                        # backend's worker threads, which spin for a while after their last call
                        nets[backend](inputs[backend]).asnumpy()
                        start = time.perf_counter()
                        nets[backend](inputs[backend]).asnumpy()
                        samples[backend].append(time.perf_counter() - start)
            times[mode] = samples
        results[name] = times
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--calls", type=int, default=7)
    parser.add_argument("--backends", nargs="+", default=["numpy", "mxnet"], choices=["numpy", "mxnet"])
    parser.add_argument("--root", default=str(ROOT),
                        help="the checkout whose hylint.runtime runs (e.g. an older one, for a before/after table)")
    args = parser.parse_args(argv)
    found = measure(args.backends, args.models, args.calls, Path(args.root).resolve())
    print(f"median of {args.calls} forward calls, milliseconds (input shape in brackets); numpy / mxnet: the "
          f"median of the {args.calls} rounds' ratios\n")
    header = ["model", "mode"] + [f"{b} ms" for b in args.backends]
    if len(args.backends) == 2:
        header.append("numpy / mxnet")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.models:
        for mode in ("eager", "hybridized"):
            medians = [statistics.median(found[name][mode][b]) * 1000 for b in args.backends]
            row = [f"{name} ({'x'.join(map(str, INPUTS[name]))})", mode] + [f"{m:.1f}" for m in medians]
            if len(medians) == 2:  # the median of the rounds' ratios: each round's two calls saw the same load
                ratios = [a / b for a, b in zip(*(found[name][mode][b] for b in args.backends))]
                row.append(f"{statistics.median(ratios):.2f}x")
            print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
