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
from hylint.verify.harness import BLOCK, SMALL_BLOCK


# by name, first match wins; each a value a small block can be built with
_BY_NAME = [
    (r"^(prefix|params|ctx|context|root|pretrained\w*|norm_kwargs|\w+_kwargs|\w+_layer|\w+_block|\w+_cell|"
     r"\w+_func|\w+_fn|\w+_class|\w+_cls|block|layer|cell|initializer|\w+_initializer|dtype)$", None),
    (r"^(activation|act|act_type|act_func|activ\w*)$", "relu"),
    (r"^(layout)$", "NCHW"),
    (r"^((\w+_)?(use|is|has|with|enable|disable|do|need)_\w+|\w+_off|\w+_on|\w+_bias|bias|flatten|transpose\w*|"
     r"bidirectional|return_\w+|"
     r"\w+_first|training|train|output_(?!(dim|size|units?|channels|features)$)\w+|reverse|ceil_mode|scale|center|"
     r"normalized|conv_first|resize\w*)$",
     False),
    (r"^(groups|num_groups|\w*stride\w*|dilation\w*|\w*depth\w*|num_layers|\w+_layers|layers|repeat\w*|"
     r"\w+_repeats|num_blocks|blocks|bn_size|expansion|multiplier)$", 1),
    (r"^(\w*dropout\w*|\w*_prob\w*|drop_\w+|\w+_drop|drop\w*_rate|rate)$", 0.0),
    (r"^(\w*ratio\w*|\w*scale\w*|alpha|beta)$", 0.25),
    (r"^(eps|\w*_eps|eps_\w+|\w*epsilon)$", 1e-5),
    (r"^(momentum)$", 0.9),
    (r"^(axis|dim)$", 1),
    (r"^(kernel\w*|k|ksize|kernel_size)$", 3),
    (r"^(\w*padding\w*|pad)$", 1),
    (r"^(\w*heads\w*)$", 2),
    (r"^(input_dim|vocab_size|\w*vocab\w*)$", 10),
    (r"^(out\w*_channels|out_units)$", 8),  # more than an input's 4: a block growing by out - in builds
    (r"^(\w*channels\w*|\w*units\w*|\w*unit|in_\w+|\w*_size|size|num_\w+|\w+_num|\w*classes\w*|\w*dim\w*|\w*features\w*|"
     r"hidden\w*|width|height|length|\w+_len|n|c)$", 4),
]


def _class_methods(init: Any) -> List[ast.FunctionDef]:
    """The methods of the class ``init`` belongs to (``__init__`` first), parsed; just ``init`` when its class
    cannot be read."""
    owner = getattr(inspect.getmodule(init), (getattr(init, "__qualname__", "") or "").split(".")[0], None)
    for source_of in (owner, init):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(source_of)))  # type: ignore[arg-type]
        except (OSError, TypeError, SyntaxError, IndentationError):
            continue
        node = tree.body[0] if tree.body else None
        if isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            methods.sort(key=lambda n: n.name != "__init__")
            if methods and methods[0].name == "__init__":
                return methods  # type: ignore[return-value]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [node]  # type: ignore[list-item]
    return []


def _aliases(init: ast.FunctionDef, names: Any) -> Dict[str, str]:
    """``self.attr = param`` in ``__init__``: ``attr -> param`` (the other methods read the parameter so)."""
    found: Dict[str, str] = {}
    for node in ast.walk(init):
        if not isinstance(node, ast.Assign):
            continue
        pairs = [(t, node.value) for t in node.targets]
        pairs += [(t, v) for t in node.targets if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple)
                  for t, v in zip(t.elts, node.value.elts)]  # self.a, self.b = a, b
        for target, value in pairs:
            if isinstance(value, ast.Name) and value.id in names and isinstance(target, ast.Attribute) \
                    and isinstance(target.value, ast.Name) and target.value.id == "self":
                found.setdefault(target.attr, value.id)
    return found


def _resolver(init: ast.FunctionDef, names: Any) -> Callable[[Any, bool], Optional[str]]:
    """A function giving the parameter an expression stands for: its name inside ``__init__``, ``self.attr``
    (an alias of it) in any method."""
    aliases = _aliases(init, names)

    def which(node: Any, in_init: bool) -> Optional[str]:
        if isinstance(node, ast.Name) and in_init and node.id in names:
            return node.id
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return aliases.get(node.attr)
        return None

    return which


