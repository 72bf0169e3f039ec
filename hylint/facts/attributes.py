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
