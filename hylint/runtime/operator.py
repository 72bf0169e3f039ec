"""``mxnet.operator``: Python custom operators, defined and registered as in MXNet, and run by the ``Custom``
operator of the table (:mod:`.ops.custom`; ``nd.Custom``/``sym.Custom``), eagerly and in a graph.

Only ``forward`` runs (the runtime has no autograd). As in MXNet, ``infer_shape`` and ``infer_type`` of the
CustomOpProp give the outputs' shapes and dtypes, ``create_operator`` the CustomOp, whose ``forward`` writes
its outputs with ``assign``; the keyword arguments of the call reach the CustomOpProp as strings."""
import numpy as np

from . import autograd, ndarray
from .base import MXNetError
from .ops import custom as _custom

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]

_REGISTERED = {}


class CustomOp:
    """Base class of a custom operator's computation (``forward``/``backward`` on NDArrays)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError()

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError()

    def assign(self, dst, req, src):
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src


class CustomOpProp:
    """Base class of a custom operator's properties (arguments, outputs, shapes, types)."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        return in_type, [in_type[0]] * len(self.list_outputs()), [in_type[0]] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


def register(reg_name):
    """Registers a CustomOpProp subclass under ``reg_name`` (the ``op_type`` of ``Custom``)."""
    def do_register(prop_cls):
        _REGISTERED[reg_name] = prop_cls
        return prop_cls
    return do_register


def get_all_registered_operators():
    return list(_REGISTERED)


def _prop(attrs):
    """The registered CustomOpProp of ``attrs["op_type"]``, made with the call's other keyword arguments."""
    kwargs = {k: v for k, v in attrs.items() if not (k.startswith("__") and k.endswith("__"))}  # the runtime's notes
    op_type = kwargs.pop("op_type", None)
    if op_type not in _REGISTERED:
        raise MXNetError("Cannot find custom operator %s" % op_type)
    return _REGISTERED[op_type](**kwargs)


def _forward(prop, inputs, out_shapes, out_types):
    """Runs the CustomOp's forward on NDArrays of ``inputs`` (numpy); returns its outputs as numpy arrays."""
    operator = prop.create_operator(None, [list(x.shape) for x in inputs], [x.dtype for x in inputs])
    in_data = [ndarray.array(x, dtype=x.dtype) for x in inputs]
    out_data = [ndarray.zeros(shape, dtype=dtype) for shape, dtype in zip(out_shapes, out_types)]
    operator.forward(autograd.is_training(), ["write"] * len(out_data), in_data, out_data, [])
    return [np.asarray(out.asnumpy()) for out in out_data]


_custom.HOST.update(prop=_prop, forward=_forward)
