"""Inputs for a block nobody named inputs for (``hylint verify PATH``), as ``--input`` specs, best first: what
the block declares or implies (its first layer: a Dense's ``in_units``, a convolution's ``in_channels`` and
rank, an Embedding's ``input_dim``, an RNN layer's layout and ``input_size``; the ``in_channels``/``in_units``
it was built with), then common shapes. Inputs after the first: integer lengths or masks where the name says
so (``valid_length``, ``mask``) or an operator takes them (``F.SequenceMask(x, sequence_length=...)``), else
the first input's shape. The caller keeps the first candidate that runs eagerly."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any, Dict, Iterator, List, Optional, Sequence

from hylint.verify.inputs import forward_parameters


BATCH, STEPS = 2, 5
# tried after what the block implies, in this order
COMMON_SHAPES = [(2, 8), (2, 3, 8, 8), (2, 3, 16), (2, 3, 4, 8, 8), (2, 5, 8), (2, 3, 32, 32), (2, 16),
                 (2, 4, 8, 8), (2, 4), (2, 3, 224, 224)]
_LENGTH = re.compile(r"(valid_len\w*|\w*length\w*|\w*_len|lens|seq_len\w*)$")
_MASK = re.compile(r"\w*mask\w*$")
# operators whose argument (by keyword or position) is a sequence length or a mask
_LENGTH_OPS = {"SequenceMask": ("sequence_length", 1), "SequenceLast": ("sequence_length", 1),
               "SequenceReverse": ("sequence_length", 1)}
_MASK_OPS = {"masked_softmax": ("mask", 1), "masked_log_softmax": ("mask", 1)}


def inputs_of(block: Any) -> List[inspect.Parameter]:
    """The inputs a call of ``block`` needs: the forward parameters without a default, less the block's own
    parameters (``hybrid_forward(self, F, x, weight)``: Gluon passes ``weight``)."""
    own = set(getattr(block, "_reg_params", {}) or {})
    return [p for p in forward_parameters(block) if p.name not in own and p.kind != p.VAR_POSITIONAL
            and p.default is p.empty]


def _forward_source(block: Any) -> Optional[ast.FunctionDef]:
    method = getattr(type(block), "hybrid_forward", None) or getattr(type(block), "forward", None)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def integer_roles(block: Any) -> Dict[str, str]:
    """``name -> 'length' | 'mask'`` for the inputs a name or an operator marks as integers."""
    names = [p.name for p in inputs_of(block)]
    roles = {name: "length" for name in names if _LENGTH.match(name)}
    roles.update({name: "mask" for name in names if _MASK.match(name) and name not in roles})
    function = _forward_source(block)
    for node in ast.walk(function) if function is not None else ():
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        for table, role in ((_LENGTH_OPS, "length"), (_MASK_OPS, "mask")):
            if node.func.attr not in table:
                continue
            keyword, position = table[node.func.attr]
            values = [k.value for k in node.keywords if k.arg == keyword]
            values += node.args[position:position + 1]
            for value in values:
                if isinstance(value, ast.Name) and value.id in names:
                    roles.setdefault(value.id, role)
    return roles


def _layers(block: Any, depth: int = 0) -> Iterator[Any]:
    """The block's leaf layers, depth first in registration order."""
    children = list(getattr(block, "_children", {}).values())
    if not children:
        yield block
        return
    if depth > 50:
        return
    for child in children:
        child = child() if callable(child) and not hasattr(child, "_children") else child  # weakrefs (Gluon 2)
        yield from _layers(child, depth + 1)


def _kind(layer: Any) -> str:
    return next((k.__name__ for k in type(layer).__mro__ if k.__module__.split(".")[0] in ("mxnet", "hylint")),
                type(layer).__name__)


def _param_dim(layer: Any, name: str, axis: int) -> int:
    """Dimension ``axis`` of the layer's parameter ``name`` (0 when deferred or absent)."""
    shape = getattr(getattr(layer, name, None), "shape", None) or ()
    return int(shape[axis]) if len(shape) > axis and shape[axis] else 0


_SIZE_ATTRIBUTES = ("_in_units", "in_units", "_in_channels", "in_channels", "_input_size", "input_size", "_units",
                    "units", "_embed_size", "_hidden_size", "_channels")


