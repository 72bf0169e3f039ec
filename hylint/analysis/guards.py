"""Mode guards: regions of a hybrid function that run only eagerly (``if F is nd:``) or only
hybridized, functions that opt out of hybridization (``if F is sym: raise``), and the paths a block's
constructor switch declares eager-only (``if self.hybridizable: return y``)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import AbstractSet, Dict, FrozenSet, Mapping, Optional, Tuple

import libcst as cst

from hylint.facts.names import (HYBRIDIZABLE_FLAG, ND_MODULE_NAME, ND_NAMES, ND_TYPES, SYM_MODULE_NAME, SYM_NAMES,  # noqa: F401
                                SYM_TYPES, namespace_mode, negated_mode)  # (ND_NAMES read through here)
from hylint.syntax.nodes import dotted_name, target_names
from hylint.syntax.walk import walk


def guard_mode(test: cst.BaseExpression, f_name: str, helpers: Mapping[str, str] = MappingProxyType({}),
               f_attrs: AbstractSet[str] = frozenset(),
               aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[str]:
    """'nd' when ``test`` is true only eagerly, 'sym' when only hybridized, else None. ``helpers``: the names
    of the package's guard functions the module sees, with the mode each tests of its argument
    (``mxnet_is_ndarray(F)``, analysis/reach/package.py). ``f_attrs``: attributes that hold F as well
    (``self.F`` of an object built in the trace: ``self.F is mx.nd``). ``aliases``: the module's names for
    mxnet (``import mxnet as _mx``: ``F == _mx.sym``; syntax/imports.py ``mxnet_aliases``). An ``and`` with
    an eager-only operand is true only eagerly (``x is not None and F is nd``); its negation is no test of the
    mode, so it is never 'sym'."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        modes = {guard_mode(test.left, f_name, helpers, f_attrs, aliases),
                 guard_mode(test.right, f_name, helpers, f_attrs, aliases)}
        return "nd" if "nd" in modes and "sym" not in modes else None
    return _exact_mode(test, f_name, helpers, f_attrs, aliases)


