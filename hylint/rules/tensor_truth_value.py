from typing import Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.analysis.values import Kind, shape_difference
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.rule import Invalid, LintRule, MXNET_IMPORTS, PendingEdit, PendingFix, Valid, replace
from hylint.repairs.eager_guard import eager_guard, eager_only_condition, eager_test
from hylint.rules._hazards import CLS, is_pure, is_tensor
from hylint.rules._binary import describe

CONVERSIONS = {"bool", "float", "int", "complex"}


def _single_return(block) -> Optional[cst.Return]:
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    stmt = block.body[0]
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return):
        return stmt.body[0] if stmt.body[0].value is not None else None
    return None


class TensorTruthValue(LintRule):
    CODE = "HY802"
    NAME = "tensor-truth-value"
    MESSAGE = "A tensor used as a Python bool or number"
    FIX_TITLE = "Select with `F.where` (both branches are computed)"
    GUARD_TITLE = "Run the check only eagerly, under `F is mx.nd` (it is skipped when traced)"
    READS = frozenset({MXNET_IMPORTS})  # the ndarray module's name, for a check's eager-only guard
    DOC = """
## What it does
Flags a tensor in an `if`, `elif` or `while` condition, an `assert`, a conditional expression, an
operand of `and`/`or`/`not`, and `bool(x)`, `float(x)`, `int(x)` of a tensor, inside a hybrid
context. Mode guards (`if F is nd:`, `isinstance(x, NDArray)`) are Python values and are never
flagged.

## Why is this bad?
Python needs a concrete value, which only an NDArray has. After `hybridize()`, `bool(symbol)` raises
`NotImplementedForSymbol` (`Function __bool__ is not implemented for Symbol`), and `float()`/`int()`
raise `TypeError`. (`float()`/`int()` of an NDArray fail eagerly too in MXNet 1.x; and a
multi-element NDArray in an `if` raises `ValueError` eagerly.)

## Example
```python
def hybrid_forward(self, F, x):
    if x.sum() > 0:
        return x * 2
    return x * 3
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.where(F.broadcast_mul(F.ones_like(x * 2), x.sum() > 0), x * 2, x * 3)
```
or `F.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: x * 3)`.

## Fix safety
Unsafe, offered when an `if`/`else` (or `A if c else B`) only selects between two tensors:
`if c: return A` + `else: return B` (or `return B` right after) -> `return F.where(
F.broadcast_mul(F.ones_like(A), c), A, B)`, the form verified on MXNet 1.9.1. Both branches are now
computed, a multi-element condition selects elementwise instead of raising, and the branches must
have the same shape; `A` is evaluated twice, so it must be free of random ops and calls.

A check is kept for eager calls only, also unsafe: `if c: raise ...` (no `else`) -> `if F is mx.nd
and c: raise ...`, and `assert c` -> `if F is mx.nd: assert c`. Eagerly `F is mx.nd` is true, so the
check runs as before; when traced `and` does not evaluate `c`, so the hybridized block no longer checks
(measured on MXNet 1.9.1: fixtures/HY802_2, gluonts' `jitter_cholesky`). Not offered for an assert in a
`try` that catches AssertionError: there the assert steers the code (gluonts retries a Cholesky with more
jitter when it fails), and skipping it made the hybridized DeepState models compute something else. Offered when the module
imports MXNet's ndarray module under a name the function also uses (`import mxnet as mx` and
`mx.base.MXNetError`), which the guard then names.
"""
    VALID = [
        Valid(CLS.format("        if F is nd:\n            return x * 2\n        return x * 3\n")),
        Valid(CLS.format("        if isinstance(x, nd.NDArray):\n            return x * 2\n        return x * 3\n")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask=None):\n        if mask is not None:\n"
              "            x = x * mask\n        return x\n"),
        Valid(CLS.format("        if self._scale > 1:\n            x = x * self._scale\n        return x\n")),
        Valid(CLS.format("        return F.where(x > 0, x, x * 0.1)\n")),
        Valid(CLS.format("        n = int(self._n)\n        return x * n\n")),
        Valid("import mxnet as mx\n" + CLS.format("        if F is mx.nd and x.min() < 0:\n"
                                                  "            raise mx.base.MXNetError('negative')\n        return x\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        if x.sum() > 0:\n            return x * 2\n        else:\n            return x * 3\n"),
                CLS.format("        return F.where(F.broadcast_mul(F.ones_like(x * 2), x.sum() > 0), x * 2, x * 3)\n"),
                unsafe=True),
        Invalid(CLS.format("        if x.sum() > 0:\n            return x * 2\n        return x * 3\n"),
                CLS.format("        return F.where(F.broadcast_mul(F.ones_like(x * 2), x.sum() > 0), x * 2, x * 3)\n"),
                unsafe=True),
        Invalid(CLS.format("        return x * 2 if F.mean(x) > 0.5 else x\n"),
                CLS.format("        return F.where(F.broadcast_mul(F.ones_like(x * 2), F.mean(x) > 0.5), x * 2, x)\n"),
                unsafe=True),
        Invalid(CLS.format("        while x.max() > 1:\n            x = x / 2\n        return x\n")),
        Invalid(CLS.format("        assert x.min() >= 0\n        return x\n")),
        Invalid("import mxnet as mx\n" + CLS.format("        assert x.min() >= 0, mx.__version__\n        return x\n"),
                "import mxnet as mx\n" + CLS.format("        if F is mx.nd: assert x.min() >= 0, mx.__version__\n"
                                                    "        return x\n"), unsafe=True),
        Invalid("import mxnet as mx\n" + CLS.format("        if x.min() < 0 or x.max() > 9:\n"
                                                    "            raise mx.base.MXNetError('range')\n        return x\n"),
                "import mxnet as mx\n" + CLS.format("        if F is mx.nd and (x.min() < 0 or x.max() > 9):\n"
                                                    "            raise mx.base.MXNetError('range')\n        return x\n"),
                unsafe=True),
        Invalid(CLS.format("        return x * float(x.sum())\n")),
        Invalid(CLS.format("        if not x:\n            return x\n        return x * 2\n")),
    ]

    def _flag(self, node, test, ctx, how: str, fix: Optional[PendingFix] = None) -> bool:
        value = ctx.value(test)
        if not is_tensor(value):
            return False
        code = ctx.code(test).strip()
        ctx.report(node, f"{how} on a tensor (`{describe(test, ctx)}`) fails after hybridize()", fix,
                   instead=_instead(how, ctx.f_name),
                   help=f"After hybridize() `{code}` is a Symbol, which has no truth value or number "
                        f"(NotImplementedForSymbol / TypeError)")
        return True

    def visit_If(self, node: cst.If, ctx) -> None:
        self._flag(node.test, node.test, ctx, "`if`", self._if_fix(node, ctx) or self._raise_guard(node, ctx))

    def visit_While(self, node: cst.While, ctx) -> None:
        self._flag(node.test, node.test, ctx, "`while`")

    def visit_Assert(self, node: cst.Assert, ctx) -> None:
        parents = ctx.hybrid.parents if ctx.hybrid is not None else {}
        guarded = eager_guard(node, parents, ctx) if not _caught(node, parents) else None
        fix = None if guarded is None else PendingFix(Applicability.UNSAFE, self._guard_title(ctx),
                                                      [replace(node, guarded)])
        self._flag(node.test, node.test, ctx, "`assert`", fix)

    # -- the eager-only check --------------------------------------------------------------------
    def _guard_title(self, ctx) -> str:
        return self.GUARD_TITLE.replace("F is mx.nd", eager_test(ctx) or "F is mx.nd")

    def _raise_guard(self, node: cst.If, ctx) -> Optional[PendingFix]:
        """``if <tensor test>: raise ...`` (a check, no else) -> ``if F is mx.nd and <test>: raise ...``: the
        same eagerly, never evaluated when traced. Unsafe: the hybridized block no longer checks."""
        body = node.body
        if node.orelse is not None or not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
            return None
        line = body.body[0]
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Raise)):
            return None
        condition = eager_only_condition(node.test, ctx)
        return None if condition is None else PendingFix(Applicability.UNSAFE, self._guard_title(ctx),
                                                         [replace(node.test, condition)])

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:
        fix = self._where(ctx, node.test, node.body, node.orelse, lambda call: [replace(node, call)])
        self._flag(node.test, node.test, ctx, "conditional expression on", fix)

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx) -> None:
        for side in (node.left, node.right):
            if ctx.hybrid is None or side not in ctx.hybrid.eager_only:  # not the right of `F is nd and ...`
                self._flag(side, side, ctx, "`and`/`or` operand")

    def visit_UnaryOperation(self, node: cst.UnaryOperation, ctx) -> None:
        if isinstance(node.operator, cst.Not):
            self._flag(node, node.expression, ctx, "`not`")

    def visit_Call(self, node: cst.Call, ctx) -> None:
        name = dotted_name(node.func)
        if name in CONVERSIONS and len(node.args) == 1 and not node.args[0].star:
            self._flag(node, node.args[0].value, ctx, f"`{name}()` of")

    # -- the F.where rewrite --------------------------------------------------------------------
    def _if_fix(self, node: cst.If, ctx) -> Optional[PendingFix]:
        then = _single_return(node.body)
        if then is None:
            return None
        if node.orelse is not None:
            if not isinstance(node.orelse, cst.Else):
                return None
            other = _single_return(node.orelse.body)
            if other is None:
                return None
            return self._where(ctx, node.test, then.value, other.value,
                               lambda call: [replace(node, f"return {ctx.code(call)}")])
        # `if c: return A` followed by `return B` in the same block
        parent = ctx.hybrid.parents.get(node) if ctx.hybrid is not None else None
        if not isinstance(parent, cst.IndentedBlock):
            return None
        body = list(parent.body)
        index = body.index(node)
        if index + 1 >= len(body) or index + 2 != len(body):
            return None
        following = body[index + 1]
        if not (isinstance(following, cst.SimpleStatementLine) and len(following.body) == 1
                and isinstance(following.body[0], cst.Return) and following.body[0].value is not None):
            return None
        if following.leading_lines and any(line.comment for line in following.leading_lines):
            return None  # a comment above `return B` would be lost
        other = following.body[0].value

        def edits(call):
            return [replace(node, f"return {ctx.code(call)}"), PendingEdit(following, "", mode="delete_lines")]
        return self._where(ctx, node.test, then.value, other, edits)

    def _where(self, ctx, test, a, b, make_edits) -> Optional[PendingFix]:
        va, vb = ctx.value(a), ctx.value(b)
        if not (is_tensor(ctx.value(test)) and va.kind is Kind.TENSOR and vb.kind is Kind.TENSOR):
            return None
        if shape_difference(va.shape, vb.shape) is not None or not is_pure(a, ctx.f_name):
            return None
        f = ctx.f_name
        condition = f_call(f, "broadcast_mul", [f_call(f, "ones_like", [a]), test])
        call = f_call(f, "where", [condition, a, b])
        return PendingFix(Applicability.UNSAFE, self.FIX_TITLE, make_edits(call))


