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
