"""Module structure: classes (bases, children and parameters declared in ``__init__``), functions,
and which classes belong to the HybridBlock family."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Set, Tuple

import libcst as cst

from hylint.analysis.layers import BUILTIN_PARAMETERS, inherited_parameter_shapes
from hylint.facts.names import NUMPY_MODE_SWITCH, in_nd_namespace
from hylint.facts.layers import BLOCK_BASE_NAMES, HYBRID_BASE_NAMES  # noqa: F401  (read through this module)
from hylint.analysis.symbolic import InitShapes, SymShape
from hylint.syntax.nodes import (blocks_of, call_arg, dotted_name, is_parameter_factory, keyword_value, literal_shape,
                                    nested_literal_shape)
from hylint.syntax.walk import walk



class FunctionContext(Protocol):
    """What ``ModuleInfo.contexts`` holds for each hybrid function: the interpreter's ``HybridContext``
    (analysis/interpreter.py), which is built from this module's ``ModuleInfo``; named here by what the
    machinery reads of it, so that this module imports nothing of the interpreter."""
    fn: cst.FunctionDef
    opted_out: bool
    eager_only: Set[cst.CSTNode]


@dataclass
class ClassInfo:
    node: cst.ClassDef
    name: str
    base_names: List[str]
    # attribute -> (declared shape literal or None) for Parameters assigned in __init__
    params: Dict[str, Optional[Tuple[Optional[int], ...]]] = field(default_factory=dict)
    # attribute -> dotted constructor name for children assigned in __init__ (nn.Dense, MyBlock)
    children: Dict[str, str] = field(default_factory=dict)
    child_calls: Dict[str, cst.Call] = field(default_factory=dict)  # attribute -> the constructor call
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # attribute -> dotted callee for NDArrays made in __init__ (self.c = nd.array(...))
    ndarrays: Dict[str, str] = field(default_factory=dict)
    # parameter -> its shape as expressions over __init__'s arguments (analysis/symbolic.py), for the
    # parameters declared here and those a built-in base class (nn.Conv2D) declares from super().__init__
    symbolic_params: Dict[str, SymShape] = field(default_factory=dict)
    # the parameters of a built-in base class (hybrid_forward receives them as `weight`, `bias`)
    inherited_params: Set[str] = field(default_factory=set)
    # attribute -> dotted constructor name of the last block `self.<attr>.add(...)` adds in __init__
    # (a Sequential returns what its last block returns)
    last_added: Dict[str, str] = field(default_factory=dict)

    @property
    def hybrid_forward(self) -> Optional[cst.FunctionDef]:
        return self.methods.get("hybrid_forward")


class _InitScanner(cst.CSTVisitor):
    """Collects ``self.<attr> = ...`` assignments in ``__init__`` (inside ``name_scope`` too)."""

    def __init__(self, info: ClassInfo) -> None:
        self.info = info

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # nested functions do not assign attributes of self

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            name = dotted_name(target.target)
            if name and name.startswith("self.") and name.count(".") == 1:
                self._record(name[5:], node.value)

    def visit_Call(self, node: cst.Call) -> None:
        callee = dotted_name(node.func) or ""
        if callee.startswith("self.") and callee.count(".") == 2 and callee.endswith(".add") and node.args:
            added = node.args[-1].value
            name = dotted_name(added.func) if isinstance(added, cst.Call) and not node.args[-1].star else None
            if name:
                self.info.last_added[callee[5:-4]] = name

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = dotted_name(node.target)
        if node.value is not None and name and name.startswith("self.") and name.count(".") == 1:
            self._record(name[5:], node.value)

    def _record(self, attr: str, value: cst.BaseExpression) -> None:
        maker = ndarray_maker(value)
        if maker is not None:
            self.info.ndarrays[attr] = maker
            return
        if not isinstance(value, cst.Call):
            return
        callee = dotted_name(value.func) or ""
        last = callee.rsplit(".", 1)[-1]
        if is_parameter_factory(callee):
            shape = literal_shape(keyword_value(value, "shape"))
            if shape is None and last == "get_constant":
                shape = _constant_shape(value)
            self.info.params[attr] = shape
        elif last and last[0].isupper():
            self.info.children[attr] = callee
            self.info.child_calls[attr] = value


def _constant_shape(call: cst.Call) -> Optional[Tuple[Optional[int], ...]]:
    """Shape of ``get_constant(name, value)``'s literal value (a nested list or ``nd.array(list)``)."""
    arg = call_arg(call, 1, "value")
    if arg is None:
        return None
    value = arg.value
    maker = (dotted_name(value.func) or "").rsplit(".", 1)[-1] if isinstance(value, cst.Call) else None
    if maker in ("ones", "zeros", "full", "empty") and value.args:  # nd.ones((4, 3))
        shape_arg = call_arg(value, 0, "shape")
        dims = literal_shape(shape_arg.value) if shape_arg is not None else None
        return dims if dims and None not in dims else None
    if maker == "array" and value.args:
        value = value.args[0].value
    dims = nested_literal_shape(value)
    return dims if dims else None


