"""``mxnet.symbol`` (``mx.sym``): graph-building namespace and the legacy Symbol.

Operators add :class:`~hylint.runtime.graph.Node` s (recording the user's file/line); nothing is
computed or shape-checked until ``infer_shape``/``eval``/``bind`` or a hybridized block's cached
graph runs (:mod:`hylint.runtime.executor`). Every operator function here is generated from
:mod:`hylint.runtime.ops`; the NDArray-only functions of MXNet (``add``, ``array``, ...) are absent.
"""
import builtins
import json
import numbers
import sys
import types
import warnings

import numpy as np

from . import control_flow as _control_flow  # noqa: F401  (registers the subgraph ops, _foreach and _while_loop, into ops.OPS)
from . import executor as _executor
from . import ops as _ops
from .base import MXNetError, NotImplementedForSymbol, numeric_types
from .graph import Node, aux_variable_ids, from_json_dict, to_json_dict, topo_order
from .names import NameManager, capture_origin

__all__ = ["Symbol", "var", "Variable", "Group", "load_json", "load"]

_THIS = sys.modules[__name__]
PUBLIC_NAME = "mxnet.symbol"


class Symbol:
    """A list of graph outputs ``[(Node, index)]``."""

    __array_priority__ = 1000.0
    __hash__ = None  # defines __eq__ (builds a node), so unhashable, like MXNet

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # --- identity / structure ---------------------------------------------------------------
    @property
    def name(self):
        if len(self._outputs) != 1:
            return None
        node, _ = self._outputs[0]
        return node.name

    def __repr__(self):
        if len(self._outputs) == 1:
            return "<Symbol %s>" % self.name
        return "<Symbol group [%s]>" % ", ".join(n.name for n, _ in self._outputs)

    __str__ = __repr__

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        if isinstance(index, str):
            matches = [i for i, name in enumerate(self.list_outputs()) if name == index]
            if len(matches) != 1:
                raise ValueError("There are %s outputs with name %s" % (len(matches) or "no", index))
            index = matches[0]
        if isinstance(index, builtins.slice):
            start = index.start or 0
            stop = len(self) if index.stop is None else index.stop
            return Group([self[i] for i in range(start, stop, index.step or 1)])
        if type(index) is not int:
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index < 0:
            raise MXNetError("Check failed: index < nreturn (%d vs. %d) : Symbol only accept nonnegative index"
                             % (index % 2 ** 32, len(self)))
        if index >= len(self):
            raise IndexError()
        return Symbol([self._outputs[index]])

    def __copy__(self):
        return Symbol(self._outputs)

    def __deepcopy__(self, memo):
        return Symbol(self._outputs)

    def list_outputs(self):
        return [node.output_name(k) for node, k in self._outputs]

    def _order(self):
        return topo_order(self._outputs)

    def list_inputs(self):
        return [n.name for n in self._order() if n.is_variable]

    def list_arguments(self):
        order = self._order()
        aux = aux_variable_ids(order)
        return [n.name for n in order if n.is_variable and id(n) not in aux]

    def list_auxiliary_states(self):
        order = self._order()
        aux = aux_variable_ids(order)
        return [n.name for n in order if n.is_variable and id(n) in aux]

    def get_internals(self):
        outs = []
        for node in self._order():
            outs.extend((node, k) for k in range(node.n_outputs))
        return Symbol(outs)

    def get_children(self):
        children = [entry for node, _ in self._outputs for entry in node.inputs]
        return Symbol(children) if children else None

    def attr(self, key):
        node, _ = self._outputs[0]
        return node.var_attrs.get(key) if node.is_variable else node.attr_strs.get(key)

    def list_attr(self):
        node, _ = self._outputs[0]
        return dict(node.var_attrs if node.is_variable else node.attr_strs)

    def attr_dict(self):
        return {n.name: dict(n.var_attrs if n.is_variable else n.attr_strs) for n in self._order()}

    def tojson(self):
        return json.dumps(to_json_dict(self._outputs), indent=2)

    def save(self, fname, remove_amp_cast=True):
        with open(fname, "w") as handle:
            handle.write(self.tojson())

    # --- inference & execution --------------------------------------------------------------
    def _named_inputs(self, args, kwargs):
        names = self.list_arguments()
        known = dict(zip(names, args))
        known.update(kwargs)
        return known

    def infer_shape(self, *args, **kwargs):
        return self._infer_shape(False, args, kwargs)

    def infer_shape_partial(self, *args, **kwargs):
        return self._infer_shape(True, args, kwargs)

    def _infer_shape(self, partial, args, kwargs):
        known = {k: tuple(v) for k, v in self._named_inputs(args, kwargs).items()}
        shapes, _, vshape, _ = _executor.infer(self._outputs, known, {})
        args_out = [vshape.get(n) for n in self.list_arguments()]
        aux_out = [vshape.get(n) for n in self.list_auxiliary_states()]
        outs = [shapes.get((id(n), k)) for n, k in self._outputs]
        if not partial and (any(s is None for s in args_out + outs + aux_out)):
            warn_undecided_shapes(self.list_arguments(), args_out)
            return None, None, None
        return args_out, outs, aux_out

    def infer_type(self, *args, **kwargs):
        known = {k: np.dtype(v).name for k, v in self._named_inputs(args, kwargs).items()}
        _, types_, _, vtype = _executor.infer(self._outputs, {}, known)
        to_np = lambda t: None if t is None else np.dtype(t).type  # noqa: E731
        return ([to_np(vtype.get(n)) for n in self.list_arguments()],
                [to_np(types_.get((id(n), k))) for n, k in self._outputs],
                [to_np(vtype.get(n)) for n in self.list_auxiliary_states()])

    def bind(self, ctx=None, args=None, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        values = {}
        values.update(_bound_arrays("args", args, self.list_arguments()))
        values.update(_bound_arrays("aux_states", [] if aux_states is None else aux_states,
                                    self.list_auxiliary_states()))
        return Executor(self, values)

    def simple_bind(self, ctx=None, grad_req="write", **shapes):
        from .ndarray import zeros
        arg_shapes, _, aux_shapes = self.infer_shape(**shapes)
        args = {n: zeros(s) for n, s in zip(self.list_arguments(), arg_shapes)}
        aux = {n: zeros(s) for n, s in zip(self.list_auxiliary_states(), aux_shapes)}
        return Executor(self, dict(args, **aux))

    def eval(self, ctx=None, **kwargs):
        return self.bind(ctx, kwargs).forward()

    # --- NDArray-only stubs (they exist on Symbol and raise) -------------------------------
    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def copy(self):
        raise NotImplementedForSymbol(self.copy, None)

    def detach(self):
        raise NotImplementedForSymbol(self.detach, None)

    def backward(self):
        raise NotImplementedForSymbol(self.backward, None)

    def as_in_context(self):
        raise NotImplementedForSymbol(self.as_in_context, None)

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    __nonzero__ = __bool__

    def __iadd__(self, other):
        raise NotImplementedForSymbol(self.__iadd__, "+=", other, 1)

    def __isub__(self, other):
        raise NotImplementedForSymbol(self.__isub__, "-=", other)

    def __imul__(self, other):
        raise NotImplementedForSymbol(self.__imul__, "*=", other)

    def __idiv__(self, other):
        raise NotImplementedForSymbol(self.__idiv__, "/=", other)

    def __itruediv__(self, other):
        raise NotImplementedForSymbol(self.__itruediv__, "/=", other)

    # --- operators --------------------------------------------------------------------------
    def _binary(self, other, op_name, scalar_op, scalar_types=numbers.Number, hint=None, scalar_hint=None,
                swap=False):
        if isinstance(other, Symbol):
            return _invoke(op_name, (other, self) if swap else (self, other), {}, hint=hint)
        if isinstance(other, scalar_types):
            return _invoke(scalar_op, (self,), {"scalar": other}, hint=scalar_hint)
        raise TypeError("type %s not supported" % str(type(other)))

    def __add__(self, other):
        return self._binary(other, "_plus", "_plus_scalar")

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, "_minus", "_minus_scalar")

    def __rsub__(self, other):
        return self._binary(other, "_minus", "_rminus_scalar", swap=True)

    def __mul__(self, other):
        return self._binary(other, "_mul", "_mul_scalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, "_div", "_div_scalar")

    def __rtruediv__(self, other):
        return self._binary(other, "_div", "_rdiv_scalar", swap=True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, other):
        return self._binary(other, "_mod", "_mod_scalar")

    def __rmod__(self, other):
        return self._binary(other, "_mod", "_rmod_scalar", swap=True)

    def __pow__(self, other):
        return self._binary(other, "_power", "_power_scalar")

    def __rpow__(self, other):
        return self._binary(other, "_power", "_rpower_scalar", swap=True)

    def __neg__(self):
        return _invoke("_mul_scalar", (self,), {"scalar": -1.0})

    def __abs__(self):
        return _invoke("abs", (self,), {})

    def __eq__(self, other):
        return self._binary(other, "_equal", "_equal_scalar", numeric_types)

    def __ne__(self, other):
        return self._binary(other, "_not_equal", "_not_equal_scalar", numeric_types)

    def __gt__(self, other):
        return self._binary(other, "_greater", "_greater_scalar", numeric_types)

    def __ge__(self, other):
        return self._binary(other, "_greater_equal", "_greater_equal_scalar", numeric_types)

    def __lt__(self, other):
        return self._binary(other, "_lesser", "_lesser_scalar", numeric_types)

    def __le__(self, other):
        return self._binary(other, "_lesser_equal", "_lesser_equal_scalar", numeric_types)

    # --- fluent methods whose Symbol behaviour differs from NDArray's ----------------------
    def reshape(self, *args, **kwargs):
        return Reshape(self, *args, **kwargs)

    def astype(self, *args, **kwargs):
        return Cast(self, *args, **kwargs)

    def broadcast_to(self, *args, **kwargs):
        return _invoke("broadcast_to", (self,) + args, kwargs)

    def broadcast_like(self, *args, **kwargs):
        return _invoke("broadcast_like", (self,) + args, kwargs)

    def as_nd_ndarray(self):
        return self

    def as_np_ndarray(self):
        raise NotImplementedError("hylint.runtime mirrors only the legacy (non-numpy) MXNet API")


class Executor:
    """Result of ``Symbol.bind``: runs the graph with the bound arrays."""

    def __init__(self, symbol, values):
        self._symbol = symbol
        self.arg_dict = dict(values)
        self.outputs = []

    def forward(self, is_train=False, **kwargs):
        from .ndarray import NDArray, _wrap
        from . import autograd
        self.arg_dict.update(kwargs)
        values = {k: (v._data if isinstance(v, NDArray) else np.asarray(v)) for k, v in self.arg_dict.items()}
        heads = self._symbol._outputs
        shapes = {k: v.shape for k, v in values.items()}
        dtypes = {k: v.dtype.name for k, v in values.items()}
        inferred = _executor.infer(heads, shapes, dtypes)[0]
        with (autograd.train_mode() if is_train else autograd.predict_mode()):
            arrays = _executor.evaluate(heads, values, inferred)
        self.outputs = [_wrap(a) for a in arrays]
        return self.outputs


def _bound_arrays(arg_key, arrays, names):
    """MXNet's checks on ``bind`` inputs: a list in ``names`` order or a dict covering ``names``, of NDArrays."""
    from .ndarray import NDArray
    if isinstance(arrays, list):
        if len(arrays) != len(names):
            raise ValueError("Length of %s does not match the number of arguments" % arg_key)
        pairs = list(zip(names, arrays))
    elif isinstance(arrays, dict):
        missing = [name for name in names if name not in arrays]
        if missing:
            raise ValueError("key `%s` is missing in `%s`" % (missing[0], arg_key))
        pairs = [(name, arrays[name]) for name in names]
    else:
        raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
    if any(not isinstance(value, NDArray) for _, value in pairs):
        raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
    return dict(pairs)


def warn_undecided_shapes(names, shapes):
    """MXNet's warning of an incomplete ``infer_shape``, naming (at most ten of) the arguments left unknown, each
    with its partial shape (an unknown one is ``()``); Gluon's deferred initialisation raises its text."""
    unknowns = []
    for name, shape in zip(names, shapes):
        if not shape or 0 in shape:
            if len(unknowns) >= 10:
                unknowns.append("...")
                break
            unknowns.append("%s: %s" % (name, str(tuple(int(d) for d in shape or ()))))
    warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
                  "Consider providing them as input:\n\t" + "\n\t".join(unknowns), stacklevel=3)


