"""Reaching a function: the state of each function in each context (``_Entry``: what its parameters hold,
what it returns, who calls it), binding a call's arguments to its parameters, and functions handed to code
outside the package (lambdas, nested functions and bound methods given to ``HybridLambda``,
``F.contrib.foreach``, ``map``...), which run in the trace as certainly as the code handing them over.

Reads the package index and what a call passes; answers what the reached function returns, and records it
(``Reached``: its chain, whether it is certain; a nested function or lambda is as certain as the function
defining it). The fixpoint that reads the bodies again until nothing grows is in analyze.py.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Set, Tuple, Union

from hylint.analysis.reach.atoms import F, NOTHING, TENSOR, ClassKey, FunctionKey, Value
from hylint.analysis.reach.package import _Package
from hylint.analysis.reach.results import Reached
from hylint.analysis.reach.syntax import _all_param_names, _params, _scalar_annotation, _text


Ctx = Tuple[FunctionKey, Optional[ClassKey]]


class _Entry:
    """The analysis state of one function in one context: what its parameters hold, what it returns."""

    def __init__(self, reached: Reached, owner: Optional[ClassKey], certain: bool) -> None:
        self.reached = reached  # shared by the contexts of one function
        self.owner = owner      # the class that defines the method (for super())
        self.certain = certain
        self.params: Dict[str, Value] = {}
        self.returns: Value = NOTHING
        self.callers: Set[Ctx] = set()  # read again when what this function returns grows
        self.dirty = True


class _Analysis:
    def __init__(self, package: _Package) -> None:
        self.package = package
        self.entries: Dict[Ctx, _Entry] = {}
        self.reached: Dict[FunctionKey, Reached] = {}
        self.order: List[Ctx] = []
        # (class, attribute) -> the contexts that read `self.<attribute>` of an object of that class
        self.readers: Dict[Tuple[ClassKey, str], Set[Ctx]] = {}
        # guesses by method name wait until what is known has settled: a receiver is often empty only
        # because the return value that fills it has not been computed yet
        self.guessing = False

    def touch(self, ctxs: Iterable[Ctx]) -> None:
        """What `ctxs` read has grown: read them again."""
        for ctx in ctxs:
            entry = self.entries.get(ctx)
            if entry is not None:
                entry.dirty = True

    # -- reaching

    def reach(self, key: FunctionKey, bound: Dict[str, Value], caller: Optional[Ctx],
              text: Union[str, ast.AST], certain: bool, owner: Optional[ClassKey] = None,
              recv: Optional[ClassKey] = None) -> Value:
        """Record that `key` runs in the trace with parameters holding `bound`; returns what it returns.
        A method whose `self` may be objects of several classes is reached once per class."""
        node = self.package.functions[key]
        owner = owner if owner is not None else self.package.owner.get(key)
        if recv is None and owner is not None and not isinstance(node, ast.Lambda):
            params = _params(node)
            receivers = sorted({atom[1] for atom in bound.get(params[0].arg, NOTHING) if atom[0] in ("obj", "obj?")}
                               if params else set())
            if receivers:
                out: Set[tuple] = set()
                for cls in receivers:
                    one = dict(bound)
                    one[params[0].arg] = frozenset({("obj", cls)})
                    out |= self.reach(key, one, caller, text, certain, owner, cls)
                return frozenset(out)
        ctx = (key, recv)
        entry = self.entries.get(ctx)
        parent = self.entries.get(caller) if caller is not None else None
        definer = self._definer(key)
        if definer is not None:
            # a nested function or lambda, called where a helper was handed it: it is as certain as the
            # function that defines it, and its chain goes through that function
            certain = certain and definer.certain
            parent_reached, caller_key = definer, definer.key
        else:
            parent_reached = parent.reached if parent is not None else None
            caller_key = caller[0] if caller is not None else None
        if entry is None:
            reached = self.reached.get(key)
            if reached is None:
                text = text if isinstance(text, str) else _text(text)
                chain = (parent_reached.chain + ((caller_key, text),)) if parent_reached is not None else ()
                root = (parent_reached.root if parent_reached is not None else key)
                reached = self.reached[key] = Reached(key, self.package.paths.get(key.module), node.lineno, node,
                                                      certain=certain, chain=chain, root=root)
            entry = self.entries[ctx] = _Entry(reached, owner, certain)
            self.order.append(ctx)
            for name in _all_param_names(node):  # the project's convention: a parameter named F is F
                if name == "F":
                    entry.params[name] = frozenset({F})
        if caller is not None:
            entry.callers.add(caller)
        if certain and not entry.certain:
            entry.certain = True
            entry.dirty = True
        if certain and not entry.reached.certain:
            entry.reached.certain = True
            if parent_reached is not None and parent_reached.certain:  # the chain shown is a certain one
                text = text if isinstance(text, str) else _text(text)
                entry.reached.chain = parent_reached.chain + ((caller_key, text),)
                entry.reached.root = parent_reached.root
        for name, value in bound.items():
            old = entry.params.get(name, NOTHING)
            if not value <= old:
                entry.params[name] = old | value
                entry.dirty = True
        return entry.returns

    def _definer(self, key: FunctionKey) -> Optional[Reached]:
        """The reached function that defines the nested function or lambda `key` (None for other functions
        and for lambdas of a block's __init__, which runs before the trace)."""
        qualname = key.qualname
        cut = max(qualname.rfind(".<locals>."), qualname.rfind(".<lambda@"))
        return self.reached.get(FunctionKey(key.module, qualname[:cut])) if cut > 0 else None

    def bind(self, key: FunctionKey, call: Optional[ast.Call], args: List[Value], kwargs: Dict[str, Value],
             self_value: Optional[Value]) -> Dict[str, Value]:
        node = self.package.functions[key]
        params = [p.arg for p in _params(node)]
        bound: Dict[str, Value] = {}
        if self_value is not None and params:
            bound[params[0]] = self_value
            params = params[1:]
        star = next((i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred)), None) if call else None
        if star is not None and star < len(args):
            # f(a, *rest): from the star on, any parameter may receive what `rest` holds, but one annotated
            # with a Python scalar type (`label_smoothing: Optional[float] = None`) receives no tensor
            spread = frozenset().union(*args[star:])
            scalars = {p.arg for p in _params(node) if _scalar_annotation(p.annotation)}
            args = args[:star] + [spread - {TENSOR} if name in scalars else spread
                                  for name in params[star:] or [None]]
        for name, value in zip(params, args):
            bound[name] = value
        if len(args) > len(params) and node.args.vararg is not None:
            bound[node.args.vararg.arg] = frozenset().union(*args[len(params):])
        names = set(_all_param_names(node))
        for name, value in kwargs.items():
            if name in names:
                bound[name] = value
            elif node.args.kwarg is not None:
                bound[node.args.kwarg.arg] = bound.get(node.args.kwarg.arg, NOTHING) | value
        return bound

    def handed(self, key: FunctionKey, caller: Ctx, text: str, recv: Optional[ClassKey] = None,
               obj: Optional[ClassKey] = None, certain: bool = True, tensors: bool = True,
               lists: Tuple[int, ...] = ()) -> None:
        """A function given to code outside the package runs in the trace (as certainly as the code handing
        it over): F to a parameter named F, tensors to the others when MXNet calls it (``HybridLambda(lambda F, x: ...)``, ``F.contrib.foreach(step, data,
        states)``), nothing known otherwise. `obj`: the function is a method bound to an object of that class
        (``F.contrib.foreach(self._step, ...)``). `lists`: positions (after a bound method's own parameter) of
        parameters that receive a Python list of tensors (``foreach``'s data given as a list): nothing known."""
        node = self.package.functions[key]
        names = _all_param_names(node)
        own = names[:1] if obj is not None else []
        listed = {names[len(own) + i] for i in lists if len(own) + i < len(names)}
        bound = {name: frozenset({TENSOR}) for name in names
                 if tensors and name not in ("F", "self") and name not in own and name not in listed}
        if own:
            bound[own[0]] = frozenset({("obj", obj)})
        self.reach(key, bound, caller, text, certain, recv=recv)
