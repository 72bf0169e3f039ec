"""How much of the runtime's hybridized call its matrix products alone take, per zoo model.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/runtime_gemm_share.py resnet18_v1 mobilenet1.0

One hybridized call of each gluoncv model (``benchmarks/zoo/models.py``: its natural input, default
initialisation) on hylint's NumPy runtime records the shape of every convolution's, deconvolution's and
dense layer's product (as ``hylint.runtime.kernels`` forms them: ``(F, C*K) @ (C*K, positions)`` per sample
and group; a deconvolution's ``(F*K, C) @ (C, positions)``), then times ``np.matmul`` of each shape alone on
fresh float32 operands (the faster of the two orientations, CPU time). Prints the call's CPU time (the faster
of two), the products' total and their rate: what is left beyond the products is everything else the call
does (BatchNorm, activations, im2col copies, pooling, Python).
"""
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _cpu(fn, repeat=3):
    fn()
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def main(names):
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "zoo")]
    from hylint.runtime import activate, kernels
    from hylint.runtime import ops

    shapes = []  # (batch, rows, inner, columns) of each product of one call
    convolution, transposed = kernels.convolution, kernels.transposed_convolution

    def recorded_convolution(x, w, stride, dilate, pad, groups):
        out = kernels.output_sizes(x.shape[2:], w.shape[2:], stride, dilate, pad)
        shapes.append((x.shape[0] * groups, w.shape[0] // groups, (x.shape[1] // groups) * math.prod(w.shape[2:]),
                       math.prod(out)))
        return convolution(x, w, stride, dilate, pad, groups)

    def recorded_transposed(x, w, stride, dilate, pad, adj, groups):
        shapes.append((x.shape[0] * groups, w.shape[1] * math.prod(w.shape[2:]), x.shape[1] // groups,
                       math.prod(x.shape[2:])))
        return transposed(x, w, stride, dilate, pad, adj, groups)

    dense = ops.OPS["FullyConnected"]
    dense_kernel = dense.kernel

    def recorded_dense(inputs, attrs):
        x, w = inputs[0], inputs[1]
        shapes.append((1, w.shape[0], w.shape[1], x.size // w.shape[1]))
        return dense_kernel(inputs, attrs)

    kernels.convolution, kernels.transposed_convolution, dense.kernel = (recorded_convolution, recorded_transposed,
                                                                         recorded_dense)
    rng, timed = np.random.RandomState(0), {}

    def product_time(batch, rows, inner, columns):
        key = (batch, rows, inner, columns)
        if key not in timed:
            a = rng.rand(batch, rows, inner).astype(np.float32)
            b = rng.rand(batch, inner, columns).astype(np.float32)
            bt, at = np.ascontiguousarray(b.swapaxes(1, 2)), np.ascontiguousarray(a.swapaxes(1, 2))
            timed[key] = min(_cpu(lambda: np.matmul(a, b)), _cpu(lambda: np.matmul(bt, at)))
        return timed[key]

    try:
        for name in names:
            with activate() as mx:
                import models as zoo_models

                mx.random.seed(0)
                net, inputs = zoo_models.build("gluoncv", name)
                net.initialize()
                net(*inputs)
                net.hybridize()
                net(*inputs)
                calls = []
                for _ in range(2):
                    shapes.clear()
                    start = time.process_time()
                    net(*inputs)
                    calls.append(time.process_time() - start)
                found = list(shapes)
            products = sum(product_time(*shape) for shape in found)
            macs = sum(math.prod(shape) for shape in found)
            print(f"{name}: hybridized call {min(calls) * 1e3:.1f} ms; its {len(found)} products alone "
                  f"{products * 1e3:.1f} ms ({products / min(calls):.0%}; {macs / 1e9:.2f} GMAC at "
                  f"{macs / products / 1e9:.1f} GMAC/s)", flush=True)
    finally:
        kernels.convolution, kernels.transposed_convolution, dense.kernel = convolution, transposed, dense_kernel
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["resnet18_v1"]))
