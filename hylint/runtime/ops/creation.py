"""Creation operators (no tensor input): zeros, ones, full, arange, eye."""
import numpy as np

from .table import InferFailed, Op, _attr_type, register
from .attrs import P


# ----------------------------------------------------------------------------------------------
# creation (no tensor input)
# ----------------------------------------------------------------------------------------------
def _creation_shape(in_shapes, attrs):
    shape = attrs["shape"]
    if not shape or any(d <= 0 for d in shape):
        if attrs.get("__eager__", True):
            raise InferFailed()
        return list(in_shapes), [tuple(shape)] if shape else [None]
    return list(in_shapes), [tuple(shape)]


def _target_shape(attrs):
    """The creation shape; inside a graph, ``0`` dims come from shape inference (``__out_shapes__``)."""
    inferred = attrs.get("__out_shapes__")
    return tuple(inferred[0]) if inferred and inferred[0] is not None else tuple(attrs["shape"])


def _fill_kernel(value_of):
    def kernel(inputs, attrs):
        return np.full(_target_shape(attrs), value_of(attrs), dtype=attrs["dtype"] or "float32")
    return kernel


_CREATE_PARAMS = (P("shape", "shape", ()), P("ctx", "str", ""), P("dtype", "dtype", "float32"))
register(Op("_zeros", _fill_kernel(lambda at: 0), _creation_shape, inputs=(), params=_CREATE_PARAMS,
            infer_type=_attr_type(), aliases=("zeros",), hint="_zeros", needs_input=False))
register(Op("_ones", _fill_kernel(lambda at: 1), _creation_shape, inputs=(), params=_CREATE_PARAMS,
            infer_type=_attr_type(), aliases=("ones",), hint="_ones", needs_input=False))
register(Op("_full", _fill_kernel(lambda at: at["value"]), _creation_shape, inputs=(),
            params=_CREATE_PARAMS + (P("value", "float"),), infer_type=_attr_type(), aliases=("full",), hint="_full",
            needs_input=False))


def _arange_values(attrs):
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if stop is None:
        start, stop = 0.0, start
    vals = np.arange(start, stop, step, dtype=np.float64)
    return np.repeat(vals, attrs["repeat"])


register(Op("_arange", lambda ins, at: _arange_values(at).astype(at["dtype"] or "float32"),
            lambda ins, at: (list(ins), [(len(_arange_values(at)),)]), inputs=(), hint="_arange",
            params=(P("start", "float"), P("stop", "any", None), P("step", "float", 1.0), P("repeat", "int", 1),
                    P("infer_range", "bool", False), P("ctx", "str", ""), P("dtype", "dtype", "float32")),
            infer_type=_attr_type(), aliases=("arange",), needs_input=False))


def _eye_kernel(inputs, attrs):
    return np.eye(attrs["N"], attrs["M"] or None, attrs["k"], dtype=attrs["dtype"] or "float32")


register(Op("_eye", _eye_kernel, lambda ins, at: (list(ins), [(at["N"], at["M"] or at["N"])]), inputs=(), hint="_eye",
            params=(P("N", "int"), P("M", "int", 0), P("k", "int", 0), P("ctx", "str", ""),
                    P("dtype", "dtype", "float32")), infer_type=_attr_type(), aliases=("eye",), needs_input=False))
