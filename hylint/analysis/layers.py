"""What the linter knows about Gluon's built-in layers (``nn.Dense``, ``nn.Conv2D``, ...) when a block
holds one as a child: what calling it returns."""
from __future__ import annotations

# gluon layers whose call returns one tensor
SINGLE_OUTPUT_LAYERS = {
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
    "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "Dropout", "Embedding", "Activation", "Flatten",
    "HybridSequential", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU", "HybridLambda", "ReflectionPad2D",
}
