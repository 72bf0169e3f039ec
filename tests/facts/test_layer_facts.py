"""hylint.facts.layers measured again on real MXNet 1.9.1: which gluon layers can return their input."""
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hylint.facts.layers import FRESH_OUTPUT_LAYERS, LAYER_RETURNS_INPUT  # noqa: E402
from hylint.facts.layers import SINGLE_OUTPUT_LAYERS  # noqa: E402


def _recipes(mx):
    """layer name -> (constructor of an instance, input shape); for the layers that can return their
    input, an instance that does."""
    nn, contrib = mx.gluon.nn, mx.gluon.contrib.nn
    two, three, four, five = (2, 4), (2, 4, 6), (2, 4, 6, 6), (2, 4, 3, 3, 3)

    def sequential(kind):
        return lambda: getattr(nn, kind)()  # empty: returns its input

    return {
        "Identity": (contrib.Identity, two),
        "HybridLambda": (lambda: nn.HybridLambda(lambda F, x: x), two),
        "Lambda": (lambda: nn.Lambda(lambda x: x), two),
        "HybridSequential": (sequential("HybridSequential"), two),
        "Sequential": (sequential("Sequential"), two),
        "Dense": (lambda: nn.Dense(4), two), "Dropout": (lambda: nn.Dropout(0.5), two),
        "BatchNorm": (nn.BatchNorm, four), "SyncBatchNorm": (contrib.SyncBatchNorm, four),
        "InstanceNorm": (nn.InstanceNorm, four), "LayerNorm": (nn.LayerNorm, two),
        "GroupNorm": (lambda: nn.GroupNorm(num_groups=2), four), "Embedding": (lambda: nn.Embedding(10, 4), two),
        "Flatten": (nn.Flatten, two), "Activation": (lambda: nn.Activation("relu"), two),
        "LeakyReLU": (lambda: nn.LeakyReLU(0.1), two), "PReLU": (nn.PReLU, two), "ELU": (nn.ELU, two),
        "SELU": (nn.SELU, two), "Swish": (nn.Swish, two), "GELU": (nn.GELU, two),
        "Conv1D": (lambda: nn.Conv1D(4, 3), three), "Conv2D": (lambda: nn.Conv2D(4, 3), four),
        "Conv3D": (lambda: nn.Conv3D(4, 3), five), "Conv1DTranspose": (lambda: nn.Conv1DTranspose(4, 3), three),
        "Conv2DTranspose": (lambda: nn.Conv2DTranspose(4, 3), four),
        "Conv3DTranspose": (lambda: nn.Conv3DTranspose(4, 3), five),
        "MaxPool1D": (nn.MaxPool1D, three), "MaxPool2D": (nn.MaxPool2D, four), "MaxPool3D": (nn.MaxPool3D, five),
        "AvgPool1D": (nn.AvgPool1D, three), "AvgPool2D": (nn.AvgPool2D, four), "AvgPool3D": (nn.AvgPool3D, five),
        "GlobalMaxPool1D": (nn.GlobalMaxPool1D, three), "GlobalMaxPool2D": (nn.GlobalMaxPool2D, four),
        "GlobalMaxPool3D": (nn.GlobalMaxPool3D, five), "GlobalAvgPool1D": (nn.GlobalAvgPool1D, three),
        "GlobalAvgPool2D": (nn.GlobalAvgPool2D, four), "GlobalAvgPool3D": (nn.GlobalAvgPool3D, five),
        "ReflectionPad2D": (lambda: nn.ReflectionPad2D(1), four),
        "PixelShuffle1D": (lambda: contrib.PixelShuffle1D(2), (2, 8, 3)),
        "PixelShuffle2D": (lambda: contrib.PixelShuffle2D(2), (2, 8, 3, 3)),
        "PixelShuffle3D": (lambda: contrib.PixelShuffle3D(2), (2, 16, 3, 3, 3)),
    }


def _writes_reach_input(mx, make, shape) -> bool:
    """Whether ``y = layer(x); y += 1`` changes ``x``, in any of: eager / hybridized x predict / training."""
    for hybridize in (False, True):
        for training in (False, True):
            x = mx.nd.random.uniform(shape=shape)  # for Embedding: indices 0
            layer = make()
            layer.initialize()
            if hybridize:
                layer.hybridize()
            before = x.asnumpy().copy()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with mx.autograd.record(train_mode=training):
                    y = layer(x)
            if y is x:
                return True
            y += 1
            if (x.asnumpy() != before).any():
                return True
    return False