def _exact_mode(test: cst.BaseExpression, f_name: str, helpers: Mapping[str, str],
                f_attrs: AbstractSet[str] = frozenset(),
                aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[str]:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _exact_mode(test.expression, f_name, helpers, f_attrs, aliases)
        return {"nd": "sym", "sym": "nd"}.get(inner or "")
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left = dotted_name(test.left)
        comparison = test.comparisons[0]
        right = dotted_name(comparison.comparator)
        holders = {f_name} | set(f_attrs)
        if left not in holders and right in holders:
            left, right = right, left
        if left in holders and right is not None:
            mode = namespace_mode(right, aliases)
            if mode is None:
                return None
            if isinstance(comparison.operator, (cst.IsNot, cst.NotEqual)):
                return negated_mode(right, aliases)
            if isinstance(comparison.operator, (cst.Is, cst.Equal)):
                return mode
        return _module_name_mode(test, f_name)
    if isinstance(test, cst.Call) and helpers and len(test.args) == 1 and test.args[0].keyword is None \
            and dotted_name(test.args[0].value) == f_name:
        return helpers.get(dotted_name(test.func) or "")
    if isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2:
        type_names = []
        type_node = test.args[1].value
        nodes = [e.value for e in type_node.elements] if isinstance(type_node, cst.Tuple) else [type_node]
        for node in nodes:
            name = dotted_name(node)
            if name:
                type_names.append(name.rsplit(".", 1)[-1])
        if type_names and all(t in ND_TYPES for t in type_names):
            return "nd"
        if type_names and all(t in SYM_TYPES for t in type_names):
            return "sym"
    return None


def _module_name_mode(test: cst.Comparison, f_name: str) -> Optional[str]:
    """`F.__name__ == 'mxnet.ndarray'` (or `!=`, or 'mxnet.symbol', either side)."""
    comparison = test.comparisons[0]
    sides = [test.left, comparison.comparator]
    for holder, other in (sides, sides[::-1]):
        if dotted_name(holder) == f"{f_name}.__name__" and isinstance(other, cst.SimpleString):
            value = other.evaluated_value
            mode = "nd" if value == ND_MODULE_NAME else "sym" if value == SYM_MODULE_NAME else None
            if mode is not None and isinstance(comparison.operator, (cst.Equal, cst.Is)):
                return mode
            if mode is not None and isinstance(comparison.operator, (cst.NotEqual, cst.IsNot)):
                return {"nd": "sym", "sym": "nd"}[mode]
    return None


def ends_control_flow(block: cst.BaseSuite) -> Optional[str]:
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if not body:
        return None
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        last = last.body[-1]
    if isinstance(last, cst.Raise):
        return "raise"
    if isinstance(last, cst.Return):
        return "return"
    return None



# `if self.hybridizable: return pts, confs`, then eager-only post-processing
HYBRIDIZABLE = re.compile(HYBRIDIZABLE_FLAG)


def declared_opt_outs(init: Optional[cst.FunctionDef]) -> FrozenSet[Tuple[str, str]]:
    """The tests of self that ``__init__`` declares true only for a block not to be hybridized:
    ``("not", "hybridizable")`` for a switch named like ``hybridizable`` kept on self; with ``self.use_nms =
    use_nms`` and ``assert (use_nms or not hybridizable)``, ``("not", "use_nms")``; with ``assert (size is
    not None) or not hybridizable``, ``("is None", "size")``. The code under such a test is the author's
    eager-only path: a block built so is not meant to be hybridized (gluoncv2 superpointnet)."""
    if init is None:
        return frozenset()
    stored: Dict[str, str] = {}  # parameter -> the attribute of self keeping it
    flags = set()
    for stmt in _simple_statements(init.body):
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
            target = dotted_name(stmt.targets[0].target) or ""
            if target.startswith("self.") and target.count(".") == 1:
                attr = target[5:]
                if isinstance(stmt.value, cst.Name):
                    stored[stmt.value.value] = attr
                if HYBRIDIZABLE.fullmatch(attr):
                    flags.add(attr)
    declared = {("not", attr) for attr in flags}
    for stmt in _simple_statements(init.body):
        test = stmt.test if isinstance(stmt, cst.Assert) else None
        if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or)):
            continue
        for this, other in ((test.left, test.right), (test.right, test.left)):
            if not (isinstance(other, cst.UnaryOperation) and isinstance(other.operator, cst.Not) and
                    isinstance(other.expression, cst.Name) and stored.get(other.expression.value) in flags):
                continue
            if isinstance(this, cst.Name) and this.value in stored:
                declared.add(("not", stored[this.value]))
            elif isinstance(this, cst.Comparison) and len(this.comparisons) == 1 and \
                    isinstance(this.comparisons[0].operator, cst.IsNot) and \
                    dotted_name(this.comparisons[0].comparator) == "None" and \
                    isinstance(this.left, cst.Name) and this.left.value in stored:
                declared.add(("is None", stored[this.left.value]))
    return frozenset(declared)


def _simple_statements(block: cst.BaseSuite):
    for line in getattr(block, "body", ()):
        if isinstance(line, cst.SimpleStatementLine):
            yield from line.body


def opt_out_test(test: cst.BaseExpression, declared: AbstractSet[Tuple[str, str]]) -> Optional[bool]:
    """True when ``test`` holds only for a block declared not to be hybridized (``declared_opt_outs``),
    False when its negation does (``if self.hybridizable: return ...``), else None."""
    if not declared:
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = opt_out_test(test.expression, declared)
        return None if inner is None else not inner
    name = dotted_name(test) or ""
    if name.startswith("self.") and name.count(".") == 1:
        return False if ("not", name[5:]) in declared else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            dotted_name(test.comparisons[0].comparator) == "None":
        subject = dotted_name(test.left) or ""
        if subject.startswith("self.") and ("is None", subject[5:]) in declared:
            operator = test.comparisons[0].operator
            return True if isinstance(operator, cst.Is) else False if isinstance(operator, cst.IsNot) else None
    return None


@dataclass
class GuardRegion:
    node: cst.CSTNode  # the If statement
    mode: str  # 'nd' or 'sym'



PYTHON_CONTAINERS = {"list", "tuple", "dict", "List", "Tuple", "Dict", "Sequence", "Mapping"}


def python_container_test(test: cst.BaseExpression) -> Optional[str]:
    """The name ``test`` proves a Python container (``isinstance(x, (list, tuple))``), else None."""
    if not (isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2):
        return None
    subject = test.args[0].value
    type_node = test.args[1].value
    nodes = [e.value for e in type_node.elements] if isinstance(type_node, cst.Tuple) else [type_node]
    names = [(dotted_name(n) or "").rsplit(".", 1)[-1] for n in nodes]
    if isinstance(subject, cst.Name) and names and all(n in PYTHON_CONTAINERS for n in names):
        return subject.value
    return None


