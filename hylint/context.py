"""Which code runs hybridized, and what each expression in it holds.

One analysis per file, shared by every rule:

* ``ModuleInfo``: classes (bases, children and parameters declared in ``__init__``) and the hybrid
  contexts of the module: every ``hybrid_forward(self, F, ...)`` and every helper called with F.
* ``HybridContext``: for one hybrid function, the name bound to F, what each parameter holds (found
  from defaults, annotations, docstrings and how the body uses it), the value of every expression
  in the body (tensor, multi-output result, Python sequence, Python value, numpy, ...) with what is
  known of tensor shapes, and the regions that only ever run eagerly (``if F is nd:`` guards).

The analysis is deliberately flow-light: statements are walked once in source order, later
assignments replace earlier ones, and both branches of an ``if`` are walked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from hylint import optable
from hylint.walk import walk


class Kind(Enum):
    TENSOR = "tensor"  # an NDArray eagerly, a Symbol when hybridized
    MULTI = "multi"  # a multi-output result (F.split): [] selects outputs
    SEQ = "seq"  # a Python list/tuple of tensors (*args, states)
    KWARGS = "kwargs"  # **kwargs of hybrid_forward: a dict of tensors
    CHILD = "child"  # result of a child block: a tensor or a tuple of them
    PY = "py"  # a Python number, string, bool, None, tuple of numbers, config attribute
    NUMPY = "numpy"  # a numpy array (not a numpy scalar)
    F = "F"  # the F namespace itself
    BLOCK = "block"  # self or a child block object
    PARAM_OBJ = "param"  # a gluon Parameter object (self.weight)
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Shape:
    """What is statically known of a tensor's shape."""

    rank: Optional[int] = None
    dims: Optional[Tuple[Optional[int], ...]] = None  # per-axis sizes where known
    unit_axis: bool = False  # evidence of a size-1 axis made for broadcasting
    root: Optional[str] = None  # same shape as this named tensor
    static: bool = False  # shape fixed by code (constant, parameter), not by the input batch
    why: str = ""  # short evidence text for messages

    def with_rank(self, rank: Optional[int]) -> "Shape":
        return replace(self, rank=rank)


UNKNOWN_SHAPE = Shape()


@dataclass(frozen=True)
class Value:
    kind: Kind
    shape: Shape = UNKNOWN_SHAPE
    certain: bool = True  # for tensors: proven (or first data argument) vs merely possible
    name: Optional[str] = None  # the local name this value came from, for messages
    elements: Tuple["Value", ...] = ()  # for literal tuples/lists

    @property
    def is_tensor(self) -> bool:
        return self.kind is Kind.TENSOR

    @property
    def is_python(self) -> bool:
        return self.kind in (Kind.PY, Kind.NUMPY, Kind.SEQ, Kind.KWARGS, Kind.F, Kind.BLOCK, Kind.PARAM_OBJ)


UNKNOWN = Value(Kind.UNKNOWN, certain=False)
PY = Value(Kind.PY)
NUMPY = Value(Kind.NUMPY)


def tensor(shape: Shape = UNKNOWN_SHAPE, certain: bool = True, name: Optional[str] = None) -> Value:
    return Value(Kind.TENSOR, shape, certain, name)


# ---------------------------------------------------------------------------------------------
# small syntax helpers


def dotted_name(node: cst.CSTNode) -> Optional[str]:
    """``mx.nd.array`` -> "mx.nd.array"; None for anything that is not a plain dotted name."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def literal_int(node: cst.CSTNode) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_int(node.expression)
        return None if inner is None else -inner
    return None


def literal_number(node: cst.CSTNode) -> Optional[float]:
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_number(node.expression)
        if inner is None:
            return None
        return -inner if isinstance(node.operator, cst.Minus) else inner
    return None


def literal_shape(node: Optional[cst.CSTNode]) -> Optional[Tuple[Optional[int], ...]]:
    """``(1, k)`` -> (1, None); ``3`` -> (3,); None when it is not a tuple/list/int literal."""
    if node is None:
        return None
    if isinstance(node, (cst.Tuple, cst.List)):
        dims: List[Optional[int]] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            dims.append(literal_int(element.value))
        return tuple(dims)
    value = literal_int(node)
    if value is not None:
        return (value,)
    return None


def call_arg(call: cst.Call, position: Optional[int], keyword: Optional[str]) -> Optional[cst.Arg]:
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None if position is not None and positional <= position else None
        if position is not None and positional == position:
            return arg
        positional += 1
    return None


def keyword_value(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    arg = call_arg(call, None, keyword)
    return arg.value if arg is not None else None


def is_true(node: Optional[cst.CSTNode]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def param_names(fn: cst.FunctionDef) -> List[cst.Param]:
    params = fn.params
    return list(params.posonly_params) + list(params.params)


# ---------------------------------------------------------------------------------------------
# module structure

HYBRID_BASE_NAMES = {
    "HybridBlock",
    "HybridSequential",
    "HybridConcurrent",
    "HybridLambda",
    "SymbolBlock",
    "HybridRecurrentCell",
}
BLOCK_BASE_NAMES = {"Block", "Sequential", "Lambda", "Concurrent", "RecurrentCell"}
PARAM_FACTORIES = {"get", "get_constant"}


@dataclass
class ClassInfo:
    node: cst.ClassDef
    name: str
    base_names: List[str]
    # attribute -> (declared shape literal or None) for Parameters assigned in __init__
    params: Dict[str, Optional[Tuple[Optional[int], ...]]] = field(default_factory=dict)
    # attribute -> dotted constructor name for children assigned in __init__ (nn.Dense, MyBlock)
    children: Dict[str, str] = field(default_factory=dict)
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # attribute -> dotted callee for NDArrays made in __init__ (self.c = nd.array(...))
    ndarrays: Dict[str, str] = field(default_factory=dict)

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

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = dotted_name(node.target)
        if node.value is not None and name and name.startswith("self.") and name.count(".") == 1:
            self._record(name[5:], node.value)

    def _record(self, attr: str, value: cst.BaseExpression) -> None:
        if not isinstance(value, cst.Call):
            return
        callee = dotted_name(value.func) or ""
        last = callee.rsplit(".", 1)[-1]
        if callee.rpartition(".")[0] in ND_NAMES or any(callee.startswith(p + ".") for p in ND_NAMES):
            self.info.ndarrays[attr] = callee
        elif last in PARAM_FACTORIES and ".params." in f".{callee}" or callee.endswith("Parameter") or callee.endswith("Constant"):
            shape = literal_shape(keyword_value(value, "shape"))
            if shape is None and last == "get_constant":
                shape = _constant_shape(value)
            self.info.params[attr] = shape
        elif last and last[0].isupper():
            self.info.children[attr] = callee


def _constant_shape(call: cst.Call) -> Optional[Tuple[Optional[int], ...]]:
    """Shape of ``get_constant(name, value)``'s literal value (a nested list or ``nd.array(list)``)."""
    arg = call_arg(call, 1, "value")
    if arg is None:
        return None
    value = arg.value
    if isinstance(value, cst.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1] == "array" and value.args:
        value = value.args[0].value
    dims = nested_literal_shape(value)
    return dims if dims else None


