"""The ``--input`` language (``[name=]SHAPE[:DTYPE[:LOW..HIGH[:int]]]``, lists, keyword inputs), seeded input
arrays made from its specs, and the positional arguments a block's call takes."""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from hylint.verify.outcomes import VerifyError


@dataclass(frozen=True)
class Named:
    """A keyword input: ``spec`` (as in EXAMPLES) passed as the forward argument called ``name``."""
    name: str
    spec: Any


def make_inputs(mx: Any, specs: Sequence[Any], seed: int = 0) -> List[Any]:
    """Fresh, seeded arrays (a new set for every call, so a block that writes into its input cannot
    change what the next call sees); a list in ``specs`` is a nested list input of arrays, a
    :class:`Named` entry gives a :class:`Named` array."""
    rng = np.random.RandomState(seed)

    def one(spec: Any) -> Any:
        if isinstance(spec, Named):
            return Named(spec.name, one(spec.spec))
        if isinstance(spec, list):
            return [one(item) for item in spec]
        if isinstance(spec, dict):
            shape, dtype = tuple(spec["shape"]), np.dtype(spec.get("dtype", "float32"))
            integer = dtype.kind in "iu" or spec.get("integers", False)  # whole numbers, perhaps as floats
            low, high = spec.get("low", 0 if integer else -1.0), spec.get("high", 2 if integer else 1.0)
            values = rng.randint(low, high, size=shape) if integer else rng.uniform(low, high, size=shape)
        else:
            shape, dtype = tuple(spec), np.dtype("float32")
            values = rng.standard_normal(shape)
        return mx.nd.array(values.astype(dtype), dtype=dtype)

    return [one(spec) for spec in specs]


def forward_parameters(block: Any) -> List[inspect.Parameter]:
    """The inputs a block's call takes, in order: ``hybrid_forward``'s after ``F`` (unless the class
    defines its own ``forward``), else ``forward``'s."""
    forward = getattr(type(block), "forward", None)
    library_forward = (getattr(forward, "__module__", "") or "").split(".")[0] in ("mxnet", "hylint")
    method, skip = (block.hybrid_forward, 1) if library_forward and hasattr(block, "hybrid_forward") \
        else (block.forward, 0)  # 1: hybrid_forward's F
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return []
    params = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    return params[skip:]


def call_arguments(block: Any, values: Sequence[Any]) -> List[Any]:
    """Positional arguments for ``block(...)`` (MXNet 1.x blocks take no keywords): the positional values,
    then each :class:`Named` value at its parameter's position, the defaults of the parameters between."""
    positional = [v for v in values if not isinstance(v, Named)]
    named = {v.name: v.spec for v in values if isinstance(v, Named)}
    if not named:
        return positional
    params = forward_parameters(block)
    names = [p.name for p in params if p.kind != p.VAR_POSITIONAL]
    unknown = [name for name in named if name not in names[len(positional):]]
    if unknown:
        taken = names[:len(positional)]
        why = (f"it is given positionally already" if unknown[0] in taken else
               f"{type(block).__name__}'s inputs are: {', '.join(names) or 'unknown'}")
        raise VerifyError(f"keyword input `{unknown[0]}` does not name an input of {type(block).__name__} ({why})")
    last = max(names.index(name) for name in named)
    args = list(positional)
    for param in params[len(positional):last + 1]:
        if param.name in named:
            args.append(named[param.name])
        elif param.default is not param.empty:
            args.append(param.default)
        else:
            raise VerifyError(f"input `{param.name}` of {type(block).__name__} comes before "
                              f"`{params[last].name}` and has no default: give it with --input")
    return args


def parse_shape(text: Any) -> Tuple[int, ...]:
    """``16x1x28x28`` (or a list of ints) -> ``(16, 1, 28, 28)``; every dimension a positive integer."""
    if isinstance(text, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool) for d in text):
        dims = list(text)
    elif isinstance(text, str) and re.fullmatch(r"\s*\d+(\s*[xX]\s*\d+)*\s*", text):
        dims = [int(d) for d in re.split(r"\s*[xX]\s*", text.strip())]
    else:
        raise VerifyError(f"input shape {text!r} is not like 16x1x28x28")
    if not dims or any(d <= 0 for d in dims):
        raise VerifyError(f"input shape {text!r} must have positive dimensions")
    return tuple(dims)


INPUT_DTYPES = ("float16", "float32", "float64", "uint8", "int8", "int32", "int64")


_NUMBER = r"-?\d+(?:\.\d+)?"


_INPUT = re.compile(rf"(?:(?P<name>[A-Za-z_]\w*)=)?(?P<shape>[^:=]+)(?::(?P<dtype>\w+))?"
                    rf"(?::(?P<low>{_NUMBER})\.\.(?P<high>{_NUMBER})(?P<whole>:int)?)?")


