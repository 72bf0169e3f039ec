"""Shape/dtype inference and NumPy evaluation of a graph (``bind``/``eval``/CachedOp all use this)."""
import numpy as np

from . import ops as _ops
from .base import MXNetError
from .graph import topo_order

#: mshadow's type flags, as MXNet writes a variable's ``__dtype__`` into a graph file
_MXNET_TYPE_CODES = {"0": "float32", "1": "float64", "2": "float16", "3": "uint8", "4": "int32", "5": "int8",
                     "6": "int64", "7": "bool"}


def _annotate(err, node):
    try:
        err.node_name, err.node_origin = node.name, node.origin
    except AttributeError:  # exception types without a __dict__
        pass


def _node_error(node, message):
    return MXNetError("Error in operator %s: %s" % (node.name, message), node_name=node.name, node_origin=node.origin)


def infer(heads, var_shapes, var_types, partial=False, given_shapes=None, given_types=None):
    """Infer every entry's shape and dtype.

    ``var_shapes``/``var_types``: variable name -> known shape / dtype name (missing = unknown);
    ``given_shapes``/``given_types``: ``(id(node), index)`` -> known entry (subgraph inputs from outside).
    Returns ``(entry_shapes, entry_types, var_shapes, var_types)`` where entry dicts are keyed by
    ``(id(node), index)``. Raises MXNetError (with ``node_name``/``node_origin``) on a failed check.
    """
    order = topo_order(heads)
    vshape = {n.name: var_shapes.get(n.name) for n in order if n.is_variable}
    vtype = {n.name: var_types.get(n.name) for n in order if n.is_variable}
    for n in order:
        if n.is_variable:
            declared = n.var_attrs.get("__shape__")
            if vshape[n.name] is None and declared:
                shape = tuple(int(d) for d in declared.strip("()[] ").split(",") if d.strip())
                if shape and all(d > 0 for d in shape):
                    vshape[n.name] = shape
            if vtype[n.name] is None and n.var_attrs.get("__dtype__"):
                declared = n.var_attrs["__dtype__"]
                # MXNet writes its type code ("0" for float32) into a graph file, the runtime the name
                vtype[n.name] = _MXNET_TYPE_CODES.get(declared, declared)
    shapes, types, child_fill = {}, {}, {}
    given_shapes, given_types = given_shapes or {}, given_types or {}
    for _ in range(3):  # a few sweeps let shapes flow back into variables (deferred parameters)
        changed = False
        for node in order:
            if (id(node), 0) in given_shapes:
                for i in range(node.n_outputs):
                    shapes[(id(node), i)] = given_shapes.get((id(node), i))
                    types[(id(node), i)] = given_types.get((id(node), i))
                continue
            if node.is_variable:
                shapes[(id(node), 0)] = vshape[node.name]
                types[(id(node), 0)] = vtype[node.name]
                continue
            in_shapes = [child_fill.get((id(c), k), shapes.get((id(c), k))) for c, k in node.inputs]
            in_types = [types.get((id(c), k)) for c, k in node.inputs]
            attrs = dict(node.attrs, __eager__=False)
            try:
                new_in, out_shapes, new_types, out_types = _ops.run_infer(node.op, in_shapes, in_types, attrs)
            except _ops.UnwrappedCheck as err:
                raise MXNetError(str(err).format(node=node.name), node_name=node.name, node_origin=node.origin)
            except _ops.ShapeCheck as err:
                raise _node_error(node, str(err).format(node=node.name))
            except _ops.InferFailed:  # reported without the per-operator prefix, and the graph is not left half-done
                raise MXNetError("Operator %s inferring shapes failed." % node.op.name, node_name=node.name,
                                 node_origin=node.origin)
            except MXNetError:
                raise
            except Exception as err:  # a runtime limitation or bug: keep the type, say where the user built the node
                _annotate(err, node)
                raise
            for (child, k), s, t in zip(node.inputs, new_in, new_types):
                if not child.is_variable and s is not None and _more_specific(s, shapes.get((id(child), k))):
                    shapes[(id(child), k)] = tuple(s)  # e.g. F.zeros((0, 3)) learns its 0 from its consumer
                    child_fill[(id(child), k)] = tuple(s)
                    changed = True
                if child.is_variable:
                    if vshape[child.name] is None and s is not None:
                        vshape[child.name] = tuple(s)
                        changed = True
                    if vtype[child.name] is None and t is not None:
                        vtype[child.name] = t
                        changed = True
            for i in range(node.n_outputs):
                filled = child_fill.get((id(node), i))
                shapes[(id(node), i)] = filled if filled is not None else (
                    None if out_shapes[i] is None else tuple(out_shapes[i]))
                types[(id(node), i)] = out_types[i]
        if not changed:
            break
    return shapes, types, vshape, vtype


def _more_specific(new, old):
    if old is None:
        return True
    return len(new) == len(old) and new != old and all(o == 0 or o == n for n, o in zip(new, old))


def check_complete(heads, shapes):
    """Raise MXNet's error when some entry's shape is still unknown."""
    for node in topo_order(heads):
        if node.is_variable and shapes.get((id(node), 0)) is None:
            raise MXNetError("Cannot decide shape for the following arguments (0s in shape means unknown "
                             "dimensions). Consider providing them as input:\n\t%s: ()" % node.name,
                             node_name=node.name)


