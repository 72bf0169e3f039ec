import libcst as cst

from hylint.analysis.values import Kind
from hylint.analysis.ops import NDARRAY_ONLY_METHODS
from hylint.facts.attributes import write_instead
from hylint.rule import Invalid, LintRule, Valid

STUBS = {"asnumpy", "asscalar", "wait_to_read", "copy", "detach", "backward"}
# also methods of Python's dict, list and set: flagged only on a value proven to be a tensor (a child's
# outputs unpacked from a tuple may be a dict of cached states)
PYTHON_CONTAINER_METHODS = {"copy"}


def what_happens(method: str) -> str:
    if method in STUBS:
        return f"raises NotImplementedForSymbol (Function {method} is not implemented for Symbol)"
    if method == "as_in_context":
        return "raises TypeError (Symbol.as_in_context() takes no context)"
    return f"raises AttributeError ('Symbol' object has no attribute '{method}')"


class NdarrayOnlyMethod(LintRule):
    CODE = "HY401"
    NAME = "ndarray-only-method"
    MESSAGE = "NDArray-only method on a tensor"
    DOC = """
## What it does
Flags `asnumpy`, `asscalar`, `item`, `tolist`, `wait_to_read`, `attach_grad`, `copyto`,
`as_in_context`, `copy`, `detach`, `tostype` and `backward` called on a tensor inside a hybrid context.

## Why is this bad?
These leave the graph or need a concrete array. On a Symbol, `asnumpy`, `asscalar`, `wait_to_read`,
`copy`, `detach` and `backward` are stubs that raise `NotImplementedForSymbol` (an `MXNetError`,
not a `NotImplementedError`); `as_in_context(ctx)` raises `TypeError`; `attach_grad`, `copyto`,
`tostype` and `item` do not exist (`AttributeError`).

## Example
```python
def hybrid_forward(self, F, x):
    return x * x.sum().asscalar()
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_mul(x, F.stop_gradient(x.sum()))
```

## Fix safety
No fix: the right rewrite depends on what the value is used for (`asscalar` detaches it from
autograd, so a faithful rewrite needs `F.stop_gradient`; a Python `if` on it needs `F.where` or
`F.contrib.cond`).
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a = np.ones(3)\n        return x * a.copy()[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n        s = states.copy()\n        return x\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        cfg = self.cfg.copy()\n        return x\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x.asnumpy()\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        out, cache = self.attention(x, self.cache.copy())\n        self.cache = cache.copy()\n"
              "        return out\n"),
        # `DEBUG = False` and nothing else binds DEBUG: the branch never runs, eagerly or hybridized
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        DEBUG = False\n        y = F.relu(x)\n"
              "        if DEBUG:\n            print(y.asnumpy())\n        return y\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * x.sum().asscalar()\n"),
        # DEBUG bound to something else as well: the branch may run
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        DEBUG = False\n        y = F.relu(x)\n"
                "        DEBUG = self.debug\n        if DEBUG:\n            print(y.asnumpy())\n        return y\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, DEBUG=False):\n        y = F.relu(x)\n"
                "        if DEBUG:\n            print(y.asnumpy())\n        return y\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        y = F.relu(x)\n        return y.asnumpy()\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.as_in_context(mx.cpu())\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        x.wait_to_read()\n        return x\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        y = F.relu(x).copy()\n        return y\n"),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method not in NDARRAY_ONLY_METHODS:
            return
        value = ctx.value(node.func.value)
        if value.kind not in (Kind.TENSOR, Kind.CHILD):
            return
        if method in PYTHON_CONTAINER_METHODS and not (value.kind is Kind.TENSOR and value.certain
                                                       and not value.assumed):
            return
        name = ctx.code(node.func.value).strip()
        ctx.report(node, f"`{name}.{method}()` is NDArray-only: it fails on a Symbol after hybridize()",
                   instead=write_instead(method, name, ctx.f_name),
                   help=f"After hybridize() `{name}` is a Symbol and `.{method}()` {what_happens(method)}")
