"""Argument binding and per-node inference, shared by both namespaces."""
from collections import OrderedDict

from .table import SUBGRAPH_OPS
from .attrs import stringify


# ----------------------------------------------------------------------------------------------
# argument binding, shared by both namespaces
# ----------------------------------------------------------------------------------------------
#: positional slots after an op's own parameters (MXNet's generated signatures differ per namespace)
TRAILING_POSITIONAL = {"nd": ("out", "name"), "sym": ("name", "attr", "out")}


class BoundCall:
    """An op call with its tensor inputs separated from its (string) attributes."""

    __slots__ = ("op", "inputs", "input_names", "attr_strs", "name", "out", "attr")

    def __init__(self, op, inputs, input_names, attr_strs, name, out, attr):
        self.op, self.inputs, self.input_names = op, inputs, input_names
        self.attr_strs, self.name, self.out, self.attr = attr_strs, name, out, attr


def bind_call(op, args, kwargs, kind, is_tensor, describe_tensor_error):
    """Split ``args``/``kwargs`` of an op call into tensor inputs and attribute strings.

    ``describe_tensor_error(arg_name, value)`` returns the AssertionError message for a non-tensor
    input (MXNet's wrappers assert the input types)."""
    kwargs = dict(kwargs)
    extra = {}
    for key in ("name", "attr", "out"):
        extra[key] = kwargs.pop(key, None)
    if "ctx" in kwargs and "ctx" not in op.param_map:
        kwargs.pop("ctx")
    trailing = TRAILING_POSITIONAL[kind]
    inputs, input_names = [], []
    if op.variadic:
        for value in args:
            if not is_tensor(value):
                raise AssertionError(describe_tensor_error(None, value))
        inputs = list(args)
        input_names = ["arg%d" % i for i in range(len(args))]
        if "num_args" in op.param_map:
            kwargs["num_args"] = len(args)
        for key in list(kwargs):
            if key in ("data", "args"):
                raise TypeError("%s() got an unexpected keyword argument %r" % (op.name, key))
    else:
        slots = _slots(op, kind)
        if len(args) > len(slots):
            raise TypeError("%s() takes at most %d positional arguments (%d given)" % (op.name, len(slots), len(args)))
        for slot, value in zip(slots, args):
            if slot in kwargs or (slot in extra and extra[slot] is not None):
                raise TypeError("%s() got multiple values for argument %r" % (op.name, slot))
            if slot in extra:
                extra[slot] = value
            else:
                kwargs[slot] = value
        for in_name in op.inputs:
            value = kwargs.pop(in_name, None)
            if value is None:
                inputs.append(None)
                input_names.append(in_name)
                continue
            if not is_tensor(value):
                raise AssertionError(describe_tensor_error(in_name, value))
            inputs.append(value)
            input_names.append(in_name)
    attr_strs = OrderedDict((k, stringify(v)) for k, v in kwargs.items())
    return BoundCall(op, inputs, input_names, attr_strs, extra["name"], extra["out"], extra["attr"])


#: (op, namespace kind) -> the op's positional slots: its inputs, its parameters, then the namespace's trailing
#: ones (built once per operator, not on every call)
_SLOTS = {}


def _slots(op, kind):
    slots = _SLOTS.get((op, kind))
    if slots is None:
        slots = _SLOTS[(op, kind)] = tuple(op.inputs) + tuple(p.name for p in op.params) + TRAILING_POSITIONAL[kind]
    return slots


def skip_optional_input(op, name, attrs):
    """Optional inputs an op does not take: ``bias`` with ``no_bias=True``, RNN's ``state_cell`` unless LSTM."""
    if name not in op.optional_inputs:
        return False
    if name == "bias":
        return bool(attrs.get("no_bias"))
    if name == "state_cell":
        return attrs.get("mode") != "lstm"
    if name == "gamma" and op.name == "LeakyReLU":
        return attrs.get("act_type") != "prelu"
    if name == "sequence_length":
        return not attrs.get("use_sequence_length")
    if name == "like":  # BilinearResize2D takes its second input only in mode 'like'
        return attrs.get("mode") != "like"
    if name == "length":  # softmax's lengths are an input only with use_length
        return not attrs.get("use_length")
    return False


def present_inputs(bound, attrs):
    """Drop optional inputs the op does not use (``bias`` with ``no_bias=True``)."""
    pairs = [(n, v) for n, v in zip(bound.input_names, bound.inputs)
             if not skip_optional_input(bound.op, n, attrs)]
    return [n for n, _ in pairs], [v for _, v in pairs]


def run_infer(op, in_shapes, in_types, attrs):
    """Shape and dtype inference for one node; raises ShapeCheck / InferFailed."""
    shapes, out_shapes = op.infer_shape(list(in_shapes), attrs)
    if op.name in SUBGRAPH_OPS:
        attrs = dict(attrs, __in_shapes__=list(shapes))
    types, out_types = op.infer_type(list(in_types), attrs)
    n = op.num_outputs(attrs)
    if not isinstance(out_types, (list, tuple)):
        out_types = [out_types] * n
    return shapes, list(out_shapes), list(types), list(out_types)