@dataclass
class ModuleInfo:
    classes: Dict[str, ClassInfo]
    class_of: Dict[cst.FunctionDef, ClassInfo]
    functions: Dict[str, cst.FunctionDef]
    contexts: Dict[cst.FunctionDef, "HybridContext"]


def _base_names(node: cst.ClassDef) -> List[str]:
    names = []
    for base in node.bases:
        name = dotted_name(base.value)
        if name:
            names.append(name.rsplit(".", 1)[-1])
    return names


def _collect_defs(body: Sequence[cst.CSTNode], classes: Dict[str, ClassInfo], functions: Dict[str, cst.FunctionDef],
                  class_of: Dict[cst.FunctionDef, ClassInfo]) -> None:
    for stmt in body:
        if isinstance(stmt, cst.ClassDef):
            info = ClassInfo(stmt, stmt.name.value, _base_names(stmt))
            classes.setdefault(info.name, info)
            inner_functions: Dict[str, cst.FunctionDef] = {}
            _collect_defs(stmt.body.body, classes, inner_functions, class_of)
            info.methods = inner_functions
            for method in inner_functions.values():
                class_of[method] = info
            init = inner_functions.get("__init__")
            if init is not None:
                walk(init.body, _InitScanner(info))
        elif isinstance(stmt, cst.FunctionDef):
            functions.setdefault(stmt.name.value, stmt)
        elif isinstance(stmt, (cst.If, cst.Try, cst.With)):
            for block in _blocks_of(stmt):
                _collect_defs(block, classes, functions, class_of)


def _blocks_of(stmt: cst.CSTNode) -> Iterable[Sequence[cst.CSTNode]]:
    if isinstance(stmt, cst.If):
        yield stmt.body.body
        if stmt.orelse is not None:
            yield from _blocks_of(stmt.orelse) if isinstance(stmt.orelse, cst.If) else [stmt.orelse.body.body]
    elif isinstance(stmt, cst.Try):
        yield stmt.body.body
        for handler in stmt.handlers:
            yield handler.body.body
    elif isinstance(stmt, cst.With):
        yield stmt.body.body
    elif isinstance(stmt, cst.Else):
        yield stmt.body.body


def is_hybrid_class(info: Optional[ClassInfo], classes: Dict[str, ClassInfo], _seen: Optional[Set[str]] = None) -> bool:
    """True for classes deriving (in this module or by name) from a HybridBlock-family class."""
    if info is None:
        return False
    seen = _seen or set()
    for base in info.base_names:
        if base in HYBRID_BASE_NAMES:
            return True
        if base in classes and base not in seen:
            seen.add(base)
            if is_hybrid_class(classes[base], classes, seen):
                return True
    return False


def analyze_module(module: cst.Module) -> ModuleInfo:
    classes: Dict[str, ClassInfo] = {}
    functions: Dict[str, cst.FunctionDef] = {}
    class_of: Dict[cst.FunctionDef, ClassInfo] = {}
    _collect_defs(module.body, classes, functions, class_of)
    info = ModuleInfo(classes, class_of, functions, {})
    pending: List[Tuple[cst.FunctionDef, Optional[ClassInfo], Optional[str], Dict[str, Value], bool]] = []
    for cls in classes.values():
        fn = cls.hybrid_forward
        if fn is None:
            continue
        params = param_names(fn)
        if len(params) >= 2:
            pending.append((fn, cls, params[1].name.value, {}, False))
    while pending:
        fn, cls, f_name, incoming, is_helper = pending.pop(0)
        if fn in info.contexts:
            continue
        ctx = HybridContext(fn, f_name, cls, info, incoming, is_helper)
        info.contexts[fn] = ctx
        for helper, helper_cls, helper_f, helper_args in ctx.helper_calls:
            if helper not in info.contexts:
                pending.append((helper, helper_cls, helper_f, helper_args, True))
    return info


