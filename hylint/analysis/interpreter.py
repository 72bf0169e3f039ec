"""The interpreter: the value of every expression of one hybrid function.

Statements are walked once in source order (flow-light): later assignments replace earlier ones and
both branches of an ``if`` are walked. Operator calls are read from the table in ``ops``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from hylint.analysis import ops
from hylint.analysis.evidence import classify_params, declared_parameter
from hylint.analysis.layers import child_output
from hylint.analysis.guards import (GuardRegion, always_false, declared_opt_outs, ends_control_flow, false_locals,
                                    guard_mode, opt_out_test, python_container_test)
from hylint.analysis.module import ClassInfo, ModuleInfo, class_family, in_numpy_mode
from hylint.facts.attributes import NDARRAY_PYTHON_VALUES
from hylint.facts.names import in_nd_namespace
from hylint.syntax.nodes import dotted_name, literal_int, nested_literal_shape, param_names, parent_map, returns_tuple
from hylint.analysis.values import (NUMPY, PY, UNKNOWN, Kind, Shape, Value, is_proven_tensor, join, merge_shapes,
                                   tensor, why_not_proven)

NO_F = "__hylint_no_F__"  # the F name of a helper that does not take F (a name no code uses)


def _dict_of(values: List[Value]) -> Value:
    """A dict built in the function: a dict of tensors (like hybrid_forward's ``**kwargs``) when every value
    is a tensor and one at least a proven one (`{"x": x, "y": y}`, `dict(a=x, b=y)`, as a list of them is a
    list of tensors), else a Python value."""
    if values and all(v.kind is Kind.TENSOR for v in values) and any(v.certain for v in values):
        return Value(Kind.KWARGS, elements=tuple(values))
    return PY


def _detached(value: Value, caller_is_helper: bool) -> Value:
    """A value returned from a helper, as the caller sees it: a shape root the call passed in (``^x``,
    see ``_maybe_helper``) is the caller's ``x`` again, when the caller's own roots are plain names;
    any other root names the helper's locals and is dropped."""
    root = value.shape.root
    if root is not None:
        back = root[1:] if root.startswith("^") and not root.startswith("^^") and not caller_is_helper else None
        value = replace(value, shape=replace(value.shape, root=back))
    return replace(value, name=None, elements=tuple(_detached(e, caller_is_helper) for e in value.elements))


# Python built-ins that read a tensor's rows or length: an NDArray's, eagerly (a Symbol has neither)
GRAPH_LEAVING_BUILTINS = {"len", "list", "tuple", "enumerate", "zip"}
PY_BUILTINS = {"len", "int", "float", "bool", "str", "range", "isinstance", "hasattr", "getattr", "round",
               "tuple", "list", "dict", "set", "min", "max", "abs", "sum", "enumerate", "zip", "repr", "id"}


class HybridContext:
    """One function that runs with F = mxnet.sym after hybridize()."""

    def __init__(self, fn: cst.FunctionDef, f_name: str, cls: Optional[ClassInfo], module: ModuleInfo,
                 incoming: Dict[str, Value], is_helper: bool, f_aliases: FrozenSet[str] = frozenset(),
                 reach_chain: str = "", self_attrs: Tuple[FrozenSet[str], FrozenSet[str]] = (frozenset(), frozenset())
                 ) -> None:
        self.fn = fn
        self.f_name = f_name
        # for a function the package's trace reach found (analysis/reach.py): local names that take F by
        # assignment (`F = self.F`, `F = getF(x)`), and how the trace reaches it (shown in diagnostics)
        self.f_aliases = f_aliases
        self.reach_chain = reach_chain
        # for a method of a plain object the trace reaches: attributes of `self` that hold F, and tensors
        self.self_f_attrs, self.self_tensor_attrs = self_attrs
        self._f_attrs = frozenset(f"self.{attr}" for attr in self.self_f_attrs)  # `self.F is mx.nd` tests F too
        # `if self.hybridizable: return ...`: what follows is the eager-only path of a block built not to be
        # hybridized (guards.declared_opt_outs)
        self._opt_outs = declared_opt_outs(cls.methods.get("__init__")) if cls is not None else frozenset()
        # `DEBUG = False` and nothing else binds DEBUG: code under `if DEBUG:` never runs (read as eager-only)
        self._false_locals = false_locals(fn) if isinstance(fn, cst.FunctionDef) else frozenset()
        self.cls = cls
        self.module = module
        self.is_helper = is_helper
        self.values: Dict[cst.CSTNode, Value] = {}
        self.params: Dict[str, Value] = {}
        self.first_data_param: Optional[str] = None
        # statement blocks / statements that only ever run eagerly (or only hybridized)
        self.eager_only: Set[cst.CSTNode] = set()
        self.guards: List[GuardRegion] = []
        self.opted_out = False
        self.helper_calls: List[Tuple[cst.FunctionDef, Optional[ClassInfo], str, Dict[str, Value]]] = []
        self._env: Dict[str, Value] = {}
        self._parents: Optional[Dict[cst.CSTNode, cst.CSTNode]] = None
        # where the function leaves the graph on purpose (`.asnumpy()`, `len(x)`, a Python loop over
        # rows), in evaluation order: what follows is computed on NumPy/Python values and a cascade of
        # that one root cause (the engine reports only the root). An accidental `x.shape` is not one.
        self.graph_exits: List[cst.CSTNode] = []
        self.returns: List[Value] = []  # the value of every `return` reached hybridized
        self.callers: List[Tuple["HybridContext", cst.Call]] = []  # for helpers: the calls that reach them
        self.statement_order: Dict[cst.CSTNode, int] = {}
        self._eager_depth = 0
        self._bindings = 0
        self.params, self.first_data_param = classify_params(fn, f_name, cls, is_helper, incoming, bool(reach_chain))
        # MXNet's numpy mode (`@use_np`, `npx.set_np()`): the inputs are `mx.np` arrays, which slice and
        # broadcast like NumPy's hybridized too: not the legacy tensors the rules judge
        self.numpy_mode = module.numpy_mode or cls is not None and in_numpy_mode(cls)
        if self.numpy_mode:
            self.params = {name: UNKNOWN if value.kind not in (Kind.PY, Kind.F, Kind.BLOCK) else value
                           for name, value in self.params.items()}
            self.first_data_param = None
        self._env.update(self.params)
        self._env[f_name] = Value(Kind.F)
        self._env["self"] = Value(Kind.BLOCK)
        self._walk_block(fn.body)

    @property
    def takes_f(self) -> bool:
        """False for a helper called from a hybrid context with tensors but without F."""
        return self.f_name != NO_F

    @property
    def return_value(self) -> Value:
        """What the function returns hybridized: what all its returns agree on."""
        if not self.returns:
            return UNKNOWN
        value = self.returns[0]
        for other in self.returns[1:]:
            value = join(value, other)
        return value

    @property
    def parents(self) -> Dict[cst.CSTNode, cst.CSTNode]:
        """child -> parent for every node of the function (computed on first use)."""
        if self._parents is None:
            self._parents = parent_map(self.fn)
        return self._parents

    def f_bound_at(self, node: cst.CSTNode) -> bool:
        """Whether the name this function gives F (``f_name``) is bound at ``node``: a parameter, or a local
        bound by an earlier statement of the function's own body (`F = self.F`, `F = getF(x)`), so that a
        rewrite to `F.<op>` there names the namespace the function already uses."""
        if not self.takes_f:
            return False
        for param in param_names(self.fn):
            if param.name.value == self.f_name:  # (`F=None`, filled in later from `getF(x)`, may be None here)
                return not (isinstance(param.default, cst.Name) and param.default.value == "None")
        stmt = self.statement_of(node)
        if stmt is None or not isinstance(self.fn.body, cst.IndentedBlock):
            return False
        here = self.statement_order[stmt]
        top_level = set(self.fn.body.body)
        return any(order < here and other in top_level and isinstance(other, cst.SimpleStatementLine) and
                   any(isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and
                                                             t.target.value == self.f_name for t in small.targets)
                       for small in other.body)
                   for other, order in self.statement_order.items())

    # -- parameters ---------------------------------------------------------------------------
    # -- statements ---------------------------------------------------------------------------
    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost statement of this function holding ``node``."""
        while node is not None and node not in self.statement_order:
            node = self.parents.get(node)
        return node

    def _leaves_graph(self, node: cst.CSTNode, value: Value) -> None:
        if value.kind is Kind.TENSOR and value.certain and self._eager_depth == 0:
            self.graph_exits.append(node)

    def _walk_block(self, block: cst.BaseSuite, eager: bool = False) -> None:
        eager = eager or block in self.eager_only
        self._eager_depth += eager
        body = block.body if isinstance(block, cst.IndentedBlock) else [block]
        rest_eager = False
        for stmt in body:
            if rest_eager:
                self.eager_only.add(stmt)
            self.statement_order.setdefault(stmt, len(self.statement_order))
            self._eager_depth += rest_eager
            self._walk_stmt(stmt)
            self._eager_depth -= rest_eager
            if isinstance(stmt, cst.If):
                mode = self._guard_mode(stmt.test)
                ends = ends_control_flow(stmt.body)
                if mode == "sym" and ends == "raise" and stmt.orelse is None:
                    self.opted_out = True
                if mode == "sym" and ends in ("return", "raise") and stmt.orelse is None:
                    rest_eager = True
                if ends in ("return", "raise") and stmt.orelse is None and \
                        opt_out_test(stmt.test, self._opt_outs) is False:
                    rest_eager = True  # `if self.hybridizable: return out`
        self._eager_depth -= eager

    def _walk_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._walk_small(small)
        elif isinstance(stmt, cst.If):
            self.expr(stmt.test)
            mode = self._guard_mode(stmt.test)
            if mode is not None:
                self.guards.append(GuardRegion(stmt, mode))
                if mode == "nd":
                    self.eager_only.add(stmt.body)
                elif stmt.orelse is not None:
                    self.eager_only.add(stmt.orelse)
            declared = opt_out_test(stmt.test, self._opt_outs)
            if declared is True:
                self.eager_only.add(stmt.body)
            elif declared is False and isinstance(stmt.orelse, cst.Else):
                self.eager_only.add(stmt.orelse)
            if always_false(stmt.test, self._false_locals):
                self.eager_only.add(stmt.body)
            before = dict(self._env)
            narrowed = python_container_test(stmt.test)
            if narrowed is not None:  # `if isinstance(x, (list, tuple)):` x is no tensor in the body
                self._env[narrowed] = Value(Kind.SEQ, certain=False, name=narrowed)
            self._walk_block(stmt.body)
            after_body, self._env = self._env, dict(before)
            if stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    self.statement_order.setdefault(stmt.orelse, len(self.statement_order))
                    self._walk_stmt(stmt.orelse)
                else:
                    self._walk_block(stmt.orelse.body, eager=stmt.orelse in self.eager_only)
            # hybridized, a mode guard runs one branch only: `if F is nd: A else: B` leaves B's names
            if mode == "nd":
                pass  # the else branch's (or, without one, the names before the if)
            elif mode == "sym":
                self._env = after_body
            # a branch that ends in return/raise does not reach the code after the if
            elif ends_control_flow(stmt.body) is None:
                orelse = stmt.orelse
                if orelse is not None and not isinstance(orelse, cst.If) and ends_control_flow(orelse.body):
                    self._env = after_body
                else:
                    self._env = self._join_env(after_body, self._env)
        elif isinstance(stmt, (cst.For,)):
            iterated = self.expr(stmt.iter)
            self._leaves_graph(stmt.iter, iterated)  # a Python loop over rows
            self._bind(stmt.target, self._element_of(iterated, stmt.iter))
            self._walk_block(stmt.body)
            if stmt.orelse is not None:
                self._walk_block(stmt.orelse.body)
        elif isinstance(stmt, cst.While):
            self.expr(stmt.test)
            self._walk_block(stmt.body)
            if stmt.orelse is not None:
                self._walk_block(stmt.orelse.body)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self.expr(item.item)
                if item.asname is not None:
                    self._bind(item.asname.name, UNKNOWN)
            self._walk_block(stmt.body)
        elif isinstance(stmt, cst.Try):
            self._walk_block(stmt.body)
            for handler in stmt.handlers:
                if handler.name is not None:
                    self._bind(handler.name.name, PY)
                self._walk_block(handler.body)
            if stmt.orelse is not None:
                self._walk_block(stmt.orelse.body)
            if stmt.finalbody is not None:
                self._walk_block(stmt.finalbody.body)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(stmt, cst.FunctionDef):
                self._env[stmt.name.value] = UNKNOWN
        # other compound statements (match, async) are left unanalysed

    @staticmethod
    def _join_env(a: Dict[str, Value], b: Dict[str, Value]) -> Dict[str, Value]:
        """Names after two branches: a name bound in one branch only keeps that branch's value."""
        joined = dict(b)
        for name, value in a.items():
            joined[name] = join(value, b[name]) if name in b else value
        return joined

    def _walk_small(self, small: cst.CSTNode) -> None:
        if isinstance(small, cst.Assign):
            value = self.expr(small.value)
            for target in small.targets:
                self._bind(target.target, value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._bind(small.target, self.expr(small.value))
        elif isinstance(small, cst.AugAssign):
            current = self.expr(small.target)
            other = self.expr(small.value)
            if isinstance(small.target, cst.Name):
                result = self._binary_value(current, other, small.operator)
                self._env[small.target.value] = replace(result, name=small.target.value)
        elif isinstance(small, cst.Expr):
            self.expr(small.value)
        elif isinstance(small, cst.Return):
            value = self.expr(small.value) if small.value is not None else PY
            if self._eager_depth == 0:
                self.returns.append(value)
        elif isinstance(small, (cst.Assert,)):
            self.expr(small.test)
            if small.msg is not None:
                self.expr(small.msg)
        elif isinstance(small, cst.Raise):
            if small.exc is not None:
                self.expr(small.exc)
        elif isinstance(small, cst.Del):
            pass

    def _bind(self, target: cst.CSTNode, value: Value) -> None:
        if isinstance(target, cst.Name):
            if target.value in self.f_aliases and value.kind is not Kind.TENSOR:
                value = Value(Kind.F)  # `F = self.F`: the reach found F stored on the object
            if value.kind is Kind.TENSOR and value.shape.root is None:
                # a new tensor of unknown shape: a root of its own (not the name's: `x = self.conv(x)`
                # has not the shape of the argument `x`, nor of an earlier binding of `x`)
                self._bindings += 1
                value = replace(value, shape=replace(value.shape, root=f"{target.value}#{self._bindings}"))
            self._env[target.value] = replace(value, name=target.value)
            self.values[target] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [e for e in target.elements]
            for index, element in enumerate(elements):
                inner = element.value
                if isinstance(element, cst.StarredElement):
                    self._bind(inner, Value(Kind.SEQ) if value.kind in (Kind.MULTI, Kind.SEQ) else UNKNOWN)
                    continue
                self._bind(inner, self._unpack(value, index))
        else:
            # attribute or subscript targets: evaluate sub-expressions so rules see their values
            self.expr(target)

    def _unpack(self, value: Value, index: int) -> Value:
        if value.kind is Kind.KWARGS:
            return PY  # `a, b = d` unpacks a dict's keys
        if value.elements and index < len(value.elements):
            return value.elements[index]
        if value.kind is Kind.MULTI:
            return tensor()
        if value.kind is Kind.SEQ:  # `a, b = states`: the parts may be tensors or lists (nested states)
            return tensor(certain=False, assumed=True)
        if value.kind is Kind.CHILD:
            return Value(Kind.CHILD, certain=False)
        if value.kind is Kind.TENSOR:
            return tensor()  # unpacking rows of a tensor (itself a hazard, reported elsewhere)
        if value.kind in (Kind.PY, Kind.NUMPY):
            return PY
        return UNKNOWN

    def _element_of(self, value: Value, node: cst.BaseExpression) -> Value:
        if isinstance(node, cst.Call):
            callee = dotted_name(node.func)
            if callee == "enumerate" and node.args:
                inner = self.values.get(node.args[0].value, UNKNOWN)
                return Value(Kind.PY, elements=(PY, self._element_of(inner, node.args[0].value)))
            if callee == "zip":
                return Value(Kind.PY, elements=tuple(
                    self._element_of(self.values.get(a.value, UNKNOWN), a.value) for a in node.args))
            if callee == "range":
                return PY
            if isinstance(node.func, cst.Attribute) and not node.args and \
                    self.values.get(node.func.value, UNKNOWN).kind is Kind.KWARGS:
                # `d.items()` / `d.values()` of a dict of tensors: its values are tensors
                method = node.func.attr.value
                if method == "items":
                    return Value(Kind.PY, elements=(PY, tensor()))
                if method == "values":
                    return tensor()
                return PY
        if value.kind is Kind.SEQ:  # the elements of a list of uncertain kind may be lists themselves
            return tensor(certain=value.certain, assumed=not value.certain)
        if value.kind in (Kind.MULTI, Kind.TENSOR):
            return tensor()
        if value.kind is Kind.PY:
            if value.elements:
                kinds = {e.kind for e in value.elements}
                if kinds == {Kind.TENSOR}:
                    return tensor()
            return PY
        if value.kind is Kind.BLOCK:
            return Value(Kind.BLOCK)
        return UNKNOWN

    # -- expressions --------------------------------------------------------------------------
    def value(self, node: cst.CSTNode) -> Value:
        """The value of an expression of this function (UNKNOWN if it was not analysed)."""
        return self.values.get(node, UNKNOWN)

    def expr(self, node: cst.BaseExpression) -> Value:
        value = self._expr(node)
        self.values[node] = value
        return value

    def _expr(self, node: cst.BaseExpression) -> Value:
        # `kind is`: libcst's node classes are ABCs, whose isinstance() runs Python code for every class
        # that does not match, and these node classes have no subclasses
        kind = type(node)
        if kind is cst.Name:
            if node.value in ("None", "True", "False"):
                return PY
            return self._env.get(node.value, UNKNOWN)
        if kind in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                    cst.FormattedString):
            if kind is cst.FormattedString:
                for part in node.parts:
                    if isinstance(part, cst.FormattedStringExpression):
                        self.expr(part.expression)
            return PY
        if kind in (cst.Tuple, cst.List, cst.Set):
            elements = tuple(self.expr(e.value) for e in node.elements)
            if elements and any(e.kind in (Kind.TENSOR, Kind.CHILD) for e in elements):
                return Value(Kind.SEQ, elements=elements)
            return Value(Kind.PY, elements=elements)
        if kind is cst.Dict:
            values = []
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self.expr(element.key)
                    values.append(self.expr(element.value))
                else:
                    self.expr(element.value)
                    values.append(UNKNOWN)  # `**other`: what it holds is not known
            return _dict_of(values)
        if kind in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            self._comprehension(node.for_in)
            element = self.expr(node.elt)
            return Value(Kind.SEQ) if element.kind in (Kind.TENSOR, Kind.CHILD) else PY
        if kind is cst.DictComp:
            self._comprehension(node.for_in)
            self.expr(node.key)
            return _dict_of([self.expr(node.value)])
        if kind is cst.BinaryOperation:
            left = self.expr(node.left)
            right = self.expr(node.right)
            return self._binary_value(left, right, node.operator)
        if kind is cst.UnaryOperation:
            inner = self.expr(node.expression)
            if isinstance(node.operator, cst.Not):
                return PY
            return inner if inner.kind in (Kind.TENSOR, Kind.PY, Kind.NUMPY) else UNKNOWN
        if kind is cst.BooleanOperation:
            left = self.expr(node.left)
            # `F is nd and x.sum() > 0` (or `F is sym or ...`): the right side is evaluated only eagerly
            mode = self._guard_mode(node.left)
            eager_right = mode == ("nd" if isinstance(node.operator, cst.And) else "sym")
            if eager_right:
                self.eager_only.add(node.right)
            self._eager_depth += eager_right
            right = self.expr(node.right)
            self._eager_depth -= eager_right
            return right if left.kind is right.kind else UNKNOWN
        if kind is cst.Comparison:
            left = self.expr(node.left)
            result = PY
            for comparison in node.comparisons:
                right = self.expr(comparison.comparator)
                if isinstance(comparison.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    continue
                if left.kind is Kind.TENSOR or right.kind is Kind.TENSOR:
                    result = self._binary_value(left, right, comparison.operator)
                left = right
            return result
        if kind is cst.IfExp:
            self.expr(node.test)
            mode = self._guard_mode(node.test)  # `a if F is nd else b`: one side runs eagerly only
            eager_side = node.body if mode == "nd" else node.orelse if mode == "sym" else None
            declared = opt_out_test(node.test, self._opt_outs)
            if eager_side is None and declared is not None:  # `size if self.size is not None else x.shape[2]`
                eager_side = node.body if declared else node.orelse
            if eager_side is not None:
                self.eager_only.add(eager_side)
            sides = {}
            for side in (node.body, node.orelse):
                self._eager_depth += side is eager_side
                sides[side] = self.expr(side)
                self._eager_depth -= side is eager_side
            body, orelse = sides[node.body], sides[node.orelse]
            if eager_side is not None:
                return orelse if eager_side is node.body else body  # the side that is traced
            return body if body.kind is orelse.kind else UNKNOWN
        if kind is cst.Attribute:
            return self._attribute(node)
        if kind is cst.Subscript:
            return self._subscript(node)
        if kind is cst.Call:
            return self._call(node)
        if kind is cst.Lambda:
            saved = dict(self._env)
            for param in node.params.params:
                self._env[param.name.value] = UNKNOWN
            self.expr(node.body)
            self._env = {**saved}
            return UNKNOWN
        if kind is cst.NamedExpr:
            value = self.expr(node.value)
            self._bind(node.target, value)
            return value
        if kind is cst.StarredElement:
            return self.expr(node.value)
        if kind in (cst.Yield, cst.Await):
            if getattr(node, "value", None) is not None and isinstance(node.value, cst.BaseExpression):
                self.expr(node.value)
            return UNKNOWN
        return UNKNOWN

    def _comprehension(self, for_in: cst.CompFor) -> None:
        iterated = self.expr(for_in.iter)
        self._leaves_graph(for_in.iter, iterated)
        self._bind(for_in.target, self._element_of(iterated, for_in.iter))
        for condition in for_in.ifs:
            self.expr(condition.test)
        if for_in.inner_for_in is not None:
            self._comprehension(for_in.inner_for_in)

    def _binary_value(self, left: Value, right: Value, operator: cst.CSTNode) -> Value:
        if isinstance(operator, cst.MatrixMultiply):
            return UNKNOWN
        tensors = [v for v in (left, right) if v.kind is Kind.TENSOR]
        if tensors:
            # an NDArray operand makes the result an NDArray; when no operand is proven one, the result
            # may be what Python makes of two numbers or of a list (`2 * parts`)
            unproven = "" if any(is_proven_tensor(v) for v in tensors) else why_not_proven(tensors[0])
            if len(tensors) == 2:
                return tensor(merge_shapes(left.shape, right.shape), certain=left.certain or right.certain,
                              unproven=unproven)
            only = tensors[0]
            other = right if only is left else left
            if other.kind in (Kind.PY, Kind.NUMPY, Kind.UNKNOWN, Kind.CHILD):
                return tensor(replace(only.shape, why=only.shape.why), certain=only.certain, unproven=unproven)
            return tensor(certain=only.certain, unproven=unproven)
        if Kind.CHILD in (left.kind, right.kind):
            return Value(Kind.CHILD, certain=False)
        if left.kind is Kind.PY and right.kind is Kind.PY:
            if isinstance(operator, cst.Add) and (left.elements or right.elements):
                return Value(Kind.PY, elements=left.elements + right.elements)
            return PY
        if Kind.NUMPY in (left.kind, right.kind) and {left.kind, right.kind} <= {Kind.NUMPY, Kind.PY}:
            return NUMPY
        if Kind.SEQ in (left.kind, right.kind):
            return Value(Kind.SEQ)
        return UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        base = self.expr(node.value)
        attr = node.attr.value
        if base.kind is Kind.TENSOR:
            if attr in ("T",):
                return tensor(certain=base.certain)
            if attr == "grad":
                return tensor(certain=base.certain)
            return PY  # shape, dtype, ... are Python values eagerly
        if base.kind is Kind.BLOCK:
            if (self.self_f_attrs or self.self_tensor_attrs) and isinstance(node.value, cst.Name) and \
                    node.value.value == "self":
                if attr in self.self_f_attrs:
                    return Value(Kind.F)
                if attr in self.self_tensor_attrs:
                    return tensor(Shape(root=f"self.{attr}"), unproven=(
                        f"`self.{attr}` holds a tensor on the path the trace takes; the object may hold a "
                        f"Python number on others"))
            if self.cls is not None and attr in self.cls.params:
                return Value(Kind.PARAM_OBJ)
            if self.cls is not None and attr in self.cls.children:
                return Value(Kind.BLOCK)
            if self.cls is not None and attr in self.cls.methods:
                return UNKNOWN
            return PY  # self.<config>
        if base.kind is Kind.PARAM_OBJ:
            return PY  # Parameter.shape, .dtype, .name are Python values
        if base.kind is Kind.F:
            return Value(Kind.F)  # F.contrib, F.random, F.linalg
        if base.kind in (Kind.PY, Kind.NUMPY):
            return PY
        return UNKNOWN

    def _subscript(self, node: cst.Subscript) -> Value:
        base = self.expr(node.value)
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index):
                self.expr(index.value)
            elif isinstance(index, cst.Slice):
                for part in (index.lower, index.upper, index.step):
                    if part is not None:
                        self.expr(part)
        single_int = len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and \
            literal_int(node.slice[0].slice.value) is not None
        if base.kind is Kind.TENSOR:
            integers = sum(isinstance(e.slice, cst.Index) and literal_int(e.slice.value) is not None
                           for e in node.slice)
            whole = all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None and
                        e.slice.step is None for e in node.slice)
            source = base.shape.root or base.name or ("the indexed constant" if base.shape.static else "the indexed tensor")
            if not whole:  # x[0], x[::2]: fewer axes or fewer rows than x
                rank = base.shape.rank - integers if base.shape.rank is not None else None
                return tensor(Shape(rank=rank, indexed_from=source,
                                    why=f"indexed out of `{source}`: its shape can differ from `{source}`'s"),
                              certain=base.certain, assumed=base.assumed)
            return tensor(certain=base.certain, assumed=base.assumed)
        if base.kind is Kind.MULTI:
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return Value(Kind.MULTI)
            if single_int and base.elements:
                position = literal_int(node.slice[0].slice.value)
                if -len(base.elements) <= position < len(base.elements):
                    return base.elements[position]
            return tensor()
        if base.kind is Kind.SEQ:
            if single_int and base.elements:
                position = literal_int(node.slice[0].slice.value)
                if -len(base.elements) <= position < len(base.elements):
                    return base.elements[position]
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return Value(Kind.SEQ)
            return tensor(certain=False, assumed=True)
        if base.kind is Kind.KWARGS and base.elements:
            return tensor()  # `inputs["x"]` of a dict of tensors built here
        if base.kind is Kind.KWARGS:
            return self._keyword_parameter(node.slice[0].slice.value if len(node.slice) == 1 and
                                           isinstance(node.slice[0].slice, cst.Index) else None)
        if base.kind is Kind.CHILD:
            return Value(Kind.CHILD, certain=False)
        if base.kind in (Kind.PY,):
            if single_int and base.elements:
                position = literal_int(node.slice[0].slice.value)
                if -len(base.elements) <= position < len(base.elements):
                    return base.elements[position]
            return PY
        if base.kind is Kind.NUMPY:
            return NUMPY if not single_int else PY
        if base.kind is Kind.BLOCK:
            return Value(Kind.BLOCK)
        return UNKNOWN

    def _keyword_parameter(self, key: Optional[cst.BaseExpression]) -> Value:
        """``kwargs["weight"]`` (or ``kwargs.get("weight")``) of hybrid_forward's ``**kwargs``: the
        class's Parameter of that name, with its declared shape, else a tensor of unknown shape."""
        name = key.evaluated_value if isinstance(key, cst.SimpleString) else None
        if self.cls is not None and not self.is_helper and isinstance(name, str) and \
                (name in self.cls.params or name in self.cls.inherited_params):
            return declared_parameter(self.cls, name)
        return tensor()

    def _call(self, node: cst.Call) -> Value:
        func_value = self.expr(node.func) if not isinstance(node.func, cst.Name) else None
        arg_values = [self.expr(arg.value) for arg in node.args]
        callee = dotted_name(node.func) or ""
        last = callee.rsplit(".", 1)[-1]
        # F.<op>(...)
        if callee.startswith(self.f_name + ".") and func_value is not None and func_value.kind is Kind.F:
            op = callee[len(self.f_name) + 1:]
            if op.split(".", 1)[0] in ("np", "npx"):
                return UNKNOWN  # a numpy-mode array (`F.np.split(x, 1)` is even a list): not a legacy tensor
            literal = _array_literal_shape(node, callee) if op == "array" else None
            if literal is not None:
                return tensor(literal)  # `F.array([0.])`: (1,), as `nd.array([0.])`
            return ops.evaluate(ops.OpCall(op.rsplit(".", 1)[-1], callee, node, False, tuple(arg_values)))
        root = callee.split(".", 1)[0]
        if in_nd_namespace(callee):
            # nd.op(...) / mx.nd.op(...): an NDArray made outside the graph
            if not self.takes_f:
                # a helper without F written against mx.nd: it fails at its first nd call on a Symbol, and
                # with no F to rewrite to, that call is the one thing to act on (the rest follows from it)
                operand = next((v for v in arg_values if v.kind is Kind.TENSOR and v.certain), None)
                if operand is not None:
                    self._leaves_graph(node, operand)
            several = ops.evaluate(ops.OpCall(last, callee, node, False, tuple(arg_values)))
            if several.kind is not Kind.TENSOR:
                return several  # `nd.split(x, num_outputs=2)`: a list of NDArrays, as `F.split`'s outputs
            shape = (_array_literal_shape(node, callee) if last == "array" else None) or Shape(static=True)
            if last != "array" and last in ops.CREATION_OPS:
                shape = ops.creation(ops.OpCall(last, callee, node, False, tuple(arg_values)))
            return tensor(shape)
        if root in ("np", "numpy", "onp"):
            if last in ops.NUMPY_SCALAR_TYPES:
                return PY
            if any(v.kind is Kind.TENSOR for v in arg_values):
                return UNKNOWN
            return NUMPY
        called = self._env.get(node.func.value) if isinstance(node.func, cst.Name) else func_value
        if called is not None and called.kind is Kind.BLOCK and not callee.startswith("self."):
            # a block reached through a name or an index (`for blk in self.blocks: x = blk(x)`,
            # `self.blocks[0](x)`): its output, like a child's
            return Value(Kind.CHILD, certain=False)
        if isinstance(node.func, cst.Name):
            name = node.func.value
            if name in PY_BUILTINS:
                if name in GRAPH_LEAVING_BUILTINS:
                    rows = next((v for v in arg_values if v.kind is Kind.TENSOR and v.certain), None)
                    if rows is not None:
                        self._leaves_graph(node, rows)
                if name in ("min", "max", "abs", "sum") and any(v.kind is Kind.TENSOR for v in arg_values):
                    return tensor(certain=False)
                if name in ("list", "tuple") and arg_values and arg_values[0].kind in (Kind.SEQ, Kind.MULTI):
                    return Value(Kind.SEQ)
                if name == "dict" and node.args and all(arg.keyword is not None for arg in node.args):
                    return _dict_of(arg_values)  # `dict(a=x, b=y)`
                return PY
            helper = self.module.functions.get(name)
            if helper is not None:
                return self._maybe_helper(helper, None, node, arg_values)
            return UNKNOWN
        if isinstance(node.func, cst.Attribute):
            base = self.values.get(node.func.value, UNKNOWN)
            method = node.func.attr.value
            if callee.startswith("self.") and callee.count(".") == 1:
                if self.cls is not None and method in self.cls.methods:
                    return self._maybe_helper(self.cls.methods[method], self.cls, node, arg_values)
                return self._child_call(node)
            if base.kind is Kind.TENSOR and method in NDARRAY_PYTHON_VALUES:
                return UNKNOWN  # `x.size()` is PyTorch's: an NDArray's size is an int, and calling it fails eagerly
            if base.kind is Kind.TENSOR:
                value = ops.evaluate(ops.OpCall(method, f".{method}", node, True, (base,) + tuple(arg_values)))
                if ops.lookup(method).ndarray_only and value.kind is not Kind.TENSOR:
                    self._leaves_graph(node, base)  # .asnumpy(), .asscalar(), ...
                return value
            if base.kind is Kind.BLOCK:
                if dotted_name(node.func.value) == "self" and self.cls is not None and method in self.cls.methods:
                    return self._maybe_helper(self.cls.methods[method], self.cls, node, arg_values)
                return self._child_call(node)
            if base.kind is Kind.KWARGS and method == "get" and node.args:
                return self._keyword_parameter(node.args[0].value)
            if base.kind is Kind.PARAM_OBJ:
                return Value(Kind.UNKNOWN)  # self.weight.data(): an NDArray outside the graph
            if base.kind in (Kind.PY,):
                return PY
            if base.kind is Kind.NUMPY:
                return NUMPY
        return UNKNOWN

    def _child_call(self, node: cst.Call) -> Value:
        if self.numpy_mode:
            return UNKNOWN  # a child in numpy mode returns `mx.np` arrays
        name = dotted_name(node.func) or ""
        attr = name[5:] if name.startswith("self.") and name.count(".") == 1 else None
        if attr is None or self.cls is None:
            return Value(Kind.CHILD, certain=False)
        # the class that makes the child: this one, else a base of this module (`self.loading` made in the
        # base's __init__ and called in an inherited method)
        owner = next((cls for cls in class_family(self.cls, self.module.classes) if attr in cls.children), None)
        if owner is None:
            return Value(Kind.CHILD, certain=False)
        constructor = owner.children[attr]
        short = constructor.rsplit(".", 1)[-1]
        added = owner.last_added.get(attr)
        added_cls = self.module.classes.get(added.rsplit(".", 1)[-1]) if added else None
        if added_cls is not None and added_cls.hybrid_forward is not None and short.endswith("Sequential"):
            # a Sequential returns what its last block returns: a tuple of outputs is a Python tuple
            returned = self._returned_by_child(added_cls)
            if returned.kind in (Kind.SEQ, Kind.MULTI) or returns_tuple(added_cls.hybrid_forward):
                return Value(Kind.SEQ)
        built_in = child_output(short, owner.child_calls.get(attr), node, attr)
        if built_in is not None:
            return built_in
        child_cls = self.module.classes.get(short)
        if child_cls is not None and child_cls.hybrid_forward is not None:
            returned = self._returned_by_child(child_cls)
            if returned.kind in (Kind.TENSOR, Kind.SEQ, Kind.MULTI) or returned.elements:
                return _detached(returned, caller_is_helper=True)
            if returned.kind is Kind.PY or returns_tuple(child_cls.hybrid_forward):
                # a Python list of outputs (`outs.append(block(x))`, then `return outs`)
                return Value(Kind.SEQ)
            return tensor(certain=False)
        return Value(Kind.CHILD, certain=False)

    def _returned_by_child(self, child_cls: ClassInfo) -> Value:
        """What the hybrid_forward of a block class of this module returns (analysed on first use)."""
        fn = child_cls.hybrid_forward
        context = self.module.contexts.get(fn)
        params = param_names(fn)
        if context is None and fn not in self.module.in_progress and len(params) >= 2:
            self.module.in_progress.add(fn)
            context = HybridContext(fn, params[1].name.value, child_cls, self.module, {}, False)
            self.module.contexts[fn] = context
            self.module.in_progress.discard(fn)
        return context.return_value if context is not None else UNKNOWN

    def _guard_mode(self, test: cst.BaseExpression) -> Optional[str]:
        """The mode ``test`` tests (analysis/guards.py ``guard_mode``), with what the module knows of F's names."""
        return guard_mode(test, self.f_name, self.module.guards, self._f_attrs, self.module.mxnet_aliases)

    def _passes_f(self, arg: cst.Arg, value: Value) -> bool:
        """The argument is F: this function's F name, or an attribute of self that holds it (``self.F``
        of an object built in the trace, which the reach says holds F)."""
        if isinstance(arg.value, cst.Name):
            return arg.value.value == self.f_name
        return isinstance(arg.value, cst.Attribute) and value.kind is Kind.F

    def _maybe_helper(self, helper: cst.FunctionDef, cls: Optional[ClassInfo], node: cst.Call,
                      arg_values: List[Value]) -> Value:
        """Record a call that passes F (or a tensor) to a function of this module (or a method of the class).

        The helper becomes a hybrid context whose parameters hold what the call passes (tensor
        shapes keep their evidence; roots are renamed so they cannot meet the helper's own names).
        Returns the call's value: a possible tensor, or a sequence when the helper returns a tuple.
        """
        if helper.name.value.startswith("__") and helper.name.value.endswith("__"):
            return UNKNOWN  # `self.__call__(...)`: a protocol method, not a helper of the trace
        if self._eager_depth:
            return UNKNOWN  # `if F is nd: helper(F, x)`: the call runs eagerly only, never in a trace
        params = param_names(helper)
        offset = 1 if cls is not None and params and params[0].name.value in ("self", "cls") else 0
        f_param = None
        mapped: Dict[str, Value] = {}
        positional = [(a, v) for a, v in zip(node.args, arg_values) if a.keyword is None and not a.star]
        for index, (arg, value) in enumerate(positional):
            if offset + index >= len(params):
                break
            pname = params[offset + index].name.value
            if self._passes_f(arg, value):
                f_param = pname
            else:
                mapped[pname] = value
        for arg, value in zip(node.args, arg_values):
            if arg.keyword is not None:
                if self._passes_f(arg, value):
                    f_param = arg.keyword.value
                else:
                    mapped[arg.keyword.value] = value
        if f_param is None:
            if not any(v.kind is Kind.TENSOR and v.certain for v in mapped.values()):
                return UNKNOWN
            f_param = NO_F  # a helper without F, called with a tensor: traced all the same
        for pname, value in list(mapped.items()):
            if value.kind is Kind.TENSOR and value.shape.root is not None:
                mapped[pname] = replace(value, shape=replace(value.shape, root="^" + value.shape.root.lstrip("^")))
        self.helper_calls.append((helper, cls, f_param, mapped))
        context = self.module.contexts.get(helper)
        if context is None and helper not in self.module.in_progress:
            self.module.in_progress.add(helper)
            context = HybridContext(helper, f_param, cls, self.module, mapped, True)
            self.module.contexts[helper] = context
            self.module.in_progress.discard(helper)
        if context is not None:
            context.callers.append((self, node))
        result = _detached(context.return_value, self.is_helper) if context is not None else UNKNOWN
        if result.kind is not Kind.UNKNOWN or result.mixed:
            return result  # a tensor, a tuple of them, a Python value (`tuple(s * 2 for s in ...)`), or either
        if returns_tuple(helper):
            return Value(Kind.SEQ)
        return tensor(certain=False)


def _array_literal_shape(node: cst.Call, callee: str) -> Optional[Shape]:
    """``nd.array([[1, 2]])``, ``F.array([0.])``: the shape of the nested literal the tensor is made from."""
    first = node.args[0] if node.args else None
    dims = nested_literal_shape(first.value) if first is not None and first.keyword is None else None
    if dims is None:
        return None
    return Shape(rank=len(dims), dims=dims, unit_axis=1 in dims, static=True, why=f"`{callee}` literal of shape {dims}")
