"""Constructor arguments for a block nobody named arguments for (``hylint verify PATH``): the defaults; for a
required parameter, the literal value a call of the class in the package gives it, else a small typed guess
from its name, its annotation and how ``__init__`` uses it (``channels`` -> 4, ``activation`` -> 'relu',
``use_bias`` -> False, a parameter iterated over -> [4, 4], ...). Deferred shapes are fine: the first call
completes them."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any, Callable, Dict, List, Optional, Sequence

from hylint.verify.discover import CallSite


# by name, first match wins; each a value a small block can be built with
_BY_NAME = [
    (r"^(prefix|params|ctx|context|root|pretrained\w*|norm_kwargs|\w+_kwargs|\w+_layer|\w+_block|\w+_cell|"
     r"\w+_func|\w+_fn|\w+_class|\w+_cls|block|layer|cell|initializer|\w+_initializer|dtype)$", None),
    (r"^(activation|act|act_type|act_func|activ\w*)$", "relu"),
    (r"^(layout)$", "NCHW"),
    (r"^((\w+_)?(use|is|has|with|enable|disable|do|need)_\w+|\w+_off|\w+_on|\w+_bias|bias|flatten|transpose\w*|"
     r"bidirectional|return_\w+|"
     r"\w+_first|training|train|output_\w+|reverse|ceil_mode|scale|center|normalized|conv_first|resize\w*)$",
     False),
    (r"^(groups|num_groups|\w*stride\w*|dilation\w*|\w*depth\w*|num_layers|\w+_layers|layers|repeat\w*|"
     r"\w+_repeats|num_blocks|blocks|bn_size|expansion|multiplier)$", 1),
    (r"^(\w*dropout\w*|\w*_prob\w*|drop_\w+|\w+_drop|drop\w*_rate|rate)$", 0.0),
    (r"^(\w*ratio\w*|\w*scale\w*|alpha|beta)$", 0.25),
    (r"^(\w*eps\w*|epsilon)$", 1e-5),
    (r"^(momentum)$", 0.9),
    (r"^(axis|dim)$", 1),
    (r"^(kernel\w*|k|ksize|kernel_size)$", 3),
    (r"^(\w*padding\w*|pad)$", 1),
    (r"^(\w*heads\w*)$", 2),
    (r"^(input_dim|vocab_size|\w*vocab\w*)$", 10),
    (r"^(\w*channels\w*|\w*units\w*|\w*_size|size|num_\w+|\w+_num|\w*classes\w*|\w*dim\w*|\w*features\w*|"
     r"hidden\w*|width|height|length|\w+_len|n|c)$", 4),
]


def _body_use(init: Optional[Callable[..., Any]], depth: int = 0) -> Dict[str, Any]:
    """What ``__init__``'s body shows of each parameter: a value to give it, guessed from how it is used
    (passed as a keyword argument: the guess for that keyword; iterated over, indexed or ``len()``: a list;
    compared with a string: that string; tested by ``if``: False; passed on to a function of the module:
    what that function's body shows of its parameter, one call deep)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))  # type: ignore[arg-type]
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}
    function = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None
    if function is None:
        return {}
    names = {a.arg for a in function.args.args + function.args.kwonlyargs}
    found: Dict[str, Any] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if isinstance(keyword.value, ast.Name) and keyword.value.id in names and keyword.arg:
                    guess = guess_by_name(keyword.arg, _UNKNOWN)
                    if guess is not _UNKNOWN:
                        found.setdefault(keyword.value.id, guess)
            if depth == 0 and isinstance(node.func, ast.Name):
                for name, value in _passed_on(init, node, names).items():
                    found.setdefault(name, value)
            if isinstance(node.func, ast.Name) and node.func.id in ("len", "zip", "enumerate", "list", "tuple", "sum"):
                for arg in node.args:
                    if isinstance(arg, ast.Name) and arg.id in names:
                        found[arg.id] = [4, 4]
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) \
                and node.iter.id in names:
            found[node.iter.id] = [4, 4]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
            found[node.value.id] = [4, 4]
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in names:
            # `mode == 'lstm'`, or `version in ('1.0', '1.1')`: the first value it accepts
            options = [e for c in node.comparators for e in (c.elts if isinstance(c, (ast.List, ast.Tuple, ast.Set))
                                                            else [c])]
            text = next((c.value for c in options if isinstance(c, ast.Constant)
                         and isinstance(c.value, str)), None)
            if text is not None:
                found[node.left.id] = text  # a value the code tests for beats a guess from a keyword
        elif isinstance(node, (ast.If, ast.IfExp)) and isinstance(node.test, ast.Name) and node.test.id in names:
            found.setdefault(node.test.id, False)
    return found


_UNKNOWN = object()


