"""The operator record (:class:`Op`), the table every family registers into (:data:`OPS`), the errors a
shape rule raises, and the dtype rules most ops share."""
from collections import OrderedDict


# ----------------------------------------------------------------------------------------------
# errors raised by shape / type rules
# ----------------------------------------------------------------------------------------------
class ShapeCheck(Exception):
    """A failed MXNet ``CHECK``; the message may contain ``{node}`` (the node name, empty eagerly).

    ``eager`` is the text MXNet prints instead when the operator runs eagerly (a few differ)."""

    def __init__(self, message, eager=None):
        super().__init__(message)
        self.eager = eager


class UnwrappedCheck(ShapeCheck):
    """A CHECK MXNet raises outside its per-operator error wrapper (no "Error in operator" prefix, and the
    cached graph is not left half-inferred: the next call fails the same way)."""


class InferFailed(Exception):
    """MXNet's shape function returned false without a CHECK message."""


# ----------------------------------------------------------------------------------------------
# the Op record
# ----------------------------------------------------------------------------------------------
def _same_type(in_types, attrs):
    """All tensor inputs share one dtype (MXNet's ElemwiseType); outputs get it too."""
    known = next((t for t in in_types if t is not None), None)
    if known is None:
        return in_types, None
    out = list(in_types)
    for i, t in enumerate(in_types):
        if t is None:
            out[i] = known
        elif t != known:
            raise ShapeCheck("Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node {node} at %d-th "
                             "input: expected %s, got %s" % (i, known, t))
    return out, known


def _first_type(in_types, attrs):
    return in_types, in_types[0]


def _attr_type(default="float32"):
    def rule(in_types, attrs):
        return in_types, attrs.get("dtype") or default
    return rule


def _fixed_type(dtype):
    def rule(in_types, attrs):
        return in_types, dtype
    return rule


class Op:
    """One operator: kernel + shape rule + dtype rule + argument spec."""

    def __init__(self, name, kernel, infer_shape, inputs=("data",), params=(), infer_type=_same_type,
                 variadic=False, num_outputs=1, aux=(), aliases=(), hint=None, namespaces=("nd", "sym"),
                 optional_inputs=(), needs_input=True, keeps_attributes=False, reads_subgraphs=None):
        self.name = name
        self.kernel = kernel
        self.infer_shape = infer_shape
        self.inputs = tuple(inputs)
        self.params = tuple(params)
        self.param_map = {p.name: p for p in self.params}
        self.infer_type = infer_type
        self.variadic = variadic
        self._num_outputs = num_outputs
        self.aux = tuple(aux)  # names of inputs that are auxiliary states (BatchNorm running stats)
        self.aliases = tuple(aliases)
        self.hint = hint or name.lower()
        self.namespaces = tuple(namespaces)
        self.optional_inputs = set(optional_inputs)
        self.needs_input = needs_input
        # every attribute reaches the kernel as its string (Custom: the CustomOpProp's own keyword arguments)
        self.keeps_attributes = keeps_attributes
        # a fused operator of a loaded graph (``_sg_mkldnn_conv``): its JSON ``subgraphs`` -> extra attributes
        self.reads_subgraphs = reads_subgraphs

    def num_outputs(self, attrs):
        n = self._num_outputs
        return n(attrs) if callable(n) else n

    def __repr__(self):
        return "<Op %s>" % self.name


OPS = OrderedDict()


def register(op):
    OPS[op.name] = op
    for alias in op.aliases:
        OPS[alias] = op
    return op


def lookup(name):
    return OPS[name]


#: ops whose body is a traced subgraph (``contrib.foreach``/``while_loop``); they run graphs, so
#: :mod:`hylint.runtime.control_flow` registers them from above the executor
SUBGRAPH_OPS = ("_foreach", "_while_loop")

#: graph-mode fusions, ``(producer op, consumer op) -> fold(producer_inputs, producer_attrs, consumer_inputs,
#: consumer_attrs)``: where a graph feeds a producer's only output into the consumer's first input and into
#: nothing else, the evaluator calls ``fold`` instead of the two kernels (``consumer_inputs`` without the first);
#: ``fold`` returns the consumer's output, or None to have the two kernels run (a training-mode call, a dtype
#: the fold does not cover). Only where MXNet fuses: a block hybridized with ``backend="MKLDNN"`` (a plain
#: ``hybridize()`` of MXNet 1.9.1 fuses nothing, and its outputs equal the eager ones bit for bit, which verify
#: relies on); eager calls never fold: each operator runs on its own, as in MXNet.
FUSIONS = {}