# methods of str, list and dict: an attribute of a parameter that is not one of these makes it an object
_PLAIN_METHODS = frozenset(dir(str)) | frozenset(dir(list)) | frozenset(dir(dict)) | frozenset(dir(int))
_STR_METHODS = frozenset(n for n in dir(str) if not n.startswith("_")) - frozenset(dir(list))


def _body_use(init: Optional[Callable[..., Any]], depth: int = 0) -> Dict[str, Any]:
    """What the class's body shows of each ``__init__`` parameter (read in ``__init__`` by name, in any method
    as the ``self.attr`` it was stored in): a value to give it, guessed from how it is used (passed as a
    keyword argument: the guess for that keyword; iterated over, indexed or ``len()``: a list; ``range()``:
    an int; a method of str: a string; compared with a string: that string; tested by ``if``: False; passed
    on to a function of the module: what that function's body shows of its parameter, one call deep)."""
    methods = _class_methods(init) if depth == 0 else _class_methods(init)[:1]
    if not methods:
        return {}
    function = methods[0]
    names = {a.arg for a in function.args.args + function.args.kwonlyargs}
    which = _resolver(function, names)
    found: Dict[str, Any] = {}
    for method in methods:
        in_init = method is function
        for node in ast.walk(method):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    name = which(keyword.value, in_init)
                    if name and keyword.arg:
                        guess = guess_by_name(keyword.arg, _UNKNOWN)
                        if guess is not _UNKNOWN:
                            found.setdefault(name, guess)
                if depth == 0 and isinstance(node.func, ast.Name):
                    for name, value in _passed_on(init, node, which, in_init).items():
                        found.setdefault(name, value)
                if isinstance(node.func, ast.Name) and node.func.id in ("len", "zip", "enumerate", "list", "tuple",
                                                                         "sum"):
                    for arg in node.args:
                        name = which(arg, in_init)
                        if name and found.get(name) is not NULLABLE:
                            found[name] = [4, 4]
                if isinstance(node.func, ast.Name) and node.func.id == "range":
                    for arg in node.args:
                        name = which(arg, in_init)
                        if name:
                            found.setdefault(name, 2)
                if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS:
                    name = which(node.func.value, in_init)
                    if name:
                        found.setdefault(name, "relu")
            elif isinstance(node, (ast.For, ast.comprehension)):
                name = which(node.iter, in_init)
                if name and found.get(name) is not NULLABLE:
                    found[name] = [4, 4]
            elif isinstance(node, ast.Subscript):
                name = which(node.value, in_init)
                if name and found.get(name) is not NULLABLE:
                    found[name] = [4, 4]
            elif isinstance(node, ast.Compare):
                name = which(node.left, in_init)
                # `mode == 'lstm'`, or `version in ('1.0', '1.1')`: the first value it accepts
                options = [e for c in node.comparators
                           for e in (c.elts if isinstance(c, (ast.List, ast.Tuple, ast.Set)) else [c])]
                text = next((c.value for c in options if isinstance(c, ast.Constant)
                             and isinstance(c.value, str)), None)
                if name and text is not None:
                    found[name] = text  # a value the code tests for beats a guess from a keyword
                elif name and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and isinstance(options[0], ast.Constant) \
                        and options[0].value is None and not isinstance(found.get(name), str):
                    found[name] = NULLABLE  # `in_size is not None`: the code takes None
            elif isinstance(node, (ast.If, ast.IfExp)):
                name = which(node.test, in_init)
                if name:
                    found.setdefault(name, TESTED)
    return found


def _own_inits(cls: Any) -> List[Any]:
    """The ``__init__`` of the class (MXNet's model zoo's too) and of each base it inherits from outside MXNet,
    the class's first (a subclass often passes its parameters on to ``super().__init__`` by the same
    names)."""
    return [k.__dict__["__init__"] for index, k in enumerate(getattr(cls, "__mro__", ()))
            if "__init__" in k.__dict__ and (index == 0 or k.__module__.split(".")[0] not in ("mxnet", "hylint",
                                                                                             "builtins"))]


def class_use(cls: Any) -> Dict[str, Any]:
    """:func:`_body_use` over the class and its bases outside MXNet (what the class itself shows first)."""
    found: Dict[str, Any] = {}
    for init in _own_inits(cls):
        for name, value in _body_use(init).items():
            found.setdefault(name, value)
    return found