def _describe_sym_error(arg_name, value):
    if arg_name is None:
        return "Positional arguments must be Symbol instances, but got %s" % (value,)
    return "Argument %s must be Symbol instances, but got %s" % (arg_name, value)


def _invoke(op_name, args, kwargs, hint=None):
    """Add one operator node to the graph (attributes are parsed now, shapes checked later)."""
    op = _ops.OPS[op_name] if isinstance(op_name, str) else op_name
    bound = _ops.bind_call(op, args, kwargs, "sym", lambda v: isinstance(v, Symbol), _describe_sym_error)
    attrs = _ops.parse_attrs(op, bound.attr_strs)
    name = NameManager.current().get(bound.name, hint or op.hint)
    if not isinstance(name, str):  # MXNet encodes the name for its C API: x.reshape(0, 0, 1, 1, 1) binds name=1
        raise AttributeError("'%s' object has no attribute 'encode'" % type(name).__name__)
    inputs = []
    for in_name, value in zip(*_ops.present_inputs(bound, attrs)):
        if value is None:  # MXNet creates the missing argument as a variable named after the node
            value = var("%s_%s" % (name, in_name))
        if len(value) != 1:
            raise MXNetError("Argument %s of %s must be a single-output Symbol, got %d outputs"
                             % (in_name, op.name, len(value)))
        inputs.append(value._outputs[0])
    node = Node(op, name, bound.attr_strs, attrs, inputs, capture_origin(), op.num_outputs(attrs))
    return Symbol([(node, k) for k in range(node.n_outputs)])