def _passed_on(init: Any, call: ast.Call, names: Any) -> Dict[str, Any]:
    """For ``helper(mode, ...)`` in ``__init__`` (``helper`` a function of its module): what ``helper``'s body
    shows of the parameters ``__init__`` passes on to it, by the caller's names."""
    callee = getattr(init, "__globals__", {}).get(call.func.id)  # type: ignore[attr-defined]
    if not inspect.isfunction(callee):
        return {}
    try:
        params = list(inspect.signature(callee).parameters)
    except (TypeError, ValueError):
        return {}
    passed = {params[i]: arg.id for i, arg in enumerate(call.args[:len(params)])
              if isinstance(arg, ast.Name) and arg.id in names}
    passed.update({k.arg: k.value.id for k in call.keywords if k.arg in params and isinstance(k.value, ast.Name)
                   and k.value.id in names})
    if not passed:
        return {}
    shown = _body_use(callee, depth=1)
    return {caller: shown[param] for param, caller in passed.items() if param in shown}


def guess_by_name(name: str, default: Any = 4) -> Any:
    """The value :data:`_BY_NAME` gives a parameter called ``name`` (``default`` when none matches)."""
    lowered = name.lower()
    for pattern, value in _BY_NAME:
        if re.match(pattern, lowered):
            return value
    return default


def _by_annotation(annotation: Any) -> Any:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    return {"int": 4, "float": 0.5, "bool": False, "str": "relu"}.get(str(text).split(".")[-1], _UNKNOWN)


def guess(param: inspect.Parameter, body: Dict[str, Any]) -> Any:
    """A typed guess for a required parameter: its annotation, else how ``__init__`` uses it, else its name."""
    if param.annotation is not param.empty:
        value = _by_annotation(param.annotation)
        if value is not _UNKNOWN:
            return value
    if param.name in body:
        return body[param.name]
    return guess_by_name(param.name)


def _required(signature: inspect.Signature) -> List[inspect.Parameter]:
    return [p for p in signature.parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _from_call(signature: inspect.Signature, site: CallSite) -> Optional[Dict[str, Any]]:
    """The call's literal arguments by parameter name; None when the call does not fit the signature."""
    params = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(site.args) > len(params) and not any(p.kind == p.VAR_POSITIONAL for p in signature.parameters.values()):
        return None
    values: Dict[str, Any] = {}
    for param, value, literal in zip(params, site.args, site.literal):
        if literal:
            values[param.name] = value
    for name, value in site.kwargs:
        if name in signature.parameters or any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
            values[name] = value
    return values


def candidates(cls: Any, calls: Sequence[CallSite] = (), most: int = 4) -> List[Dict[str, Any]]:
    """Constructor keyword arguments to try, best first: none when every parameter has a default; else the
    package's literal calls (their gaps filled with guesses; the calls giving the most required parameters
    first), then the guesses alone. Each a JSON-able dict."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return [{}]
    required = _required(signature)
    if not required:
        return [{}]
    body = _body_use(getattr(cls, "__init__", None))
    guessed = {p.name: guess(p, body) for p in required}
    found: List[Dict[str, Any]] = []
    from_calls = [values for site in calls for values in [_from_call(signature, site)] if values is not None]
    from_calls.sort(key=lambda values: -sum(p.name in values for p in required))
    for values in from_calls:
        kwargs = {**guessed, **{k: v for k, v in values.items()}}
        if kwargs not in found:
            found.append(kwargs)
        if len(found) >= most - 1:
            break
    if guessed not in found:
        found.append(guessed)
    for variant in _deeper(guessed):  # 'int' object is not iterable: a list, or a list of lists, per stage
        if variant not in found:
            found.append(variant)
    return found


def _plural(name: str) -> bool:
    return name.endswith(("s", "_list")) and not name.endswith(("ss", "ness", "_stats", "prob", "us"))


def _deeper(guessed: Dict[str, Any]) -> List[Dict[str, Any]]:
    """More guesses for nested configurations (gluoncv2's ``channels=[[64, 64], [128, 128]]``): what the body
    iterates over as lists of lists; plural names given as lists; both; then sizes of 16 instead of 4."""
    nested = {k: ([[4, 4], [4, 4]] if v == [4, 4] else v) for k, v in guessed.items()}
    lists = {k: ([4, 4] if _plural(k) and isinstance(v, int) and not isinstance(v, bool) else v)
             for k, v in guessed.items()}
    both = {k: (nested[k] if nested[k] != guessed[k] else lists[k]) for k in guessed}
    wider = {k: (16 if v == 4 and not isinstance(v, bool) else [16, 16] if v == [4, 4] else v)
             for k, v in guessed.items()}  # a reduction by 16 (squeeze-and-excitation) leaves 4 channels none
    found: List[Dict[str, Any]] = []
    for variant in (nested, lists, both, wider):
        if variant != guessed and variant not in found:
            found.append(variant)
    return found