def _own_size(block: Any) -> int:
    """The input size a block keeps as an attribute (``self._units = units``), or 0."""
    for name in _SIZE_ATTRIBUTES:
        value = getattr(block, "__dict__", {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def _first_layer_shape(block: Any, owner: Any = None) -> Optional[Any]:
    """The input the first leaf layer implies, or None (a deferred size: the one ``owner``, else ``block``,
    keeps as an attribute)."""
    block_size = _own_size(owner if owner is not None else block)
    for layer in _layers(block):
        kind = _kind(layer)
        if kind == "Dense":
            units = _param_dim(layer, "weight", 1)
            if getattr(layer, "_flatten", True) is False:
                return (BATCH, STEPS, units or block_size or 8)
            return (BATCH, units or block_size or 8)
        if kind.startswith("Conv") and kind[4:6] in ("1D", "2D", "3D"):
            rank = int(kind[4])
            layout = getattr(layer, "_kwargs", {}).get("layout", "") or "NC" + "DHW"[3 - rank:]
            channels = getattr(layer, "_in_channels", 0) or 3
            spatial = 8 if rank == 3 else 16
            shape = [BATCH] + [channels if c == "C" else spatial for c in layout[1:]]
            return tuple(shape)
        if kind == "Embedding":
            dim = int(getattr(layer, "_kwargs", {}).get("input_dim", 0) or 0)
            return {"shape": (BATCH, STEPS), "dtype": "float32", "low": 0, "high": max(1, dim), "integers": True}
        if kind in ("RNN", "LSTM", "GRU"):
            size = getattr(layer, "_input_size", 0) or 8
            layout = getattr(layer, "_layout", "TNC")
            return (STEPS, BATCH, size) if layout == "TNC" else (BATCH, STEPS, size)
        if kind in ("RNNCell", "LSTMCell", "GRUCell"):
            return (BATCH, getattr(layer, "_input_size", 0) or 8)
        if kind in ("BatchNorm", "InstanceNorm", "SyncBatchNorm"):
            return (BATCH, _param_dim(layer, "gamma", 0) or 3, 8, 8)
        if kind == "LayerNorm":
            return (BATCH, STEPS, _param_dim(layer, "gamma", 0) or 8)
        if kind in ("Activation", "Dropout", "Identity", "HybridLambda", "Lambda", "Flatten"):
            continue  # shape-agnostic: the next layer tells
        return None
    return None


def _method_source(block: Any, name: str) -> Optional[ast.FunctionDef]:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(type(block), name))))
    except (OSError, TypeError, SyntaxError, IndentationError, AttributeError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def implied_by_use(block: Any, depth: int = 0) -> Dict[str, Any]:
    """``input name -> spec`` for the inputs the forward hands to a child first (``self.word_embed(inputs)``:
    what that child's first layer implies, integers below an Embedding's ``input_dim``), also through a method
    of the block it passes them to (``self._encode(inputs, ...)``), two calls deep; a child that hands its
    own first input on is followed (``self.bert(inputs)`` -> its ``self.word_embed(inputs)``)."""
    found: Dict[str, Any] = {}

    def visit(function: Optional[ast.FunctionDef], names: Dict[str, str], depth: int) -> None:
        for node in ast.walk(function) if function is not None else ():
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
                continue
            try:
                member = getattr(block, node.func.attr, None)
            except Exception:  # noqa: BLE001 - a property that fails: no child there
                member = None
            if hasattr(member, "_children"):  # a child block: its first argument
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Name) and first.id in names and names[first.id] not in found:
                    inner = inputs_of(member)[:1] if depth < 4 else []
                    shape = (implied_by_use(member, depth + 1).get(inner[0].name) if inner else None) \
                        or _first_layer_shape(member, owner=block if not getattr(member, "_children", None)
                                              else None)
                    if shape is not None:
                        found[names[first.id]] = shape
            elif callable(member) and depth < 2:  # a method: its parameters stand for the names passed
                method = _method_source(block, node.func.attr)
                if method is None:
                    continue
                params = [a.arg for a in method.args.args[1:]]
                passed = {params[i]: names[a.id] for i, a in enumerate(node.args[:len(params)])
                          if isinstance(a, ast.Name) and a.id in names}
                passed.update({k.arg: names[k.value.id] for k in node.keywords
                               if k.arg in params and isinstance(k.value, ast.Name) and k.value.id in names})
                if passed:
                    visit(method, passed, depth + 1)

    visit(_forward_source(block), {p.name: p.name for p in inputs_of(block)}, 0)
    return found


