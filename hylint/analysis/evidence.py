"""Parameter evidence: what each data parameter of a hybrid function holds (a tensor, a Python list of
tensors, a Python value), from its declaration and from how the body uses it."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, Optional, Set, Tuple

import libcst as cst

from hylint.analysis import ops
from hylint.analysis.module import ClassInfo
from hylint.facts.layers import TENSOR_INPUT_LAYERS
from hylint.syntax.nodes import dotted_name, literal_int, param_names
from hylint.analysis.values import Kind, Shape, Value, tensor
from hylint.syntax.walk import walk

SEQ_NAME = re.compile(r"^(args|states?|feats?|features|.*_(list|lst|states|seq|features|feats|args)|.*s_list)$")
SEQ_ANNOTATION = re.compile(r"\b(List|Tuple|Sequence|list|tuple|Iterable)\b")
PY_ANNOTATION = re.compile(r"^(int|float|bool|str|Optional\[(int|float|bool|str)\])$")
LIST_METHODS = {"append", "extend", "insert", "pop", "index", "count", "remove"}
TENSOR_ATTRS_PY = {"shape", "size", "ndim", "dtype", "context", "ctx", "stype"}


def _names_in(node: cst.CSTNode):
    if isinstance(node, cst.Name):
        yield node
    elif isinstance(node, cst.BinaryOperation):
        yield from _names_in(node.left)
        yield from _names_in(node.right)
    elif isinstance(node, cst.UnaryOperation):
        yield from _names_in(node.expression)


def docstring_python_params(fn: cst.FunctionDef) -> Set[str]:
    """Parameters the docstring declares Python or NumPy values (``glob_num_columns : np.array``)."""
    doc = fn.get_docstring(clean=False) if isinstance(fn.body, cst.IndentedBlock) else None
    if not doc:
        return set()
    return {match.group(1) for match in re.finditer(
        r"^\s*(\w+)\s*(?::|\()\s*(?:int|float|bool|str|np\.array|np\.ndarray|numpy)\b", doc, re.M)}


def docstring_seq_params(fn: cst.FunctionDef) -> Set[str]:
    doc = fn.get_docstring(clean=False) if isinstance(fn.body, cst.IndentedBlock) else None
    if not doc:
        return set()
    names = set()
    for match in re.finditer(r"^\s*(\w+)\s*(?::|\()\s*(?:\w+\s+)?(?:list|tuple|List|Tuple|sequence)\b", doc, re.M):
        names.add(match.group(1))
    return names


class ParamEvidence(cst.CSTVisitor):
    """How the body uses each parameter: as a tensor, as a sequence, or not at all."""

    def __init__(self, names: Set[str], f_name: str) -> None:
        self.names = names
        self.f_name = f_name
        self.tensor: Set[str] = set()
        # used in ways a Python number allows too (`1 - lam`, `lam > 0`, `-lam`, `lam * F.ones(...)`):
        # not a list, but not proven a tensor either
        self.number_or_tensor: Set[str] = set()
        self.seq: Set[str] = set()
        # written into at a variable index (`a[i] = block(a[i])`): list-like, unless the body also
        # uses the parameter as a tensor
        self.indexed_by_variable: Set[str] = set()
        self.operand: Set[str] = set()  # used itself as an operand of + - * / ...
        # indexed by the counter of a Python loop and put into a list (`[a[i - 1]]`, `out.append(a[i])`
        # in `for i in range(n)`): a list, unless the body also uses it as a tensor
        self.indexed_by_counter: Set[str] = set()
        self._counters: Set[str] = set()
        self.read_by_counter: Set[str] = set()  # `h[i]` with `i` a loop counter, anywhere
        # rebound to one of its own elements (`x_len = x_len[0]`): the argument packs several values
        self.unpacked_in_place: Set[str] = set()
        self.used: Set[str] = set()
        # (attribute, parameter) for `self.<attribute>(parameter, ...)`: a child called on the parameter
        self.child_inputs: Set[Tuple[str, str]] = set()

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
        if callee.startswith("self.") and callee.count(".") == 1 and node.args and node.args[0].keyword is None \
                and not node.args[0].star and self._param(node.args[0].value):
            self.child_inputs.add((callee[5:], self._param(node.args[0].value)))
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
                if arg.keyword is None and not arg.star and ops.is_data_position(op, index):
                    self._note_sliced_tensor(arg.value)
                if arg.keyword is not None and not ops.is_data_keyword(arg.keyword.value) and \
                        isinstance(arg.value, cst.Subscript) and self._param(arg.value.value):
                    # `F.op(x, height=size[0])`: an attribute is a Python value, so `size` is a sequence
                    self.seq.add(self._param(arg.value.value))
                name = self._param(arg.value)
                if not name or arg.star:
                    continue
                if arg.keyword is None and ops.is_sequence_position(op, index):
                    self.seq.add(name)
                elif arg.keyword is None and ops.is_data_position(op, index):
                    self.tensor.add(name)
                elif arg.keyword is not None and ops.is_data_keyword(arg.keyword.value):
                    self.tensor.add(name)
        if isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ops.TENSOR_METHODS:
                self._note_sliced_tensor(node.func.value)
            name = self._param(node.func.value)
            if name:
                method = node.func.attr.value
                if method in LIST_METHODS:
                    self.seq.add(name)
                elif method in ops.TENSOR_METHODS or method in ops.NDARRAY_ONLY_METHODS - {"copy"}:
                    self.tensor.add(name)
            if node.func.attr.value in LIST_METHODS:
                for arg in node.args:
                    self._note_collected(arg.value)

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
                    self.number_or_tensor.add(name)  # a list compared with a number raises TypeError

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        name = self._param(node.expression)
        if name and isinstance(node.operator, cst.Minus):
            self.number_or_tensor.add(name)

    def visit_For(self, node: cst.For) -> None:
        name = self._param(node.iter)
        if name:
            self.seq.add(name)
        callee = dotted_name(node.iter.func) if isinstance(node.iter, cst.Call) else None
        if callee in ("range", "enumerate"):
            target = node.target
            if callee == "enumerate" and isinstance(target, cst.Tuple) and target.elements:
                target = target.elements[0].value
            if isinstance(target, cst.Name):
                self._counters.add(target.value)

    def _note_collected(self, element: cst.BaseExpression) -> None:
        """``element`` is put into a Python list: ``a[i]`` there, with ``i`` a loop counter, reads ``a``
        as a list of tensors collected one by one (on a tensor, the same code would be the HY301 hazard)."""
        if not isinstance(element, cst.Subscript):
            return
        name = self._param(element.value)
        if name is None or len(element.slice) != 1 or not isinstance(element.slice[0].slice, cst.Index):
            return
        if {n.value for n in _names_in(element.slice[0].slice.value)} & self._counters:
            self.indexed_by_counter.add(name)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        name = self._param(node.value)
        if name is not None and len(node.slice) > 1:
            self.tensor.add(name)  # `a[:, 0]`: a Python list raises TypeError for a tuple index
        elif name is not None and isinstance(node.slice[0].slice, cst.Index) and \
                {n.value for n in _names_in(node.slice[0].slice.value)} & self._counters:
            self.read_by_counter.add(name)

    def _note_sliced_tensor(self, node: cst.BaseExpression) -> None:
        """``a[1:3]`` used as a tensor: a list's slice is a list, so ``a`` is a tensor."""
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
            name = self._param(node.value)
            if name is not None:
                self.tensor.add(name)

    def visit_List(self, node: cst.List) -> None:
        for element in node.elements:
            self._note_collected(element.value)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        for element in node.elements:
            self._note_collected(element.value)

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
        value = node.value
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index) \
                and literal_int(value.slice[0].slice.value) is not None:
            name = self._param(value.value)
            if name and any(self._param(t.target) == name for t in node.targets):
                self.unpacked_in_place.add(name)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for side, other in ((node.left, node.right), (node.right, node.left)):
            name = self._param(side)
            if not name:
                continue
            self.operand.add(name)
            if isinstance(other, (cst.List, cst.ListComp, cst.Tuple)):
                self.seq.add(name)
            elif isinstance(node.operator, (cst.Subtract, cst.Divide, cst.Power, cst.Modulo)):
                self.number_or_tensor.add(name)  # Python lists and tuples do not support these operators
            elif isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)):
                if isinstance(other, cst.Call) and (dotted_name(other.func) or "").startswith(self.f_name + "."):
                    self.number_or_tensor.add(name)


