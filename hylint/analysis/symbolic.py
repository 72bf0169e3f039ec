"""Symbolic shapes of the parameters a block declares in ``__init__``.

A parameter's shape is usually written in terms of the constructor's arguments
(``shape=(out_channels, in_channels // groups, k[0], k[1])``), and a built-in base class (``nn.Conv2D``)
declares its ``weight`` from the arguments handed to ``super().__init__``. Evaluated symbolically, with
the arguments as atoms, two such shapes that come out equal are equal for every call of the constructor,
so the elementwise operator between the two parameters needs no broadcast.

A symbolic value (``Sym``) is a string (an expression over the constructor's arguments, module names and
integer literals, written in one canonical form), a tuple of symbolic values, or None (unknown). The
evaluation follows ``__init__`` statement by statement: a local name bound once by a plain assignment
stands for its value; a name bound inside a loop, a ``try`` or a branch is unknown afterwards, except the
int-or-tuple idiom ``if isinstance(k, int): k = (k, k)``, which stands for "``k`` as a pair".
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst

from hylint.syntax.nodes import dotted_name, is_parameter_factory, keyword_value, literal_int, param_names
from hylint.syntax.walk import skipped_types, walk_types

Sym = Union[str, Tuple["Sym", ...], None]
SymShape = Tuple[Optional[str], ...]
SuperCall = Tuple[List[Sym], Dict[str, Sym]]

_OPERATORS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.FloorDivide: "//"}
# `isinstance(k, <one of these>)` tests whether a size was given as one number
_NUMBER_TYPES = {"int", "numeric_types", "numbers.Integral", "Integral"}


def atom(value: Sym) -> Optional[str]:
    return value if isinstance(value, str) else None


def sym_floordiv(a: Sym, b: Sym) -> Optional[str]:
    if not isinstance(a, str) or not isinstance(b, str):
        return None
    return a if b == "1" else f"({a} // {b})"


def normalised_tuple(value: Sym, n: int) -> SymShape:
    """The ``n`` sizes of a size given as one number or as ``n`` numbers (a kernel size, a stride)."""
    if isinstance(value, tuple):
        return tuple(atom(v) for v in value) if len(value) == n else (None,) * n
    if value is None:
        return (None,) * n
    if literal_int_text(value):
        return (value,) * n
    pair = value if value.startswith(f"as{n}(") else f"as{n}({value})"
    return tuple(f"{pair}[{i}]" for i in range(n))


def literal_int_text(value: str) -> bool:
    return value.lstrip("-").isdigit()


def evaluate(node: cst.BaseExpression, env: Dict[str, Sym]) -> Sym:
    if isinstance(node, (cst.Integer, cst.UnaryOperation)):
        number = literal_int(node)
        return None if number is None else str(number)
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return node.value
        return env.get(node.value) if node.value in env else node.value  # a module name stands for itself
    if isinstance(node, cst.SimpleString):
        return repr(node.evaluated_value)
    if isinstance(node, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return tuple(evaluate(e.value, env) for e in node.elements)
    if isinstance(node, cst.BinaryOperation):
        symbol = _OPERATORS.get(type(node.operator))
        left, right = evaluate(node.left, env), evaluate(node.right, env)
        if symbol == "*" and isinstance(left, tuple) and isinstance(right, str) and literal_int_text(right):
            return left * int(right)  # (k,) * 2
        if symbol is None or not isinstance(left, str) or not isinstance(right, str):
            return None
        return sym_floordiv(left, right) if symbol == "//" else f"({left} {symbol} {right})"
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        base, index = evaluate(node.value, env), literal_int(node.slice[0].slice.value)
        if index is None or base is None:
            return None
        if isinstance(base, tuple):
            return base[index] if -len(base) <= index < len(base) else None
        return f"{base}[{index}]"
    return None


# the nodes that bind names, and the field holding the target (``_assigned_names``)
_TARGET_FIELDS = {cst.AssignTarget: "target", cst.AugAssign: "target", cst.AnnAssign: "target", cst.For: "target",
                  cst.AsName: "name", cst.NamedExpr: "target"}
_TARGETS_SKIP = skipped_types(frozenset(node_type.__name__ for node_type in _TARGET_FIELDS))
_DECLARED_SKIP = skipped_types(frozenset({"FunctionDef", "Assign"}))


def _assigned_names(node: cst.CSTNode) -> List[str]:
    names: List[str] = []
    visits = {node_type: (lambda field: lambda bound: _names_in(getattr(bound, field), names))(field)
              for node_type, field in _TARGET_FIELDS.items()}
    walk_types(node, visits, {}, _TARGETS_SKIP)
    return names


def _names_in(target: cst.CSTNode, names: List[str]) -> None:
    if isinstance(target, cst.Name):
        names.append(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _names_in(element.value, names)
    elif isinstance(target, cst.StarredElement):
        _names_in(target.value, names)


def _as_tuple_idiom(stmt: cst.If, env: Dict[str, Sym]) -> Optional[Tuple[str, str]]:
    """``if isinstance(k, int): k = (k, k)`` (or ``(k,) * n``): (k, its value "k as an n-tuple")."""
    test = stmt.test
    if stmt.orelse is not None or not isinstance(test, cst.Call) or dotted_name(test.func) != "isinstance" \
            or len(test.args) != 2 or not isinstance(test.args[0].value, cst.Name):
        return None
    kinds = test.args[1].value
    names = [dotted_name(e.value) for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [dotted_name(kinds)]
    if not any(name in _NUMBER_TYPES or (name or "").endswith(".numeric_types") for name in names):
        return None
    body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    assign = body[0].body[0]
    name = test.args[0].value.value
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or \
            not isinstance(assign.targets[0].target, cst.Name) or assign.targets[0].target.value != name:
        return None
    before = env.get(name, name)
    value = evaluate(assign.value, env)
    if not isinstance(before, str) or not isinstance(value, tuple) or not value or any(v != before for v in value):
        return None
    if literal_int_text(before):
        return None
    return name, f"as{len(value)}({before})"


def _super_init(call: cst.Call, env: Dict[str, Sym]) -> Optional[SuperCall]:
    """The symbolic arguments of ``super().__init__(...)`` / ``Base.__init__(self, ...)``."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "__init__":
        return None
    owner = func.value
    skip_self = not (isinstance(owner, cst.Call) and dotted_name(owner.func) == "super")
    positional: List[Sym] = []
    keywords: Dict[str, Sym] = {}
    for arg in call.args:
        if arg.star == "**":
            continue  # the caller's extra keywords: the built-in's defaults stand for them
        if arg.star == "*":
            return None
        if arg.keyword is not None:
            keywords[arg.keyword.value] = evaluate(arg.value, env)
        else:
            positional.append(evaluate(arg.value, env))
    if skip_self:
        if not positional:
            return None
        positional = positional[1:]
    return positional, keywords