def _symbolic_params(info: ClassInfo, init: cst.FunctionDef, classes: Dict[str, ClassInfo]) -> None:
    shapes = InitShapes(init)
    info.symbolic_params.update(shapes.params)
    for base in info.base_names:
        if base in BUILTIN_PARAMETERS and base not in classes and shapes.super_call is not None:
            inherited = inherited_parameter_shapes(base, *shapes.super_call)
            for name, shape in inherited.items():
                if name not in info.params:
                    info.inherited_params.add(name)
                    info.symbolic_params[name] = shape
            break


@dataclass
class ModuleInfo:
    classes: Dict[str, ClassInfo]
    class_of: Dict[cst.FunctionDef, ClassInfo]
    functions: Dict[str, cst.FunctionDef]
    contexts: Dict[cst.FunctionDef, FunctionContext]  # analysis.interpreter.HybridContext
    in_progress: Set[cst.FunctionDef] = field(default_factory=set)  # helpers being analysed (recursion)
    # facts rules derive from a node, computed once per module: (what, node) -> fact (see ``memo``)
    memos: Dict[Tuple[str, cst.CSTNode], Any] = field(default_factory=dict)
    # name -> a block class the module names whose call resizes to a given size (analysis/resizers.py),
    # from the package's reach (the class may be defined in another module)
    resizers: Dict[str, Any] = field(default_factory=dict)
    # a reached lambda's stand-in def (analysis/traced.py) -> the function whose body holds the lambda; and
    # each node made for a stand-in -> the node of the module a report there is moved to
    lambdas: Dict[cst.FunctionDef, cst.FunctionDef] = field(default_factory=dict)
    # name -> 'nd' or 'sym': the package's guard helpers the module sees (``if mxnet_is_ndarray(F):``), from
    # the reach
    guards: Dict[str, str] = field(default_factory=dict)
    stand_ins: Dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    # `npx.set_np()` at module level: every block of the module runs in MXNet's numpy mode
    numpy_mode: bool = False
    # the module's top-level names for mxnet and its submodules (`import mxnet as _mx`: {"_mx": "mxnet"}),
    # read by the mode guards (`if F == _mx.sym:`)
    mxnet_aliases: Dict[str, str] = field(default_factory=dict)

    def release(self) -> None:
        """Forget the hybrid contexts once the lint is done: each refers back to this module, a cycle that
        would keep the whole tree alive until the cyclic garbage collector runs, instead of freeing it
        when the lint drops it."""
        self.contexts = {}

    def memo(self, what: str, node: cst.CSTNode, compute: Callable[[cst.CSTNode], Any]) -> Any:
        """``compute(node)``, once per module: rules called for each hybrid context of a class read the
        same facts of its other methods, and of the module (the classes built only as children)."""
        key = (what, node)
        if key not in self.memos:
            self.memos[key] = compute(node)
        return self.memos[key]


def _base_names(node: cst.ClassDef) -> List[str]:
    names = []
    for base in node.bases:
        name = dotted_name(base.value)
        if name:
            names.append(name.rsplit(".", 1)[-1])
    return names


def collect_defs(body: Sequence[cst.CSTNode], classes: Dict[str, ClassInfo], functions: Dict[str, cst.FunctionDef],
                 class_of: Dict[cst.FunctionDef, ClassInfo]) -> None:
    for stmt in body:
        if isinstance(stmt, cst.ClassDef):
            info = ClassInfo(stmt, stmt.name.value, _base_names(stmt))
            classes.setdefault(info.name, info)
            inner_functions: Dict[str, cst.FunctionDef] = {}
            collect_defs(stmt.body.body, classes, inner_functions, class_of)
            info.methods = inner_functions
            for method in inner_functions.values():
                class_of[method] = info
            init = inner_functions.get("__init__")
            if init is not None:
                walk(init.body, _InitScanner(info))
                _symbolic_params(info, init, classes)
        elif isinstance(stmt, cst.FunctionDef):
            functions.setdefault(stmt.name.value, stmt)
            if isinstance(stmt.body, cst.IndentedBlock):  # classes defined inside a function (factories)
                collect_defs([s for s in stmt.body.body if isinstance(s, (cst.ClassDef, cst.If, cst.Try, cst.With))],
                             classes, {}, class_of)
        elif isinstance(stmt, (cst.If, cst.Try, cst.With)):
            for block in blocks_of(stmt):
                collect_defs(block, classes, functions, class_of)