def _written(shape: Tuple[Optional[int], ...], symbolic: Optional[Tuple[Optional[str], ...]]) -> str:
    """A declared shape for messages: its literal sizes, and for the others the expression of the constructor's
    arguments they are (``(units,)``), where known."""
    if None not in shape or symbolic is None or len(symbolic) != len(shape):
        return str(shape)
    axes = [str(size) if size is not None else expression or "?" for size, expression in zip(shape, symbolic)]
    return f"({axes[0]},)" if len(axes) == 1 else f"({', '.join(axes)})"


def declared_parameter(cls: ClassInfo, name: str) -> Value:
    """What hybrid_forward receives for the Parameter ``name`` the class declares (or inherits): a
    tensor with the declared shape, under a parameter argument of that name or in ``**kwargs``."""
    shape = cls.params.get(name)
    symbolic = cls.symbolic_params.get(name)
    rank = len(shape) if shape is not None else len(symbolic) if symbolic is not None else None
    return tensor(
        Shape(rank=rank, dims=shape, unit_axis=bool(shape and 1 in shape), static=True, root=name,
              symbolic=(cls.name, symbolic) if symbolic is not None else None,
              why=f"parameter `{name}` declared with shape={_written(shape, symbolic)}" if shape else ""),
        name=name)


def classify_params(fn: cst.FunctionDef, f_name: str, cls: Optional[ClassInfo], is_helper: bool,
                    incoming: Dict[str, Value], reached: bool = False) -> Tuple[Dict[str, Value], Optional[str]]:
    """What each data parameter of ``fn`` holds, and the name of the first one when it is a tensor.

    ``incoming`` holds what a call passes (for helpers called with F); otherwise the evidence is the
    parameter's declaration (a Parameter of the class, annotation, default, docstring, name) and how
    the body uses it.

    ``reached``: ``fn`` is reached by a trace from elsewhere in the package (analysis/reach.py), and
    ``incoming`` names the parameters that receive tensors there: parameters before F are data too
    (`__init__(self, probs, F=None)`), a parameter the trace passes no tensor is not judged from its use,
    and one it passes a tensor is a list of tensors when its declaration or use says so (the reach does
    not tell a tensor from a list of them)."""
    result: Dict[str, Value] = {}
    first_data_param: Optional[str] = None
    params = param_names(fn)
    skip = 1 if cls is not None and params and params[0].name.value in ("self", "cls") else 0
    f_index = None
    for index, param in enumerate(params):
        if param.name.value == f_name:
            f_index = index
    data_params = [p for i, p in enumerate(params)
                   if i >= skip and i != f_index and (f_index is None or i > f_index or reached)]
    names = {p.name.value for p in data_params}
    star = fn.params.star_arg
    if isinstance(star, cst.Param):
        names.add(star.name.value)
    if fn.params.star_kwarg is not None:
        names.add(fn.params.star_kwarg.name.value)
    evidence = ParamEvidence(names, f_name)
    walk(fn.body, evidence)
    doc_seq = docstring_seq_params(fn)
    doc_python = docstring_python_params(fn) if reached else set()
    declared = cls.params if cls is not None else {}
    # the input of a built-in layer child (`self.fc(x)`, `nn.Dense`) is one tensor: the layer's operator
    # refuses a Python number or a list eagerly, so its call proves the parameter a tensor
    layer_inputs = {name for attr, name in evidence.child_inputs
                    if cls is not None and cls.children.get(attr, "").rsplit(".", 1)[-1] in TENSOR_INPUT_LAYERS}
    inherited = cls.inherited_params if cls is not None else set()
    for position, param in enumerate(data_params):
        name = param.name.value
        if reached and (name not in incoming or name in doc_python):
            result[name] = Value(Kind.UNKNOWN, name=name)  # the trace passes no tensor here (or its doc says so)
            continue
        annotation = ""
        if param.annotation is not None:
            annotation = cst.Module([]).code_for_node(param.annotation.annotation)
        default = param.default
        listlike = reached and (bool(annotation) or default is not None or name in evidence.seq or
                                name in doc_seq or bool(SEQ_NAME.match(name)) or
                                name in evidence.indexed_by_variable | evidence.indexed_by_counter |
                                evidence.read_by_counter)
        if name in incoming and incoming[name].mixed:
            result[name] = replace(incoming[name], name=name)  # a tensor or not, as the caller's paths say
            continue
        if name in incoming and incoming[name].kind is not Kind.UNKNOWN and not listlike:
            result[name] = replace(incoming[name], name=name)
            if result[name].unproven and (name in evidence.tensor or name in layer_inputs):
                result[name] = replace(result[name], unproven="")  # the body's own use proves it
            if position == 0 and result[name].is_tensor:
                first_data_param = name
            continue
        if reached and not (annotation or default is not None):
            result[name] = Value(Kind.SEQ, certain=False, name=name)  # a list of tensors, perhaps
            continue
        if (name in declared or name in inherited) and not is_helper:
            result[name] = declared_parameter(cls, name)
            continue
        if annotation and SEQ_ANNOTATION.search(annotation):
            result[name] = Value(Kind.SEQ, name=name)
        elif annotation and PY_ANNOTATION.match(annotation):
            result[name] = Value(Kind.PY, name=name)
        elif default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
            result[name] = Value(Kind.PY, name=name)
        elif position > 0 and name in evidence.unpacked_in_place:
            # a later argument rebound to its own element (`x_len = x_len[0]`) packs several values; what
            # the body does with the name afterwards is the element's use, not the argument's
            result[name] = Value(Kind.SEQ, certain=False, name=name)
        elif name in evidence.tensor or name in layer_inputs:
            result[name] = tensor(Shape(root=name), name=name)
        elif name in evidence.number_or_tensor:
            result[name] = tensor(Shape(root=name), name=name, unproven=(
                f"`{name}` is used only in ways a Python number allows too (arithmetic, comparison): "
                f"it may be a Python number eagerly"))
        elif name in evidence.seq or name in doc_seq or SEQ_NAME.match(name) or \
                name in (evidence.indexed_by_variable | evidence.indexed_by_counter) - evidence.operand or \
                position > 0 and name in evidence.read_by_counter - evidence.operand:
            # (a later argument read by a loop counter, `hx_i = h[i]`, is a list of per-layer states; for
            # the first argument that alone would hide the HY301 hazard `x[i]`)
            # a list of tensors (or of lists): its elements are possible, not proven, tensors
            result[name] = Value(Kind.SEQ, certain=False, name=name)
        else:
            first = position == 0 and not is_helper
            result[name] = tensor(Shape(root=name), certain=first, name=name, assumed=first)
        if position == 0 and result[name].is_tensor:
            first_data_param = name
    if isinstance(star, cst.Param):
        result[star.name.value] = Value(Kind.SEQ, name=star.name.value)
    if fn.params.star_kwarg is not None:
        kw = fn.params.star_kwarg.name.value
        result[kw] = Value(Kind.KWARGS, name=kw)
    if reached:  # the reach does not tell a list of tensors from a list of lists: elements are not proven
        result = {name: replace(value, certain=False) if value.kind is Kind.SEQ else value
                  for name, value in result.items()}
    return result, first_data_param