def test_fresh_layers_are_single_output_layers_or_known():
    assert FRESH_OUTPUT_LAYERS <= set(LAYER_RETURNS_INPUT)
    assert {"Identity", "HybridLambda", "Lambda"}.isdisjoint(FRESH_OUTPUT_LAYERS)
    assert "Dense" in FRESH_OUTPUT_LAYERS and "Conv2D" in FRESH_OUTPUT_LAYERS
    assert FRESH_OUTPUT_LAYERS - SINGLE_OUTPUT_LAYERS <= {"SyncBatchNorm", "PixelShuffle1D", "PixelShuffle2D",
                                                          "PixelShuffle3D"}


@pytest.mark.mxnet
@pytest.mark.parametrize("layer", sorted(LAYER_RETURNS_INPUT))
def test_layer_fact_on_mxnet(layer):
    mx = pytest.importorskip("mxnet")
    recipes = _recipes(mx)
    assert layer in recipes, f"no recipe to measure {layer}"
    make, shape = recipes[layer]
    assert _writes_reach_input(mx, make, shape) == LAYER_RETURNS_INPUT[layer]


# (built-in layer, positional arguments, keyword arguments): the parameter shapes of
# hylint.analysis.layers.BUILTIN_PARAMETERS measured on the real layers
PARAMETER_CASES = [
    ("Conv1D", (6, 3), {"in_channels": 4, "groups": 2}),
    ("Conv2D", (6, 3), {"in_channels": 4, "groups": 2}),
    ("Conv2D", (6, (3, 5)), {"in_channels": 4}),
    ("Conv2D", (), {"channels": 6, "kernel_size": (3, 5), "in_channels": 4, "use_bias": False}),
    ("Conv3D", (6, (1, 3, 5)), {"in_channels": 4, "groups": 2}),
    ("Conv1DTranspose", (6, 3), {"in_channels": 4, "groups": 2}),
    ("Conv2DTranspose", (6, (3, 5)), {"in_channels": 4, "groups": 2}),
    ("Conv3DTranspose", (6, 3), {"in_channels": 4}),
    ("Dense", (6,), {"in_units": 4}),
    ("Dense", (6,), {"in_units": 4, "use_bias": False}),
]


def _symbolic_argument(value):
    """A literal argument as analysis/symbolic.py evaluates it."""
    return tuple(str(v) for v in value) if isinstance(value, tuple) else str(value)


def _evaluated(shape):
    return tuple(eval(dim, {}) for dim in shape)  # the expressions of literal arguments are arithmetic


@pytest.mark.parametrize("layer,args,kwargs", PARAMETER_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(PARAMETER_CASES)])
def test_inherited_parameter_shapes_are_known(layer, args, kwargs):
    from hylint.analysis.layers import inherited_parameter_shapes

    shapes = inherited_parameter_shapes(layer, [_symbolic_argument(a) for a in args],
                                        {k: _symbolic_argument(v) for k, v in kwargs.items()})
    assert "weight" in shapes and all(None not in shape for shape in shapes.values())
    assert ("bias" in shapes) == kwargs.get("use_bias", True)


@pytest.mark.mxnet
@pytest.mark.parametrize("layer,args,kwargs", PARAMETER_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(PARAMETER_CASES)])
def test_inherited_parameter_shapes_on_mxnet(layer, args, kwargs):
    mx = pytest.importorskip("mxnet")
    from hylint.analysis.layers import inherited_parameter_shapes

    block = getattr(mx.gluon.nn, layer)(*args, **kwargs)
    measured = {name.rsplit("_", 1)[-1]: param.shape for name, param in block.params.items()}
    shapes = inherited_parameter_shapes(layer, [_symbolic_argument(a) for a in args],
                                        {k: _symbolic_argument(v) for k, v in kwargs.items()})
    assert {name: _evaluated(shape) for name, shape in shapes.items()} == measured


def test_a_deferred_input_size_or_another_layout_is_not_described():
    from hylint.analysis.layers import inherited_parameter_shapes

    assert inherited_parameter_shapes("Conv2D", ["6", "3"], {})["weight"][1] is None  # in_channels=0: deferred
    assert inherited_parameter_shapes("Dense", ["6"], {})["weight"] == ("6", None)
    assert inherited_parameter_shapes("Conv2D", ["6", "3"], {"layout": "'NHWC'", "in_channels": "4"}) == {}
    assert inherited_parameter_shapes("MyLayer", ["6"], {}) == {}
