import libcst as cst

from hylint.analysis.module import is_hybrid_class
from hylint.rule import Invalid, LintRule, Valid
from hylint.syntax.nodes import dotted_name

# the modules that spell MXNet's initializers (`mx.init.Constant`, `initializer.Constant`, ...)
INIT_MODULES = {"init", "mx.init", "mxnet.init", "initializer", "mx.initializer", "mxnet.initializer"}
CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
       "        self.scale = self.params.get('scale', shape=(3,), init={})\n\n"
       "    def hybrid_forward(self, F, x, scale):\n        return F.broadcast_mul(x, scale)\n")


def _sequence_value(node: cst.BaseExpression) -> bool:
    """A Python list or tuple, written out (`[1.0, 2.0]`, `(1, 2)`, `[v] * 3`, a list comprehension) or made
    by `list(...)` / `.tolist()`."""
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return isinstance(node.left, (cst.List, cst.Tuple)) or isinstance(node.right, (cst.List, cst.Tuple))
    if isinstance(node, cst.Call):
        name = dotted_name(node.func) or ""
        return name in ("list", "tuple") or name.endswith(".tolist")
    return False


class ConstantInitializerList(LintRule):
    CODE = "HY710"
    NAME = "constant-initializer-list"
    MESSAGE = "`init.Constant(<list>)` on a HybridBlock's parameter: building its graph fails"
    HYBRID_ONLY = False
    METHODS = ("__init__",)  # ctx.cls.methods["__init__"] is the node, or nothing is reported
    DOC = """
## What it does
Flags `init.Constant(value)` (`mx.init.Constant`, `initializer.Constant`, ...) in the `__init__` of a
HybridBlock when `value` is a Python list or tuple: written out (`[1.0, 2.0, 3.0]`, `[0.5] * 3`, a list
comprehension) or made by `list(...)` / `.tolist()`. The initializer goes to a parameter of the block or
of a child (`self.params.get(..., init=...)`, `nn.Dense(..., weight_initializer=...)`).

## Why is this bad?
Eagerly the parameter is filled from the list and the block runs. After `hybridize()`, building the
graph turns every parameter into a Symbol variable that carries its initializer serialized, and
`Constant.dumps()` accepts a number, a NumPy array or an NDArray only. Measured on MXNet 1.9.1 (issue 43,
`init=mx.init.Constant([1.0, 2.0, 3.0])` on a `(3,)` parameter): the eager call returns `x * [1, 2, 3]`;
the first hybridized call raises `AttributeError: 'list' object has no attribute 'asnumpy'`, whether the
block was hybridized before or after `initialize()` and its first eager call; a tuple, `[0.5] * 3` and a
child's `bias_initializer=mx.init.Constant(b.tolist())` fail alike. When the parameter's shape is
inferred (a child `nn.Dense(3)` without `in_units`), the first eager call fails too: inferring the shape
builds the graph. With `mx.init.Constant(mx.nd.array([1.0, 2.0, 3.0]))`, a NumPy array or a number, both
modes run.

## Example
```python
self.scale = self.params.get('scale', shape=(3,), init=mx.init.Constant([1.0, 2.0, 3.0]))
```

## Use instead
```python
self.scale = self.params.get('scale', shape=(3,), init=mx.init.Constant(mx.nd.array([1.0, 2.0, 3.0])))
```

## Fix safety
No fix: which array type to build the value with (and whether `mx`/`nd` is imported) is left to the
author.
"""
    VALID = [
        Valid(CLS.format("mx.init.Constant(2.0)")),
        Valid(CLS.format("mx.init.Constant(mx.nd.array([1.0, 2.0, 3.0]))")),
        Valid(CLS.format("mx.init.Constant(np.array([1.0, 2.0, 3.0]))")),
        Valid("class N(Block):\n    def __init__(self):\n        super().__init__()\n"
              "        self.scale = self.params.get('scale', shape=(3,), init=mx.init.Constant([1.0, 2.0, 3.0]))\n\n"
              "    def forward(self, x):\n        return x * self.scale.data()\n"),
    ]
    INVALID = [
        Invalid(CLS.format("mx.init.Constant([1.0, 2.0, 3.0])")),
        Invalid(CLS.format("init.Constant(value=(1.0, 2.0, 3.0))")),
        Invalid(CLS.format("mx.initializer.Constant([0.5] * 3)")),
        Invalid("class N(HybridBlock):\n    def __init__(self, bias):\n        super().__init__()\n"
                "        self.dense = nn.Dense(3, in_units=3, bias_initializer=mx.init.Constant(bias.tolist()))\n\n"
                "    def hybrid_forward(self, F, x):\n        return self.dense(x)\n"),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        name = dotted_name(node.func) or ""
        module, _, last = name.rpartition(".")
        if last != "Constant" or module not in INIT_MODULES or ctx.cls is None:
            return
        if not is_hybrid_class(ctx.cls, ctx.module_info.classes):
            return
        value = next((arg.value for arg in node.args if arg.keyword is None or arg.keyword.value == "value"), None)
        if value is None or not _sequence_value(value):
            return
        ctx.report(value, f"`{name}(...)` is given a Python list: building the graph fails after hybridize()",
                   instead=f"an NDArray or NumPy array (`{name}(mx.nd.array(...))`), or a number",
                   help="The parameter is filled eagerly, but after hybridize() building the graph serializes the "
                        "initializer and fails (AttributeError: 'list' object has no attribute 'asnumpy')")
