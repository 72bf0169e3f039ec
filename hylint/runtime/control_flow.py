"""Control flow with subgraphs (symbolic ``contrib.foreach``/``contrib.while_loop``).

These operators run a traced body with the graph evaluator, so they sit above :mod:`.executor` and register
into :data:`ops.OPS` from here (``symbol.py`` imports this module before it builds such nodes)."""
import numpy as np

from . import executor
from .ops.table import Op, register
from .ops.attrs import P
from .ops.common import _at_least_1d


# The node attribute ``__subgraph__`` holds the traced body: its heads, its placeholder variable names and the
# "boundary" entries (values from the enclosing graph), which are appended to the node's inputs.
def _subgraph_values(g, inputs, n_loop):
    loop, bound = list(inputs[:n_loop]), inputs[n_loop:]
    given = {(id(n), k): v for (n, k), v in zip(g["boundary"], bound)}
    return loop, given


def _run_subgraph(heads, names, values, given):
    return executor.evaluate(heads, dict(zip(names, values)), given=given)


def _infer_subgraph(heads, names, in_shapes, in_types, g, n_loop):
    given_shapes = {(id(n), k): s for (n, k), s in zip(g["boundary"], in_shapes[n_loop:])}
    given_types = {(id(n), k): t for (n, k), t in zip(g["boundary"], in_types[n_loop:])}
    shapes, types, _, _ = executor.infer(heads, dict(zip(names, in_shapes[:n_loop])),
                                         dict(zip(names, in_types[:n_loop])), given_shapes=given_shapes,
                                         given_types=given_types)
    return [shapes.get((id(n), k)) for n, k in heads], [types.get((id(n), k)) for n, k in heads]


def _step_shape(shape):
    return tuple(shape[1:]) or (1,)


def _foreach_kernel(inputs, attrs):
    g = attrs["__subgraph__"]
    n_data, n_state = g["n_data"], g["n_state"]
    loop, given = _subgraph_values(g, inputs, n_data + n_state)
    data, states = loop[:n_data], loop[n_data:]
    steps = []
    for t in range(data[0].shape[0]):
        slices = [_at_least_1d(d[t]) for d in data]
        res = _run_subgraph(g["heads"], g["names"], slices + states, given)
        steps.append(res[:g["n_out"]])
        states = res[g["n_out"]:]
    outs = [np.stack([step[i] for step in steps]) for i in range(g["n_out"])]
    return tuple(outs + list(states))


def _foreach_infer(in_shapes, in_types, attrs):
    g = attrs["__subgraph__"]
    n_data, n_state = g["n_data"], g["n_state"]
    if any(s is None for s in in_shapes):
        return None, None
    step_in = [_step_shape(s) for s in in_shapes[:n_data]] + list(in_shapes[n_data:])
    shapes, types = _infer_subgraph(g["heads"], g["names"], step_in, list(in_types), g, n_data + n_state)
    length = in_shapes[0][0]
    out_shapes = [None if s is None else (length,) + tuple(s) for s in shapes[:g["n_out"]]] + shapes[g["n_out"]:]
    return out_shapes, types


def _while_loop_kernel(inputs, attrs):
    g = attrs["__subgraph__"]
    loop, given = _subgraph_values(g, inputs, g["n_vars"])
    steps = []
    for _ in range(g["max_iterations"]):
        if not float(np.asarray(_run_subgraph(g["cond"], g["names"], loop, given)[0]).reshape(-1)[0]):
            break
        res = _run_subgraph(g["heads"], g["names"], loop, given)
        steps.append(res[:g["n_out"]])
        loop = res[g["n_out"]:]
    outs = []
    for i, shape in enumerate(g.get("step_shapes") or []):
        rows = [step[i] for step in steps]
        template = rows[0] if rows else np.zeros(shape, dtype=np.float32)
        pad = [np.zeros_like(template)] * (g["max_iterations"] - len(rows))  # MXNet leaves these uninitialised
        outs.append(np.stack(rows + pad))
    return tuple(outs + list(loop))


def _while_loop_infer(in_shapes, in_types, attrs):
    g = attrs["__subgraph__"]
    if any(s is None for s in in_shapes):
        return None, None
    shapes, types = _infer_subgraph(g["heads"], g["names"], list(in_shapes), list(in_types), g, g["n_vars"])
    g["step_shapes"] = shapes[:g["n_out"]]
    out = [None if s is None else (g["max_iterations"],) + tuple(s) for s in shapes[:g["n_out"]]]
    return out + list(in_shapes[:g["n_vars"]]), types[:g["n_out"]] + list(in_types[:g["n_vars"]])


def _subgraph_shape(infer):
    def rule(in_shapes, attrs):
        out, _ = infer(in_shapes, [None] * len(in_shapes), attrs)
        return list(in_shapes), out if out is not None else [None] * attrs["num_outputs"]
    return rule


def _subgraph_type(infer):
    def rule(in_types, attrs):
        shapes = attrs.get("__in_shapes__")
        if shapes is None:
            return in_types, [in_types[0]] * attrs["num_outputs"]
        _, types = infer(shapes, in_types, attrs)
        return in_types, types
    return rule


for _name, _kernel, _infer in [("_foreach", _foreach_kernel, _foreach_infer),
                               ("_while_loop", _while_loop_kernel, _while_loop_infer)]:
    register(Op(_name, _kernel, _subgraph_shape(_infer), variadic=True, infer_type=_subgraph_type(_infer), hint=_name,
                num_outputs=lambda at: at["num_outputs"], params=(P("num_outputs", "int", 1), P("num_args", "int", 0)),
                namespaces=()))
