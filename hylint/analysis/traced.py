"""Functions a trace reaches from elsewhere in the package (analysis/reach.py), analysed as hybrid code.

``reach.FileReach`` names, by qualified name, the functions of one file that certainly run while some block
of its package is traced (a distribution's ``log_prob`` called from another module's ``hybrid_forward``, a
nested function, a class built in the trace), with the parameters that receive F or tensors and the local
names that take F by assignment. ``add_reached`` gives each of them a ``HybridContext`` like a helper's,
unless the module's own analysis made one already (then nothing of it changes), and records the chain
that reached it, which the engine adds to the message of every diagnostic in it.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional

import libcst as cst

from hylint.analysis.interpreter import NO_F, HybridContext
from hylint.analysis.module import ModuleInfo
from hylint.analysis.reach import FileReach, ReachedFunction
from hylint.analysis.values import Kind, Shape, Value, tensor
from hylint.syntax.nodes import blocks_of, param_names
from hylint.syntax.walk import walk


def functions_by_qualname(module: cst.Module) -> Dict[str, cst.FunctionDef]:
    """Every function of ``module`` under the qualified name reach.py gives it: ``Cls.method``,
    ``Outer.Inner.method``, ``fn.<locals>.inner`` (module-level ``if``/``try`` blocks looked into)."""
    found: Dict[str, cst.FunctionDef] = {}

    def top(body: Iterable[cst.CSTNode], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                found.setdefault(prefix + stmt.name.value, stmt)
                inner(stmt, prefix + stmt.name.value + ".<locals>.")
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                name = prefix + stmt.name.value + "."
                for item in stmt.body.body:
                    if isinstance(item, cst.FunctionDef):
                        found.setdefault(name + item.name.value, item)
                        inner(item, name + item.name.value + ".<locals>.")
                top([item for item in stmt.body.body if isinstance(item, cst.ClassDef)], name)
            elif isinstance(stmt, (cst.If, cst.Try)) and not prefix:
                for block in blocks_of(stmt):
                    top(block, prefix)

    def inner(fn: cst.FunctionDef, prefix: str) -> None:
        stack = [fn.body]
        while stack:
            suite = stack.pop()
            for stmt in getattr(suite, "body", ()):
                if isinstance(stmt, cst.FunctionDef):
                    found.setdefault(prefix + stmt.name.value, stmt)
                    inner(stmt, prefix + stmt.name.value + ".<locals>.")
                elif isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, cst.ClassDef):
                    stack.extend(_suites(stmt))

    top(module.body, "")
    return found


def _suites(stmt: cst.BaseCompoundStatement) -> list:
    """The statement blocks of a compound statement (``elif`` chains, handlers, ``else``, ``finally``)."""
    suites = [stmt.body]
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        suites.extend(_suites(orelse))
    elif orelse is not None:
        suites.append(orelse.body)
    for handler in getattr(stmt, "handlers", ()):
        suites.append(handler.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        suites.append(final.body)
    return suites


LAMBDA = ".<lambda#"  # a reached lambda's name: ``<function>.<lambda#k>`` (reach.PackageReach.lambdas)


class _Lambdas(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: List[cst.Lambda] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.found.append(node)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _lambda_function(info: ModuleInfo, by_name: Dict[str, cst.FunctionDef],
                     function: ReachedFunction) -> Optional[cst.FunctionDef]:
    """A stand-in ``def`` for a reached lambda (``HybridLambda(lambda F, x: ...)`` in a block's ``__init__``),
    whose body returns the lambda's own body node: the rules see the lambda's nodes, the engine reports at
    them. In hybrid code (``F.contrib.foreach(lambda d, s: ..., x, [])`` in ``hybrid_forward``) the lambda's
    nodes are read a second time, with its parameters as the trace gives them (tensors): a diagnostic both
    readings give is reported once. None when the lambda found does not take the parameters the reach gave
    it (the summary was made for another text)."""
    definer, _, index = function.qualname.rpartition(LAMBDA)
    outer = by_name.get(definer)
    if outer is None:
        return None
    visitor = _Lambdas()
    walk(outer.body, visitor)
    position = int(index.rstrip(">"))
    if position >= len(visitor.found):
        return None
    lam = visitor.found[position]
    names = {param.name.value for param in list(lam.params.posonly_params) + list(lam.params.params)}
    if not set(function.f_params) | set(function.tensor_params) <= names:
        return None
    body = cst.Return(value=lam.body)
    line = cst.SimpleStatementLine(body=[body])
    block = cst.IndentedBlock(body=[line])
    name = cst.Name("lambda_")
    stand_in = cst.FunctionDef(name=name, params=lam.params, body=block)
    info.lambdas[stand_in] = outer
    # nodes made here are not in the module: a report at one is moved to the lambda's own node
    info.stand_ins.update({stand_in: lam, name: lam, block: lam.body, line: lam.body, body: lam.body})
    return stand_in


def _params(fn: cst.FunctionDef) -> list:
    return [param.name.value for param in param_names(fn)]


def _f_name(function: ReachedFunction) -> str:
    if function.f_params:
        return function.f_params[0]
    if "F" in function.f_names:
        return "F"
    return function.f_names[0] if function.f_names else NO_F


def add_reached(info: ModuleInfo, module: cst.Module, reach: Optional[FileReach]) -> None:
    """A hybrid context for each function of ``reach`` the module's own analysis did not reach; the helpers
    such a context calls with F get one too, with the same chain."""
    if not reach or not reach.functions:
        return
    by_name = functions_by_qualname(module)
    for function in sorted(reach.functions, key=lambda f: (f.chain.count(" -> "), f.qualname)):
        if LAMBDA in function.qualname:
            fn = _lambda_function(info, by_name, function)
        else:
            fn = by_name.get(function.qualname)
        if fn is None or fn in info.contexts:
            continue
        before = set(info.contexts)
        # the trace passes a tensor here on the path it follows; another caller may pass a Python number
        incoming = {name: tensor(Shape(root=name), name=name, unproven=(
            f"`{name}` receives a tensor on the path the trace follows ({function.chain}); other callers may "
            f"pass a Python number")) for name in function.tensor_params}
        # a method of a block runs with the block's state; one of a plain object (a distribution built in
        # the trace) sees only `self` (its attributes are no block state: no rule judges them as such)
        cls = info.class_of.get(fn)
        self_attrs: tuple = (frozenset(), frozenset())
        if cls is not None and not function.block_method:
            cls = None
            incoming = {**incoming, _params(fn)[0]: Value(Kind.BLOCK)} if _params(fn) else incoming
            self_attrs = (frozenset(function.self_f_attrs), frozenset(function.self_tensor_attrs))
        context = HybridContext(fn, _f_name(function), cls, info, incoming, True,
                                frozenset(function.f_names), function.chain, self_attrs)
        info.contexts[fn] = context
        for other, made in list(info.contexts.items()):
            if other not in before and not made.reach_chain:
                made.reach_chain = function.chain  # a helper it called with F, analysed on the way
