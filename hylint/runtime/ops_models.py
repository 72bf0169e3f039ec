"""Operators the real model libraries need (gluoncv, gluoncv2, gluonnlp, the model zoo) beyond the core table.

They register into the same :data:`ops.OPS` table, with the same shape of definition (kernel, shape rule,
typed attributes as MXNet parses them), and are checked against MXNet's own operators the same way
(``tests/test_runtime_ops.py``). Ops named ``_contrib_<name>`` appear as ``nd.contrib.<name>`` and
``sym.contrib.<name>``.
"""
import numpy as np

from .ops import Op, P, _batch_norm_kernel, _channel_param_shape, register


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