# what an `except` clause names that catches a failed assert
_CATCHING_ASSERT = {"AssertionError", "Exception", "BaseException"}


def _caught(node: cst.CSTNode, parents) -> bool:
    """``node`` is in the body of a ``try`` that catches AssertionError: the assert steers the code (gluonts'
    jitter loop retries when it fails), so skipping it when traced would change what the graph computes."""
    child, parent = node, parents.get(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
        if isinstance(parent, cst.Try) and child is parent.body:
            for handler in parent.handlers:
                names = [handler.type] if not isinstance(handler.type, cst.Tuple) else \
                    [element.value for element in handler.type.elements]
                if handler.type is None or any((dotted_name(name) or "").rsplit(".", 1)[-1] in _CATCHING_ASSERT
                                               for name in names):
                    return True
        child, parent = parent, parents.get(parent)
    return False


def _instead(how: str, f_name: str) -> str:
    if how == "`while`":
        return "a loop whose bound is known when the block is built"
    if how == "`assert`":
        return f"the assert only eagerly, under `if {f_name} is mx.nd:` (it is then skipped when traced)"
    if how.endswith("()` of"):
        return f"keep the value a tensor and combine it with `{f_name}.broadcast_*` operators"
    return f"a selection computed on tensors, `{f_name}.where(cond, a, b)` (both sides are computed)"
