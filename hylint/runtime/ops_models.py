"""Operators the real model libraries need (gluoncv, gluoncv2, gluonnlp, the model zoo) beyond the core table.

They register into the same :data:`ops.OPS` table, with the same shape of definition (kernel, shape rule,
typed attributes as MXNet parses them), and are checked against MXNet's own operators the same way
(``tests/test_runtime_ops.py``). Ops named ``_contrib_<name>`` appear as ``nd.contrib.<name>`` and
``sym.contrib.<name>``.
"""
import numpy as np

from .base import shape_str
from .ops import Op, P, ShapeCheck, _batch_norm_kernel, _channel_param_shape, _fixed_type, register


# --- normalisation ---------------------------------------------------------------------------------
def _on_axis_1(fn):
    """A BatchNorm rule for an operator that has no ``axis`` attribute (the channel axis is 1)."""
    return lambda first, attrs: fn(first, dict(attrs, axis=1))


# SyncBatchNorm on a single device is BatchNorm over axis 1 (ndev and key only name the device group).
register(Op("_contrib_SyncBatchNorm", _on_axis_1(_batch_norm_kernel), _on_axis_1(_channel_param_shape("axis", 4)),
            inputs=("data", "gamma", "beta", "moving_mean", "moving_var"), aux=("moving_mean", "moving_var"),
            hint="syncbatchnorm",
            params=(P("eps", "float", 1e-3), P("momentum", "float", 0.9), P("fix_gamma", "bool", True),
                    P("use_global_stats", "bool", False), P("output_mean_var", "bool", False),
                    P("ndev", "int", 1), P("key", "str", ""))))


# --- image (``nd.image.*``: what ``gluon.data.vision.transforms.ToTensor``/``Normalize`` run) ---------------
def _image_to_tensor_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeCheck("Check failed: (shp.ndim() == 3) || (shp.ndim() == 4): Input image must have shape "
                         "(height, width, channels), or (N, height, width, channels) but got %s" % shape_str(s))
    return list(in_shapes), [tuple(s[:-3]) + (s[-1], s[-3], s[-2])]


def _image_to_tensor_kernel(inputs, attrs):
    x = inputs[0]
    return (np.moveaxis(x, -1, -3).astype(np.float32) / np.float32(255.0)).astype(np.float32)


register(Op("_image_to_tensor", _image_to_tensor_kernel, _image_to_tensor_shape, infer_type=_fixed_type("float32"),
            hint="to_tensor"))


def _channel_values(value, channels):
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    return np.array(values * channels if len(values) == 1 else values, dtype=np.float64)


def _image_normalize_shape(in_shapes, attrs):
    s = in_shapes[0]
    if s is None:
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeCheck("Check failed: (dshape.ndim() == 3) || (dshape.ndim() == 4): Input tensor must have shape "
                         "(channels, height, width), or (N, channels, height, width), but got %s" % shape_str(s))
    channels = s[-3]
    for name in ("mean", "std"):
        given = attrs[name] if isinstance(attrs[name], (tuple, list)) else (attrs[name],)
        if len(given) not in (1, channels) and channels <= 4 or len(given) > 4:
            raise ShapeCheck("Check failed: %s.ndim() == 1 || %s.ndim() == nchannels: Invalid %s for input with %d "
                             "channels" % (name, name, name, channels))
    return list(in_shapes), [tuple(s)]


def _image_normalize_kernel(inputs, attrs):
    x = inputs[0]
    c = x.shape[-3]
    mean = _channel_values(attrs["mean"], c)[:c].reshape(c, 1, 1)
    std = _channel_values(attrs["std"], c)[:c].reshape(c, 1, 1)
    return ((x - mean) / std).astype(x.dtype)


register(Op("_image_normalize", _image_normalize_kernel, _image_normalize_shape, hint="normalize",
            params=(P("mean", "any", (0.0, 0.0, 0.0, 0.0)), P("std", "any", (1.0, 1.0, 1.0, 1.0)))))