def block_parameters(cls: Any) -> List[str]:
    """The ``__init__`` parameters the class (or a base outside MXNet) uses as blocks: called (``param(x)``,
    ``self.attr(x)``), given to ``register_child``, or read for an attribute no str, list, dict or int has
    (``encoder._units``)."""
    found: List[str] = []
    for init in _own_inits(cls):
        found += [name for name in _blocks_in(init) if name not in found]
    try:
        names = list(inspect.signature(cls).parameters)
    except (TypeError, ValueError):
        return found
    return [name for name in names if name in found]


def _blocks_in(init: Any) -> List[str]:
    methods = _class_methods(init)
    if not methods:
        return []
    function = methods[0]
    names = [a.arg for a in function.args.args[1:] + function.args.kwonlyargs]
    which = _resolver(function, set(names))
    found: List[str] = []
    for method in methods:
        in_init = method is function
        for node in ast.walk(method):
            name = None
            if isinstance(node, ast.Call):
                name = which(node.func, in_init)
                if name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "register_child" \
                        and node.args:
                    name = which(node.args[0], in_init)
            elif isinstance(node, ast.Attribute) and node.attr not in _PLAIN_METHODS:
                name = which(node.value, in_init)
            if name and name not in found:
                found.append(name)
    return [name for name in names if name in found]


_UNKNOWN = object()
TESTED = "<tested by if>"  # only tested for truth (``if use_bias:``): False unless its name says more
NULLABLE = "<compared with None>"  # ``in_size is None``: None, which the code handles (its other guess after)


def _passed_on(init: Any, call: ast.Call, which: Callable[[Any, bool], Optional[str]], in_init: bool,
               ) -> Dict[str, Any]:
    """For ``helper(mode, ...)`` in the class (``helper`` a function of its module, ``mode`` a parameter or the
    ``self.attr`` holding it): what ``helper``'s body shows of the parameters passed on to it, by the
    ``__init__`` parameters' names."""
    callee = getattr(init, "__globals__", {}).get(call.func.id)  # type: ignore[attr-defined]
    if not inspect.isfunction(callee):
        return {}
    try:
        params = list(inspect.signature(callee).parameters)
    except (TypeError, ValueError):
        return {}
    passed = {params[i]: name for i, arg in enumerate(call.args[:len(params)]) for name in [which(arg, in_init)]
              if name}
    passed.update({k.arg: name for k in call.keywords if k.arg in params for name in [which(k.value, in_init)]
                   if name})
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
    if param.name in body and body[param.name] is NULLABLE:
        return None
    if param.name in body and body[param.name] is TESTED:
        named = guess_by_name(param.name, _UNKNOWN)
        if named == 0.0 and isinstance(named, float):
            return 0.1  # a rate the code branches on (``if dropout:``): nonzero, so the branch runs
        return False if named is _UNKNOWN or named is None else named
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


def _given(signature: inspect.Signature, site: CallSite, body: Dict[str, Any]) -> Dict[str, Any]:
    """Guesses for the parameters defaulting to None that the call gives a value that is not a literal
    (``vocab_size=len(vocab)``): the package's code needs them, so None is no choice."""
    params = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = [param.name for param, literal in zip(params, site.literal) if not literal] + list(site.given)
    found: Dict[str, Any] = {}
    for name in named:
        param = signature.parameters.get(name)
        if param is not None and param.default is None:
            value = guess(param, body) if name in body else guess_by_name(name, None)
            if value is not None:
                found[name] = value
    return found


