"""Where a module calls its own block classes, and the rank of each input there when the code tells it.

HY101 reports a declared parameter against a tensor of unknown rank (`normed * gamma`, `gamma` of shape
(C,)) on an assumption: that the tensor has a batch axis the parameter lacks. A call of the block that the
module shows can settle it: an input made by a literal (`LayerNorm()(nd.ones((2, 5, 4)))`, `net = ScaleVector();
net(mx.nd.ones(30))`, `nd.random.uniform(shape=(30,))`, `nd.array([[1, 2]])`, or a name bound to one in the same
scope), or the input of a child block inside a hybrid function whose rank the analysis knows (`self.norm(h)` with
`h = x.reshape((-1, 5, 4))`).

Only calls in the module itself: the package's trace reach (analysis/reach.py) follows the code a trace runs,
not the scripts and tests that build and call a block, so it gives no such calls."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from hylint.analysis.module import ClassInfo, ModuleInfo, class_family
from hylint.analysis.values import Kind
from hylint.facts.names import ND_NAMES
from hylint.syntax.nodes import call_arg, dotted_name, literal_shape, nested_literal_shape
from hylint.syntax.walk import walk

# (a function of the NDArray namespace, the position of its `shape` argument): creation and random sampling
_SHAPE_AT = {"ones": 0, "zeros": 0, "empty": 0, "full": 0, "uniform": 2, "normal": 2, "randint": 2, "gamma": 2,
             "exponential": 1, "poisson": 1, "negative_binomial": 2, "generalized_negative_binomial": 2}
_RANK_ONE = {"arange"}  # nd.arange(n): a vector


@dataclass(frozen=True)
class BlockCall:
    """One call of a block class: the rank of each positional input where known, and the call's code."""

    ranks: Tuple[Optional[int], ...]
    code: str


def _block_call(module: cst.Module, node: cst.Call, ranks: List[Optional[int]]) -> BlockCall:
    code = module.code_for_node(node).strip()
    return BlockCall(tuple(ranks), code if len(code) <= 60 else code[:57] + "...")


def _is_nd(prefix: str) -> bool:
    return prefix in ND_NAMES or prefix.endswith(".random") and prefix[:-len(".random")] in ND_NAMES


def literal_rank(node: cst.BaseExpression) -> Optional[int]:
    """The rank of an NDArray a literal makes (``nd.ones((2, 3))``, ``mx.nd.random.uniform(shape=(30,))``,
    ``nd.array([[1, 2]])``, ``nd.arange(5)``), else None."""
    if not isinstance(node, cst.Call):
        return None
    callee = dotted_name(node.func) or ""
    prefix, _, name = callee.rpartition(".")
    if not _is_nd(prefix):
        return None
    if name == "array" and node.args and node.args[0].keyword is None:
        dims = nested_literal_shape(node.args[0].value)
        return len(dims) if dims else None
    if name in _RANK_ONE:
        return 1
    if name in _SHAPE_AT:
        arg = call_arg(node, _SHAPE_AT[name], "shape")
        dims = literal_shape(arg.value) if arg is not None and not arg.star else None
        return len(dims) if dims else None
    return None


