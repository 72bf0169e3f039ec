from types import MappingProxyType
from typing import Mapping, Optional

import libcst as cst

from hylint.analysis.guards import ends_control_flow, guard_mode
from hylint.analysis.module import is_hybrid_class
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import describe
from hylint.syntax.nodes import param_names


class HybridizeRefused(LintRule):
    CODE = "HY707"
    NAME = "hybridize-refused"
    MESSAGE = "hybrid_forward raises when traced: the block refuses to be hybridized"
    HYBRID_ONLY = False
    METHODS = ("hybrid_forward",)  # ctx.cls.methods["hybrid_forward"] is the node, or nothing is reported
    DOC = """
## What it does
Flags, once per block, a `hybrid_forward` that raises when it is traced: `if F is mx.sym: raise ...`,
`if F is not nd: raise ...`, `if not isinstance(x, nd.NDArray): raise ...` (any guard that is true only
with Symbols, whose branch ends in `raise`). The message quotes the exception's message. Nothing else is
reported in that `hybrid_forward`, nor in the code a trace reaches from it after the guard: that code
only runs eagerly.

## Why is this bad?
The block works until someone hybridizes it, or a model that holds it: then the first call raises the
guard's exception. Measured on MXNet 1.9.1 (`GuardSym`, `GuardIsinstance`, `GuardNotNd` of the script
below): eagerly each returns `(2, 3)`; hybridized on its own, inside a hybridized parent, and hybridized
as a child of a parent that is not, each raises its own exception at the first call
(`ValueError: GuardSym does not support hybridization`, `TypeError: needs NDArray`,
`NotImplementedError: eager only`). A parent cannot hybridize while it holds such a child.

```python
class GuardSym(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if F is mx.sym:
            raise ValueError("GuardSym does not support hybridization")
        return x * 2

net = GuardSym(); net.initialize(); net.hybridize(); net(nd.ones((2, 3)))  # raises the ValueError
```

A class whose `hybridize()` raises is not reported: `hybridize()` says so itself, before any trace.

## Example
```python
class Sampler(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if F is mx.sym:
            raise ValueError("Sampler does not support hybridization")
        return x.asnumpy()
```

## Use instead
Derive an eager-only block from `gluon.Block` (`forward(self, x)`), so that `hybridize()` of a parent
hybridizes around it, or make `hybrid_forward` traceable.

## Fix safety
No fix: whether the block should hybridize is the author's decision.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if F is nd:\n"
              "            raise ValueError('no')\n        return x\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if F is mx.sym:\n"
              "            return x * 2\n        return x * 2\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if F is mx.sym:\n"
              "            raise ValueError('no')\n        else:\n            x = x * 2\n        return x\n"),
        Valid("class N(HybridBlock):\n    def hybridize(self, active=True, **kwargs):\n"
              "        raise NotImplementedError('no')\n\n    def hybrid_forward(self, F, x):\n"
              "        if F is mx.sym:\n            raise ValueError('no')\n        return x\n"),
        Valid("class N(Block):\n    def hybrid_forward(self, F, x):\n        if F is mx.sym:\n"
              "            raise ValueError('no')\n        return x\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if F is mx.sym:\n"
                "            raise ValueError('N does not support hybridization')\n        return x.asnumpy()\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if not isinstance(x, nd.NDArray):\n"
                "            raise TypeError('needs NDArray')\n        return x\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if F is not nd:\n"
                "            raise NotImplementedError\n        return x\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        if self.check:\n"
                "            if F is mx.symbol:\n                raise RuntimeError('no')\n        return x\n"),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        cls = ctx.cls
        if node.name.value != "hybrid_forward" or cls is None or cls.methods.get("hybrid_forward") is not node \
                or not is_hybrid_class(cls, ctx.module_info.classes):
            return
        params = param_names(node)
        if len(params) < 2:
            return
        guard = refusal_guard(node.body, params[1].name.value, ctx.module_info.guards, ctx.module_info.mxnet_aliases)
        if guard is None:
            return
        raised = _raise_of(guard.body)
        reason = _message(raised, ctx) if raised is not None else None
        ctx.report(guard.test, f"`{cls.name}` refuses to be hybridized: it raises under `{describe(guard.test, ctx)}`",
                   help=(f"{reason}, raised" if reason else "It raises")
                        + f" under `{ctx.code(guard.test).strip()}`, true only in a trace; hybridize() of "
                          f"the block, or of a block holding it, fails at the first call",
                   instead="a plain Block, if it must always run eagerly (hybridize() then leaves it eager), or "
                           "the refused code written with F operators and the guard removed")


def refusal_guard(block: cst.BaseSuite, f_name: str, helpers: Mapping[str, str],
                  aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[cst.If]:
    """The first ``if`` of ``block`` (at any depth, in source order) whose test holds only in a trace and
    whose body ends in ``raise`` (no ``else``): the analysis treats the function as opted out
    (``HybridContext.opted_out``) under the same condition."""
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    for stmt in body:
        if isinstance(stmt, cst.If):
            if stmt.orelse is None and guard_mode(stmt.test, f_name, helpers, aliases=aliases) == "sym" \
                    and ends_control_flow(stmt.body) == "raise":
                return stmt
            for inner in (stmt.body, getattr(stmt.orelse, "body", None)):
                if isinstance(inner, cst.BaseSuite):
                    found = refusal_guard(inner, f_name, helpers, aliases)
                    if found is not None:
                        return found
        elif isinstance(stmt, (cst.For, cst.While, cst.With, cst.Try)):
            found = refusal_guard(stmt.body, f_name, helpers, aliases)
            if found is not None:
                return found
    return None


def _raise_of(block: cst.BaseSuite) -> Optional[cst.Raise]:
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise):
        return last.body[-1]
    return None


def _message(raised: cst.Raise, ctx) -> Optional[str]:
    """``ValueError: <message>`` when the exception is built with a string literal, else its code."""
    exc = raised.exc
    if exc is None:
        return None
    if isinstance(exc, cst.Call) and exc.args and isinstance(exc.args[0].value, (cst.SimpleString,
                                                                                   cst.ConcatenatedString)):
        text = exc.args[0].value.evaluated_value
        if isinstance(text, str):
            return f"{ctx.code(exc.func).strip()}: {' '.join(text.split())}"
    return ctx.code(exc).strip()
