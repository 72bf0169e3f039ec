"""``Custom``: an operator written in Python (``mx.operator.CustomOp``, registered with
``mx.operator.register``), called as ``nd.Custom(*inputs, op_type=..., **kwargs)`` or ``sym.Custom``.

The registry and the NDArrays a CustomOp's ``forward`` works on sit above the table, in
:mod:`hylint.runtime.operator`, which installs :data:`HOST` when it is imported. The runtime has no
autograd, so only ``forward`` runs."""
from .table import Op, ShapeCheck, register

#: installed by hylint.runtime.operator: ``prop(attrs)`` (the registered CustomOpProp made with the node's
#: keyword arguments) and ``forward(prop, inputs, out_shapes, out_types)`` (numpy in, numpy out)
HOST = {}


def _prop(attrs):
    if "prop" not in HOST:
        raise ShapeCheck("Custom operators are not available: hylint.runtime.operator was not imported")
    return HOST["prop"](attrs)


def _infer_shape(in_shapes, attrs):
    prop = _prop(attrs)
    outputs = len(prop.list_outputs())
    if any(s is None for s in in_shapes):
        return list(in_shapes), [None] * outputs
    shapes, out_shapes, _ = prop.infer_shape([list(s) for s in in_shapes])
    return [tuple(s) for s in shapes], [tuple(s) for s in out_shapes]


def _infer_type(in_types, attrs):
    prop = _prop(attrs)
    if any(t is None for t in in_types):
        return list(in_types), [None] * len(prop.list_outputs())
    types, out_types, _ = prop.infer_type(list(in_types))
    return list(types), [str(getattr(t, "name", t)) for t in out_types]


def _kernel(inputs, attrs):
    prop = _prop(attrs)
    shapes, out_shapes, _ = prop.infer_shape([list(x.shape) for x in inputs])
    _, out_types, _ = prop.infer_type([x.dtype.name for x in inputs])
    outs = HOST["forward"](prop, inputs, [tuple(s) for s in out_shapes], [str(getattr(t, "name", t)) for t in out_types])
    return tuple(outs) if len(outs) > 1 else outs[0]


register(Op("Custom", _kernel, _infer_shape, variadic=True, infer_type=_infer_type, keeps_attributes=True,
            num_outputs=lambda attrs: len(_prop(attrs).list_outputs()), hint="custom"))
