"""What an NDArray has and a Symbol lacks: attributes and methods that work eagerly and fail once a block is
hybridized (MXNet 1.9.1: the generated lists in ``mxnet_api``, measured again by tests/facts/test_facts.py)."""
from hylint.facts import mxnet_api

_MISSING_ON_SYMBOL = mxnet_api.NDARRAY_ATTRS_MISSING_ON_SYMBOL

# values of an NDArray (x.shape, x.dtype, x.writable, ...) that a Symbol does not have
NDARRAY_ONLY_ATTRS = frozenset(name for name, kind in _MISSING_ON_SYMBOL.items() if kind != "method")

# of those, the ones whose value is Python's (a tuple, an int, a dtype, a Context), not an array: reading them
# off an NDArray made in __init__ is fine in both modes (stype and writable are too, but no rule asks yet)
NDARRAY_PYTHON_VALUES = frozenset({"shape", "size", "ndim", "dtype", "context", "ctx"})

# methods a Symbol has only as stubs raising NotImplementedForSymbol (x.asnumpy(), x.copy(), ...)
SYMBOL_STUB_METHODS = frozenset(mxnet_api.SYMBOL_STUB_METHODS)

# methods of NDArray that a Symbol does not have at all (x.attach_grad(), x.copyto(ctx), ...)
NDARRAY_ONLY_CALLS = frozenset(name for name, kind in _MISSING_ON_SYMBOL.items() if kind == "method")

# methods of mx.np.ndarray that neither mx.nd.NDArray 1.9.1 nor Symbol has: code written against NumPy calls
# them, and they fail hybridized as surely as the NDArray-only ones
NUMPY_ARRAY_METHODS = frozenset({"item", "tolist"})

# every method that fails on a Symbol
NDARRAY_ONLY_METHODS = SYMBOL_STUB_METHODS | NDARRAY_ONLY_CALLS | NUMPY_ARRAY_METHODS

# what to write instead of each, for the message when no fix applies ({x}: the tensor's code, {F}: the
# namespace). `x.size` is `size_array(x)` (one element, int64) in both modes.
_ELSEWHERE = "do this outside hybrid_forward: in `__init__`, or in the caller"
_IN_THE_GRAPH = ("keep the values in the graph (`{F}.where` for a choice, `{F}.sum`/`{F}.max` for a reduction, "
                 "`{F}.contrib.boolean_mask` for a selection), or move the Python code out of the hybrid function "
                 "into `forward` of a plain Block")
_ONE_CONTEXT = "nothing: F operators make their results on their inputs' context"
WRITE_INSTEAD = {
    "T": "`{x}.transpose()`",
    "size": "`{F}.size_array({x})` where the count only feeds data (int64: cast it before float arithmetic), "
            "or a size given to `__init__`",
    "ndim": "a rank given to `__init__`, or axes counted from the end (`axis=-1`, reshape's `-2`)",
    "dtype": "the `_like` operators (`{F}.zeros_like({x})`, `{F}.ones_like({x})`), which follow `{x}`'s dtype, "
             "or a dtype given to `__init__`",
    "context": _ONE_CONTEXT + " (drop `ctx=`, or use `{F}.zeros_like({x})` / `{F}.ones_like({x})` for new arrays)",
    "detach": "`{F}.BlockGrad({x})`",
    "copy": "`{F}.identity({x})`",
    "as_in_context": _ONE_CONTEXT + " (drop the call)",
    "copyto": "`{F}.identity({x})` (a graph has one context)",
    "wait_to_read": "nothing: a graph needs no synchronisation (drop the call)",
    "slice_assign": "a new tensor: `{F}.where(mask, value, {x})`, or `{F}.concat` of slices around the written part",
    **{name: _IN_THE_GRAPH for name in ("asnumpy", "asscalar", "item", "tolist")},
}
WRITE_INSTEAD["ctx"] = WRITE_INSTEAD["context"]
WRITE_INSTEAD["slice_assign_scalar"] = WRITE_INSTEAD["slice_assign"]


def write_instead(name: str, tensor: str, namespace: str) -> str:
    return WRITE_INSTEAD.get(name, _ELSEWHERE).format(x=tensor, F=namespace)