def class_family(cls: ClassInfo, classes: Dict[str, ClassInfo]) -> List[ClassInfo]:
    """The class and its bases defined in the same module, nearest first (method lookup order)."""
    order: List[ClassInfo] = []
    queue = [cls]
    while queue:
        current = queue.pop(0)
        if current in order:
            continue
        order.append(current)
        queue.extend(classes[name] for name in current.base_names if name in classes)
    return order


def derives_from(info: Optional[ClassInfo], classes: Dict[str, ClassInfo], bases: Set[str],
                 _seen: Optional[Set[str]] = None) -> bool:
    """True for classes deriving (in this module or by name) from one of ``bases``."""
    if info is None:
        return False
    seen = _seen or set()
    for base in info.base_names:
        if base in bases:
            return True
        if base in classes and base not in seen:
            seen.add(base)
            if derives_from(classes[base], classes, bases, seen):
                return True
    return False


def is_hybrid_class(info: Optional[ClassInfo], classes: Dict[str, ClassInfo]) -> bool:
    """True for classes deriving (in this module or by name) from a HybridBlock-family class."""
    return derives_from(info, classes, HYBRID_BASE_NAMES)


# MXNet's numpy mode (`mx.np`/`mx.npx`, MXNet 1.6+): arrays there slice and broadcast like NumPy's, eagerly
# and hybridized alike, and `F.np.split(x, 1)` is a list; the legacy NDArray/Symbol traps do not apply
NUMPY_MODE_DECORATORS = frozenset({"use_np", "use_np_array"})


def sets_numpy_mode(module: cst.Module) -> bool:
    """``npx.set_np()`` (any spelling ending in ``set_np``) as a module-level statement."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and \
                        (dotted_name(small.value.func) or "").rsplit(".", 1)[-1] == NUMPY_MODE_SWITCH:
                    return True
    return False


def in_numpy_mode(cls: "ClassInfo") -> bool:
    """A class decorated ``@use_np`` (``@npx.use_np``, ``@mx.util.use_np``, ``@use_np_array``)."""
    return any((dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
               .rsplit(".", 1)[-1] in NUMPY_MODE_DECORATORS for d in cls.node.decorators)


# NDArray methods whose result is no NDArray (a NumPy array or a Python value)
LEAVING_NDARRAY = frozenset({"asnumpy", "asscalar", "item", "tolist", "wait_to_read", "attach_grad", "backward"})


def ndarray_maker(value: cst.BaseExpression, depth: int = 0) -> Optional[str]:
    """The `nd.`/`mx.nd.` call an expression's NDArray comes from, when the expression is an NDArray built
    by any expression (issue 43): `nd.arange(k * d).reshape((k, d)) / 10.0`, `-nd.ones(3)`, `nd.ones(4)[1:]`,
    or a dict, list or tuple holding one (`{'a': nd.ones(2)}`), else None."""
    if depth > 20:
        return None
    if isinstance(value, cst.Call):
        callee = dotted_name(value.func) or ""
        if in_nd_namespace(callee):
            return callee
        if isinstance(value.func, cst.Attribute) and value.func.attr.value not in LEAVING_NDARRAY:
            return ndarray_maker(value.func.value, depth + 1)  # a method of an NDArray: `.reshape(...)`
        return None
    if isinstance(value, cst.BinaryOperation):
        return ndarray_maker(value.left, depth + 1) or ndarray_maker(value.right, depth + 1)
    if isinstance(value, cst.UnaryOperation) and not isinstance(value.operator, cst.Not):
        return ndarray_maker(value.expression, depth + 1)
    if isinstance(value, cst.Subscript):
        return ndarray_maker(value.value, depth + 1)
    if isinstance(value, (cst.List, cst.Tuple)):
        inner = next((m for m in (ndarray_maker(e.value, depth + 1) for e in value.elements) if m), None)
        return f"a {type(value).__name__.lower()} holding {inner}" if inner else None
    if isinstance(value, cst.Dict):
        inner = next((m for m in (ndarray_maker(e.value, depth + 1) for e in value.elements
                                  if isinstance(e, cst.DictElement)) if m), None)
        return f"a dict holding {inner}" if inner else None
    return None