class _Namespace:
    kind = "sym"

    @staticmethod
    def invoke(op_name, args, kwargs):
        return _invoke(op_name, args, kwargs)

    @staticmethod
    def is_tensor(value):
        return isinstance(value, Symbol)


def _make_function(public_name, op):
    def function(*args, **kwargs):
        return _invoke(op, args, kwargs, hint=public_name.lower() if not public_name.startswith("_") else None)
    function.__name__ = public_name
    function.__qualname__ = public_name
    function.__doc__ = "Graph-building ``%s`` (operator %s of hylint.runtime.ops)." % (public_name, op.name)
    return function


for _name, _op in _ops.public_names().items():
    setattr(_THIS, _name, _make_function(_name, _op))
for _name, _fn in _ops.WRAPPERS(_Namespace).items():
    setattr(_THIS, _name, _fn)


def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None, **kwargs):
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    var_attrs = dict(attr or {})
    if shape is not None:
        var_attrs["__shape__"] = _ops.stringify(tuple(shape))
    if dtype is not None:
        var_attrs["__dtype__"] = np.dtype(dtype).name
    if init is not None:
        var_attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    return Symbol([(Node(None, name, var_attrs=var_attrs, origin=capture_origin()), 0)])


Variable = var


def Group(symbols):
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([entry for s in symbols for entry in s._outputs])


