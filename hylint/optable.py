"""What the linter knows about MXNet operators (static facts, no MXNet needed).

The names in ``mxnet_api`` are measured on MXNet 1.9.1 (see scripts/gen_mxnet_api.py).
"""
from __future__ import annotations

from hylint import mxnet_api

# F.<op>(...) that create a tensor from a shape, not from data
CREATION_OPS = {"ones", "zeros", "full", "empty", "arange", "eye", "linspace", "array"}

# ops (and fluent methods) whose output has the shape of their first data input
SHAPE_PRESERVING = {
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "softsign", "exp", "log", "log1p", "expm1", "sqrt",
    "rsqrt", "square", "abs", "sign", "negative", "reciprocal", "floor", "ceil", "round", "rint", "fix",
    "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "erf", "gamma", "gammaln",
    "clip", "Activation", "LeakyReLU", "Dropout", "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm",
    "identity", "stop_gradient", "BlockGrad", "cast", "Cast", "zeros_like", "ones_like", "L2Normalization",
    "hard_sigmoid", "softmin", "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "where",
    "logical_not", "make_loss", "smooth_l1",
}

REDUCTIONS = {"sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax", "argmin", "sum_axis",
              "max_axis", "min_axis"}

# ops whose positional arguments are all tensors
ALL_DATA_POSITIONAL = {
    "concat", "Concat", "stack", "add_n", "ElementWiseSum", "dot", "batch_dot", "where", "maximum", "minimum",
    "power", "hypot", "take", "pick", "batch_take", "gather_nd", "FullyConnected", "Convolution",
    "Deconvolution", "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Embedding", "RNN",
    "broadcast_like", "reshape_like", "slice_like", "SequenceMask", "SequenceLast", "SequenceReverse",
    "LeakyReLU", "arctan2", "softmax_cross_entropy", "SoftmaxOutput", "LinearRegressionOutput",
}

DATA_KEYWORDS = {"data", "lhs", "rhs", "weight", "bias", "gamma", "beta", "moving_mean", "moving_var", "label",
                 "indices", "index", "condition", "x", "y", "a", "b", "mask", "sequence_length", "state",
                 "state_cell", "parameters", "rois", "query", "key", "value", "valid_length"}

# fluent methods shared by NDArray and Symbol (calling one is evidence the receiver is a tensor)
TENSOR_METHODS = {
    "reshape", "reshape_like", "sum", "mean", "max", "min", "prod", "norm", "argmax", "argmin", "transpose",
    "swapaxes", "expand_dims", "squeeze", "flatten", "astype", "softmax", "log_softmax", "relu", "sigmoid",
    "tanh", "exp", "log", "sqrt", "square", "abs", "clip", "slice", "slice_axis", "slice_like", "take", "pick",
    "tile", "repeat", "broadcast_to", "broadcast_like", "split", "one_hot", "topk", "sort", "argsort", "zeros_like",
    "ones_like", "flip", "round", "floor", "ceil", "sign", "nansum", "diag",
}

# methods that exist (or work) only on NDArray; on a Symbol they raise (mxnet-truth §3)
NDARRAY_ONLY_METHODS = {"asnumpy", "asscalar", "item", "wait_to_read", "attach_grad", "copyto", "as_in_context",
                        "copy", "detach", "tostype", "backward", "tolist"}

# attributes of NDArray that Symbol lacks
NDARRAY_ONLY_ATTRS = {"shape", "size", "ndim", "dtype", "context", "ctx", "T", "grad", "stype"}

NUMPY_SCALAR_TYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
                      "float_", "int_", "double", "single", "pi", "e", "inf", "nan"}

# gluon layers whose call returns one tensor
SINGLE_OUTPUT_LAYERS = {
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Dropout", "Embedding", "Activation", "Flatten",
    "HybridSequential", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "HybridLambda", "ReflectionPad2D",
}

# tensor-tensor operators and their broadcast_* equivalents
BROADCAST_OPS = {
    "+": "broadcast_add", "-": "broadcast_sub", "*": "broadcast_mul", "/": "broadcast_div", "%": "broadcast_mod",
    "==": "broadcast_equal", "!=": "broadcast_not_equal", ">": "broadcast_greater",
    ">=": "broadcast_greater_equal", "<": "broadcast_lesser", "<=": "broadcast_lesser_equal",
}

ND_ONLY = {ns: set(names) for ns, names in mxnet_api.ND_ONLY.items()}
SYM_ONLY = {ns: set(names) for ns, names in mxnet_api.SYM_ONLY.items()}


def is_data_position(op: str, index: int) -> bool:
    short = op.rsplit(".", 1)[-1]
    if short in CREATION_OPS or op.startswith("random.") and short not in ("multinomial", "shuffle"):
        return False
    if short in ALL_DATA_POSITIONAL or short.startswith("broadcast_") or short.startswith("elemwise_"):
        return True
    return index == 0


def is_data_keyword(keyword: str) -> bool:
    return keyword in DATA_KEYWORDS


# operators whose result has several outputs (`[i]` selects an output, eagerly and hybridized alike);
# counted with `len(mx.sym.<op>(...).list_outputs())` on MXNet 1.9.1 with default arguments
MULTI_OUTPUT_OPS = {"bipartite_matching", "box_encode", "MultiBoxTarget",
                    "hawkesll", "gelqf", "syevd", "slogdet", "linalg_gelqf", "linalg_syevd", "linalg_slogdet"}
# ... and those with several outputs when a flag asks for them: op -> keyword
MULTI_OUTPUT_FLAGS = {"BatchNorm": "output_mean_var", "RNN": "state_outputs", "Proposal": "output_score",
                      "MultiProposal": "output_score"}