# ---------------------------------------------------------------------------------------------
# mode guards

ND_NAMES = {"nd", "ndarray", "mx.nd", "mx.ndarray", "mxnet.nd", "mxnet.ndarray"}
SYM_NAMES = {"sym", "symbol", "mx.sym", "mx.symbol", "mxnet.sym", "mxnet.symbol"}
ND_TYPES = {"NDArray"}
SYM_TYPES = {"Symbol"}


def guard_mode(test: cst.BaseExpression, f_name: str) -> Optional[str]:
    """'nd' when ``test`` is true only eagerly, 'sym' when only hybridized, else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = guard_mode(test.expression, f_name)
        return {"nd": "sym", "sym": "nd"}.get(inner or "")
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left = dotted_name(test.left)
        comparison = test.comparisons[0]
        right = dotted_name(comparison.comparator)
        if left != f_name and right == f_name:
            left, right = right, left
        if left == f_name and right is not None:
            mode = "nd" if right in ND_NAMES else "sym" if right in SYM_NAMES else None
            if mode is None:
                return None
            if isinstance(comparison.operator, (cst.IsNot, cst.NotEqual)):
                return {"nd": "sym", "sym": "nd"}[mode]
            if isinstance(comparison.operator, (cst.Is, cst.Equal)):
                return mode
        return None
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


def _ends_control_flow(block: cst.BaseSuite) -> Optional[str]:
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


# ---------------------------------------------------------------------------------------------
# per-function analysis

SEQ_NAME = re.compile(r"^(states?|feats?|features|.*_(list|lst|states|seq)|.*s_list)$")
SEQ_ANNOTATION = re.compile(r"\b(List|Tuple|Sequence|list|tuple|Iterable)\b")
PY_ANNOTATION = re.compile(r"^(int|float|bool|str|Optional\[(int|float|bool|str)\])$")
LIST_METHODS = {"append", "extend", "insert", "pop", "index", "count", "remove"}
TENSOR_ATTRS_PY = {"shape", "size", "ndim", "dtype", "context", "ctx", "stype"}
PY_BUILTINS = {"len", "int", "float", "bool", "str", "range", "isinstance", "hasattr", "getattr", "round",
               "tuple", "list", "dict", "set", "min", "max", "abs", "sum", "enumerate", "zip", "repr", "id"}


def _docstring_seq_params(fn: cst.FunctionDef) -> Set[str]:
    doc = fn.get_docstring(clean=False) if isinstance(fn.body, cst.IndentedBlock) else None
    if not doc:
        return set()
    names = set()
    for match in re.finditer(r"^\s*(\w+)\s*(?::|\()\s*(?:\w+\s+)?(?:list|tuple|List|Tuple|sequence)\b", doc, re.M):
        names.add(match.group(1))
    return names


class _Evidence(cst.CSTVisitor):
    """How the body uses each parameter: as a tensor, as a sequence, or not at all."""

    def __init__(self, names: Set[str], f_name: str) -> None:
        self.names = names
        self.f_name = f_name
        self.tensor: Set[str] = set()
        self.seq: Set[str] = set()
        # written into at a variable index (`a[i] = block(a[i])`): list-like, unless the body also
        # uses the parameter as a tensor
        self.indexed_by_variable: Set[str] = set()
        self.operand: Set[str] = set()  # used itself as an operand of + - * / ...
        self.used: Set[str] = set()

    def _param(self, node: cst.CSTNode) -> Optional[str]:
        if isinstance(node, cst.Name) and node.value in self.names:
            return node.value
        return None

    def _note_item_assignment(self, target: cst.CSTNode) -> None:
        if not isinstance(target, cst.Subscript):
            return
        name = self._param(target.value)
        if name is None or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return
        if literal_int(target.slice[0].slice.value) is None:
            self.indexed_by_variable.add(name)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.used.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        callee = dotted_name(node.func) or ""
        if callee in ("len", "enumerate", "list", "tuple", "reversed", "zip") and node.args:
            for arg in node.args:
                name = self._param(arg.value)
                if name:
                    self.seq.add(name)
        if callee == "isinstance" and len(node.args) == 2:
            name = self._param(node.args[0].value)
            types = dotted_name(node.args[1].value) or ""
            text = types
            if isinstance(node.args[1].value, cst.Tuple):
                text = ",".join(dotted_name(e.value) or "" for e in node.args[1].value.elements)
            if name and re.search(r"\b(list|tuple)\b", text):
                self.seq.add(name)
        for arg in node.args:
            name = self._param(arg.value)
            if name and arg.star == "*":
                self.seq.add(name)
        if callee.startswith(self.f_name + "."):
            op = callee[len(self.f_name) + 1:]
            for index, arg in enumerate(node.args):
                name = self._param(arg.value)
                if not name or arg.star:
                    continue
                if arg.keyword is None and optable.is_data_position(op, index):
                    self.tensor.add(name)
                elif arg.keyword is not None and optable.is_data_keyword(arg.keyword.value):
                    self.tensor.add(name)
        if isinstance(node.func, cst.Attribute):
            name = self._param(node.func.value)
            if name:
                method = node.func.attr.value
                if method in LIST_METHODS:
                    self.seq.add(name)
                elif method in optable.TENSOR_METHODS or method in optable.NDARRAY_ONLY_METHODS - {"copy"}:
                    self.tensor.add(name)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = self._param(node.value)
        if name and node.attr.value in TENSOR_ATTRS_PY | {"T", "grad"}:
            self.tensor.add(name)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        numeric = any(isinstance(o, (cst.Integer, cst.Float)) for o in operands)
        ordering = all(isinstance(c.operator, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual,
                                               cst.GreaterThanEqual)) for c in node.comparisons)
        if numeric and ordering:
            for operand in operands:
                name = self._param(operand)
                if name:
                    self.tensor.add(name)  # a list compared with a number raises TypeError

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        name = self._param(node.expression)
        if name and isinstance(node.operator, cst.Minus):
            self.tensor.add(name)

    def visit_For(self, node: cst.For) -> None:
        name = self._param(node.iter)
        if name:
            self.seq.add(name)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        name = self._param(node.iter)
        if name:
            self.seq.add(name)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._note_item_assignment(target.target)
        name = self._param(node.value)
        if name and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            self.seq.add(name)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for side, other in ((node.left, node.right), (node.right, node.left)):
            name = self._param(side)
            if not name:
                continue
            self.operand.add(name)
            if isinstance(other, (cst.List, cst.ListComp, cst.Tuple)):
                self.seq.add(name)
            elif isinstance(node.operator, (cst.Subtract, cst.Divide, cst.Power, cst.Modulo)):
                self.tensor.add(name)  # Python lists and tuples do not support these operators
            elif isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)):
                if isinstance(other, cst.Call) and (dotted_name(other.func) or "").startswith(self.f_name + "."):
                    self.tensor.add(name)


@dataclass
class GuardRegion:
    node: cst.CSTNode  # the If statement
    mode: str  # 'nd' or 'sym'


class HybridContext:
    """One function that runs with F = mxnet.sym after hybridize()."""

    def __init__(self, fn: cst.FunctionDef, f_name: str, cls: Optional[ClassInfo], module: ModuleInfo,
                 incoming: Dict[str, Value], is_helper: bool) -> None:
        self.fn = fn
        self.f_name = f_name
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
        self._classify_params(incoming)
        self._env.update(self.params)
        self._env[f_name] = Value(Kind.F)
        self._env["self"] = Value(Kind.BLOCK)
        self._walk_block(fn.body)

    @property
    def parents(self) -> Dict[cst.CSTNode, cst.CSTNode]:
        """child -> parent for every node of the function (computed on first use)."""
        if self._parents is None:
            self._parents = parent_map(self.fn)
        return self._parents

    # -- parameters ---------------------------------------------------------------------------
    def _classify_params(self, incoming: Dict[str, Value]) -> None:
        fn = self.fn
        params = param_names(fn)
        skip = 1 if self.cls is not None and params and params[0].name.value in ("self", "cls") else 0
        f_index = None
        for index, param in enumerate(params):
            if param.name.value == self.f_name:
                f_index = index
        data_params = [p for i, p in enumerate(params) if i >= skip and i != f_index and (f_index is None or i > f_index)]
        names = {p.name.value for p in data_params}
        star = fn.params.star_arg
        if isinstance(star, cst.Param):
            names.add(star.name.value)
        if fn.params.star_kwarg is not None:
            names.add(fn.params.star_kwarg.name.value)
        evidence = _Evidence(names, self.f_name)
        walk(fn.body, evidence)
        doc_seq = _docstring_seq_params(fn)
        declared = self.cls.params if self.cls is not None else {}
        for position, param in enumerate(data_params):
            name = param.name.value
            if name in incoming and incoming[name].kind is not Kind.UNKNOWN:
                self.params[name] = replace(incoming[name], name=name)
                if position == 0 and self.params[name].is_tensor:
                    self.first_data_param = name
                continue
            annotation = ""
            if param.annotation is not None:
                annotation = cst.Module([]).code_for_node(param.annotation.annotation)
            default = param.default
            if name in declared and not self.is_helper:
                shape = declared[name]
                self.params[name] = tensor(
                    Shape(rank=len(shape) if shape is not None else None, dims=shape,
                          unit_axis=bool(shape and 1 in shape), static=True, root=name,
                          why=f"parameter `{name}` declared with shape={shape}" if shape else ""),
                    name=name)
                continue
            if annotation and SEQ_ANNOTATION.search(annotation):
                self.params[name] = Value(Kind.SEQ, name=name)
            elif annotation and PY_ANNOTATION.match(annotation):
                self.params[name] = Value(Kind.PY, name=name)
            elif default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
                self.params[name] = Value(Kind.PY, name=name)
            elif name in evidence.tensor:
                self.params[name] = tensor(Shape(root=name), name=name)
            elif name in evidence.seq or name in doc_seq or SEQ_NAME.match(name) or \
                    name in evidence.indexed_by_variable - evidence.operand:
                # a list of tensors (or of lists): its elements are possible, not proven, tensors
                self.params[name] = Value(Kind.SEQ, certain=False, name=name)
            else:
                first = position == 0 and not self.is_helper
                self.params[name] = tensor(Shape(root=name), certain=first, name=name)
            if position == 0 and self.params[name].is_tensor:
                self.first_data_param = name
        if isinstance(star, cst.Param):
            self.params[star.name.value] = Value(Kind.SEQ, name=star.name.value)
        if fn.params.star_kwarg is not None:
            kw = fn.params.star_kwarg.name.value
            self.params[kw] = Value(Kind.KWARGS, name=kw)

    # -- statements ---------------------------------------------------------------------------
    def _walk_block(self, block: cst.BaseSuite) -> None:
        body = block.body if isinstance(block, cst.IndentedBlock) else [block]
        rest_eager = False
        for stmt in body:
            if rest_eager:
                self.eager_only.add(stmt)
            self._walk_stmt(stmt)
            if isinstance(stmt, cst.If):
                mode = guard_mode(stmt.test, self.f_name)
                ends = _ends_control_flow(stmt.body)
                if mode == "sym" and ends == "raise" and stmt.orelse is None:
                    self.opted_out = True
                if mode == "sym" and ends in ("return", "raise") and stmt.orelse is None:
                    rest_eager = True

    def _walk_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._walk_small(small)
        elif isinstance(stmt, cst.If):
            self.expr(stmt.test)
            mode = guard_mode(stmt.test, self.f_name)
            if mode is not None:
                self.guards.append(GuardRegion(stmt, mode))
                if mode == "nd":
                    self.eager_only.add(stmt.body)
                elif stmt.orelse is not None:
                    self.eager_only.add(stmt.orelse)
            self._walk_block(stmt.body)
            if stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    self._walk_stmt(stmt.orelse)
                else:
                    self._walk_block(stmt.orelse.body)
        elif isinstance(stmt, (cst.For,)):
            iterated = self.expr(stmt.iter)
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
            if small.value is not None:
                self.expr(small.value)
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
            if value.kind is Kind.TENSOR and value.shape.root is None:
                value = replace(value, shape=replace(value.shape, root=target.value))
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
        if value.elements and index < len(value.elements):
            return value.elements[index]
        if value.kind is Kind.MULTI:
            return tensor()
        if value.kind is Kind.SEQ:  # `a, b = states`: the parts may be tensors or lists (nested states)
            return tensor(certain=False)
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
        if value.kind is Kind.SEQ:
            return tensor(certain=value.certain)
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
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return PY
            return self._env.get(node.value, UNKNOWN)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                             cst.FormattedString)):
            if isinstance(node, cst.FormattedString):
                for part in node.parts:
                    if isinstance(part, cst.FormattedStringExpression):
                        self.expr(part.expression)
            return PY
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            elements = tuple(self.expr(e.value) for e in node.elements)
            if elements and any(e.kind in (Kind.TENSOR, Kind.CHILD) for e in elements):
                return Value(Kind.SEQ, elements=elements)
            return Value(Kind.PY, elements=elements)
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self.expr(element.key)
                self.expr(element.value)
            return PY
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            self._comprehension(node.for_in)
            element = self.expr(node.elt)
            return Value(Kind.SEQ) if element.kind in (Kind.TENSOR, Kind.CHILD) else PY
        if isinstance(node, cst.DictComp):
            self._comprehension(node.for_in)
            self.expr(node.key)
            self.expr(node.value)
            return PY
        if isinstance(node, cst.BinaryOperation):
            left = self.expr(node.left)
            right = self.expr(node.right)
            return self._binary_value(left, right, node.operator)
        if isinstance(node, cst.UnaryOperation):
            inner = self.expr(node.expression)
            if isinstance(node.operator, cst.Not):
                return PY
            return inner if inner.kind in (Kind.TENSOR, Kind.PY, Kind.NUMPY) else UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            left = self.expr(node.left)
            right = self.expr(node.right)
            return right if left.kind is right.kind else UNKNOWN
        if isinstance(node, cst.Comparison):
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
        if isinstance(node, cst.IfExp):
            self.expr(node.test)
            body = self.expr(node.body)
            orelse = self.expr(node.orelse)
            return body if body.kind is orelse.kind else UNKNOWN
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Subscript):
            return self._subscript(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Lambda):
            saved = dict(self._env)
            for param in node.params.params:
                self._env[param.name.value] = UNKNOWN
            self.expr(node.body)
            self._env = {**saved}
            return UNKNOWN
        if isinstance(node, cst.NamedExpr):
            value = self.expr(node.value)
            self._bind(node.target, value)
            return value
        if isinstance(node, cst.StarredElement):
            return self.expr(node.value)
        if isinstance(node, (cst.Yield, cst.Await)):
            if getattr(node, "value", None) is not None and isinstance(node.value, cst.BaseExpression):
                self.expr(node.value)
            return UNKNOWN
        return UNKNOWN

    def _comprehension(self, for_in: cst.CompFor) -> None:
        iterated = self.expr(for_in.iter)
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
            if len(tensors) == 2:
                return tensor(merge_shapes(left.shape, right.shape), certain=left.certain or right.certain)
            only = tensors[0]
            other = right if only is left else left
            if other.kind in (Kind.PY, Kind.NUMPY, Kind.UNKNOWN, Kind.CHILD):
                return tensor(replace(only.shape, why=only.shape.why), certain=only.certain)
            return tensor(certain=only.certain)
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
            return tensor(certain=base.certain)
        if base.kind is Kind.MULTI:
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return Value(Kind.MULTI)
            return tensor()
        if base.kind is Kind.SEQ:
            if single_int and base.elements:
                position = literal_int(node.slice[0].slice.value)
                if -len(base.elements) <= position < len(base.elements):
                    return base.elements[position]
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return Value(Kind.SEQ)
            return tensor(certain=False)
        if base.kind is Kind.KWARGS:
            return tensor()
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

    def _call(self, node: cst.Call) -> Value:
        func_value = self.expr(node.func) if not isinstance(node.func, cst.Name) else None
        arg_values = [self.expr(arg.value) for arg in node.args]
        callee = dotted_name(node.func) or ""
        last = callee.rsplit(".", 1)[-1]
        # F.<op>(...)
        if callee.startswith(self.f_name + ".") and func_value is not None and func_value.kind is Kind.F:
            op = callee[len(self.f_name) + 1:]
            return self._f_op(op, node, arg_values)
        root = callee.split(".", 1)[0]
        if callee and (callee.rsplit(".", 1)[0] in ND_NAMES or any(callee.startswith(p + ".") for p in ND_NAMES)):
            # nd.op(...) / mx.nd.op(...): an NDArray made outside the graph
            shape = Shape(static=True)
            if last == "array" and node.args:
                dims = nested_literal_shape(node.args[0].value)
                if dims is not None:
                    shape = Shape(rank=len(dims), dims=dims, unit_axis=1 in dims, static=True,
                                  why=f"`{callee}` literal of shape {dims}")
            elif last in optable.CREATION_OPS:
                shape = self._creation_shape(last, node)
            return tensor(shape)
        if root in ("np", "numpy", "onp"):
            if last in optable.NUMPY_SCALAR_TYPES:
                return PY
            if any(v.kind is Kind.TENSOR for v in arg_values):
                return UNKNOWN
            return NUMPY
        if isinstance(node.func, cst.Name):
            name = node.func.value
            if name in PY_BUILTINS:
                if name in ("min", "max", "abs", "sum") and any(v.kind is Kind.TENSOR for v in arg_values):
                    return tensor(certain=False)
                if name in ("list", "tuple") and arg_values and arg_values[0].kind in (Kind.SEQ, Kind.MULTI):
                    return Value(Kind.SEQ)
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
            if base.kind is Kind.TENSOR:
                return self._tensor_method(base, method, node)
            if base.kind is Kind.BLOCK:
                if dotted_name(node.func.value) == "self" and self.cls is not None and method in self.cls.methods:
                    return self._maybe_helper(self.cls.methods[method], self.cls, node, arg_values)
                return self._child_call(node)
            if base.kind is Kind.PARAM_OBJ:
                return Value(Kind.UNKNOWN)  # self.weight.data(): an NDArray outside the graph
            if base.kind in (Kind.PY,):
                return PY
            if base.kind is Kind.NUMPY:
                return NUMPY
        return UNKNOWN

    def _child_call(self, node: cst.Call) -> Value:
        name = dotted_name(node.func) or ""
        attr = name[5:] if name.startswith("self.") and name.count(".") == 1 else None
        if attr is None or self.cls is None:
            return Value(Kind.CHILD, certain=False)
        constructor = self.cls.children.get(attr)
        if constructor is None:
            return Value(Kind.CHILD, certain=False)
        short = constructor.rsplit(".", 1)[-1]
        if short in optable.SINGLE_OUTPUT_LAYERS:
            return tensor()
        child_cls = self.module.classes.get(short)
        if child_cls is not None and child_cls.hybrid_forward is not None:
            if _returns_tuple(child_cls.hybrid_forward):
                return Value(Kind.SEQ)
            return tensor(certain=False)
        return Value(Kind.CHILD, certain=False)

    def _maybe_helper(self, helper: cst.FunctionDef, cls: Optional[ClassInfo], node: cst.Call,
                      arg_values: List[Value]) -> Value:
        """Record a call that passes F to a function of this module (or a method of the class).

        The helper becomes a hybrid context whose parameters hold what the call passes (tensor
        shapes keep their evidence; roots are renamed so they cannot meet the helper's own names).
        Returns the call's value: a possible tensor, or a sequence when the helper returns a tuple.
        """
        params = param_names(helper)
        offset = 1 if cls is not None and params and params[0].name.value in ("self", "cls") else 0
        f_param = None
        mapped: Dict[str, Value] = {}
        positional = [(a, v) for a, v in zip(node.args, arg_values) if a.keyword is None and not a.star]
        for index, (arg, value) in enumerate(positional):
            if offset + index >= len(params):
                break
            pname = params[offset + index].name.value
            if isinstance(arg.value, cst.Name) and arg.value.value == self.f_name:
                f_param = pname
            else:
                mapped[pname] = value
        for arg, value in zip(node.args, arg_values):
            if arg.keyword is not None:
                if isinstance(arg.value, cst.Name) and arg.value.value == self.f_name:
                    f_param = arg.keyword.value
                else:
                    mapped[arg.keyword.value] = value
        if f_param is None:
            return UNKNOWN
        for pname, value in list(mapped.items()):
            if value.kind is Kind.TENSOR and value.shape.root is not None:
                mapped[pname] = replace(value, shape=replace(value.shape, root="^" + value.shape.root.lstrip("^")))
        self.helper_calls.append((helper, cls, f_param, mapped))
        if _returns_tuple(helper):
            return Value(Kind.SEQ)
        return tensor(certain=False)

    def _f_op(self, op: str, node: cst.Call, args: List[Value]) -> Value:
        short = op.rsplit(".", 1)[-1]
        if short in ("split", "SliceChannel"):
            count = call_arg(node, 1, "num_outputs")
            return multi(literal_int(count.value) if count is not None else None)
        if short == "amp_multicast":  # one output per data input
            count = keyword_value(node, "num_outputs")
            return multi(literal_int(count) if count is not None else None)
        if short == "split_v2" or short in optable.MULTI_OUTPUT_OPS or \
                short in optable.MULTI_OUTPUT_FLAGS and is_true(keyword_value(node, optable.MULTI_OUTPUT_FLAGS[short])):
            return Value(Kind.MULTI)
        if short == "topk":
            ret = keyword_value(node, "ret_typ")
            if isinstance(ret, cst.SimpleString) and ret.evaluated_value == "both":
                return multi(2)
            return tensor()
        if short in ("foreach", "while_loop"):
            return Value(Kind.PY, elements=(Value(Kind.SEQ), Value(Kind.SEQ)))
        if short == "cond":
            return UNKNOWN
        if short == "multinomial":
            get_prob = keyword_value(node, "get_prob")
            if is_true(get_prob):
                return multi(2)
            return tensor()
        if short in optable.CREATION_OPS:
            return tensor(self._creation_shape(short, node))
        data = next((v for v in args if v.kind is Kind.TENSOR), None)
        if short in optable.SHAPE_PRESERVING and data is not None:
            return tensor(replace(data.shape, why=data.shape.why))
        if short in optable.REDUCTIONS:
            base = data.shape if data is not None else UNKNOWN_SHAPE
            return tensor(reduced_shape(base, node, 2 if short == "norm" else 1, f"{self.f_name}.{op}"))
        if short == "expand_dims":
            base = data.shape if data is not None else UNKNOWN_SHAPE
            return tensor(Shape(rank=None if base.rank is None else base.rank + 1, unit_axis=True,
                                static=base.static, why=f"`{self.f_name}.expand_dims` adds a size-1 axis"))
        if short == "reshape":
            dims = literal_shape(keyword_value(node, "shape") or (node.args[1].value if len(node.args) > 1 else None))
            return tensor(self._reshape_shape(dims, data))
        if short == "broadcast_to":
            return tensor(broadcast_to_shape(literal_shape(keyword_value(node, "shape")), data))
        if short == "broadcast_like" and len(args) > 1 and args[1].kind is Kind.TENSOR:
            return tensor(replace(args[1].shape, unit_axis=False, why=""))
        if short.startswith("broadcast_") and len(args) >= 2 and all(a.kind is Kind.TENSOR for a in args[:2]):
            return tensor(merge_shapes(args[0].shape, args[1].shape))
        return tensor()

    def _tensor_method(self, base: Value, method: str, node: cst.Call) -> Value:
        if method == "asnumpy":
            return NUMPY
        if method in ("asscalar", "item", "tolist"):
            return PY
        if method in ("wait_to_read", "attach_grad", "backward"):
            return PY
        if method in ("split",):
            count = call_arg(node, 0, "num_outputs")
            return multi(literal_int(count.value) if count is not None else None)
        if method == "topk":
            ret = keyword_value(node, "ret_typ")
            if isinstance(ret, cst.SimpleString) and ret.evaluated_value == "both":
                return multi(2)
        if method in optable.SHAPE_PRESERVING or method in ("copy", "detach", "as_in_context", "copyto", "astype",
                                                              "tostype", "clip", "abs"):
            return tensor(base.shape, certain=base.certain)
        if method in optable.REDUCTIONS:
            return tensor(reduced_shape(base.shape, node, 1 if method == "norm" else 0, f".{method}"), certain=base.certain)
        if method == "expand_dims":
            rank = None if base.shape.rank is None else base.shape.rank + 1
            return tensor(Shape(rank=rank, unit_axis=True, static=base.shape.static,
                                why="`.expand_dims` adds a size-1 axis"), certain=base.certain)
        if method == "reshape":
            dims = literal_shape(node.args[0].value) if len(node.args) == 1 and node.args[0].keyword is None \
                else literal_shape(keyword_value(node, "shape"))
            return tensor(self._reshape_shape(dims, base), certain=base.certain)
        if method == "broadcast_to":
            shape_arg = call_arg(node, 0, "shape")
            dims = literal_shape(shape_arg.value) if shape_arg is not None else None
            return tensor(broadcast_to_shape(dims, base), certain=base.certain)
        return tensor(certain=base.certain)

    def _reshape_shape(self, dims: Optional[Tuple[Optional[int], ...]], data: Optional[Value]) -> Shape:
        static = data.shape.static if data is not None else False
        if dims is None or any(d in (-2, -3, -4) for d in dims if d is not None):
            return Shape(static=static)
        # 0 copies an input axis and -1 is inferred: the rank is known, those sizes are not
        known = tuple(d if d is not None and d > 0 else None for d in dims)
        return Shape(rank=len(dims), dims=known, unit_axis=1 in known, static=static,
                     why=f"reshaped to {tuple(dims)}" if 1 in known else "")

    def _creation_shape(self, op: str, node: cst.Call) -> Shape:
        shape_node = keyword_value(node, "shape")
        if shape_node is None and node.args and node.args[0].keyword is None and op in ("ones", "zeros", "full", "empty"):
            shape_node = node.args[0].value
        dims = literal_shape(shape_node)
        if dims is None:
            return Shape(static=True)
        unit = 1 in dims
        why = f"`{self.f_name}.{op}({format_dims(dims)})` has a size-1 axis" if unit else ""
        return Shape(rank=len(dims), dims=dims, unit_axis=unit, static=True, why=why)


def broadcast_to_shape(dims: Optional[Tuple[Optional[int], ...]], data: Optional[Value]) -> Shape:
    """``broadcast_to(shape=dims)``: the rank of dims; 0 (keep this axis) leaves the size unknown."""
    static = data.shape.static if data is not None else False
    if dims is None:
        return Shape(static=static)
    known = tuple(None if d in (0, None) else d for d in dims)
    return Shape(rank=len(dims), dims=known, static=static)


def multi(count: Optional[int]) -> Value:
    """A multi-output result; its elements say how many outputs it has, when known."""
    if count is None or count < 1 or count > 64:
        return Value(Kind.MULTI)
    return Value(Kind.MULTI, elements=(tensor(),) * count)


def reduced_shape(base: Shape, node: cst.Call, axis_position: int, label: str) -> Shape:
    """Shape evidence for a reduction ``label(..., axis=..., keepdims=...)``.

    ``keepdims=True`` keeps the rank and leaves a size-1 axis; no axis (legacy MXNet has no 0-d
    arrays) gives shape ``(1,)``; a literal axis of a tensor of known rank removes that axis.
    """
    if is_true(keyword_value(node, "keepdims")):
        return Shape(rank=base.rank, unit_axis=True, static=base.static,
                     why=f"`{label}(..., keepdims=True)` keeps a size-1 axis")
    if keyword_value(node, "exclude") is not None:
        return Shape(static=base.static)
    axis_arg = call_arg(node, axis_position, "axis")
    axis = axis_arg.value if axis_arg is not None else None
    if axis is None or isinstance(axis, cst.Name) and axis.value == "None":
        return Shape(rank=1, dims=(1,), unit_axis=True, static=base.static,
                     why=f"`{label}(...)` without an axis reduces to shape (1,)")
    axes = literal_shape(axis)
    if base.rank is None or axes is None or any(a is None for a in axes):
        return Shape(static=base.static)
    rank = base.rank - len(set(a % base.rank for a in axes if base.rank))
    if rank <= 0:
        return Shape(rank=1, dims=(1,), unit_axis=True, static=base.static,
                     why=f"`{label}(...)` reduces every axis: shape (1,)")
    dims = None
    if base.dims is not None:
        dropped = {a % base.rank for a in axes}
        dims = tuple(d for i, d in enumerate(base.dims) if i not in dropped)
    return Shape(rank=rank, dims=dims, static=base.static)


def parent_map(root: cst.CSTNode) -> Dict[cst.CSTNode, cst.CSTNode]:
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = []

    class _Parents(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if stack:
                parents[node] = stack[-1]
            stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            stack.pop()

    walk(root, _Parents())
    return parents


def format_dims(dims: Tuple[Optional[int], ...]) -> str:
    inner = ", ".join("?" if d is None else str(d) for d in dims)
    return f"({inner},)" if len(dims) == 1 else f"({inner})"


def nested_literal_shape(node: cst.CSTNode) -> Optional[Tuple[int, ...]]:
    """Shape of a nested list/tuple literal of numbers; () for a bare number."""
    if literal_number(node) is not None:
        return ()
    if isinstance(node, (cst.List, cst.Tuple)):
        if not node.elements:
            return None
        shapes = [nested_literal_shape(e.value) for e in node.elements]
        if any(s is None for s in shapes) or len(set(shapes)) != 1:
            return None
        return (len(node.elements),) + shapes[0]
    return None


def _returns_tuple(fn: cst.FunctionDef) -> bool:
    found = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Return(self, node: cst.Return) -> None:
            found.append(isinstance(node.value, (cst.Tuple, cst.List)))

    walk(fn, _Returns())
    return any(found)


def merge_shapes(a: Shape, b: Shape) -> Shape:
    """Shape of a broadcasting binary result (as far as known)."""
    if a.root is not None and a.root == b.root:
        return a
    rank = None
    if a.rank is not None and b.rank is not None:
        rank = max(a.rank, b.rank)
    dims = None
    if a.dims is not None and b.dims is not None:
        dims = broadcast_dims(a.dims, b.dims)
        unit = 1 in dims
    else:
        # without per-axis sizes, a size-1 axis survives only when both operands have one
        unit = a.unit_axis and b.unit_axis
    # two different tensors: the result's shape equals neither operand's in general
    return Shape(rank=rank, dims=dims, unit_axis=unit, root=None, static=a.static and b.static,
                 why=(a.why or b.why) if unit else "")


def broadcast_dims(a: Tuple[Optional[int], ...], b: Tuple[Optional[int], ...]) -> Tuple[Optional[int], ...]:
    """Right-aligned broadcast of per-axis sizes; None is an unknown size."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out: List[Optional[int]] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            out.append(max(x, y))
    return tuple(out)


def shapes_proven_equal(a: Shape, b: Shape) -> bool:
    if a.root is not None and a.root == b.root:
        return True
    if a.dims is not None and b.dims is not None and a.dims == b.dims and None not in a.dims:
        return True
    return False


def shape_difference(a: Shape, b: Shape) -> Optional[str]:
    """Why two tensors' shapes are known or likely to differ (HY101's evidence), else None."""
    if shapes_proven_equal(a, b):
        return None
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return f"ranks differ ({a.rank} vs {b.rank})"
    if a.dims is not None and b.dims is not None and len(a.dims) == len(b.dims):
        if all(x is not None and y is not None for x, y in zip(a.dims, b.dims)) and a.dims != b.dims:
            return f"shapes differ ({format_dims(a.dims)} vs {format_dims(b.dims)})"
    if a.unit_axis != b.unit_axis:
        return (a if a.unit_axis else b).why or "one operand has a size-1 axis"
    if a.static != b.static and (a.why or b.why) and (a.root or b.root):
        # a parameter (fixed shape) against a tensor whose shape comes from the input batch
        static = a if a.static else b
        if static.why.startswith("parameter"):
            return static.why + ", while the other operand's shape comes from the input"
    return None
