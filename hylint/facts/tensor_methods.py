"""Fluent methods: ``x.sum(axis=1)`` is ``F.sum(x, axis=1)``, on NDArray and on Symbol alike (measured with
``hasattr`` on MXNet 1.9.1's ``mx.nd.NDArray`` and ``mx.sym.Symbol``; tests/facts/test_facts.py measures them again).

The linter takes a call of one as evidence that the receiver is a tensor; the runtime gives both of its tensor
classes these methods."""

FLUENT_METHODS = frozenset({
    "sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax", "argmin", "argsort", "sort", "topk",
    "clip", "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "square", "abs", "sign",
    "round", "rint", "floor", "ceil", "trunc", "fix", "relu", "sigmoid", "softmax", "log_softmax", "softmin",
    "tanh", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
    "degrees", "radians", "reciprocal", "flatten", "expand_dims", "squeeze", "transpose", "swapaxes", "flip",
    "tile", "repeat", "split", "slice", "slice_axis", "slice_like", "take", "pick", "one_hot", "zeros_like",
    "ones_like", "reshape_like", "diag", "shape_array", "size_array", "broadcast_axes", "depth_to_space",
    "space_to_depth", "pad",
    "reshape", "astype", "broadcast_to", "broadcast_like",
})