def hybridize_opt_out(cls, classes, seen=None) -> Optional[str]:
    """Why block class ``cls`` (a ClassInfo) never hybridizes itself, or None: its ``hybridize()``
    (its own, or that of a base class of the same module) raises ("raises"), or does nothing or
    does not call ``super().hybridize()`` ("does nothing"). Measured on MXNet 1.9.1: a block whose
    hybridize() does nothing runs eagerly when hybridized alone, but a hybridized parent traces it
    all the same (`x.asnumpy()` there raises NotImplementedForSymbol); one whose hybridize() raises
    makes its parent's hybridize() raise, so it is never traced."""
    method = cls.methods.get("hybridize")
    if method is None:
        seen = seen if seen is not None else {cls.name}
        for base in cls.base_names:
            base_cls = classes.get(base.rsplit(".", 1)[-1])
            if base_cls is not None and base_cls.name not in seen:
                seen.add(base_cls.name)
                found = hybridize_opt_out(base_cls, classes, seen)
                if found is not None:
                    return found
        return None
    body = method.body.body if isinstance(method.body, cst.IndentedBlock) else [method.body]
    smalls = [small for stmt in body for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt])]
    if smalls and isinstance(smalls[-1], cst.Raise) and all(
            isinstance(s, (cst.Pass, cst.Raise)) or isinstance(s, cst.Expr) and isinstance(
                s.value, (cst.SimpleString, cst.ConcatenatedString, cst.Call)) for s in smalls):
        return "raises"
    if _calls_hybridize(method):
        return None
    # `if active: raise NotImplementedError(...)` (gluonts's DeepTPP): raises when asked to hybridize
    raising = any(isinstance(stmt, cst.If) and stmt.orelse is None and ends_control_flow(stmt.body) == "raise"
                  for stmt in body)
    return "raises" if raising else "does nothing"


def _calls_hybridize(method: cst.FunctionDef) -> bool:
    """``method`` calls a ``hybridize`` other than its own name on self (``super().hybridize()``,
    ``super(Net, self).hybridize(...)``, ``HybridBlock.hybridize(self, ...)``)."""
    found = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "hybridize" and \
                    not (isinstance(func.value, cst.Name) and func.value.value == "self"):
                found.append(node)

    walk(method.body, _Calls())
    return bool(found)


class _Bindings(cst.CSTVisitor):
    """The names a function binds to the constant ``False`` and those it binds any other way (a module-level
    class holding only strings: a class made per call would keep the tree in a cycle, tests/lint/
    test_tree_release.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.false: set = set()
        self.other: set = set()
        self._outer = True  # the function itself is visited first; later FunctionDefs are nested ones

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            constant = isinstance(target.target, cst.Name) and isinstance(node.value, cst.Name) \
                and node.value.value == "False"
            (self.false if constant else self.other).update(target_names(target.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        constant = isinstance(node.value, cst.Name) and node.value.value == "False"
        (self.false if constant else self.other).update(target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.other.update(target_names(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.other.update(target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.other.update(target_names(node.target))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.other.update(target_names(node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.other.update(target_names(node.asname.name))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.other.update(target_names(node.name.name))

    def visit_Global(self, node: cst.Global) -> None:
        self.other.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.other.update(item.name.value for item in node.names)

    def visit_Del(self, node: cst.Del) -> None:
        self.other.update(target_names(node.target))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname is not None else node.name
        self.other.update(target_names(bound) if isinstance(bound, cst.Name) else [dotted_name(bound) or ""])

    def visit_Param(self, node: cst.Param) -> None:
        self.other.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._outer:
            self.other.add(node.name.value)
        self._outer = False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.other.add(node.name.value)


def false_locals(fn: cst.FunctionDef) -> FrozenSet[str]:
    """The local names ``fn`` binds only to the constant ``False`` (``DEBUG = False`` and nothing else binds
    ``DEBUG``: no parameter, other assignment, loop, ``with``, import, ``global`` or ``nonlocal``): a test of
    one is always false, so the code under ``if DEBUG:`` never runs, eagerly or hybridized."""
    bindings = _Bindings()
    walk(fn, bindings)
    return frozenset(bindings.false - bindings.other)


def always_false(test: cst.BaseExpression, constants: AbstractSet[str]) -> bool:
    """``if False:`` or ``if DEBUG:`` with ``DEBUG`` one of ``constants`` (``false_locals``)."""
    return isinstance(test, cst.Name) and (test.value == "False" or test.value in constants)
