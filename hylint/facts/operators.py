"""Python's tensor operators and MXNet's binary operators: which ``broadcast_*`` operator each one is, and
which scalar operators ``mx.nd``'s binary functions fall back to (MXNet 1.9.1, ``python/mxnet/ndarray/ndarray.py``).

The linter's fix for ``a + b`` writes ``F.broadcast_add(a, b)``; the runtime's ``nd.add(a, b)`` runs the same
operator. tests/facts/test_facts.py checks every entry on MXNet."""

# a tensor-tensor Python operator -> the broadcast_* operator NDArray runs for it (Symbol runs the
# elementwise one, which does not broadcast: the reason for HY101/HY102)
BROADCAST = {
    "+": "broadcast_add", "-": "broadcast_sub", "*": "broadcast_mul", "/": "broadcast_div", "%": "broadcast_mod",
    "**": "broadcast_power", "==": "broadcast_equal", "!=": "broadcast_not_equal", ">": "broadcast_greater",
    ">=": "broadcast_greater_equal", "<": "broadcast_lesser", "<=": "broadcast_lesser_equal",
}

# mx.nd's binary functions (NDArray only: mx.sym has none of them): name -> (the broadcast_* operator's
# suffix for two tensors, the scalar operator for tensor-scalar, the one for scalar-tensor or None when
# the operation is symmetric)
ND_BINARY_FUNCTIONS = (
    ("add", "add", "_plus_scalar", None), ("subtract", "sub", "_minus_scalar", "_rminus_scalar"),
    ("multiply", "mul", "_mul_scalar", None), ("divide", "div", "_div_scalar", "_rdiv_scalar"),
    ("true_divide", "div", "_div_scalar", "_rdiv_scalar"),
    ("modulo", "mod", "_mod_scalar", "_rmod_scalar"),
    ("equal", "equal", "_equal_scalar", None),
    ("not_equal", "not_equal", "_not_equal_scalar", None),
    ("greater", "greater", "_greater_scalar", "_lesser_scalar"),
    ("greater_equal", "greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"),
    ("lesser", "lesser", "_lesser_scalar", "_greater_scalar"),
    ("lesser_equal", "lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
    ("logical_and", "logical_and", "_logical_and_scalar", None),
    ("logical_or", "logical_or", "_logical_or_scalar", None),
    ("logical_xor", "logical_xor", "_logical_xor_scalar", None),
)

# nd-only wrapper -> (broadcast operator for two tensors, Python operator for tensor and number)
ND_WRAPPERS = {
    "add": ("broadcast_add", "+"), "subtract": ("broadcast_sub", "-"), "multiply": ("broadcast_mul", "*"),
    "divide": ("broadcast_div", "/"), "true_divide": ("broadcast_div", "/"), "modulo": ("broadcast_mod", "%"),
    "equal": ("broadcast_equal", "=="), "not_equal": ("broadcast_not_equal", "!="),
    "greater": ("broadcast_greater", ">"), "greater_equal": ("broadcast_greater_equal", ">="),
    "lesser": ("broadcast_lesser", "<"), "lesser_equal": ("broadcast_lesser_equal", "<="),
    "logical_and": ("broadcast_logical_and", None), "logical_or": ("broadcast_logical_or", None),
    "logical_xor": ("broadcast_logical_xor", None),
}

# what to write for the other nd-only functions (they have no mx.sym counterpart of that name)
ND_ONLY_ALTERNATIVE = {
    "concatenate": "`F.concat(*arrays, dim=axis)`", "moveaxis": "`F.transpose(x, axes=...)` or `F.swapaxes`",
    "onehot_encode": "`F.one_hot(indices, depth)`", "empty": "`F.zeros`", "waitall": "nothing (delete the call)",
    "isnan": "`x != x`", "isinf": "`F.abs(x) == float('inf')`",
    "isfinite": "`F.broadcast_logical_and(F.abs(x) != float('inf'), x == x)`",
}


def nd_only_instead(namespace: str, name: str, f_name: str):
    """What to write instead of ``nd.<name>``, which mx.sym lacks; None when there is no general answer."""
    if namespace == "top" and name in ND_WRAPPERS:
        return f"`{f_name}.{ND_WRAPPERS[name][0]}` (two tensors) or the Python operator (a number)"
    return ND_ONLY_ALTERNATIVE.get(name)

# The operators of both namespaces whose Python wrapper has no `out` parameter (and no **kwargs), so that
# `F.<op>(..., out=y)` raises `TypeError: <op>() got an unexpected keyword argument 'out'` in that mode;
# every other operator of mx.nd writes into `out`, and every other of mx.sym drops it silently (the
# generated Symbol functions take `out=None` and ignore it). (namespace, name), namespace "top" for
# mx.nd/mx.sym themselves. Measured on MXNet 1.9.1 (tests/facts/test_out_argument_facts.py: by signature,
# and by calls).
OUT_REFUSED_BY_BOTH = frozenset({
    ("top", "arange"), ("top", "linspace"), ("top", "load"), ("top", "maximum"), ("top", "minimum"),
    ("top", "power"), ("top", "split_v2"), ("contrib", "cond"), ("contrib", "foreach"),
    ("contrib", "rand_zipfian"), ("contrib", "while_loop"),
})
# refused by mx.nd's wrapper, dropped by mx.sym's
OUT_REFUSED_BY_ND_ONLY = frozenset({("top", "histogram")})
