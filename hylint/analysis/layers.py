"""What the linter knows about Gluon's built-in layers (``nn.Dense``, ``nn.Conv2D``, ...) when a block
holds one as a child: what calling it returns."""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import libcst as cst

from hylint.facts.layers import (  # noqa: F401  (read through this module by rules and tests)
    FRESH_OUTPUT_LAYERS, LAYER_RETURNS_INPUT, RNN_LAYERS, SINGLE_OUTPUT_LAYERS,
)
from hylint.analysis.symbolic import Sym, atom, normalised_tuple, sym_floordiv
from hylint.syntax.nodes import call_arg, is_true, keyword_value, literal_int
from hylint.analysis.values import Kind, Shape, Value, tensor

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
        if flatten is None or is_true(flatten):  # flattened to (N, units), the units known or not
            if size == 1:  # a `Dense(1)` head: (N, 1), a size-1 axis made for broadcasting (issue 43)
                return tensor(Shape(rank=2, dims=(None, 1), unit_axis=True,
                                    why=f"`self.{attr}` (Dense(1)) gives (N, 1)"))
            return tensor(Shape(rank=2, dims=(None, size)))
    return tensor()


# The parameters a built-in layer declares, with their shapes as functions of its constructor's
# arguments, measured on MXNet 1.9.1 (tests/facts/test_layer_facts.py measures them again): for a class that
# derives from the layer, `hybrid_forward(self, F, x, weight, bias)` receives these. `Conv2D(channels=6,
# in_channels=4, kernel_size=(3, 5), groups=2)`: weight (6, 2, 3, 5), bias (6,); `Conv2DTranspose` of the
# same arguments: weight (4, 3, 3, 5); `Dense(units=6, in_units=4)`: weight (6, 4), bias (6,). An
# `in_channels` / `in_units` left at 0 is inferred at the first call (unknown here); a layout other than
# the default (`NHWC`: weight (6, 3, 5, 2)) is not described.
def _signature(names: str) -> Tuple[str, ...]:
    return tuple(names.split())


_CONV_ARGS = _signature("channels kernel_size strides padding dilation groups layout activation use_bias "
                        "weight_initializer bias_initializer in_channels")
_CONV_TRANSPOSE_ARGS = _signature("channels kernel_size strides padding output_padding dilation groups layout "
                                  "activation use_bias weight_initializer bias_initializer in_channels")
_DENSE_ARGS = _signature("units activation use_bias flatten dtype weight_initializer bias_initializer in_units")
_CONV_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _convolution(spatial: int, transpose: bool):
    def shapes(args: Dict[str, Sym]) -> Dict[str, Tuple[Optional[str], ...]]:
        layout = args.get("layout", f"'{_CONV_LAYOUTS[spatial]}'")
        if layout != f"'{_CONV_LAYOUTS[spatial]}'":
            return {}
        channels, groups = args.get("channels"), args.get("groups", "1")
        in_channels = args.get("in_channels", "0")
        kernel = normalised_tuple(args.get("kernel_size", "1"), spatial)
        known_in = in_channels if isinstance(in_channels, str) and in_channels != "0" else None
        outer = sym_floordiv(channels if transpose else known_in, groups)
        weight = ((known_in, outer) if transpose else (atom(channels), outer)) + kernel
        result = {"weight": weight}
        if args.get("use_bias", "True") == "True":
            result["bias"] = (atom(channels),)
        return result
    return shapes


def _dense(args: Dict[str, Sym]) -> Dict[str, Tuple[Optional[str], ...]]:
    units, in_units = atom(args.get("units")), atom(args.get("in_units", "0"))
    result = {"weight": (units, None if in_units == "0" else in_units)}
    if args.get("use_bias", "True") == "True":
        result["bias"] = (units,)
    return result


# base class -> (its constructor's positional parameters, the shapes of the parameters it declares)
BUILTIN_PARAMETERS = {
    **{f"Conv{n}D": (_CONV_ARGS, _convolution(n, False)) for n in (1, 2, 3)},
    **{f"Conv{n}DTranspose": (_CONV_TRANSPOSE_ARGS, _convolution(n, True)) for n in (1, 2, 3)},
    "Dense": (_DENSE_ARGS, _dense),
}


def inherited_parameter_shapes(base: str, positional: Sequence[Sym], keywords: Dict[str, Sym]
                               ) -> Dict[str, Tuple[Optional[str], ...]]:
    """The parameters (name -> symbolic shape) that the built-in layer ``base`` declares when its
    ``__init__`` is called with these symbolic arguments; {} for a base this table does not know."""
    entry = BUILTIN_PARAMETERS.get(base)
    if entry is None:
        return {}
    names, shapes = entry
    args = dict(zip(names, positional))
    args.update(keywords)
    return shapes(args)
