"""What the linter knows about Gluon's built-in layers (``nn.Dense``, ``nn.Conv2D``, ...) when a block
holds one as a child: what calling it returns."""
from __future__ import annotations

from typing import Optional

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
