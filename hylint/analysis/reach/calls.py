"""Calls in a reached function's body: what a call runs in the trace and returns.

Reads a call (its callee's atoms and what its arguments hold) in the context of one reading of a body
(``_Function``, of which ``_Calls`` is a base: it uses ``eval``, ``env``, ``analysis``, ``package``,
``ctx``, ``entry`` and ``node``); answers the call's value, and reaches what it runs: package functions
and methods, ``super().<method>``, constructors, child blocks (``hybrid_forward`` with F, or ``forward``),
blocks built around a function, functions handed to code outside the package, and, once what is known has
settled, methods of an unknown receiver by name, uncertain (``certain=False``: never an alarm).
"""
from __future__ import annotations

import ast
from typing import Optional, Set, Tuple

from hylint.analysis.reach.atoms import F, F_MEMBER, NOTHING, TENSOR, ClassKey, FunctionKey, Value, _ordered
from hylint.analysis.reach.syntax import _params, _text
from hylint.facts.tensor_methods import FLUENT_METHODS


def _foreach_lists(call: ast.Call) -> Tuple[int, ...]:
    """The positions of the body's parameters that receive a Python list, not a tensor, in
    ``F.contrib.foreach(body, data, init_states)``: ``body(data, states)`` gets the data (and the states) as
    a list of slices when a list or tuple is passed there (measured on MXNet 1.9.1, eagerly and hybridized)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "foreach"):
        return ()
    given = dict(enumerate(call.args[1:3]))
    given.update({("data", "init_states").index(kw.arg): kw.value for kw in call.keywords
                  if kw.arg in ("data", "init_states")})
    return tuple(sorted(position for position, value in given.items() if isinstance(value, (ast.List, ast.Tuple))))


class _Calls:
    """The calls of one reading of a reached function's body (a base of ``_Function``)."""

    def _super(self, attr: str) -> Value:
        """``super().<attr>``: the method of the first package base of the function's class that has it."""
        owner = self.entry.owner
        params = [p.arg for p in _params(self.node)] if not isinstance(self.node, ast.Lambda) else []
        if owner is None or not params:
            return NOTHING
        for base in self.package.mro(owner)[1:]:
            if attr in base.methods:
                return frozenset({("super", base.methods[attr], params[0])})
        return NOTHING

    def _Call(self, expr: ast.Call) -> Value:
        if (isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Call)
                and isinstance(expr.func.value.func, ast.Name) and expr.func.value.func.id == "super"):
            callee = self._super(expr.func.attr)
        else:
            callee = self.eval(expr.func)
        args = [self.eval(arg) for arg in expr.args]
        kwargs = {kw.arg: self.eval(kw.value) for kw in expr.keywords if kw.arg is not None}
        for kw in expr.keywords:
            if kw.arg is None:
                self.eval(kw.value)
        text = expr.func  # unparsed only for the call that first reaches a function (a chain's label)
        result: Set[tuple] = set()
        resolved = False
        for atom in _ordered(callee):
            kind = atom[0]
            if kind in ("F.member", "tensor.method"):
                result.add(TENSOR)
            elif kind == "fn":
                resolved = True
                result |= self._call_function(atom[1], expr, args, kwargs, None, text,
                                              recv=atom[2] if len(atom) > 2 else None)
            elif kind == "bound":
                resolved = True
                result |= self._call_function(atom[2], expr, args, kwargs, frozenset({("obj", atom[1])}), text,
                                              sure=atom[3])
            elif kind == "super":
                resolved = True
                owner_self = self.env.get(atom[2], NOTHING)
                result |= self._call_function(atom[1], expr, args, kwargs, owner_self, text)
            elif kind == "class":
                resolved = True
                result |= self._construct(atom[1], expr, args, kwargs, text)
            elif kind in ("obj", "obj?"):
                resolved = True
                result |= self._call_object(atom[1], expr, args, kwargs, text, sure=kind == "obj")
            elif kind == "method?":
                result |= self._by_name(atom[1], expr, args, kwargs, text)
            elif kind == "runs":  # a block built around a function: calling the block runs the function
                resolved = True
                self.analysis.handed(atom[1], self.ctx, _text(text), obj=atom[2] if len(atom) > 2 else None,
                                     certain=self.entry.certain)
                result.add(TENSOR)
        if not resolved:  # a function handed to code the package does not define runs in the trace
            # MXNet calls it with tensors (`F.contrib.foreach(step, data, states)`); what Python's builtins or
            # another library pass it (`map(lambda ixs: args[ixs[0]:ixs[1]], zip(...))`) is not known
            tensors = any(atom == F_MEMBER or atom[0] == "external" and atom[1].partition(".")[0] == "mxnet"
                          for atom in callee)
            lists = _foreach_lists(expr) if tensors else ()
            for value in args + list(kwargs.values()):
                for atom in _ordered(value):
                    if atom[0] == "fn":
                        name = atom[1].qualname.rsplit(".", 1)[-1]
                        label = f"{_text(text)}(<{'lambda' if name.startswith('<lambda@') else name}>)"
                        self.analysis.handed(atom[1], self.ctx, label, atom[2] if len(atom) > 2 else None,
                                             certain=self.entry.certain, tensors=tensors, lists=lists)
                    elif atom[0] == "bound":  # a method: `F.contrib.foreach(self._step, data, states)`
                        label = f"{_text(text)}(<{atom[2].qualname.rsplit('.', 1)[-1]}>)"
                        self.analysis.handed(atom[2], self.ctx, label, obj=atom[1], certain=atom[3] and self.entry.certain,
                                             tensors=tensors, lists=lists)
        if self._returns_namespace(callee):
            result.add(F)
        return frozenset(result)

    def _returns_namespace(self, callee: Value) -> bool:
        """A getF-style accessor: a package function that returns mx.nd or mx.sym."""
        for atom in callee:
            if atom[0] == "fn":
                entry = self.analysis.entries.get(atom[1])
                if entry is not None and F in entry.returns:
                    return True
        return False

    def _call_function(self, key: FunctionKey, call: ast.Call, args, kwargs, self_value, text,
                       sure: bool = True, recv: Optional[ClassKey] = None) -> Value:
        bound = self.analysis.bind(key, call, args, kwargs, self_value)
        return self.analysis.reach(key, bound, self.ctx, text, sure and self.entry.certain, recv=recv)

    def _construct(self, cls: ClassKey, call: ast.Call, args, kwargs, text) -> Value:
        """A class built in the trace: its __init__ runs in it (a base's __init__ through super().__init__)."""
        obj = frozenset({("obj", cls)})
        init = self.package.method(cls, "__init__")
        if init is not None:
            self._call_function(init, call, args, kwargs, obj, text)
        return obj

    def _call_object(self, cls: ClassKey, call: ast.Call, args, kwargs, text, sure: bool) -> Value:
        """Calling an object: a child block runs its hybrid_forward (with F) or forward; another object its
        __call__."""
        obj = frozenset({("obj", cls)})
        if self.package.is_block(cls):
            hybrid = self.package.method(cls, "hybrid_forward")
            if hybrid is not None:
                node = self.package.functions[hybrid]
                params = [p.arg for p in _params(node)]
                bound = self.analysis.bind(hybrid, call, [frozenset({F})] + args, kwargs, obj)
                for name in params[2 + len(args):]:
                    bound.setdefault(name, frozenset({TENSOR}))  # the block's parameters arrive as tensors
                return self.analysis.reach(hybrid, bound, self.ctx, text, sure and self.entry.certain)
            forward = self.package.method(cls, "forward")
            if forward is not None:
                return self._call_function(forward, call, args, kwargs, obj, text, sure)
            return frozenset({TENSOR})
        method = self.package.method(cls, "__call__")
        if method is not None:
            return self._call_function(method, call, args, kwargs, obj, text, sure)
        return NOTHING

    def _by_name(self, name: str, call: ast.Call, args, kwargs, text) -> Value:
        """A method call on an object whose class is not known: every non-block class of the package that
        defines the method may be the receiver. Uncertain, and only when the call passes F or a tensor, or
        the caller holds F (so the object plausibly belongs to the trace). Not for a fluent tensor method
        (`x.reshape(...)`): the receiver is most likely a tensor, and the classes defining it by that name are
        the tensor classes themselves (in mxnet's own package, NDArray and Symbol: their modules, 0.9 MB, were
        parsed for `reshape` alone; no summary of the corpus or the zoo depends on it)."""
        if not self.analysis.guessing or name in FLUENT_METHODS:
            return NOTHING
        passes = any(TENSOR in value or F in value for value in args + list(kwargs.values()))
        if not passes and not self.entry.reached.f_params and "F" not in self.env:
            return NOTHING
        result: Set[tuple] = set()
        for owner in self.package.by_method_name(name):
            obj = frozenset({("obj", owner)})
            key = self.package.classes[owner].methods[name]
            bound = self.analysis.bind(key, call, args, kwargs, obj)
            returned = self.analysis.reach(key, bound, self.ctx, text, False)
            result |= {("obj?", atom[1]) if atom[0] == "obj" else atom for atom in returned}
            init = self.package.method(owner, "__init__")
            if init is not None:
                # the object exists, so its __init__ ran, in the trace or before it: read for what it sets on
                # self (`self.F = getF(x)`), and uncertain like the method
                self.analysis.reach(init, {_params(self.package.functions[init])[0].arg: obj}, self.ctx,
                                    f"{owner.qualname}()", False)
        return frozenset(result)