class _Calls(cst.CSTVisitor):
    """Calls of the module's block classes outside hybrid code: ``Cls(...)(x)`` and ``name(x)`` with ``name``
    bound to ``Cls(...)`` earlier in the same scope; an input's rank from a literal, or a name bound to one
    earlier in the same scope or at module level."""

    def __init__(self, module: cst.Module, classes: Dict[str, ClassInfo]) -> None:
        self.module = module
        self.classes = classes
        # per scope, name -> ("block", class name) or ("rank", rank)
        self.scopes: List[Dict[str, Tuple[str, object]]] = [{}]
        self.found: Dict[str, List[BlockCall]] = {}

    def _lookup(self, name: str, kind: str) -> Optional[object]:
        """What ``name`` holds of ``kind`` ("block" or "rank") here. A block is looked up in this scope only: a
        function that calls the block names its class then (the language server re-lints a class with the
        definitions that name it, hylint/server/incremental.py, and with every module-level statement)."""
        bound = self.scopes[-1].get(name)
        if bound is None and kind == "rank":
            bound = self.scopes[0].get(name)
        return bound[1] if bound is not None and bound[0] == kind else None

    def _built(self, node: cst.BaseExpression) -> Optional[str]:
        """The block class ``node`` builds (``Cls(...)``), else None."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in self.classes:
            return node.func.value
        return None

    def _rank(self, node: cst.BaseExpression) -> Optional[int]:
        if isinstance(node, cst.Name):
            return self._lookup(node.value, "rank")
        return literal_rank(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append({})

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.append({})

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        built = self._built(node.func)
        if built is None and isinstance(node.func, cst.Name):
            built = self._lookup(node.func.value, "block")
        if built is None:
            return
        ranks = []
        for arg in node.args:
            if arg.keyword is not None or arg.star:
                break
            ranks.append(self._rank(arg.value))
        self.found.setdefault(built, []).append(_block_call(self.module, node, ranks))

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            for target in node.targets:
                for name in _names(target.target):
                    self.scopes[-1].pop(name, None)
            return
        name = node.targets[0].target.value
        built = self._built(node.value)
        rank = literal_rank(node.value)
        if built is not None:
            self.scopes[-1][name] = ("block", built)
        elif rank is not None:
            self.scopes[-1][name] = ("rank", rank)
        else:
            self.scopes[-1].pop(name, None)


def _names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _names(element.value)]
    return []


def _block_calls(module: cst.Module, info: ModuleInfo) -> Dict[str, List[BlockCall]]:
    visitor = _Calls(module, info.classes)
    walk(module, visitor)
    found = visitor.found
    # a child block called in hybrid code: the analysis knows its inputs' ranks there
    for context in list(info.contexts.values()):
        cls = context.cls
        if cls is None:
            continue
        for node, value in list(context.values.items()):
            if type(node) is not cst.Call or not isinstance(node.func, cst.Attribute):
                continue
            callee = dotted_name(node.func) or ""
            if not callee.startswith("self.") or callee.count(".") != 1:
                continue
            child = cls.children.get(callee[5:], "")  # `self.norm = Norm()`, not `nn.LayerNorm()` by a local name
            if child not in info.classes:
                continue
            ranks = []
            for arg in node.args:
                if arg.keyword is not None or arg.star:
                    break
                passed = context.value(arg.value)
                ranks.append(passed.shape.rank if passed.kind is Kind.TENSOR else None)
            found.setdefault(child, []).append(_block_call(module, node, ranks))
    return found


def block_calls(module: cst.Module, info: ModuleInfo) -> Dict[str, List[BlockCall]]:
    """Class name -> the calls of that block class the module shows (computed once per module)."""
    return info.memo("block-calls", module, lambda node: _block_calls(node, info))


def calls_running(fn: cst.FunctionDef, module: cst.Module, info: ModuleInfo) -> List[BlockCall]:
    """The calls of every block class of the module whose ``hybrid_forward`` is ``fn`` (its own, or inherited)."""
    found = block_calls(module, info)
    calls: List[BlockCall] = []
    for name, cls in info.classes.items():
        if name not in found:
            continue
        owner = next((c for c in class_family(cls, info.classes) if "hybrid_forward" in c.methods), None)
        if owner is not None and owner.hybrid_forward is fn:
            calls.extend(found[name])
    return calls


def input_position(fn: cst.FunctionDef, cls: ClassInfo, name: str) -> Optional[int]:
    """Where a call of the block passes the input ``name`` of its ``hybrid_forward(self, F, ...)``: the
    position among the parameters after F but the declared Parameters (Gluon passes those by keyword)."""
    params = [p.name.value for p in fn.params.params][2:]
    inputs = [p for p in params if p not in cls.params and p not in cls.inherited_params]
    return inputs.index(name) if name in inputs else None
