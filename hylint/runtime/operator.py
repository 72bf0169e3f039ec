"""``mxnet.operator``: Python custom operators can be defined and registered (libraries do so at import
time); running one (``nd.Custom``/``sym.Custom``) raises :class:`RuntimeUnsupported` (no model of the
supported libraries runs one in its forward pass)."""
from .base import RuntimeUnsupported

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


def Custom(*args, **kwargs):  # noqa: N802 - MXNet's operator name
    raise RuntimeUnsupported("the Custom operator (op_type=%r)" % kwargs.get("op_type"))
