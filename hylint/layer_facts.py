"""What a built-in gluon layer's call returns relative to its input, measured on MXNet 1.9.1.

``y = layer(x)``: True when ``y`` can be ``x`` itself or share its memory, so that an in-place write
to ``y`` changes ``x`` (measured eagerly and hybridized, in predict and training mode, by writing
``y += 1`` and reading ``x``); False when ``y`` is always a new array. ``tests/test_layer_facts.py``
measures every entry again where MXNet imports.

- ``Identity`` (contrib) returns ``x`` itself eagerly; hybridized its output shares ``x``'s memory.
- ``HybridLambda`` / ``Lambda`` return what their function returns (``lambda F, x: x`` is ``x``).
- ``HybridSequential`` / ``Sequential`` return ``x`` itself when empty (and whatever their last
  child returns otherwise).
- Every other layer below returns a new array, ``Dropout`` in predict mode and ``Flatten`` of a 2-D
  input included.
"""
from __future__ import annotations

from typing import Dict

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
