"""The rewrite of a straight-through ``mx.autograd.Function`` call into F operators (HY809's fix).

A Function whose ``forward(self, x)`` is one ``return f(x)`` and whose ``backward(self, dy)`` is
``return dy`` computes ``f(x)`` with the identity gradient. In the graph that is

    F.BlockGrad(f(x)) + (x - F.BlockGrad(x))

whose value is ``f(x) + 0`` (bit-identical for finite ``x``: ``x - x`` is exactly 0, and ``v + 0 == v``)
and whose gradient into ``x`` is exactly ``dy`` (the ``F.BlockGrad`` terms pass none). Measured on
MXNet 1.9.1 (tests/repairs/test_straight_through_mxnet.py): eager output bit-identical to the Function's,
hybridized equal to eager, gradients equal. For an infinite ``x`` the value is nan (``inf - inf``),
so the fix is unsafe.

``x.shape`` in ``f`` cannot be read from a Symbol; when the argument is a Parameter of the block (a
``hybrid_forward`` argument named like a parameter the class declares or inherits from a built-in
layer), its shape is the Parameter's: ``self.<name>.shape``, a Python tuple in both modes.

Used by HY809 (rules/autograd_function_in_hybrid.py) and HY810 (rules/traced_autograd_function.py); its
``NDARRAY_ONLY`` and ``ND_PREFIXES`` are read by rules/_autograd_function.py too. Rests on (MXNet 1.9.1):
mxnet-truth README, the row nd_detach (``F.BlockGrad`` hybridizes, the NDArray-only methods fail on a
Symbol); tests/repairs/test_straight_through_mxnet.py (outputs and Parameter gradients) and
fixtures/HY809 and HY809_2.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Set

import libcst as cst

from hylint.facts.attributes import NDARRAY_PYTHON_VALUES
from hylint.syntax.nodes import bound_names, dotted_name, param_names
from hylint.syntax.rewrite import f_call
from hylint.syntax.walk import walk


# attributes that a Symbol lacks, and NDArray namespaces: a Function's forward using them fails on a Symbol
# (read by rules/_autograd_function.py too)
NDARRAY_ONLY = NDARRAY_PYTHON_VALUES | {"asnumpy", "asscalar"}
ND_PREFIXES = ("mx.nd.", "mxnet.nd.", "nd.", "mx.ndarray.", "mxnet.ndarray.", "ndarray.")

FIX_TITLE = ("Inline a straight-through Function as `F.BlockGrad(forward(x)) + (x - F.BlockGrad(x))`; "
             "assumes x is finite (inf - inf is nan)")


@dataclass(frozen=True)
class StraightThrough:
    replacement: cst.BaseExpression
    parameter_shape: Optional[str]  # the argument whose shape came from `self.<name>.shape`, if any

    @property
    def title(self) -> str:
        """The fix's title: what it does and what it assumes."""
        return FIX_TITLE + (f"; `{self.parameter_shape}.shape` is read from the Parameter "
                            f"`self.{self.parameter_shape}`" if self.parameter_shape else "")


def function_method(cls: cst.ClassDef, functions: Dict[str, cst.ClassDef], name: str,
                    depth: int = 0) -> Optional[cst.FunctionDef]:
    """Method ``name`` of a Function class, or of the first of the module's Function classes it derives from."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    for base in cls.bases:
        base_name = dotted_name(base.value)
        if base_name in functions and depth < 10:
            return function_method(functions[base_name], functions, name, depth + 1)
    return None


def _only_return(fn: Optional[cst.FunctionDef]) -> Optional[cst.BaseExpression]:
    """``E`` of a method ``def m(self, p): ["doc"] return E`` (exactly one plain argument after self)."""
    if fn is None or fn.decorators or not isinstance(fn.body, cst.IndentedBlock):
        return None
    params = fn.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None or params.kwonly_params \
            or params.star_kwarg is not None or params.posonly_params or len(params.params) != 2 \
            or any(p.default is not None for p in params.params):
        return None
    body = list(fn.body.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 and \
            isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    ret = body[0].body[0]
    if not isinstance(ret, cst.Return) or ret.value is None:
        return None
    return ret.value


class _Names(cst.CSTVisitor):
    """The Name nodes of an expression (attribute names excluded), and the ``p.<attr>`` reads of one name."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.names: List[cst.Name] = []
        self.attributes: List[cst.Attribute] = []  # p.<attr>
        self.lambdas = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name) and node.value.value == self.name:
            self.attributes.append(node)
        walk(node.value, self)
        return False  # node.attr is an attribute name, not a variable

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.lambdas = True

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self)
        return False  # a keyword is no variable

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.lambdas = True  # a scope of its own: not inlined

    visit_GeneratorExp = visit_SetComp = visit_DictComp = visit_ListComp


