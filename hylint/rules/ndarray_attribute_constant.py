import libcst as cst

from hylint.facts.attributes import NDARRAY_PYTHON_VALUES
from hylint.syntax.nodes import dotted_name
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import self_attr

INIT = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.c = {}\n\n"
        "    def hybrid_forward(self, F, x):\n        return {}\n")


class NdarrayAttributeConstant(LintRule):
    CODE = "HY705"
    NAME = "ndarray-attribute-constant"
    MESSAGE = "NDArray made in __init__ and used inside a hybrid context"
    DOC = """
## What it does
Flags `self.<name>` inside a hybrid context when `__init__` assigned it an NDArray built with
`nd.*` / `mx.nd.*` (`self.c = nd.array([...])`, `self.mask = mx.nd.ones((1, 4))`), by any expression
on one (`nd.arange(k * d).reshape((k, d)) / 10.0`, `-nd.ones(3)`, `nd.ones(4)[1:]`), or a list, tuple or
dict holding one (`{'scale': nd.ones((1, 4))}`). Not flagged: what leaves NDArray (`.asnumpy()`,
`.asscalar()`), Python values read off it (`self.c.shape`), and `len(self.c)`.

Cannot see: NDArrays assigned outside `__init__`, through a helper (`self.c = make_table()`), or put into a
container after it is built (`self.table['a'] = nd.ones(2)`).

## Why is this bad?
Eagerly the NDArray meets other NDArrays and everything works. After `hybridize()` the other
operands are Symbols and an NDArray cannot enter the graph: `x + self.c` raises `TypeError: type
<class 'NDArray'> not supported`, `F.broadcast_add(x, self.c)` raises `AssertionError: Argument rhs
must be Symbol instances`. It would also never be saved with the parameters, nor moved to the
block's context.

## Example
```python
def __init__(self):
    super().__init__()
    self.c = nd.array([[1, 2, 3]])

def hybrid_forward(self, F, x):
    return F.broadcast_add(x, self.c)
```

## Use instead
```python
def __init__(self):
    super().__init__()
    self.c = self.params.get_constant('c', [[1, 2, 3]])

def hybrid_forward(self, F, x, c):
    return F.broadcast_add(x, c)
```
(The argument is named after the attribute, `c`, not after the constant's name.)

## Fix safety
No fix: it changes `__init__`, the signature and the saved parameters (`get_constant` values are
part of the checkpoint and need `initialize()`).
"""
    VALID = [
        Valid(INIT.format("self.params.get_constant('c', [[1, 2, 3]])", "x")),
        Valid(INIT.format("nd.array([[1, 2, 3]])", "x * self.c.shape[0]")),
        Valid(INIT.format("3.0", "x * self.c")),
        Valid(INIT.format("{'a': nd.ones(2)}", "x * len(self.c)")),
        Valid(INIT.format("nd.ones(3).asnumpy()", "x")),
        Valid(INIT.format("nd.ones(3).asscalar() * 2", "x * self.c")),
    ]
    INVALID = [
        Invalid(INIT.format("nd.array([[1, 2, 3]])", "F.broadcast_add(x, self.c)")),
        Invalid(INIT.format("mx.nd.ones((1, 3))", "x + self.c")),
        # built by any expression, or kept in a container (issue 43; measured on MXNet 1.9.1: `F.take` of
        # `nd.arange(12).reshape((3, 4)) / 10.0` runs eagerly and fails hybridized, AssertionError)
        Invalid(INIT.format("nd.arange(12).reshape((3, 4)) / 10.0", "F.take(self.c, x)")),
        Invalid(INIT.format("{'scale': nd.ones((1, 3))}", "F.broadcast_mul(x, self.c['scale'])")),
        Invalid(INIT.format("[mx.nd.zeros(3), mx.nd.ones(3)]", "x + self.c[0]")),
    ]

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:
        attr = self_attr(node)
        if attr is None or ctx.cls is None or attr not in ctx.cls.ndarrays:
            return
        parent = ctx.hybrid.parents.get(node) if ctx.hybrid is not None else None
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in NDARRAY_PYTHON_VALUES:
            return  # a Python value read off the NDArray: fine in both modes
        if isinstance(parent, cst.Arg) and ctx.hybrid is not None:
            call = ctx.hybrid.parents.get(parent)
            if isinstance(call, cst.Call) and dotted_name(call.func) in ("len", "isinstance", "type", "id"):
                return  # `len(self.table)`: a Python value of the container, fine in both modes
        ctx.report(node, f"`self.{attr}` is an NDArray made in __init__: it cannot enter the graph after hybridize()",
                   help=f"It is made by {ctx.cls.ndarrays[attr]}: after hybridize() it cannot enter the graph "
                        f"(TypeError/AssertionError); make it a constant parameter (self.params.get_constant) and take "
                        f"it as the `{attr}` argument")