def load_json(json_str):
    return Symbol(from_json_dict(json.loads(json_str)))


def load(fname):
    with open(fname) as handle:
        return load_json(handle.read())


# --- sub-namespaces -----------------------------------------------------------------------------
def _submodule(short_name, members):
    module = types.ModuleType(PUBLIC_NAME + "." + short_name)
    for key, value in members.items():
        setattr(module, key, value)
    return module


def _random_uniform(low=0, high=1, shape=(), dtype=None, **kwargs):
    return _invoke("_random_uniform", (), dict(kwargs, low=low, high=high, shape=shape,
                                               **({} if dtype is None else {"dtype": dtype})))


def _random_normal(loc=0, scale=1, shape=(), dtype=None, **kwargs):
    return _invoke("_random_normal", (), dict(kwargs, loc=loc, scale=scale, shape=shape,
                                              **({} if dtype is None else {"dtype": dtype})))


def _random_randint(low, high, shape=(), dtype=None, **kwargs):
    return _invoke("_random_randint", (), dict(kwargs, low=low, high=high, shape=shape, dtype=dtype or "int32"))


def _random_multinomial(data, shape=(), get_prob=True, dtype="int32", **kwargs):
    # MXNet's sym wrapper defaults get_prob to True (nd: False) -> two outputs when hybridized
    return _invoke("_sample_multinomial", (data,), dict(kwargs, shape=shape, get_prob=get_prob, dtype=dtype))


random = _submodule("random", {
    "uniform": _random_uniform, "normal": _random_normal, "multinomial": _random_multinomial,
    "randint": _random_randint,
    "uniform_like": _make_function("uniform_like", _ops.OPS["_random_uniform_like"]),
    "normal_like": _make_function("normal_like", _ops.OPS["_random_normal_like"]),
    "shuffle": _make_function("shuffle", _ops.OPS["_shuffle"]),
})


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _contrib_cond(pred, then_func, else_func, name="cond"):
    """Symbolic ``contrib.cond``: both branches become part of the graph; a select node picks one at run time."""
    then_out, else_out = then_func(), else_func()
    single = isinstance(then_out, Symbol)
    then_list, else_list = _as_list(then_out), _as_list(else_out)
    if len(then_list) != len(else_list):
        raise ValueError("then_func and else_func must return the same number of outputs")
    selected = _invoke("_cond_select", tuple([pred] + then_list + else_list), {"num_outputs": len(then_list)},
                       hint="_cond")
    return selected if single else list(selected)