def parse_input(text: Any) -> Any:
    """One ``--input``: ``[name=]SHAPE[:DTYPE[:LOW..HIGH[:int]]]``, e.g. ``2x3``, ``x=1x3x224x224:float32``,
    ``valid_length=2:int32:1..8`` (integers drawn from [1, 8)), ``5x2:float32:0..8:int`` (whole numbers in a
    float array: token ids as gluonnlp feeds them), or ``[SPEC, SPEC, ...]``, a (nested) list input such as RNN
    states. A plain float32 shape gives a shape tuple (seeded normal values), anything else an EXAMPLES-style
    dict; a name makes it a :class:`Named` keyword input."""
    if not isinstance(text, str):
        return parse_shape(text)
    name, bracket = re.fullmatch(r"\s*(?:([A-Za-z_]\w*)=)?(\[?).*", text, re.S).groups()
    if bracket:
        items = _list_items(text.strip()[len(name) + 1 if name else 0:], text)
        return Named(name, items) if name else items
    match = _INPUT.fullmatch(text.strip())
    if match is None:
        raise VerifyError(f"input {text!r} is not [name=]SHAPE[:DTYPE[:LOW..HIGH]] (e.g. 2x3, "
                          f"x=1x3x224x224:float32, valid_length=2:int32:1..8)")
    shape = parse_shape(match.group("shape"))
    dtype = match.group("dtype") or "float32"
    if dtype not in INPUT_DTYPES:
        raise VerifyError(f"input {text!r}: unknown dtype {dtype!r} (choose from: {', '.join(INPUT_DTYPES)})")
    spec: Any = shape
    if dtype != "float32" or match.group("low") is not None:
        spec = {"shape": shape, "dtype": dtype}
        if match.group("low") is not None:
            low, high = float(match.group("low")), float(match.group("high"))
            if np.dtype(dtype).kind in "iu":
                if low != int(low) or high != int(high):
                    raise VerifyError(f"input {text!r}: an integer dtype needs integer bounds")
                low, high = int(low), int(high)
            if not low < high:
                raise VerifyError(f"input {text!r}: LOW..HIGH needs LOW < HIGH (values are drawn from [LOW, HIGH))")
            spec.update(low=low, high=high)
            if match.group("whole"):
                if low != int(low) or high != int(high):
                    raise VerifyError(f"input {text!r}: `:int` (whole numbers) needs integer bounds")
                if np.dtype(dtype).kind == "f":
                    spec.update(low=int(low), high=int(high), integers=True)
    return Named(match.group("name"), spec) if match.group("name") else spec


def _list_items(text: str, whole: str) -> List[Any]:
    """``[SPEC, SPEC, [SPEC, ...]]`` -> the list of parsed specs (names are not allowed inside)."""
    if not text.endswith("]"):
        raise VerifyError(f"input {whole!r}: a list input is [SPEC, SPEC, ...] (e.g. [2x2x200, 2x2x200])")
    items, depth, start, inner = [], 0, 0, text[1:-1]
    for index, char in enumerate(inner + ","):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0:
            raise VerifyError(f"input {whole!r}: unbalanced brackets")
        if char == "," and depth == 0:
            part = inner[start:index].strip()
            if part:
                spec = parse_input(part)
                if isinstance(spec, Named):
                    raise VerifyError(f"input {whole!r}: names go before the list (name=[...]), not inside it")
                items.append(spec)
            start = index + 1
    if depth != 0 or not items:
        raise VerifyError(f"input {whole!r}: a list input is [SPEC, SPEC, ...] (e.g. [2x2x200, 2x2x200])")
    return items


def parse_inputs(texts: Sequence[Any]) -> List[Any]:
    """Every ``--input``; keyword inputs after the positional ones, each name once."""
    specs = [parse_input(text) for text in texts]
    seen = set()
    for index, spec in enumerate(specs):
        if isinstance(spec, Named):
            if spec.name in seen:
                raise VerifyError(f"keyword input `{spec.name}` is given twice")
            seen.add(spec.name)
        elif seen:
            raise VerifyError(f"input {texts[index]!r}: positional inputs come before keyword inputs (name=SHAPE)")
    return specs


def input_text(spec: Any) -> str:
    """An input spec as ``--input`` writes it."""
    if isinstance(spec, Named):
        return f"{spec.name}={input_text(spec.spec)}"
    if isinstance(spec, list):
        return "[" + ", ".join(input_text(item) for item in spec) + "]"
    if isinstance(spec, dict):
        text = "x".join(str(d) for d in spec["shape"]) + f":{spec.get('dtype', 'float32')}"
        return text + (f":{spec['low']}..{spec['high']}" if "low" in spec else "") + (
            ":int" if spec.get("integers") else "")
    return "x".join(str(d) for d in spec)


def input_json(spec: Any) -> Any:
    if isinstance(spec, Named):
        return {"name": spec.name, **dict(_as_dict(spec.spec))}
    return _as_dict(spec) if isinstance(spec, dict) else [input_json(s) for s in spec] if isinstance(spec, list) \
        else list(spec)


def _as_dict(spec: Any) -> Dict[str, Any]:
    if isinstance(spec, dict):
        return {**spec, "shape": list(spec["shape"])}
    return {"shape": list(spec), "dtype": "float32"}