# constructor parameters naming the image size a block is built for (a fixed resize, a pooling of a fixed
# size, a head sized from it): `height`/`width` first, then these, in this order
_IMAGE_SIZES = ("crop_size", "image_size", "img_size", "input_size", "in_size", "base_size")
_IMAGE_ONLY = ("height", "width", "crop_size", "image_size", "img_size")  # names no other size goes by
# a size under these names is often only a default the block does not hold its input to (gluoncv2's
# `in_size=(1024, 2048)` with `fixed_size=False`): tried first, the other shapes after it
_LOOSE_SIZES = ("in_size", "base_size")
LOOSE_SIDE = 640  # a loose size with a larger side is left out (too slow to run on the runtime)


def _pair(value: Any) -> Optional[Any]:
    """``480`` or ``(480, 480)`` -> ``(480, 480)``; None for anything else (None, a bool, a small value)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 \
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 8 for v in value):
        return tuple(value)
    return None


def built_image_size(given: Dict[str, Any], pairs_only: bool = False) -> Optional[Any]:
    """``(height, width)`` of the images a block was built for, from its constructor's values (``height`` and
    ``width``, else ``crop_size``, ``input_size``, ``in_size``...), or None; ``pairs_only``: a single int only
    under a name no other size goes by (``in_size=64`` may be a count of units where nothing says the input
    is an image)."""
    found = _built_size(given, pairs_only)
    return found[0] if found is not None else None


def _built_size(given: Dict[str, Any], pairs_only: bool = False) -> Optional[Any]:
    """:func:`built_image_size` and whether the block holds its input to it (``crop_size``: only that size is
    tried; a loose ``in_size``: first)."""
    both = _pair((given.get("height"), given.get("width")))
    if both is not None:
        return both, True
    for key in _IMAGE_SIZES:
        value = given.get(key)
        found = _pair(value) if not pairs_only or isinstance(value, (tuple, list)) or key in _IMAGE_ONLY else None
        if found is not None and (key not in _LOOSE_SIZES or max(found) <= LOOSE_SIDE):
            return found, key not in _LOOSE_SIZES
    return None


def _sequence_use(function: Optional[ast.FunctionDef], name: str) -> Optional[int]:
    """How many items the forward's input ``name`` is a list of, when the forward uses it only as a sequence
    (iterated over, ``len()``, indexed; handed to a child or a function says nothing) and never as an array
    (an operand, an operator's argument ``F.op(x)``, an attribute such as ``.shape``); else None."""
    if function is None:
        return None
    sequence, array, size = False, False, 2
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    # once the name is assigned (`x = self.features(x)`) it holds another value: the uses up to there count
    stores = [n.lineno for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name
              and isinstance(n.ctx, ast.Store)]
    until = min(stores, default=float("inf"))
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)) \
                or node.lineno > until:
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            sequence = True
            index = parent.slice
            if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) \
                    and isinstance(index.operand, ast.Constant) and isinstance(index.operand.value, int):
                size = max(size, index.operand.value)
            elif isinstance(index, ast.Constant) and isinstance(index.value, int):
                size = max(size, index.value + 1)
        elif isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            sequence = True
        elif isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
                and parent.func.id in ("len", "enumerate", "zip", "reversed", "list", "tuple"):
            sequence = True
        elif isinstance(parent, ast.Call) and node in parent.args and (
                isinstance(parent.func, ast.Name) or (isinstance(parent.func, ast.Attribute)
                                                      and isinstance(parent.func.value, ast.Name)
                                                      and parent.func.value.id == "self")):
            continue  # handed to a child, a method or a function: says nothing either way
        elif isinstance(parent, ast.Starred):
            sequence = True
        elif isinstance(parent, (ast.Return, ast.Assign)) or (isinstance(parent, (ast.List, ast.Tuple))):
            continue
        else:
            array = True  # an operand, an operator's argument, `.shape`, a comparison
    return size if sequence and not array else None


def list_inputs(block: Any) -> Dict[str, int]:
    """``input name -> items`` for the inputs the forward takes as a list of arrays (:func:`_sequence_use`:
    ``layers[-1]``, ``for f in features``, ``len(layers)``, and never an array's operations)."""
    function = _forward_source(block)
    found = {p.name: _sequence_use(function, p.name) for p in inputs_of(block)}
    return {name: size for name, size in found.items() if size is not None}


def _from_kwargs(kwargs: Dict[str, Any]) -> List[Any]:
    """Shapes the constructor arguments imply: ``in_channels=c`` -> (2, c, 16, 16), ``in_units=u`` -> (2, u)."""
    shapes: List[Any] = []
    channels = kwargs.get("in_channels")
    if isinstance(channels, int) and channels > 0:
        shapes += [(BATCH, channels, 16, 16), (BATCH, channels, 16), (BATCH, channels, 8, 8, 8)]
    for key in ("in_units", "units", "input_size", "in_size", "embed_size", "hidden_size", "channels", "in_channels"):
        value = kwargs.get(key)
        if isinstance(value, int) and value > 0:
            shapes += [(BATCH, value), (BATCH, STEPS, value), (STEPS, BATCH, value)]
    return shapes


