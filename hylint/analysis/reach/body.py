"""One reading of a reached function's body: what each of its names may hold (flow-insensitive), what
it returns, which of its parameters and names hold F or tensors.

Reads the function's statements and expressions with the values its parameters are bound to (and, for a
nested function or lambda, the live environment of the function defining it); answers by updating its
``Reached`` and ``_Entry`` and the attributes it sets on objects (``_Class.attrs``). A branch whose test is
true only eagerly (``isinstance(x, mx.nd.NDArray)``, ``F is nd``, ``self.F is mx.nd`` with ``self.F`` holding
F, in an ``and`` too) is not followed (guards.py); after a test true only in a trace (``F is
mx.sym``, a guard helper of the package, ...) whose branch ends in ``raise`` or ``return``, the rest of
the block runs eagerly only and is not followed either. Calls: calls.py.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Set

from hylint.analysis.reach.atoms import (
    F, F_MEMBER, NOTHING, TENSOR, TENSOR_METHOD, FunctionKey, Value, _BUILTIN_METHODS, _ordered, _TENSOR_EXITS,
    _TENSOR_PY_ATTRS)
from hylint.analysis.reach.calls import _Calls
from hylint.analysis.reach.guards import _compare_mode, _isinstance_mode, declared_opt_outs, opt_out_test
from hylint.analysis.reach.reaching import Ctx, _Analysis, _Entry


class _Function(_Calls):
    """One reading of one reached function's body, with what its names may hold."""

    def __init__(self, analysis: _Analysis, ctx: Ctx, entry: _Entry) -> None:
        self.analysis = analysis
        self.package = analysis.package
        self.ctx = ctx
        self.key, self.recv = ctx
        self.entry = entry
        self.node = self.package.functions[self.key]
        self.env: Dict[str, Value] = dict(self.package.closures.get(ctx, {}))
        self.env.update(entry.params)

    def run(self) -> None:
        reached = self.entry.reached
        for name, value in self.entry.params.items():
            if F in value:
                reached.f_params.add(name)
            if TENSOR in value:
                reached.tensor_params.add(name)
        if isinstance(self.node, ast.Lambda):
            self._return(self.eval(self.node.body))
        else:
            self.block(self.node.body)
        for name, value in self.env.items():
            if F in value:
                reached.f_names.add(name)
            if TENSOR in value:
                reached.tensor_names.add(name)

    def _return(self, value: Value) -> None:
        if not value <= self.entry.returns:
            self.entry.returns |= value
            self.analysis.touch(self.entry.callers)

    # -- statements

    def block(self, body: Iterable[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)
            if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body and \
                    isinstance(stmt.body[-1], (ast.Raise, ast.Return)) and \
                    (self._mode(stmt.test) == "sym" or self._opt_out(stmt.test) is False):
                # `if F is mx.sym: raise ...`: what follows runs eagerly only, never in a trace; `if
                # self.hybridizable: return y`: what follows runs only in a block built not to be hybridized
                return

    def _mode(self, test: ast.expr, exact: bool = False) -> Optional[str]:
        """'sym' when ``test`` is true only in a trace (``F is mx.sym``, ``F is not nd``, ``not isinstance(x,
        mx.nd.NDArray)``), 'nd' when only eagerly (``x is not None and F is nd`` too, unless `exact`: its
        negation is no test of the mode), else None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return {"nd": "sym", "sym": "nd"}.get(self._mode(test.operand, exact=True) or "")
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and not exact:
            modes = {self._mode(value) for value in test.values}
            return "nd" if "nd" in modes and "sym" not in modes else None
        if isinstance(test, ast.Compare):
            module = self.package.module(self.key.module)
            return _compare_mode(test, lambda holder: F in self.eval(holder), module.mxnet_aliases if module else {})
        if isinstance(test, ast.Call) and test.args and not test.keywords:
            # a guard helper of the package: `if mxnet_is_ndarray(F):`, `def mxnet_is_ndarray(F): return
            # F.__name__ == 'mxnet.ndarray'`
            for atom in self.eval(test.func):
                mode = self.package.guard_helper(atom[1]) if atom[0] == "fn" else None
                if mode is not None and F in self.eval(test.args[0]):
                    return mode
        return _isinstance_mode(test)

    def _opt_out(self, test: ast.expr) -> Optional[bool]:
        """Whether `test` holds only for a block built not to be hybridized, as the `__init__` of the class of
        self declares it (guards.declared_opt_outs): True, False for its negation, None."""
        cls = self.recv or self.entry.owner
        init = self.package.method(cls, "__init__") if cls is not None else None
        if init is None:
            return None
        return opt_out_test(test, declared_opt_outs(self.package.functions.get(init)))

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key = FunctionKey(self.key.module, f"{self.key.qualname}.<locals>.{stmt.name}")
            self.package.functions.setdefault(key, stmt)
            self.package.closures[(key, self.recv)] = self.env  # the live env: later bindings are seen too
            self.analysis.touch([(key, self.recv)])
            self.assign_name(stmt.name, frozenset({("fn", key, self.recv)}))
            for decorator in stmt.decorator_list:
                self.eval(decorator)
        elif isinstance(stmt, ast.ClassDef):
            return  # not followed (see the module docstring)
        elif isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value)
            for target in stmt.targets:
                self.assign(target, value)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            if stmt.value is not None:
                value = self.eval(stmt.value)
                if isinstance(stmt, ast.AugAssign):
                    value = self._arith([value, self.eval(stmt.target)])
                self.assign(stmt.target, value)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                self._return(self.eval(stmt.value))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.assign(stmt.target, self._element(self.eval(stmt.iter)))
            self.block(stmt.body)
            self.block(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                value = self.eval(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.block(stmt.body)
        elif isinstance(stmt, ast.Try):
            self.block(stmt.body)
            for handler in stmt.handlers:
                self.block(handler.body)
            self.block(stmt.orelse)
            self.block(stmt.finalbody)
        elif isinstance(stmt, (ast.If, ast.While)):
            self.eval(stmt.test)
            mode = self._mode(stmt.test) if isinstance(stmt, ast.If) else None
            # `if isinstance(x, mx.nd.NDArray):`, `elif method == "iter" and self.F is mx.nd:` run eagerly only,
            # never in a trace: what their branch calls is not reached from here
            declared = self._opt_out(stmt.test) if isinstance(stmt, ast.If) else None
            if mode != "nd" and declared is not True:
                self.block(stmt.body)
            if mode != "sym" and declared is not False:
                self.block(stmt.orelse)
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.eval(child)
                elif isinstance(child, ast.stmt):
                    self.statement(child)

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            element = self._element(value)
            for item in target.elts:
                self.assign(item.value if isinstance(item, ast.Starred) else item, element)
        elif isinstance(target, ast.Attribute):
            for atom in self.eval(target.value):
                if atom[0] in ("obj", "obj?"):
                    cls = self.package.classes.get(atom[1])
                    if cls is not None and not value <= self.package.attrs_of(cls).get(target.attr, NOTHING):
                        cls.attrs[target.attr] = cls.attrs.get(target.attr, NOTHING) | value
                        for base in self.package.mro(atom[1]):  # readers through the class or a base
                            self.analysis.touch(self.analysis.readers.get((base.key, target.attr), ()))
                        self.analysis.touch(self.analysis.readers.get((atom[1], target.attr), ()))
        elif isinstance(target, ast.Subscript):
            self.eval(target.value)
            self.eval(target.slice)

    def assign_name(self, name: str, value: Value) -> None:
        # flow-insensitive: a name holds everything ever assigned to it in the function
        self.env[name] = self.env.get(name, NOTHING) | value

    # -- expressions

    def eval(self, expr: Optional[ast.expr]) -> Value:
        if expr is None:
            return NOTHING
        method = getattr(self, "_" + type(expr).__name__, None)
        if method is not None:
            return method(expr)
        parts = [self.eval(child) for child in ast.iter_child_nodes(expr) if isinstance(child, ast.expr)]
        return self._arith(parts) if isinstance(expr, (ast.BinOp, ast.UnaryOp)) else NOTHING

    def _Name(self, expr: ast.Name) -> Value:
        if expr.id in self.env:
            return self.env[expr.id]
        return self.package.resolve(self.key.module, expr.id)

    def _Constant(self, expr: ast.Constant) -> Value:
        return NOTHING

    def _Attribute(self, expr: ast.Attribute) -> Value:
        base = self.eval(expr.value)
        out: Set[tuple] = set(self.package.member(base, expr.attr))
        for atom in _ordered(base):
            kind = atom[0]
            if kind in ("F", "F.member"):
                out.add(F_MEMBER)
            elif kind == "tensor":
                if expr.attr not in _TENSOR_PY_ATTRS and expr.attr not in _TENSOR_EXITS:
                    out.add(TENSOR_METHOD)
            elif kind in ("obj", "obj?", "class"):
                method = self.package.method(atom[1], expr.attr)
                if method is not None and kind != "class" and self.package.is_property(method):
                    # reading a property runs its getter (gluonts' `F = self.F` is `getF(self.mu)`)
                    obj = frozenset({("obj", atom[1])})
                    bound = self.analysis.bind(method, None, [], {}, obj)
                    out |= self.analysis.reach(method, bound, self.ctx, expr, kind == "obj" and self.entry.certain)
                elif method is not None:
                    # ("bound", class, method, sure): a method of an object whose class a by-name call guessed
                    # is as uncertain as that guess
                    out.add(("fn", method) if kind == "class" else ("bound", atom[1], method, kind == "obj"))
                else:
                    for cls in self.package.mro(atom[1]):
                        self.analysis.readers.setdefault((cls.key, expr.attr), set()).add(self.ctx)
                    out |= self.package.attr(atom[1], expr.attr)
        if not out and expr.attr not in _BUILTIN_METHODS and not expr.attr.startswith("__"):
            out.add(("method?", expr.attr))
        return frozenset(out)

    def _arith(self, parts: List[Value]) -> Value:
        return frozenset({TENSOR}) if any(TENSOR in part or F in part for part in parts) else NOTHING

    def _BinOp(self, expr: ast.BinOp) -> Value:
        return self._arith([self.eval(expr.left), self.eval(expr.right)])

    def _UnaryOp(self, expr: ast.UnaryOp) -> Value:
        return self._arith([self.eval(expr.operand)])

    def _Compare(self, expr: ast.Compare) -> Value:
        parts = [self.eval(expr.left)] + [self.eval(c) for c in expr.comparators]
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return NOTHING
        return frozenset({TENSOR}) if any(TENSOR in part for part in parts) else NOTHING

    def _BoolOp(self, expr: ast.BoolOp) -> Value:
        return frozenset().union(*(self.eval(value) for value in expr.values))

    def _IfExp(self, expr: ast.IfExp) -> Value:
        self.eval(expr.test)
        return self.eval(expr.body) | self.eval(expr.orelse)

    def _Tuple(self, expr) -> Value:
        return frozenset().union(NOTHING, *(self.eval(item) for item in expr.elts))

    _List = _Set = _Tuple

    def _Dict(self, expr: ast.Dict) -> Value:
        for key in expr.keys:
            self.eval(key)
        return frozenset().union(NOTHING, *(self.eval(value) for value in expr.values))

    def _Starred(self, expr: ast.Starred) -> Value:
        return self.eval(expr.value)

    def _Subscript(self, expr: ast.Subscript) -> Value:
        base = self.eval(expr.value)
        self.eval(expr.slice)
        return self._element(base) | (frozenset({TENSOR}) if TENSOR in base else NOTHING)

    def _element(self, value: Value) -> Value:
        """An element of a container (or a row of a tensor): what the container may hold."""
        return frozenset(atom for atom in value if atom[0] not in ("module", "external", "method?", "class"))

    def _comprehension(self, expr) -> Value:
        for generator in expr.generators:
            self.assign(generator.target, self._element(self.eval(generator.iter)))
            for condition in generator.ifs:
                self.eval(condition)
        if isinstance(expr, ast.DictComp):
            self.eval(expr.key)
            return self.eval(expr.value)
        return self.eval(expr.elt)

    _ListComp = _SetComp = _GeneratorExp = _DictComp = _comprehension

    def _Lambda(self, expr: ast.Lambda) -> Value:
        key = FunctionKey(self.key.module, f"{self.key.qualname}.<lambda@{expr.lineno}:{expr.col_offset}>")
        self.package.functions.setdefault(key, expr)
        self.package.closures[(key, self.recv)] = self.env
        self.analysis.touch([(key, self.recv)])
        return frozenset({("fn", key, self.recv)})

    def _NamedExpr(self, expr: ast.NamedExpr) -> Value:
        value = self.eval(expr.value)
        self.assign(expr.target, value)
        return value
