from typing import Optional

import libcst as cst

from hylint.facts import mxnet_api
from hylint.facts.operators import nd_only_instead
from hylint.analysis.guards import ND_NAMES
from hylint.syntax.nodes import dotted_name, keyword_value
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace

CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return {}\n"
SUBNAMESPACES = ("contrib", "random", "linalg", "image", "sparse")
# left to other rules or harmless: `nd.array` is HY402's; `nd.waitall()` works hybridized (measured)
NOT_FLAGGED = {("top", "array"), ("top", "waitall")}
# classes and helpers of the nd module, not operators
NOT_OPERATORS = {"NDArray", "CachedOp", "Context", "NDArrayHandle"}
# wrappers whose sym version behaves like the nd one when called without nd-only arguments
SAME_WRAPPERS = {("top", "ones"), ("top", "zeros")}
ND_ONLY_KEYWORDS = ("ctx", "out")


def split_callee(callee: str):
    """``mx.nd.random.uniform`` -> ("mx.nd", "random", "uniform"); None if not an nd call."""
    for prefix in sorted(ND_NAMES, key=len, reverse=True):
        if callee.startswith(prefix + "."):
            rest = callee[len(prefix) + 1:].split(".")
            if len(rest) == 1:
                return prefix, "top", rest[0]
            if len(rest) == 2 and rest[0] in SUBNAMESPACES:
                return prefix, rest[0], rest[1]
            return None
    return None


class NdarrayNamespaceCall(LintRule):
    CODE = "HY403"
    LOCAL_FIX = True
    NAME = "ndarray-namespace-call"
    MESSAGE = "`nd.<op>(...)` inside a hybrid context: after hybridize() it receives Symbols"
    FIX_TITLE = "Call the operator through F: `F.<op>(...)`"
    DOC = """
## What it does
Flags calls of `mx.nd` operators (`nd.relu(x)`, `mx.nd.concat(...)`, `nd.ones((2, 3))`,
`mx.nd.contrib.arange_like(x)`, `nd.random.uniform(...)`) inside a hybrid context. `nd.array` is
HY402's; `nd.waitall()` works hybridized and is not flagged.

## Why is this bad?
After `hybridize()` the tensors are Symbols, and the `mx.nd` operators only take NDArrays:
`nd.relu(x)` raises `AssertionError: Argument data must have NDArray type, but got <Symbol data>`;
an NDArray created with `nd.ones(...)` cannot be combined with a Symbol (`TypeError: type NDArray not
supported`). Names that exist only in `mx.nd` (`nd.add`, `nd.concatenate`, ...) fail either way.

## Example
```python
def hybrid_forward(self, F, x):
    return nd.relu(x) + nd.ones((1, 4))
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_add(F.relu(x), F.ones((1, 4)))
```
(hylint first rewrites the calls, then HY101 the operator.)

## Fix safety
Eagerly F is `mxnet.ndarray`, so `F.<op>` is the very same function as `nd.<op>`: the rewrite
computes the same values. It is safe for operators that are the same generated operator in both
namespaces, and for `ones`/`zeros` without `ctx=`/`out=`. It is unsafe for the other operators that
mxnet-truth lists as hand-written wrappers with different semantics in `mx.sym` (`maximum`,
`minimum`, `power` are elementwise there, `random.multinomial` returns two outputs, `full`/`arange`
default to another dtype, `random.*` and `contrib.cond/foreach/while_loop` differ) and for calls
passing `ctx=` or `out=`. Names that exist only in `mx.nd` get no fix (see mxnet-truth §3 for
replacements such as `F.broadcast_add` for `nd.add`).
"""
    VALID = [
        Valid(CLS.format("F.relu(x) + F.ones((1, 1)).sum()")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        mx.nd.waitall()\n        return x * 2\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        if F is nd:\n            print(nd.norm(x))\n        return x\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return nd.relu(x)\n"),
        Valid("def helper(x):\n    return nd.relu(x)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        k = np.ones(3)\n"
              "        return x * float(np.sum(k))\n"),
    ]
    INVALID = [
        Invalid(CLS.format("mx.nd.relu(x)"), CLS.format("F.relu(x)")),
        Invalid(CLS.format("nd.concat(x, x, dim=1)"), CLS.format("F.concat(x, x, dim=1)")),
        Invalid(CLS.format("mx.nd.contrib.arange_like(x, axis=1)"), CLS.format("F.contrib.arange_like(x, axis=1)")),
        Invalid(CLS.format("x + nd.ones((2, 3))"), CLS.format("x + F.ones((2, 3))")),
        Invalid(CLS.format("nd.relu(x) + nd.ones((1, 4))"), CLS.format("F.broadcast_add(F.relu(x), F.ones((1, 4)))")),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, G, x):\n        return mxnet.ndarray.softmax(x, axis=-1)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, G, x):\n        return G.softmax(x, axis=-1)\n"),
        Invalid(CLS.format("nd.maximum(x, 0)"), CLS.format("F.maximum(x, 0)"), unsafe=True),
        Invalid(CLS.format("x + nd.ones((2, 3), ctx=mx.cpu())"), CLS.format("x + F.ones((2, 3), ctx=mx.cpu())"),
                unsafe=True),
        Invalid(CLS.format("nd.add(x, x)")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        parts = split_callee(callee)
        if parts is None:
            return
        prefix, namespace, op = parts
        if (namespace, op) in NOT_FLAGGED or op in NOT_OPERATORS or op.startswith("_"):
            return
        nd_only = op in mxnet_api.ND_ONLY.get(namespace, [])
        f_op = ".".join([ctx.f_name] + ([] if namespace == "top" else [namespace]) + [op])
        instead = nd_only_instead(namespace, op, ctx.f_name) if nd_only else None
        if nd_only:
            ctx.report(node, f"`{callee}(...)` exists only in mx.nd: no `{f_op}` after hybridize()",
                       help=f"`{callee}` exists only in mx.nd (no `{f_op}` in mx.sym)" +
                            (f"; use {instead}" if instead else ""))
            return
        ctx.report(node, f"`{callee}(...)` fails on the Symbols of hybridize(): use `{f_op}`", self._fix(node, ctx),
                   help=f"`{callee}` takes NDArrays, so it fails on the Symbols hybridize() passes")

    def _fix(self, node: cst.Call, ctx) -> Optional[PendingFix]:
        prefix, namespace, op = split_callee(dotted_name(node.func))
        func: cst.BaseExpression = cst.Name(ctx.f_name)
        if namespace != "top":
            func = cst.Attribute(value=func, attr=cst.Name(namespace))
        func = cst.Attribute(value=func, attr=cst.Name(op))
        wrapper = op in mxnet_api.SHARED_WRAPPERS.get(namespace, [])
        nd_keywords = any(keyword_value(node, k) is not None for k in ND_ONLY_KEYWORDS)
        safe = not nd_keywords and (not wrapper or (namespace, op) in SAME_WRAPPERS)
        name = ".".join(([ctx.f_name] if namespace == "top" else [ctx.f_name, namespace]) + [op])
        return PendingFix(Applicability.SAFE if safe else Applicability.UNSAFE, f"Call `{name}`",
                          [replace(node.func, func)])