class Builder:
    """Builds the blocks a constructor takes as arguments: ``lookup(name)`` gives a class of the package by
    name (or None), ``make(cls, kwargs)`` constructs it (raising when it cannot); ``context`` is every class's
    calls in the package (:class:`hylint.verify.discover.BlockJob`'s)."""

    def __init__(self, lookup: Callable[[str], Any], make: Callable[[Any, Dict[str, Any]], Any],
                 context: Optional[Dict[str, List[CallSite]]] = None, depth: int = 2) -> None:
        self.lookup, self.make, self.context, self.depth = lookup, make, context or {}, depth

    def classes_for(self, cls: Any, name: str, calls: Sequence[CallSite]) -> List[str]:
        """Names of the package's classes to build for parameter ``name``: those the package's calls pass for
        it, then those named like it (``encoder`` -> ``BERTEncoder``; shortest name first)."""
        try:
            params = [p.name for p in inspect.signature(cls).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        found: List[str] = []
        for site in calls:
            for key, callee in site.blocks:
                param = params[int(key)] if key.isdigit() and int(key) < len(params) else key
                if param == name and callee not in found and callee != cls.__name__:
                    found.append(callee)
        word = name.strip("_").split("_")[-1].lower()
        if len(word) >= 3:
            named = sorted((c for c in self.context if word in c.lower() and c != cls.__name__ and c not in found),
                           key=lambda c: (len(c), c))
            found += named[:2]
        return found

    def spec(self, block_cls: Any, depth: int, shared: Optional[Dict[str, Any]] = None) -> Optional[Dict[str, Any]]:
        """``{BLOCK: "module:Name", "kwargs": ...}`` for the first of the class's candidate arguments that
        constructs, or None. The outer block's plain values for parameters of the same name (``units``) come
        first: the two must agree on sizes."""
        try:
            names = set(inspect.signature(block_cls).parameters)
        except (TypeError, ValueError):
            names = set()
        common = {k: v for k, v in (shared or {}).items() if k in names and not isinstance(v, dict)}
        tried = candidates(block_cls, self.context.get(block_cls.__name__, ()), builder=self, depth=depth + 1)
        for kwargs in ([{**k, **common} for k in tried] if common else []) + tried:
            try:
                self.make(block_cls, kwargs)
            except Exception:  # noqa: BLE001 - any error: the next candidate
                continue
            return {BLOCK: f"{block_cls.__module__}:{block_cls.__qualname__}", "kwargs": kwargs}
        return None

    def values(self, cls: Any, name: str, calls: Sequence[CallSite], depth: int,
               shared: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
        """Blocks to give parameter ``name`` of ``cls``, best first (at most two), each a spec."""
        found: List[Dict[str, Any]] = []
        if depth < self.depth:
            for class_name in self.classes_for(cls, name, calls):
                block_cls = self.lookup(class_name)
                if not isinstance(block_cls, type) or issubclass(block_cls, cls):
                    continue
                made = self.spec(block_cls, depth, shared)
                if made is not None and made not in found:
                    found.append(made)
                if len(found) >= 2:
                    break
        return found or [dict(SMALL_BLOCK)]


def candidates(cls: Any, calls: Sequence[CallSite] = (), most: int = 4, builder: Optional[Builder] = None,
               depth: int = 0) -> List[Dict[str, Any]]:
    """Constructor keyword arguments to try, best first: none when every parameter has a default; else the
    package's literal calls (their gaps filled with guesses; the calls giving the most required parameters
    first), then the guesses alone. A required parameter the class uses as a block (:func:`block_parameters`)
    is given one when ``builder`` is: a class of the package the calls pass for it or named like it, built
    with its own candidates, else a small Dense (each a :data:`BLOCK` spec). Each a JSON-able dict."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return [{}]
    offline = _offline(signature)
    found = [{**kwargs, **offline} for kwargs in _candidates(cls, signature, calls, most, builder, depth)]
    return found + [variant for variant in _input_sizes(signature, found[0]) if variant not in found]


_INPUT_SIZE = re.compile(r"^(in_channels|in_units|in_features|input_size|in_planes)$")


def _input_sizes(signature: inspect.Signature, first: Dict[str, Any]) -> List[Dict[str, Any]]:
    """``first`` with each input size left deferred by its default (``in_channels=0``) given at 4, 16, 32
    and 64, tried last: MXNet infers a deferred shape by tracing the block with Symbols, so a block that does
    not hybridize cannot even be called eagerly while a size is deferred (``assert in_channels % ngroups ==
    0``: the sizes that divide)."""
    deferred = [p.name for p in signature.parameters.values() if _INPUT_SIZE.match(p.name)
                and p.default in (0, None) and not isinstance(p.default, bool) and p.name not in first]
    return [{**first, **{name: size for name in deferred}} for size in (4, 16, 32, 64)] if deferred else []


def _offline(signature: inspect.Signature) -> Dict[str, Any]:
    """False for every ``pretrained*`` parameter that defaults to something true (``pretrained_base=True``):
    a block verified on seeded random weights needs no weights downloaded, and verify asks for none."""
    return {p.name: False for p in signature.parameters.values()
            if re.match(r"^pretrained\w*$", p.name.lower()) and isinstance(p.default, (bool, str)) and p.default}


def _candidates(cls: Any, signature: inspect.Signature, calls: Sequence[CallSite], most: int,
                builder: Optional[Builder], depth: int) -> List[Dict[str, Any]]:
    required = _required(signature)
    if not required:
        return [{}]
    body = class_use(cls)
    guessed = {p.name: guess(p, body) for p in required}
    alternatives: List[Dict[str, Any]] = []
    if builder is not None:
        wanted = [name for name in block_parameters(cls) if name in guessed
                  and (guessed[name] is None or (isinstance(guessed[name], int)
                                                 and not isinstance(guessed[name], bool)))]
        for name in wanted:
            shared = {**guessed, **next(({**_given(signature, site, body), **v} for site in calls
                                          for v in [_from_call(signature, site)] if v is not None), {})}
            values = builder.values(cls, name, calls, depth, {k: v for k, v in shared.items() if k != name})
            guessed[name] = values[0]
            alternatives += [{**guessed, name: value} for value in values[1:]]
    found: List[Dict[str, Any]] = []
    from_calls = [{**_given(signature, site, body), **values} for site in calls
                  for values in [_from_call(signature, site)] if values is not None]
    from_calls.sort(key=lambda values: -sum(p.name in values for p in required))
    for values in from_calls:
        kwargs = {**guessed, **{k: v for k, v in values.items()}}
        if kwargs not in found:
            found.append(kwargs)
        if len(found) >= most - 1:
            break
    # a parameter the code compares with None: None first, then what its name suggests
    named = {name: guess_by_name(name) for name, value in guessed.items() if value is None
             and body.get(name) is NULLABLE and guess_by_name(name) is not None}
    alternatives += [{**guessed, **named}] if named else []
    for variant in [guessed] + alternatives + _deeper(guessed):
        # 'int' object is not iterable: a list, or a list of lists, per stage
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
    wider = {k: (16 if v == 4 and not isinstance(v, bool) else 32 if v == 8 and not isinstance(v, bool)
                 else [16, 16] if v == [4, 4] else v)
             for k, v in guessed.items()}  # a reduction by 16 (squeeze-and-excitation) leaves 4 channels none
    found: List[Dict[str, Any]] = []
    for variant in (nested, lists, both, wider):
        if variant != guessed and variant not in found:
            found.append(variant)
    return found


def factories(cls: Any, module: Any, most: int = 2) -> List[Any]:
    """``(function, kwargs)`` for the functions of ``cls``'s module (and of the modules beside it, as imported)
    that build it and can be called with no argument (a model zoo's ``resnet18_cifar10()`` -> ``get_resnet(...)`` -> ``ResNet(...)``: a function whose
    body calls the class, or calls such a function of the module, one step), in source order (a zoo lists its
    smallest models first), at most ``most``; each called with its ``pretrained*`` parameters False (a block
    verified on seeded random weights needs no download)."""
    import sys

    home = getattr(module, "__name__", "") or ""
    parent = home.rsplit(".", 1)[0] + "." if "." in home else home
    modules = [module] + [m for name, m in sorted(sys.modules.items()) if m is not None and m is not module
                          and "." in home and name.startswith(parent) and name.count(".") == home.count(".")]
    functions = {name: value for m in modules for name, value in vars(m).items() if inspect.isfunction(value)
                 and getattr(value, "__module__", None) == m.__name__}
    sources: Dict[str, str] = {}
    for name, function in functions.items():
        try:
            sources[name] = inspect.getsource(function)
        except (OSError, TypeError):
            continue
    direct = {name for name, text in sources.items() if re.search(rf"\b{re.escape(cls.__name__)}\(", text)}
    found = []
    order = {id(m): index for index, m in enumerate(modules)}
    for name, text in sorted(sources.items(), key=lambda item: (
            order.get(id(sys.modules.get(functions[item[0]].__module__)), 0), functions[item[0]].__code__.co_firstlineno)):
        calls_builder = direct & set(re.findall(r"\b(\w+)\(", text)) - {name}
        if not (name in direct or calls_builder) or name.startswith("_"):
            continue
        try:
            signature = inspect.signature(functions[name])
        except (TypeError, ValueError):
            continue
        if _required(signature):
            continue
        found.append((functions[name], {p.name: False for p in signature.parameters.values()
                                        if re.match(r"^pretrained\w*$", p.name.lower())
                                        and p.default is not False}))
    # a function that only calls the builder (`cgnet_cityscapes()` -> `get_cgnet(...)`) is the model zoo's
    # entry: first; the builder itself (`get_cgnet(model_name=None)`) often needs its arguments
    found.sort(key=lambda item: item[0].__name__ in direct)
    return found[:most]
