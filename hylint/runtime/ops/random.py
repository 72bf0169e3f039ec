"""Random operators, drawn from the runtime's own generator (seeded by ``mx.random.seed``), and Dropout."""
import numpy as np

from .. import rng
from .table import Op, _first_type, register
from .attrs import P
from .common import _shape_unary
from .creation import _creation_shape, _target_shape


# ----------------------------------------------------------------------------------------------
# random (the runtime's own generator, seeded by mx.random.seed)
# ----------------------------------------------------------------------------------------------
def _sample_dtype(attrs):
    """``dtype`` of uniform/normal: MXNet's enum (``'None'``: the output array's type, else float32)."""
    return "float32" if attrs["dtype"] in (None, "None") else attrs["dtype"]


def _rand_kernel(draw):
    def kernel(inputs, attrs):
        return draw(rng.generator(), attrs, _target_shape(attrs)).astype(_sample_dtype(attrs))
    return kernel


def _rand_like_kernel(draw):
    def kernel(inputs, attrs):
        return draw(rng.generator(), attrs, inputs[0].shape).astype(inputs[0].dtype)
    return kernel


_UNIFORM = lambda g, at, shape: g.uniform(at["low"], at["high"], size=shape)  # noqa: E731
_NORMAL = lambda g, at, shape: g.normal(at["loc"], at["scale"], size=shape)  # noqa: E731
# measured: only floating types; an integer dtype fails at parsing ("Invalid Input: 'int32', valid values are:
# {'None', 'float16', 'float32', 'float64'}"), an integer ``out`` array at type inference (ndarray's wrapper)
SAMPLE_DTYPES = ("None", "float16", "float32", "float64")
_RSHAPE = (P("shape", "shape", ()), P("ctx", "str", ""), P("dtype", SAMPLE_DTYPES, "None"))


def _sample_type(in_types, attrs):
    return in_types, _sample_dtype(attrs)


register(Op("_random_uniform", _rand_kernel(_UNIFORM), _creation_shape, inputs=(), hint="_random_uniform",
            params=(P("low", "float", 0.0), P("high", "float", 1.0)) + _RSHAPE, infer_type=_sample_type,
            aliases=("random_uniform", "uniform", "random.uniform"), needs_input=False))
register(Op("_random_normal", _rand_kernel(_NORMAL), _creation_shape, inputs=(), hint="_random_normal",
            params=(P("loc", "float", 0.0), P("scale", "float", 1.0)) + _RSHAPE, infer_type=_sample_type,
            aliases=("random_normal", "normal", "random.normal"), needs_input=False))
register(Op("_random_uniform_like", _rand_like_kernel(_UNIFORM), _shape_unary, hint="_random_uniform_like",
            params=(P("low", "float", 0.0), P("high", "float", 1.0)), aliases=("random.uniform_like",),
            infer_type=_first_type))
register(Op("_random_normal_like", _rand_like_kernel(_NORMAL), _shape_unary, hint="_random_normal_like",
            params=(P("loc", "float", 0.0), P("scale", "float", 1.0)), aliases=("random.normal_like",),
            infer_type=_first_type))


def _multinomial_outputs(attrs):
    return 2 if attrs["get_prob"] else 1


def _multinomial_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None] * _multinomial_outputs(attrs)
    extra = attrs["shape"] or ()
    out = tuple(s[:-1]) + tuple(extra) or (1,)
    return list(in_shapes), [out] * _multinomial_outputs(attrs)


def _multinomial_kernel(inputs, attrs):
    p = inputs[0].astype(np.float64)
    extra = tuple(attrs["shape"] or ())
    g = rng.generator()
    flat = p.reshape(-1, p.shape[-1])
    n = int(np.prod(extra)) if extra else 1
    draws = np.stack([g.choice(flat.shape[1], size=n, p=row / row.sum()) for row in flat])
    out_shape = tuple(p.shape[:-1]) + extra or (1,)
    samples = draws.reshape(out_shape).astype(attrs["dtype"])
    if attrs["get_prob"]:
        probs = np.log(np.take_along_axis(flat, draws, axis=1)).reshape(out_shape).astype(inputs[0].dtype)
        return samples, probs
    return samples


def _multinomial_type(in_types, attrs):
    if attrs["get_prob"]:
        return in_types, [attrs["dtype"], in_types[0]]
    return in_types, attrs["dtype"]


register(Op("_sample_multinomial", _multinomial_kernel, _multinomial_shape, num_outputs=_multinomial_outputs,
            hint="_sample_multinomial", infer_type=_multinomial_type,
            params=(P("shape", "shape", ()), P("get_prob", "bool", False), P("dtype", "dtype", "int32"))))


def _dropout_kernel(inputs, attrs):
    from .. import autograd  # runtime state only; no cycle at import time
    a = inputs[0]
    p = attrs["p"]
    if not (autograd.is_training() or attrs["mode"] == "always") or p == 0:
        return a.copy()
    keep = (rng.generator().uniform(size=a.shape) >= p).astype(a.dtype)
    return (a * keep / (1.0 - p)).astype(a.dtype)


register(Op("Dropout", _dropout_kernel, _shape_unary,
            params=(P("p", "float", 0.5), P("mode", ("always", "training"), "training"), P("axes", "shape", ()),
                    P("cudnn_off", "any", None))))
