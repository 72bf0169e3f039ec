"""Gluon blocks: ``Block``, ``HybridBlock`` (trace once, replay the cached graph), ``SymbolBlock``."""
import copy
import os
import re
import threading
import warnings
from collections import OrderedDict

import numpy as np

from .. import executor as _executor
from .. import initializer as _init
from .. import ndarray as _nd
from .. import symbol as _sym
from ..base import MXNetError
from ..graph import topo_order
from ..names import NameManager
from .parameter import DeferredInitializationError, Parameter, ParameterDict

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


class _BlockScope:
    """Name scope of a block: children get ``<parent prefix><hint><n>_`` prefixes, nodes the block prefix."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = NameManager.current().get(None, hint) + "_"
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = NameManager(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return False
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope
        return False


def _flatten(args, inout_str):
    """Nested lists of tensors -> (flat list, format) ; format ints: 0 tensor, -1 None, n>0 n-output symbol."""
    if isinstance(args, _nd.NDArray):
        return [args], 0
    if isinstance(args, _sym.Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError("When hybridized, the input of HybridBlock {} must be (nested) list of Symbol or NDArray, "
                         "but got {} of type {}".format(inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for item in args:
        sub, fmt = _flatten(item, inout_str)
        flat.extend(sub)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    def merge(items, fmt):
        if isinstance(fmt, int):
            if fmt == 0:
                return items[0], items[1:]
            if fmt == -1:
                return None, items[1:]
            return items[:fmt], items[fmt:]
        out = []
        for sub in fmt:
            value, items = merge(items, sub)
            out.append(value)
        return out, items
    return merge(list(args), fmt)[0]


class Block:
    """Base of all layers and models (imperative only)."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def _alias(self):
        return self.__class__.__name__.lower()

    def __repr__(self):
        lines = ["  ({key}): {block}".format(key=key, block=_indent(repr(block), 2))
                 for key, block in self._children.items()]
        if not lines:
            return self.__class__.__name__ + "(\n\n)"
        return "{name}(\n{body}\n)".format(name=self.__class__.__name__, body="\n".join(lines))

    def __setattr__(self, name, value):
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError("Changing attribute type for {name} from {type1} to {type2} is not allowed."
                                .format(name=name, type1=type(existing), type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            assert name not in self._reg_params, (
                "Overriding Parameter attribute %s is not allowed. If you want to share parameters between blocks, "
                "please set 'params' at Block construction instead." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        registered = {id(child) for child in self._children.values()}

        def has_block(value):
            if isinstance(value, (list, tuple)):
                return any(has_block(v) for v in value)
            if isinstance(value, dict):
                return any(has_block(v) for v in value.values())
            return isinstance(value, Block) and id(value) not in registered
        for key, value in self.__dict__.items():
            if isinstance(value, (list, tuple, dict)) and not key.startswith("__") and has_block(value):
                warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside the list, '
                              'tuple or dict will not be registered automatically. Make sure to register them using '
                              'register_child() or switching to nn.Sequential/nn.HybridSequential instead. '
                              .format(name=self.__class__.__name__ + "." + key), stacklevel=3)

    @property
    def prefix(self):
        return self._prefix

    @property
    def name(self):
        return self._name

    @property
    def params(self):
        return self._params

    def name_scope(self):
        return self._scope

    def register_child(self, block, name=None):
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_hook(self, hook):
        self._forward_hooks[id(hook)] = hook

    def register_forward_pre_hook(self, hook):
        self._forward_pre_hooks[id(hook)] = hook

    def collect_params(self, select=None):
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile("|".join(select.split()) if isinstance(select, str) else select)
            ret.update(OrderedDict((k, v) for k, v in self.params.items() if pattern.match(k)))
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def initialize(self, init=_init.Uniform(), ctx=None, verbose=False, force_reinit=False):
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def save_parameters(self, filename, deduplicate=False):
        params = self._collect_params_with_prefix()
        _nd.save(filename, {key: value.data() for key, value in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current"):
        loaded = _nd.load(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not allow_missing:
            for name in params:
                assert name in loaded, ("Parameter '%s' is missing in file '%s', which contains parameters: %s."
                                        % (name, filename, ", ".join(sorted(loaded))))
        for name, value in loaded.items():
            if name not in params:
                assert ignore_extra, ("Parameter '%s' loaded from file '%s' is not present in this Block" %
                                      (name, filename))
                continue
            params[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    save_params = save_parameters
    load_params = load_parameters

    def hybridize(self, active=True, **kwargs):
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        raise NotImplementedError

    def apply(self, fn):
        """Calls ``fn(block)`` on every descendant (children first) and then on this block; returns it."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def summary(self, *inputs):
        print(repr(self))


def _indent(text, spaces):
    return text.replace("\n", "\n" + " " * spaces)


def _onednn_backend(flags):
    """Whether ``hybridize(backend=...)`` named MXNet's oneDNN subgraph backend, whose graph passes fuse a
    convolution with the BatchNorm after it (measured on MXNet 1.9.1: a plain ``hybridize()`` fuses nothing,
    its outputs equal the eager ones bit for bit; ``hybridize(backend="MKLDNN")`` differs from them by the fold's
    rounding)."""
    return str(dict(flags).get("backend") or "").upper() == "MKLDNN"


class _CachedGraph:
    """The replayable graph of a hybridized block (MXNet's CachedOp)."""

    def __init__(self, heads, data_names, param_inputs, fuse=False):
        self.heads = heads
        self.fuse = fuse                      # hybridize(backend="MKLDNN"): MXNet's oneDNN fusions apply
        self.data_names = data_names          # graph input names, positional order
        self.param_inputs = param_inputs      # [(name, Parameter)]
        self._checked = {}                    # input signature -> None (ok) or the failure kind
        self._shapes = {}                     # input signature -> inferred shapes
        self._plans = {}                      # (input signature, fuse) -> the graph compiled for those shapes
        order = topo_order(heads)
        self._has_inputs = any(n.is_variable for n in order)
        self._sort_without_axis = [n for n in order if not n.is_variable and n.op.name == "sort"
                                   and "axis" not in n.attr_strs]

    def __call__(self, data_arrays):
        from .. import autograd
        if not self._has_inputs:
            raise MXNetError("Check failed: !xs.empty(): There are no inputs in computation graph that require "
                             "gradients.")
        for node in self._sort_without_axis:
            # measured MXNet bug: the Symbol default axis of sort serialises as '' and breaks the backward node
            raise MXNetError("Invalid Parameter format for axis expect int or None but value='', in operator "
                             "_backward_topk(name=\"%s_backward\", is_ascend=\"1\", ret_typ=\"value\", k=\"0\", "
                             "axis=\"\")" % node.name, node_name=node.name, node_origin=node.origin)
        values = dict(zip(self.data_names, (a._data for a in data_arrays)))
        for name, param in self.param_inputs:
            values[name] = param.data()._data
        signature = tuple((k, v.shape, v.dtype.name) for k, v in sorted(values.items()))
        failed = self._checked.get(signature)
        if failed:
            attr, source = ("dtype", "InferType") if failed == "dtype" else ("shape", "InferShape")
            raise MXNetError("Graph attr dependency %s is required by pass MXPlanMemory but is not available  The "
                             "attribute is provided by pass %s" % (attr, source))
        if signature not in self._shapes:
            try:
                self._shapes[signature] = _executor.infer(self.heads, {k: v.shape for k, v in values.items()},
                                {k: v.dtype.name for k, v in values.items()})
            except MXNetError as err:
                if str(err).startswith("Error in operator"):  # the failed pass leaves the graph half-inferred
                    self._checked[signature] = "dtype" if re.search(r"expected (float|int|uint)", str(err)) \
                        else "shape"
                raise
            self._checked[signature] = None
        with autograd.pause(train_mode=autograd.is_training()):
            plan = self._plans.get((signature, self.fuse))
            if plan is None:
                plan = self._plans[(signature, self.fuse)] = _executor.compile_plan(
                    self.heads, self._shapes[signature][0], fuse=self.fuse)
            arrays = _executor.run_plan(plan, values)
        return [_nd._wrap(a) for a in arrays]


class HybridBlock(Block):
    """A block whose ``hybrid_forward(F, x, *args, **params)`` runs eagerly (``F`` = ``mx.nd``) or, after
    ``hybridize()``, is traced once with Symbols (``F`` = ``mx.sym``) and the cached graph is replayed."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are using "
                             "Sequential, please try HybridSequential instead." % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None

    def hybridize(self, active=True, **kwargs):
        self._active = active
        self._flags = list(kwargs.items())
        self._clear_cached_op()
        super().hybridize(active, **kwargs)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    # --- tracing ----------------------------------------------------------------------------
    def _get_graph(self, *args):
        if not self._cached_graph:
            flat, self._in_format = _flatten(args, "input")
            real = sum(a is not None for a in flat)
            if real == 0:
                raise ValueError("All args are None and we do not support such a case. Received args={}".format(args))
            inputs, symbol_inputs, count = [], [], 0
            for arg in flat:
                if arg is None:
                    inputs.append(None)
                    continue
                variable = _sym.var("data%d" % count if real > 1 else "data")
                count += 1
                inputs.append(variable)
                symbol_inputs.append(variable)
            grouped = _regroup(inputs, self._in_format)
            params = {key: value.var() for key, value in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(_sym, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = symbol_inputs, _sym.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        params = self.collect_params()
        input_names = out.list_inputs()
        for name in input_names:
            assert name in params or name in data_names, "Unknown input to HybridBlock: %s" % name
        unused_data = [i for name, i in data_names.items() if name not in input_names]
        if unused_data:
            warnings.warn("The %s input to HybridBlock is not used by any computation. Is this intended?"
                          % ", ".join("%d-th" % i for i in unused_data), stacklevel=4)
        unused_params = [name for name in params.keys() if name not in input_names]
        if unused_params:
            warnings.warn("Parameter %s is not used by any computation. Is this intended?" % ", ".join(unused_params),
                          stacklevel=4)
        flat_args, _ = _flatten(args, "input")
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat_args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        data_order = [d.name for d in data]
        self._cached_op = _CachedGraph(out._outputs, data_order,
                                       [(name, params[name]) for name in input_names if name in params],
                                       fuse=_onednn_backend(self._flags))

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as err:  # MXNet wraps every failure here
            raise ValueError("Deferred initialization failed because shape cannot be inferred. {}".format(err))

    def infer_shape(self, *args):
        self._infer_attrs("shape", *args)

    def infer_type(self, *args):
        self._infer_attrs("dtype", *args)

    def _infer_attrs(self, attr, *args):
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        known = {}
        for variable, arg in zip(inputs, [a for a in flat if a is not None]):
            known[variable.name] = arg
        shapes = {k: v.shape for k, v in known.items()}
        dtypes = {k: np.dtype(v.dtype).name for k, v in known.items()}
        _, _, vshape, vtype = _executor.infer(out._outputs, shapes, dtypes)
        if attr == "shape":
            arguments = out.list_arguments()
            undecided = [vshape.get(name) for name in arguments]
            if any(not shape or 0 in shape for shape in undecided):
                # as MXNet: Symbol.infer_shape warns and gives None, and the warning's text is raised (where
                # warnings are ignored there is none: IndexError, as there)
                with warnings.catch_warnings(record=True) as caught:
                    _sym.warn_undecided_shapes(arguments, undecided)
                    raise ValueError(caught[0].message)
        for param in self.collect_params().values():
            if attr == "shape" and vshape.get(param.name) is not None:
                param.shape = vshape[param.name]
            elif attr == "dtype" and vtype.get(param.name) is not None:
                param.dtype = np.dtype(vtype[param.name]).type

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format:
            stored = self._in_format
            if len(stored) > len(fmt):
                valid = all(stored[i] == -1 for i in range(len(fmt), len(stored))) and fmt == stored[:len(fmt)]
            elif len(stored) < len(fmt):
                valid = all(fmt[i] == -1 for i in range(len(stored), len(fmt))) and fmt[:len(stored)] == stored
            else:
                valid = False
            if not valid:
                # (sic) MXNet labels the new call's format "Stored" and the cached one "input"
                raise ValueError("The argument structure of HybridBlock does not match the cached version. Stored "
                                 "format = {}, input format = {}".format(fmt, self._in_format))
        data = [a for a in flat if a is not None]
        try:
            out = self._cached_op(data)
        except DeferredInitializationError:
            # as MXNet 1.9's _call_cached_op: a parameter still deferred (a SymbolBlock builds its cache without
            # inferring, gluoncv's FeatureExpander) takes its shape from this first call's inputs, then it runs
            self._deferred_infer_shape(*args)
            for _, param in self._cached_op.param_inputs:
                param._finish_deferred_init()
            out = self._cached_op(data)
        return _regroup(out, self._out_format)

    def forward(self, x, *args):
        flat = _flatten_loose([x] + list(args))
        has_symbol = any(isinstance(a, _sym.Symbol) for a in flat)
        has_ndarray = any(isinstance(a, _nd.NDArray) for a in flat)
        if has_symbol and has_ndarray:
            raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input. "
                             "Please check the type of the args.\n")
        if not has_symbol and not has_ndarray:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. Please check "
                             "the type of the args.\n")
        if has_ndarray:
            if self._active:
                return self._call_cached_op(x, *args)
            try:
                params = {key: value.data() for key, value in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for value in self.params.values():
                    value._finish_deferred_init()
                params = {key: value.data() for key, value in self._reg_params.items()}
            return self.hybrid_forward(_nd, x, *args, **params)
        params = {key: value.var() for key, value in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_sym, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError

    def export(self, path, epoch=0, remove_amp_cast=True):
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                               "once before calling export.")
        sym = self._cached_graph[1]
        sym.save("%s-symbol.json" % path)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arrays = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arrays["arg:%s" % name] = param.data()
            elif name in aux_names:
                arrays["aux:%s" % name] = param.data()
        params_file = "%s-%04d.params" % (path, epoch)
        _nd.save(params_file, arrays)
        return "%s-symbol.json" % path, params_file


def _flatten_loose(args):
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.extend(_flatten_loose(a))
        else:
            out.append(a)
    return out


class SymbolBlock(HybridBlock):
    """A block running a fixed graph (``SymbolBlock.imports`` of an exported model)."""

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix="", params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, _sym.Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        out = _sym.Group(out)
        input_names = {s.name for s in syms}
        for name in out.list_arguments():
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True)
        for name in out.list_auxiliary_states():
            if name not in input_names:
                self.params.get(name, grad_req="null", allow_deferred_init=True)
        self._cached_graph = syms, out
        # structural names: the parameter names without their common prefix, as MXNet registers them
        cut = len(os.path.commonprefix(list(self._params.keys())))
        self._reg_params = {key[cut:]: value for key, value in self._params.items()}

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None):
        sym = _sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        inputs = [_sym.var(name) for name in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            loaded = _nd.load(param_file)
            for key, value in loaded.items():
                name = key.split(":", 1)[1] if ":" in key else key
                if name in block.params:
                    block.params[name]._load_init(value, ctx)
        return block

    def forward(self, x, *args):
        if isinstance(x, _nd.NDArray):
            return self._call_cached_op(x, *args)
        syms, out = self._cached_graph
        flat, _ = _flatten([x] + list(args), "input")
        mapping = {s.name: f for s, f in zip(syms, flat)}
        return _regroup(list(_substitute(out, mapping)), self._out_format)

    def _clear_cached_op(self):
        # the graph is what this block is: hybridize() (called on a parent too) drops only the cached op
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def _build_cache(self, *args):
        syms, out = self._cached_graph
        params = self.params
        self._cached_op = _CachedGraph(out._outputs, [s.name for s in syms],
                                       [(name, params[name]) for name in out.list_inputs() if name in params],
                                       fuse=_onednn_backend(self._flags))

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


def _substitute(symbol, mapping):
    """Copy of ``symbol``'s graph with the named variables replaced by other symbols.

    Walks the nodes in topological order (inputs first), without recursion: a graph is as deep as its longest
    chain of ops (a ResNeSt-101 FPN backbone is thousands deep), far beyond Python's recursion limit."""
    memo = {}  # id(old node) -> (new node, fixed output index or None)
    for node in topo_order(symbol._outputs):
        if node.is_variable and node.name in mapping:
            memo[id(node)] = mapping[node.name]._outputs[0]
            continue
        new = copy.copy(node)
        new.inputs = [_entry(memo[id(child)], k) for child, k in node.inputs]
        memo[id(node)] = (new, None)
    return _sym.Symbol([_entry(memo[id(n)], k) for n, k in symbol._outputs])


def _entry(cloned, k):
    node, fixed = cloned
    return (node, fixed if fixed is not None else k)


for _cls in (Block, HybridBlock, SymbolBlock):
    _cls.__module__ = "mxnet.gluon.block"