class InitShapes:
    """What ``__init__`` declares: symbolic shapes of ``self.<attr> = self.params.get(..., shape=...)``
    and the arguments of its ``super().__init__`` call."""

    def __init__(self, init: cst.FunctionDef) -> None:
        self.params: Dict[str, SymShape] = {}
        self.super_call: Optional[SuperCall] = None
        env: Dict[str, Sym] = {}
        for param in param_names(init)[1:]:
            env[param.name.value] = param.name.value
        if isinstance(init.body, cst.IndentedBlock):
            self._run(init.body.body, env)

    def _run(self, body: Sequence[cst.CSTNode], env: Dict[str, Sym]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._simple(small, env)
            elif isinstance(stmt, cst.With):
                self._run(stmt.body.body, env)
            elif isinstance(stmt, cst.If) and _as_tuple_idiom(stmt, env) is not None:
                name, value = _as_tuple_idiom(stmt, env)
                env[name] = value
            else:  # a branch, loop or try: what it binds is unknown afterwards, and inside
                for name in _assigned_names(stmt):
                    env[name] = None
                self._declared_inside(stmt, env)

    def _simple(self, small: cst.BaseSmallStatement, env: Dict[str, Sym]) -> None:
        if isinstance(small, cst.Assign):
            value = small.value
            for target in small.targets:
                name = dotted_name(target.target)
                if name and name.startswith("self.") and name.count(".") == 1:
                    self._declare(name[5:], value, env)
            names: List[str] = []
            for target in small.targets:
                _names_in(target.target, names)
            single = len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            result = evaluate(value, env) if single else None
            for name in names:
                env[name] = result
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            for name in _assigned_names(small):
                env[name] = None
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = _super_init(small.value, env)
            if call is not None and self.super_call is None:
                self.super_call = call

    def _declare(self, attr: str, value: cst.BaseExpression, env: Dict[str, Sym]) -> None:
        if not isinstance(value, cst.Call) or not is_parameter_factory(dotted_name(value.func) or ""):
            return
        shape = evaluate(keyword_value(value, "shape"), env) if keyword_value(value, "shape") is not None else None
        if isinstance(shape, str):
            shape = (shape,) if literal_int_text(shape) else None
        if isinstance(shape, tuple):
            self.params[attr] = tuple(atom(dim) for dim in shape)

    def _declared_inside(self, stmt: cst.CSTNode, env: Dict[str, Sym]) -> None:
        def assign(node: cst.Assign) -> None:
            for target in node.targets:
                name = dotted_name(target.target)
                if name and name.startswith("self.") and name.count(".") == 1:
                    self._declare(name[5:], node.value, env)

        # nested functions left out (a visit returning False skips the children)
        walk_types(stmt, {cst.FunctionDef: lambda node: False, cst.Assign: assign}, {}, _DECLARED_SKIP)