def _defaults(cls: Any) -> Dict[str, Any]:
    try:
        return {p.name: p.default for p in inspect.signature(cls).parameters.values() if p.default is not p.empty}
    except (TypeError, ValueError):
        return {}


def _companion(role: Optional[str], first: Any) -> Any:
    """The spec of an input after the first: integer lengths (one per sequence, in [1, steps]), a 0/1 mask,
    else the first input's spec."""
    shape = tuple(first["shape"]) if isinstance(first, dict) else tuple(first)
    if role == "length":
        steps = shape[1] if len(shape) > 1 else STEPS
        return {"shape": (shape[0],), "dtype": "float32", "low": 1, "high": steps + 1, "integers": True}
    if role == "mask":
        return {"shape": shape[:2] if len(shape) >= 2 else shape, "dtype": "float32", "low": 0, "high": 2,
                "integers": True}
    return first


def candidates(block: Any, kwargs: Optional[Dict[str, Any]] = None, most: int = 16) -> List[List[Any]]:
    """Input spec lists to try, best first (each one spec per required input)."""
    wanted = inputs_of(block)
    if not wanted:
        return [[]]
    roles = integer_roles(block)
    firsts: List[Any] = []
    by_use = implied_by_use(block)
    implied = by_use.get(wanted[0].name) or _first_layer_shape(block)
    # what it was built with, its defaults included (and the image size it keeps, when a function built it)
    given = {**_defaults(type(block)), **{k: v for k, v in getattr(block, "__dict__", {}).items()
                                          if k in _IMAGE_SIZES + _IMAGE_ONLY}, **(kwargs or {})}
    own = _own_size(block)
    attribute = [(BATCH, STEPS, own), (BATCH, own)] if own else []
    larger = []  # an image classifier's pooling needs larger images: the implied channels at more sizes
    if isinstance(implied, tuple) and len(implied) == 4 and implied[2] == implied[3]:
        larger = [implied[:2] + (size, size) for size in (32, 64, 224, 299)]
    # the size it was built for (`crop_size=480`): only that, when it is an image model (a fixed resize of
    # one branch broadcasts against another at any smaller size eagerly, and fails hybridized)
    image = isinstance(implied, tuple) and len(implied) == 4
    sized = _built_size(given, pairs_only=not image) if image or implied is None else None
    if sized is not None:
        channels = implied[1] if implied is not None else 3
        firsts.append((BATCH, channels) + sized[0])
        most = 1 if sized[1] else most
    # the larger images early (a pooling or a stride of 32 needs them), the largest after the other guesses
    for shape in ([implied] if implied is not None else []) + larger[:2] + _from_kwargs(given) + attribute \
            + larger[2:] + list(COMMON_SHAPES):
        if shape not in firsts:
            firsts.append(shape)
    lists = list_inputs(block)
    found: List[List[Any]] = []
    for first in firsts[:most]:
        specs = [first if index == 0 and roles.get(p.name) is None
                 else by_use[p.name] if roles.get(p.name) is None and p.name in by_use
                 else _companion(roles.get(p.name), first)
                 for index, p in enumerate(wanted)]
        specs = [[spec] * lists[p.name] if p.name in lists else spec for spec, p in zip(specs, wanted)]
        found.append(specs)
    return found


def enlarged(specs: Sequence[Any], side: int = 64) -> Optional[List[Any]]:
    """``specs`` with every image input (``N x C x H x W``, ``N x C x D x H x W``, floats) whose sides are all
    below ``side`` grown to ``side`` (a video's depth doubled), the other inputs as they are; None when no
    input is such an image. Lists of arrays are grown item by item."""
    grown = False

    def one(spec: Any) -> Any:
        nonlocal grown
        if isinstance(spec, list):
            return [one(item) for item in spec]
        if isinstance(spec, tuple) and len(spec) in (4, 5) and all(isinstance(d, int) for d in spec) \
                and max(spec[-2:]) < side:
            grown = True
            return spec[:2] + ((spec[2] * 2,) if len(spec) == 5 else ()) + (side, side)
        return spec

    result = [one(spec) for spec in specs]
    return result if grown else None


def shapes_tried(candidates_: Sequence[Sequence[Any]]) -> str:
    from hylint.verify.inputs import input_text

    return "; ".join(" ".join(input_text(s) for s in specs) for specs in candidates_)
