"""THE operator table of the runtime: every operator is defined once, in the family module it belongs to.

An :class:`Op` (:mod:`.table`) holds
  * ``kernel(inputs, attrs)``: the NumPy computation (``inputs`` are numpy arrays, ``attrs`` parsed values),
  * ``infer_shape(in_shapes, attrs)``: the shape rule *and* the checks MXNet performs (raising
    :class:`ShapeCheck` with MXNet's message), able to fill in unknown (``None``) input shapes where
    MXNet can (used for deferred parameter initialisation),
  * ``infer_type``: the dtype rule,
  * its argument list: tensor inputs (``inputs``) and typed attributes (``params``, :mod:`.attrs`), parsed from
    strings exactly as MXNet parses them (so ``x.reshape(0, -1)`` fails the way MXNet fails).

Each family module registers its ops into :data:`OPS` when imported; they are imported below in a fixed order
(the table's order, and the alias that wins, depend on it). ``ndarray.py`` and ``symbol.py`` generate the
``nd.<op>`` (eager) and ``sym.<op>`` (graph node) functions from :data:`OPS`; :data:`WRAPPERS`
(:mod:`.namespaces`) holds the few hand-written Python functions whose behaviour differs between the two
namespaces in MXNet (``maximum`` broadcasts only in ``nd``, ...). Nothing here imports NDArray, Symbol or the
graph evaluator: the control-flow ops that run subgraphs register from :mod:`hylint.runtime.control_flow`.
"""
from .table import FUSIONS, OPS, SUBGRAPH_OPS, InferFailed, Op, ShapeCheck, UnwrappedCheck, lookup, register
from .attrs import P, parse_attrs, stringify
from . import math, reduce, shape, creation, random, nn, rnn, layers, custom  # noqa: F401  (each registers its ops)
from .shape import reshape_target
from .namespaces import WRAPPERS, build_wrappers, prefixed_names, public_names
from .binding import TRAILING_POSITIONAL, BoundCall, bind_call, present_inputs, run_infer, skip_optional_input
from . import models  # noqa: F401,E402  (the model libraries' operators, registered last as they always were)
from . import quantized  # noqa: F401,E402  (int8 inference: quantize_v2, dequantize, the fused oneDNN convolution)

__all__ = ["Op", "OPS", "WRAPPERS", "ShapeCheck", "InferFailed", "parse_attrs", "lookup"]
