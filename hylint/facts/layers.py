"""Gluon's block classes and built-in layers (MXNet 1.9.1's ``gluon.nn``, ``gluon.rnn``, ``gluon.contrib.nn``):
which are hybrid, which plain, what calling one returns. tests/facts/test_facts.py and tests/facts/test_layer_facts.py
measure them again on MXNet."""
from typing import Dict

# base classes a hybridizable block derives from
HYBRID_BASE_NAMES = frozenset({
    "HybridBlock", "HybridSequential", "HybridConcurrent", "HybridLambda", "SymbolBlock", "HybridRecurrentCell",
})
# base classes of blocks that cannot be hybridized
BLOCK_BASE_NAMES = frozenset({"Block", "Sequential", "Lambda", "Concurrent", "RecurrentCell"})

# a plain container -> its hybrid counterpart
HYBRID_NAME = {"Sequential": "HybridSequential", "Lambda": "HybridLambda", "Concurrent": "HybridConcurrent"}

# built-in layers whose call returns one tensor
SINGLE_OUTPUT_LAYERS = frozenset({
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Dropout", "Embedding", "Activation", "Flatten",
    "HybridSequential", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "HybridLambda", "ReflectionPad2D",
})

# built-in layers whose call fails eagerly unless its first input is one NDArray (a Python number or a
# list of arrays reaches an operator that refuses it): calling one on a value proves the value a tensor.
# The containers are not among them: their first block decides what they accept
TENSOR_INPUT_LAYERS = SINGLE_OUTPUT_LAYERS - {"HybridSequential", "HybridLambda"}

# gluon.rnn layers: `layer(x)` returns the output sequence; `layer(x, states)` returns (output, states)
RNN_LAYERS = frozenset({"RNN", "LSTM", "GRU"})

# hybrid blocks besides the single-output layers and the hybrid bases
OTHER_HYBRID_LAYERS = frozenset({
    "HybridConcurrent", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell", "HybridBlock", "Identity",
    "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D", "SyncBatchNorm"})
HYBRID_LAYERS = SINGLE_OUTPUT_LAYERS | HYBRID_BASE_NAMES | OTHER_HYBRID_LAYERS
# built-in blocks that are not hybrid
PLAIN_LAYERS = frozenset({"Sequential", "Lambda", "Concurrent", "Block"})

# What a built-in gluon layer's call returns relative to its input, measured on MXNet 1.9.1.
#
# `y = layer(x)`: True when `y` can be `x` itself or share its memory, so that an in-place write
# to `y` changes `x` (measured eagerly and hybridized, in predict and training mode, by writing
# `y += 1` and reading `x`); False when `y` is always a new array. tests/facts/test_layer_facts.py
# measures every entry again where MXNet imports.
#
# - `Identity` (contrib) returns `x` itself eagerly; hybridized its output shares `x`'s memory.
# - `HybridLambda` / `Lambda` return what their function returns (`lambda F, x: x` is `x`).
# - `HybridSequential` / `Sequential` return `x` itself when empty (and whatever their last
#   child returns otherwise).
# - Every other layer below returns a new array, `Dropout` in predict mode and `Flatten` of a 2-D
#   input included.
LAYER_RETURNS_INPUT: Dict[str, bool] = {
    # can return their input
    "Identity": True, "HybridLambda": True, "Lambda": True, "HybridSequential": True, "Sequential": True,
    # always a new array
    "Dense": False, "Dropout": False, "BatchNorm": False, "SyncBatchNorm": False, "InstanceNorm": False,
    "LayerNorm": False, "GroupNorm": False, "Embedding": False, "Flatten": False, "Activation": False,
    "LeakyReLU": False, "PReLU": False, "ELU": False, "SELU": False, "Swish": False, "GELU": False,
    "Conv1D": False, "Conv2D": False, "Conv3D": False, "Conv1DTranspose": False, "Conv2DTranspose": False,
    "Conv3DTranspose": False, "MaxPool1D": False, "MaxPool2D": False, "MaxPool3D": False, "AvgPool1D": False,
    "AvgPool2D": False, "AvgPool3D": False, "GlobalMaxPool1D": False, "GlobalMaxPool2D": False,
    "GlobalMaxPool3D": False, "GlobalAvgPool1D": False, "GlobalAvgPool2D": False, "GlobalAvgPool3D": False,
    "ReflectionPad2D": False, "PixelShuffle1D": False, "PixelShuffle2D": False, "PixelShuffle3D": False,
}

# layers whose output nobody else holds: an in-place write to it cannot be observed
FRESH_OUTPUT_LAYERS = frozenset(name for name, returns_input in LAYER_RETURNS_INPUT.items() if not returns_input)

# gluon.rnn and gluon.contrib.rnn blocks whose `begin_state(batch_size=0, func=mx.nd.zeros, **kwargs)`
# makes NDArrays unless `func` is given (the sequential and bidirectional containers pass `func` on to
# their cells, which default to it). The modifier cells (ZoneoutCell, ResidualCell,
# VariationalDropoutCell) default to `mx.sym.zeros` instead and are not here. Measured on MXNet 1.9.1
# (tests/facts/test_begin_state_facts.py).
BEGIN_STATE_ND_DEFAULT = frozenset({
    "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "DropoutCell", "RecurrentCell", "HybridRecurrentCell",
    "SequentialRNNCell", "HybridSequentialRNNCell", "BidirectionalCell", "LSTMPCell",
    "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
    "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell",
})

# What computes differently in training and in predict mode (autograd.train_mode()/predict_mode()), measured
# on MXNet 1.9.1 (tests/facts/test_autograd_scope_facts.py): the gluon layers, and the operators
# (`F.<name>`, `F.contrib.<name>`). InstanceNorm, LayerNorm, GroupNorm, Dense, Conv2D, Activation and
# rnn.LSTM (dropout=0.5, CPU) compute the same in both modes; BatchNorm with use_global_stats=True too.
MODE_DEPENDENT_LAYERS = frozenset({"Dropout", "BatchNorm", "SyncBatchNorm"})
MODE_DEPENDENT_OPERATORS = frozenset({"Dropout", "BatchNorm", "SyncBatchNorm"})
