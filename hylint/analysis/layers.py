"""What the linter knows about Gluon's built-in layers (``nn.Dense``, ``nn.Conv2D``, ...) when a block
holds one as a child: what calling it returns."""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from hylint.analysis.syntax import call_arg, is_true, keyword_value, literal_int
from hylint.analysis.values import Kind, Shape, Value, tensor

# gluon layers whose call returns one tensor
SINGLE_OUTPUT_LAYERS = {
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Dropout", "Embedding", "Activation", "Flatten",
    "HybridSequential", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "HybridLambda", "ReflectionPad2D",
}

# What a built-in gluon layer's call returns relative to its input, measured on MXNet 1.9.1.
#
# `y = layer(x)`: True when `y` can be `x` itself or share its memory, so that an in-place write
# to `y` changes `x` (measured eagerly and hybridized, in predict and training mode, by writing
# `y += 1` and reading `x`); False when `y` is always a new array. tests/test_layer_facts.py
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

# gluon.rnn layers: `layer(x)` returns the output sequence; `layer(x, states)` returns (output, states)
RNN_LAYERS = {"RNN", "LSTM", "GRU"}

GLOBAL_POOLS = {f"Global{kind}Pool{n}D": n for kind in ("Avg", "Max") for n in (1, 2, 3)}


def child_output(short: str, constructor: Optional[cst.Call], call: cst.Call, attr: str) -> Optional[Value]:
    """What calling the built-in layer ``self.<attr>`` (made by ``constructor``) returns, or None when
    it is not a built-in layer this table knows."""
    if short in RNN_LAYERS:
        if len(call.args) > 1 or keyword_value(call, "states") is not None:
            return Value(Kind.SEQ, elements=(tensor(), Value(Kind.SEQ, certain=False)))
        return tensor()
    if short not in SINGLE_OUTPUT_LAYERS:
        return None
    if short in GLOBAL_POOLS and constructor is not None and keyword_value(constructor, "layout") is None:
        spatial = GLOBAL_POOLS[short]
        return tensor(Shape(rank=2 + spatial, dims=(None, None) + (1,) * spatial, unit_axis=True,
                            why=f"`self.{attr}` ({short}) leaves size-1 spatial axes"))
    if short == "Dense" and constructor is not None:
        units = call_arg(constructor, 0, "units")
        flatten = keyword_value(constructor, "flatten")
        size = literal_int(units.value) if units is not None else None
        if size is not None and (flatten is None or is_true(flatten)):
            return tensor(Shape(rank=2, dims=(None, size)))
    return tensor()