def _names_used(fn: cst.FunctionDef) -> FrozenSet[str]:
    collect = _Names("")
    walk(fn, collect)
    return frozenset(n.value for n in collect.names)


def substitute(node: cst.CSTNode, replacements: Dict[int, cst.CSTNode]) -> cst.CSTNode:
    """``node`` with the nodes whose ``id`` is in ``replacements`` replaced (a read-only rebuild: only the
    changed path is copied)."""
    if id(node) in replacements:
        return replacements[id(node)]
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, cst.CSTNode):
            new = substitute(value, replacements)
            if new is not value:
                changes[field.name] = new
        elif isinstance(value, (list, tuple)) and any(isinstance(v, cst.CSTNode) for v in value):
            items = [substitute(v, replacements) if isinstance(v, cst.CSTNode) else v for v in value]
            if any(a is not b for a, b in zip(items, value)):
                changes[field.name] = type(value)(items)
    return node.with_changes(**changes) if changes else node


def straight_through(call: cst.Call, cls: str, functions: Dict[str, cst.ClassDef], ctx) -> Optional[StraightThrough]:
    """The rewrite of ``Cls()(arg)`` (a Function made on the spot, one Name argument), or None when its
    conditions are not all proven."""
    made = call.func
    if not isinstance(made, cst.Call) or made.args or len(call.args) != 1:
        return None
    arg = call.args[0]
    if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
        return None
    argument = arg.value.value
    forward = function_method(functions[cls], functions, "forward")
    backward = function_method(functions[cls], functions, "backward")
    body, gradient = _only_return(forward), _only_return(backward)
    if body is None or gradient is None or function_method(functions[cls], functions, "__init__") is not None:
        return None
    grad_name = backward.params.params[1].name.value
    if not (isinstance(gradient, cst.Name) and gradient.value == grad_name):
        return None  # not the identity gradient
    x = forward.params.params[1].name.value
    found = _Names(x)
    walk(body, found)
    if found.lambdas or re.search(r"(?<![\w.])(%s)" % "|".join(re.escape(p) for p in ND_PREFIXES),
                                  cst.Module([]).code_for_node(body)):
        return None  # a nested scope, or an NDArray namespace (`mx.nd.*`), which fails on a Symbol
    hybrid = ctx.function
    used_there: Set[str] = set(_names_used(hybrid)) if hybrid is not None else set()
    replacements: Dict[int, cst.CSTNode] = {}
    shape_from = None
    shape_reads: Set[int] = set()
    for attribute in found.attributes:
        if attribute.attr.value == "shape":
            shape_reads.add(id(attribute.value))
        if attribute.attr.value in NDARRAY_ONLY - {"shape"}:
            return None  # `x.size`, `x.context`, `x.asnumpy`, ...: what a Symbol lacks
        if attribute.attr.value != "shape":
            continue  # `x.sign()`: Symbol has it too
        if not _is_parameter(argument, ctx):
            return None
        shape_from = argument
        replacements[id(attribute)] = cst.Attribute(
            value=cst.Attribute(value=cst.Name("self"), attr=cst.Name(argument)), attr=cst.Name("shape"))
    for name in found.names:
        if name.value == x:
            if id(name) not in shape_reads:
                replacements[id(name)] = cst.Name(argument)
        elif name.value in used_there or name.value in ("self", ctx.f_name):
            return None  # a global of the Function's module that the hybrid function shadows or names
    forward_value = substitute(body, replacements)
    if isinstance(forward_value, (cst.BaseExpression,)) and getattr(forward_value, "lpar", None):
        forward_value = forward_value.with_changes(lpar=[], rpar=[])
    f = ctx.f_name
    ws = cst.SimpleWhitespace(" ")
    passthrough = cst.BinaryOperation(
        left=cst.Name(argument), operator=cst.Subtract(whitespace_before=ws, whitespace_after=ws),
        right=f_call(f, "BlockGrad", [cst.Name(argument)]), lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    replacement = cst.BinaryOperation(
        left=f_call(f, "BlockGrad", [forward_value]), operator=cst.Add(whitespace_before=ws, whitespace_after=ws),
        right=passthrough, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return StraightThrough(replacement, shape_from)


def _is_parameter(argument: str, ctx) -> bool:
    """``argument`` is a ``hybrid_forward`` argument that Gluon fills with the block's Parameter of that
    name (declared in ``__init__`` or by a built-in base layer), never reassigned in the function."""
    fn, cls = ctx.function, ctx.cls
    if fn is None or cls is None or fn.name.value != "hybrid_forward":
        return False
    if argument not in cls.params and argument not in cls.inherited_params:
        return False
    names = [p.name.value for p in param_names(fn)] + [p.name.value for p in fn.params.kwonly_params]
    if argument not in names[2:]:  # after self and F
        return False
    return argument not in bound_names(fn)
