"""What a class stores on self before any trace: its ``__init__``'s children, functions, lambdas and blocks
built around a function, the classes assigned in its body, and the objects given to it through a parameter
annotated with a package class.

Reads a class's ``__init__`` and body (through the package index, ``_Package``, of which ``_StoredAttrs``
is a base: it uses the index's ``functions``, ``closures``, ``classes``, ``method``, ``is_block``, ``mro``,
``is_property``, ``_resolve_expr`` and ``load_subclassing``); answers the atoms each attribute holds
(``_Class.attrs``), read in once per class by ``_Package.attrs_of``.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set

from hylint.analysis.reach.atoms import NOTHING, ClassKey, FunctionKey, Value
from hylint.analysis.reach.modules import _Class
from hylint.analysis.reach.syntax import _params, _statements


class _StoredAttrs:
    """The part of the package index (``_Package``) that reads what a class stores before a trace."""

    def _init_assignments(self, cls: _Class):
        """``(__init__, name of self, attribute, value)`` for each ``self.<attribute> = value`` in ``__init__``."""
        init = cls.methods.get("__init__")
        params = _params(self.functions[init]) if init is not None else []
        if not params:
            return
        me = params[0].arg
        for stmt in _statements(self.functions[init]):
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
                        yield init, me, target.attr, stmt.value

    def _constructor_attrs(self, cls: _Class) -> None:
        """What ``__init__`` stores on self before any trace: children (``self.body = Body()``), functions and
        lambdas (``self.act = lambda F, x: ...``), blocks built around a function (``self.f =
        HybridLambda(fn)``: calling it runs `fn`). The trace's own assignments are added as they are reached."""
        for init, me, attr, expr in self._init_assignments(cls):
            value = self._static_value(init, expr, {me: frozenset({("obj", cls.key)})})
            if value:
                cls.attrs[attr] = cls.attrs.get(attr, NOTHING) | value

    def _class_level_attrs(self, cls: _Class) -> None:
        """Classes assigned in the class body (``distr_cls: type = GenPareto``): ``self.distr_cls(...)`` builds
        one, in the trace when a reached method calls it (a subclass's own assignment comes first in its mro)."""
        for stmt in cls.node.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
            for target in targets:
                if isinstance(target, ast.Name):
                    value = frozenset(a for a in self._resolve_expr(cls.key.module, stmt.value) if a[0] == "class")
                    if value:
                        cls.attrs[target.id] = cls.attrs.get(target.id, NOTHING) | value

    def _typed_constructor_args(self, cls: _Class) -> None:
        """``self.distr_output = distr_output`` in ``__init__``, with the parameter annotated by a class of the
        package that is not a block (``distr_output: DistributionOutput``): the attribute holds an object of that
        class or of one of its package subclasses, each of which the caller may pass (a method called on it
        runs, for the object given, the method of that object's class: the reach follows each)."""
        init = cls.methods.get("__init__")
        if init is None:
            return
        node = self.functions[init]
        typed: Dict[str, Value] = {}
        for param in _params(node)[1:] + list(node.args.kwonlyargs):
            declared = self._annotated_class(cls.key.module, param.annotation)
            if declared is not None and not self.is_block(declared):
                typed[param.arg] = frozenset(("obj", key) for key in self._subclasses(declared)
                                             if not self.is_block(key))
        for _, _, attr, expr in self._init_assignments(cls) if typed else ():
            if isinstance(expr, ast.Name) and expr.id in typed:
                cls.attrs[attr] = cls.attrs.get(attr, NOTHING) | typed[expr.id]

    def _subclasses(self, declared: ClassKey) -> List[ClassKey]:
        """`declared` and its package subclasses, sorted; first loading the modules naming it or a subclass."""
        known = self._subclasses_known.get(declared)
        if known is not None and known[0] == len(self.classes):
            return known[1]
        words: Set[str] = set()
        while True:
            found = [key for key in sorted(self.classes) if any(base.key == declared for base in self.mro(key))]
            more = {key.qualname.rsplit(".", 1)[-1] for key in found} - words
            if not more:
                self._subclasses_known[declared] = (len(self.classes), found)
                return found
            words |= more
            for word in sorted(more):
                self.load_subclassing(word)

    def _annotated_class(self, module: str, annotation: Optional[ast.expr]) -> Optional[ClassKey]:
        """The package class an annotation names: ``Dist``, ``mod.Dist``, ``"Dist"``, ``Optional[Dist]``."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)) and \
                (annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr) == "Optional":
            annotation = annotation.slice
        if not isinstance(annotation, (ast.Name, ast.Attribute)):
            return None
        classes = [atom[1] for atom in self._resolve_expr(module, annotation) if atom[0] == "class"]
        return classes[0] if len(classes) == 1 else None

    def _static_value(self, owner: FunctionKey, expr: ast.expr, env: Dict[str, Value]) -> Value:
        if isinstance(expr, ast.Lambda):
            key = FunctionKey(owner.module, f"{owner.qualname}.<lambda@{expr.lineno}:{expr.col_offset}>")
            self.functions.setdefault(key, expr)
            self.closures[(key, None)] = env  # `lambda F, x: F.dot(x, self.basis)`: self is the object
            return frozenset({("fn", key)})
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in env:
            # a method of the object being built (``HybridLambda(self._inner)``): bound to it
            bound = set()
            for atom in env[expr.value.id]:
                method = self.method(atom[1], expr.attr) if atom[0] == "obj" else None
                if method is not None and not self.is_property(method):
                    bound.add(("bound", atom[1], method, True))
            return frozenset(bound)
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return frozenset(a for a in self._resolve_expr(owner.module, expr) if a[0] == "fn")
        if isinstance(expr, ast.Call):
            callee = self._resolve_expr(owner.module, expr.func)
            built = {("obj", atom[1]) for atom in callee if atom[0] == "class"}
            if callee and not built:  # an external block made around a package function, method or lambda
                handed = [self._static_value(owner, arg, env) for arg in expr.args]
                built |= {("runs", atom[1]) for value in handed for atom in value if atom[0] == "fn"}
                built |= {("runs", atom[2], atom[1]) for value in handed for atom in value if atom[0] == "bound"}
            return frozenset(built)
        return NOTHING