def _boundary(heads, placeholders):
    """Entries a traced body reads from the enclosing graph (they do not depend on the placeholders)."""
    ph = {id(p._outputs[0][0]) for p in placeholders}
    order = topo_order(heads)
    depends = {}
    for node in order:
        depends[id(node)] = id(node) in ph or any(depends[id(c)] for c, _ in node.inputs)
    boundary, seen = [], set()
    candidates = [(c, k) for n in order if depends[id(n)] for c, k in n.inputs if not depends[id(c)]]
    candidates += [(n, k) for n, k in heads if not depends[id(n)]]
    for node, k in candidates:
        if (id(node), k) not in seen:
            seen.add((id(node), k))
            boundary.append((node, k))
    return boundary


def _subgraph_node(op_name, hint, loop_entries, heads, boundary, n_outputs, extra):
    op = _ops.OPS[op_name]
    name = NameManager.current().get(None, hint)
    graph = dict(extra, heads=heads, boundary=boundary)
    attrs = {"num_outputs": n_outputs, "num_args": len(loop_entries) + len(boundary), "__subgraph__": graph}
    node = Node(op, name, {"num_outputs": str(n_outputs)}, attrs, list(loop_entries) + boundary, capture_origin(),
                n_outputs)
    return [Symbol([(node, k)]) for k in range(n_outputs)]


def _entries(symbols):
    return [s._outputs[0] for s in symbols]


def _contrib_foreach(body, data, init_states, name="foreach"):
    """Symbolic ``contrib.foreach``: ``body`` is traced once on placeholders and run per step by the node."""
    data_list, state_list = _as_list(data), _as_list(init_states)
    data_ph = [var("%s_data%d" % (name, i)) for i in range(len(data_list))]
    state_ph = [var("%s_state%d" % (name, i)) for i in range(len(state_list))]
    outs, states = body(data_ph[0] if isinstance(data, Symbol) else data_ph,
                        state_ph[0] if isinstance(init_states, Symbol) else state_ph)
    out_list, new_states = _as_list(outs), _as_list(states)
    heads = _entries(out_list + new_states)
    results = _subgraph_node("_foreach", "_foreach", _entries(data_list + state_list), heads,
                             _boundary(heads, data_ph + state_ph), len(heads),
                             {"names": [p.name for p in data_ph + state_ph], "n_data": len(data_list),
                              "n_state": len(state_list), "n_out": len(out_list)})
    out_syms, state_syms = results[:len(out_list)], results[len(out_list):]
    return (out_syms[0] if isinstance(outs, Symbol) else out_syms,
            state_syms[0] if isinstance(states, Symbol) else state_syms)


def _contrib_while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """Symbolic ``contrib.while_loop``: ``cond`` and ``func`` are traced once and iterated by the node."""
    var_list = _as_list(loop_vars)
    ph = [var("%s_var%d" % (name, i)) for i in range(len(var_list))]
    pred = cond(*ph)
    step_out, new_vars = func(*ph)
    out_list, new_list = _as_list(step_out), _as_list(new_vars)
    heads = _entries(out_list + new_list)
    cond_heads = _entries([pred])
    boundary = _boundary(heads + cond_heads, ph)
    results = _subgraph_node("_while_loop", "_while_loop", _entries(var_list), heads, boundary,
                             len(out_list) + len(new_list),
                             {"names": [p.name for p in ph], "cond": cond_heads, "n_vars": len(var_list),
                              "n_out": len(out_list), "max_iterations": int(max_iterations)})
    return results[:len(out_list)], results[len(out_list):]


linalg = _submodule("linalg", {"gemm2": _make_function("gemm2", _ops.OPS["_linalg_gemm2"])})

image = _submodule("image", {name: _make_function(name, op) for name, op in _ops.prefixed_names("image").items()})

contrib = _submodule("contrib", {
    **{name: _make_function(name, op) for name, op in _ops.prefixed_names("contrib").items()},
    "cond": _contrib_cond, "foreach": _contrib_foreach, "while_loop": _contrib_while_loop,
})


def __getattr__(name):
    raise AttributeError("module %r has no attribute %r" % (PUBLIC_NAME, name))


from .ndarray import FLUENT_METHODS, make_fluent  # noqa: E402  (one list of fluent methods for both classes)

for _name in FLUENT_METHODS:
    setattr(Symbol, _name, make_fluent(_THIS, _name))

Symbol.__module__ = "mxnet.symbol.symbol"

# MXNet's operators the runtime lacks, present by name (a library's test for one sees what it sees on MXNet)
_ops.namespaces.stand_in_for_lacking_operators(_THIS, PUBLIC_NAME)