def evaluate(heads, values, shapes=None, given=None, fuse=False):
    """Run the graph on numpy ``values`` (variable name -> array); returns the head arrays.

    ``shapes`` (from :func:`infer`) gives creation ops their inferred shapes (``0`` = unknown dims);
    ``given`` maps ``(id(node), index)`` to arrays computed outside (a subgraph's free inputs); ``fuse`` runs
    the graph's foldable pairs (:data:`ops.FUSIONS`) as one kernel, as MXNet's oneDNN backend fuses them.
    A caller that runs one graph many times compiles it once (:func:`compile_plan`) and calls :func:`run_plan`."""
    return run_plan(compile_plan(heads, shapes, tuple(given or ()), fuse), values, given)


class Plan:
    """A graph compiled for :func:`run_plan`: the steps in order, each with its input entries, its attributes
    (the inferred output shapes included) and the entries to free after it; the walk over the graph, the
    fusions and the last uses are worked out once, not on every call of a hybridized block."""
    __slots__ = ("steps", "heads")

    def __init__(self, steps, heads):
        self.steps, self.heads = steps, heads


def _attrs(node, shapes):
    attrs = dict(node.attrs, __eager__=False)
    if shapes is not None and not node.op.needs_input:
        attrs["__out_shapes__"] = [shapes.get((id(node), i)) for i in range(node.n_outputs)]
    return attrs


def compile_plan(heads, shapes=None, given_keys=(), fuse=False):
    """:class:`Plan` of ``heads`` (``shapes`` from :func:`infer`, ``given_keys``: the entries the caller
    supplies, as ``given`` of :func:`evaluate`)."""
    order = topo_order(heads)
    given_keys = set(given_keys)
    # free each intermediate array after its last consumer ran: holding all of them (a ResNet-50's are
    # hundreds of MB) makes every call fault fresh pages in, and made hybridized calls slower than eager ones
    keep = {(id(n), k) for n, k in heads} | given_keys
    folded = _fusions(order, keep) if fuse else {}  # consumer id -> (producer, fold), run at the consumer
    deferred = {id(producer) for producer, _ in folded.values()}
    last_use = {}
    for position, node in enumerate(order):
        pair = folded.get(id(node))
        for child, k in node.inputs + (pair[0].inputs if pair else []):
            last_use[(id(child), k)] = position
    release = {}
    for entry, position in last_use.items():
        if entry not in keep:
            release.setdefault(position, []).append(entry)
    steps = []
    for position, node in enumerate(order):
        if (id(node), 0) in given_keys or id(node) in deferred:
            continue
        keys = [(id(c), k) for c, k in node.inputs]
        pair = folded.get(id(node))
        if pair is not None:
            producer, fold = pair
            pair = (producer, fold, [(id(c), k) for c, k in producer.inputs], _attrs(producer, shapes))
        steps.append((node, None if node.is_variable else keys, None if node.is_variable else _attrs(node, shapes),
                      pair, tuple(release.get(position, ()))))
    return Plan(steps, [(id(n), k) for n, k in heads])


def run_plan(plan, values, given=None):
    """Run a :class:`Plan` on numpy ``values`` (variable name -> array); returns the head arrays."""
    results = dict(given or {})
    for node, keys, attrs, pair, release in plan.steps:
        if keys is None:  # a variable
            if node.name not in values:
                raise MXNetError("Cannot find variable %s in the given arguments" % node.name, node_name=node.name)
            results[(id(node), 0)] = values[node.name]
            continue
        out = None
        if pair is not None:
            producer, fold, producer_keys, producer_attrs = pair
            producer_inputs = [results[key] for key in producer_keys]
            out = _run(producer, producer_inputs, dict(producer_attrs), fold, [results[key] for key in keys[1:]],
                       node.attrs)
            if out is None:  # not foldable in this call: the producer's own kernel, then the consumer's
                _store(results, producer, _run(producer, producer_inputs, dict(producer_attrs)))
        if out is None:
            out = _run(node, [results[key] for key in keys], dict(attrs))
        _store(results, node, out)
        for entry in release:
            results.pop(entry, None)
    return [results[key] for key in plan.heads]


def _fusions(order, keep):
    """The graph's foldable pairs (:data:`ops.FUSIONS`): consumer id -> (producer, fold), where the producer's
    one output feeds only the consumer's first input and is not a head."""
    uses = {}
    for node in order:
        for position, (child, k) in enumerate(node.inputs):
            uses.setdefault(id(child), []).append((node, position, k))
    folded = {}
    for node in order:
        if node.is_variable or not node.inputs:
            continue
        producer = node.inputs[0][0]
        fold = None if producer.is_variable else _ops.FUSIONS.get((producer.op.name, node.op.name))
        if (fold is not None and producer.n_outputs == 1 and (id(producer), 0) not in keep
                and uses.get(id(producer)) == [(node, 0, 0)]):
            folded[id(node)] = (producer, fold)
    return folded


def _run(node, inputs, attrs, fold=None, consumer_inputs=None, consumer_attrs=None):
    """``node``'s kernel on ``inputs`` (or ``fold`` of it with its consumer's), errors annotated with ``node``;
    ``attrs``: the node's attributes for this call (:func:`_attrs`, a copy the kernel may change)."""
    try:
        if fold is not None:
            return fold(inputs, attrs, consumer_inputs, consumer_attrs)
        return node.op.kernel(inputs, attrs)
    except MXNetError as err:  # checks made while running carry no per-operator prefix in MXNet
        raise MXNetError(str(err), node_name=node.name, node_origin=node.origin)
    except Exception as err:  # a runtime limitation or bug: keep the type, say where the user built the node
        _annotate(err, node)
        raise


def _store(results, node, out):
    if not isinstance(out, tuple):
        out = (out,)
    for i, arr in enumerate(out):
        arr = np.asarray(arr)
        results[(id(node), i)] = arr.reshape((1,)) if arr.ndim == 0 else arr
