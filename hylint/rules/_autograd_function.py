"""Shared by HY809 and HY810: which classes of a module are MXNet ``autograd.Function``s, where hybrid
code calls one, and what their ``forward`` does with a Symbol."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.repairs.straight_through import ND_PREFIXES, NDARRAY_ONLY
from hylint.rules._hazards import self_attr
from hylint.syntax.imports import top_level_imports
from hylint.syntax.walk import walk

# the templates of the examples: an mx.autograd.Function whose forward works on a Symbol (SIGN) or
# reads `x.shape` (SCALED_SIGN), then a block using it
SIGN = ("import mxnet as mx\n\n\nclass Sign(mx.autograd.Function):\n    def forward(self, x):\n"
        "        return x.sign()\n\n    def backward(self, dy):\n        return dy\n\n\n")
SCALED_SIGN = SIGN.replace("return x.sign()", "return x.sign() / x.shape[1]")
FORWARD = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{}"
IN_INIT = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.sign = Sign()\n\n"
           "    def hybrid_forward(self, F, x):\n{}")


def function_classes(module: cst.Module) -> Dict[str, cst.ClassDef]:
    """Classes of the module deriving from MXNet's ``autograd.Function`` (directly, through a name
    imported from ``mxnet.autograd``, or through another such class of the module)."""
    mxnet_names, autograd_names, function_names = {"mxnet"}, set(), set()
    for source, name, local in top_level_imports(module):
        if name is None and local:
            if source == "mxnet":
                mxnet_names.add(local)
            elif source == "mxnet.autograd":
                autograd_names.add(local)
        elif source == "mxnet" and name == "autograd":
            autograd_names.add(local)
        elif source == "mxnet.autograd" and name == "Function":
            function_names.add(local)
    bases = {f"{m}.autograd.Function" for m in mxnet_names} | {f"{a}.Function" for a in autograd_names} | function_names
    found: Dict[str, cst.ClassDef] = {}
    classes = [s for s in module.body if isinstance(s, cst.ClassDef)]
    changed = True
    while changed:  # subclasses of the module's own Function classes too
        changed = False
        for cls in classes:
            if cls.name.value not in found and any(dotted_name(b.value) in bases or dotted_name(b.value) in found
                                                   for b in cls.bases):
                found[cls.name.value] = cls
                changed = True
    return found


@dataclass(frozen=True)
class SymbolFailure:
    code: str  # `x.shape`, `mx.nd.batch_dot`
    in_training: bool  # only under `if autograd.is_training():` (or is_recording())


def _forward(cls: cst.ClassDef, functions: Dict[str, cst.ClassDef], depth: int = 0) -> Optional[cst.FunctionDef]:
    """``forward`` of a Function class, or of the first of the module's Function classes it derives from."""
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "forward":
            return stmt
    for base in cls.bases:
        name = dotted_name(base.value)
        if name in functions and depth < 10:
            return _forward(functions[name], functions, depth + 1)
    return None


def symbol_failure(cls: cst.ClassDef, functions: Dict[str, cst.ClassDef]) -> Optional[SymbolFailure]:
    """The first use in ``forward`` of what a Symbol lacks (``x.shape``, ``mx.nd.<op>``)."""
    forward = _forward(cls, functions)
    if forward is None:
        return None
    found = []
    training = []  # the `if autograd.is_training():` bodies being visited

    class _Find(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            test = cst.Module([]).code_for_node(node.test)
            training.append("is_training()" in test or "is_recording()" in test)

        def leave_If(self, node: cst.If) -> None:
            training.pop()

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            name = dotted_name(node) or ""
            if not found and (node.attr.value in NDARRAY_ONLY and not name.startswith("self.") or
                              name.startswith(ND_PREFIXES)):
                found.append(SymbolFailure(cst.Module([]).code_for_node(node), any(training)))
                return False
            return True

    walk(forward.body, _Find())
    return found[0] if found else None




@dataclass(frozen=True)
class FunctionCall:
    """A call of an autograd.Function in hybrid code."""

    what: str  # how the message names it
    cls: str  # the Function class
    stored: bool  # one instance kept in an attribute of self (made in __init__)
    failure: Optional[SymbolFailure]  # what its forward does that a Symbol cannot


class FunctionCalls:
    """Finds the calls of the module's autograd.Functions (what it learns of the module is in the module's
    memos: kept on the rule, it would keep the module's tree alive after the lint)."""

    def functions(self, ctx) -> Dict[str, cst.ClassDef]:
        """The module's autograd.Function classes by name."""
        return self._functions(ctx)

    @staticmethod
    def _functions(ctx) -> Dict[str, cst.ClassDef]:
        return ctx.module_info.memo("autograd-functions", ctx.module, function_classes)

    @staticmethod
    def _local_instances(ctx, functions) -> Dict[str, str]:
        """Names the current function binds to a new Function instance (``f = Binarize()``)."""
        if ctx.function is None:
            return {}
        return ctx.module_info.memo("autograd-function-instances", ctx.function, lambda fn: _instances(fn, functions))

    def find(self, node: cst.Call, ctx) -> Optional[FunctionCall]:
        functions = self._functions(ctx)
        if not functions:
            return None
        made = _made_function(node.func, functions)
        attr = self_attr(node.func)
        if made is not None:
            return FunctionCall(f"`{ctx.code(node.func)}` makes an autograd.Function ({made})",
                                made, False, symbol_failure(functions[made], functions))
        if attr and ctx.cls is not None and ctx.cls.children.get(attr, "").rsplit(".", 1)[-1] in functions:
            made = ctx.cls.children[attr].rsplit(".", 1)[-1]
            return FunctionCall(f"`self.{attr}` is one {made} (an autograd.Function) made in __init__",
                                made, True, symbol_failure(functions[made], functions))
        if isinstance(node.func, cst.Name) and node.func.value in self._local_instances(ctx, functions):
            made = self._local_instances(ctx, functions)[node.func.value]
            return FunctionCall(f"`{node.func.value}` is an autograd.Function ({made})",
                                made, False, symbol_failure(functions[made], functions))
        return None


def _instances(fn: cst.FunctionDef, functions) -> Dict[str, str]:
    bound: Dict[str, str] = {}

    class _Bindings(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            made = _made_function(node.value, functions)
            for target in node.targets:
                if isinstance(target.target, cst.Name) and made:
                    bound[target.target.value] = made

    walk(fn.body, _Bindings())
    return bound


def instead(f_name: str) -> str:
    return (f"write it with `{f_name}` operators (a custom gradient as `x + {f_name}.BlockGrad(f(x) - x)`) "
            f"or as a CustomOp")


def _made_function(node: cst.BaseExpression, functions) -> Optional[str]:
    """The Function class that ``node`` instantiates (``Binarize()``), else None."""
    if isinstance(node, cst.Call):
        name = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
        if name in functions and isinstance(node.func, cst.Name):
            return name
    return None

