import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, MXNET_IMPORTS, PendingFix, Valid, replace
from hylint.rules._autograd_function import FORWARD, IN_INIT, SCALED_SIGN, SIGN, FunctionCalls, instead
from hylint.repairs.custom_op import FIX_TITLE as CUSTOM_OP_TITLE, custom_op, helper_code
from hylint.repairs.straight_through import FIX_TITLE, straight_through

# a straight-through Function (identity backward) applied to a Parameter of a Conv2D subclass
BINARIZE = ("import math\nimport mxnet as mx\nfrom mxnet.gluon import nn\n\n\nclass Binarize(mx.autograd.Function):\n"
            "    def forward(self, w):\n        return math.sqrt(1.0 / w.shape[1]) * w.sign()\n\n"
            "    def backward(self, g):\n        return g\n\n\n"
            "class Conv(nn.Conv2D):\n    def __init__(self, channels, in_channels):\n"
            "        super().__init__(channels, 3, in_channels=in_channels)\n\n    def hybrid_forward(self, F, x, weight, bias=None):\n"
            "        w = {}\n        return super().hybrid_forward(F, x, weight=w, bias=bias)\n")


class AutogradFunctionInHybrid(LintRule):
    CODE = "HY809"
    READS = frozenset({MXNET_IMPORTS})  # the names mx.autograd.Function is imported as
    NAME = "autograd-function-in-hybrid"
    MESSAGE = "An `mx.autograd.Function` is called in a hybrid context: it cannot be part of a graph"
    FIX_TITLE = FIX_TITLE + "; any other Function: " + CUSTOM_OP_TITLE
    DOC = """
## What it does
Flags a call of an `mx.autograd.Function` subclass of the module inside a hybrid context that fails
hybridized in any mode: an instance made in `__init__` and kept in an attribute (`self.cov_pool =
CovPool()`, then `self.cov_pool(x)`), or an instance made on the spot (`Binarize()(weight)`, or `f =
Binarize()` then `f(weight)`) whose `forward` uses what a Symbol lacks (`x.shape`, `mx.nd.*`) outside a
training branch. One diagnostic per call site, none inside the Function's own `forward`. A Function
whose `forward` traces in predict mode is HY810's.

## Why is this bad?
`autograd.Function` is an imperative, NDArray-only mechanism: `__call__` runs `forward` in Python and
records the custom `backward` on the NDArrays. A graph has no place for it. Measured on MXNet 1.9.1:
- after `hybridize()` `forward` runs once, on Symbols, when the graph is traced: a forward that reads
  `x.shape` fails with `AttributeError: 'Symbol' object has no attribute 'shape'`, one that calls
  `mx.nd.*` with `AssertionError: Argument data must have NDArray type, but got <Symbol ...>`;
- when `forward` does trace (only Symbol-compatible operators), predict mode gives the eager output,
  but under `autograd.record()` the hybridized call kills the process (segmentation fault): the custom
  backward is recorded on Symbol handles. Outside a recording scope the custom backward is never used;
- an instance kept in an attribute can be called only once: the block's second call raises
  `AssertionError: Each Function instance can only be called once` eagerly, and hybridized the trace
  is that second call when the block ran eagerly before.

## Example
```python
class Binarize(mx.autograd.Function):
    def forward(self, x):
        return math.sqrt(2.0 / x.shape[1]) * x.sign()

    def backward(self, dy):
        return dy

class Conv1bit(nn.Conv2D):
    def hybrid_forward(self, F, x, weight, bias=None):
        return super().hybrid_forward(F, x, weight=Binarize()(weight), bias=bias)
```

## Use instead
The forward with `F` operators, and a custom gradient written in the graph: the straight-through
estimator above is `x + F.BlockGrad(f(x) - x)` (forward `f(x)`, gradient 1); sizes come from
`__init__`'s arguments. Or a registered `mx.operator.CustomOp`, which a graph can hold (what the
fix writes where the straight-through rewrite does not apply, see below).
```python
class Conv1bit(nn.Conv2D):
    def __init__(self, in_channels, channels, kernel_size, **kwargs):
        super().__init__(channels, kernel_size, in_channels=in_channels, **kwargs)
        self._scale = math.sqrt(2.0 / in_channels)

    def hybrid_forward(self, F, x, weight, bias=None):
        binary = weight + F.BlockGrad(self._scale * F.sign(weight) - weight)
        return super().hybrid_forward(F, x, weight=binary, bias=bias)
```

## Fix safety
Two rewrites, both unsafe.

A Function made on the spot and called on one name, `Cls()(x)`, whose `forward(self, v)` is one
`return f(v)` and whose `backward(self, dy)` is `return dy` (a straight-through estimator, as
`Binarize` above), is rewritten to `(F.BlockGrad(f(x)) + (x - F.BlockGrad(x)))`: the value is
`f(x) + 0`, bit-identical to the Function's for finite `x`, and the gradient into `x` is exactly
`dy`. `v.shape` in `f` becomes `self.<x>.shape` when `x` is a `hybrid_forward` argument that Gluon
fills with the block's Parameter of that name (declared in `__init__` or inherited from a built-in
layer such as `nn.Conv2D`'s `weight`) and is never reassigned: a Parameter's shape is a Python tuple
in both modes. Not rewritten so: any other backward, a Function with `__init__`, a forward with more
than one statement, NDArray-only reads (`v.size`, `mx.nd.*`), or names the hybrid function shadows.
Unsafe: for an infinite `x` the value is nan (`inf - inf`) where the Function gave `f(x)`.
Measured on MXNet 1.9.1 (`tests/repairs/test_straight_through_mxnet.py`): eager output bit-identical,
hybridized equal to eager, input gradients equal to the Function's.

Any other Function, kept in an attribute (`self.cov(x)`), made on the spot (`Cls(k)(x)`) or bound to
a local name, becomes a registered custom operator: the call `fn(x, y)` is rewritten to
`_as_custom_op(F, fn, x, y)`, and the module gets the two helper functions once (after its last
Function class). The helper registers the class as an `mx.operator.CustomOp` whose forward runs a
fresh copy of the Function (its `forward`, in the call's training mode) and whose backward runs that
copy's `backward`, so the single-use rule of an instance no longer matters; each input first goes
through `F.reshape_like(F.reshape(x, (-1,)), x)`, without which the oneDNN build hands the operator
its internal layout (nan, inf, or values off by 1e5). Proven statically: the call passes exactly
`forward`'s positional arguments (no defaults, `*args` or keywords), every `return` of `forward` is
one value (not a tuple or list), the class (or a Function base of the module) has a `backward`, and
the module binds the helpers' names to nothing else. Unsafe, because these are not: the Function's
own attributes (`self.n = n`) reach the operator as `repr` text read back with `ast.literal_eval`, so
they must be Python literals (anything else raises at the first call); the output's shape is taken
from one dry run of `forward` on ones, so it must depend on the input shapes alone; the output must
have the inputs' dtype (else the call raises TypeError); and a graph holding the operator runs only
where the module is imported. Measured on MXNet 1.9.1 (`tests/repairs/test_custom_op_mxnet.py`, the
six gluoncv2 isqrtcovresnet models): eager outputs bit-identical to the Function's, hybridized equal
to eager, parameter and input gradients equal to the Function's backward, eagerly and hybridized.
"""
    VALID = [
        Valid(SCALED_SIGN + FORWARD.format("        return F.sign(x)\n")),
        Valid(SCALED_SIGN + FORWARD.format("        if F is mx.nd:\n            return Sign()(x)\n"
                                           "        return F.sign(x)\n")),
        Valid(SCALED_SIGN + "class N(Block):\n    def forward(self, x):\n        return Sign()(x)\n"),
        Valid("import torch\n\n\nclass Sign(torch.autograd.Function):\n    pass\n\n\n" +
              FORWARD.format("        return Sign()(x)\n")),
        Valid(SCALED_SIGN + "def apply_sign(x):\n    return Sign()(x)\n"),
        Valid(SIGN + FORWARD.format("        return Sign()(x) * 2\n")),  # traces in predict mode: HY810
    ]
    INVALID = [
        Invalid(SCALED_SIGN + FORWARD.format("        return Sign()(x) * 2\n")),
        Invalid(SCALED_SIGN + FORWARD.format("        sign = Sign()\n        return sign(x)\n")),
        Invalid(SIGN + IN_INIT.format("        return self.sign(x)\n")),
        Invalid(SCALED_SIGN.replace("import mxnet as mx\n", "from mxnet import autograd\n").replace(
            "mx.autograd.Function", "autograd.Function") + FORWARD.format("        return Sign()(x)\n")),
        Invalid(SCALED_SIGN.replace("import mxnet as mx\n", "from mxnet.autograd import Function\n").replace(
            "mx.autograd.Function", "Function") + "class Sign2(Sign):\n    pass\n\n\n" +
            FORWARD.format("        return Sign2()(x)\n")),
        Invalid(BINARIZE.format("Binarize()(weight)"),
                BINARIZE.format("(F.BlockGrad(math.sqrt(1.0 / self.weight.shape[1]) * weight.sign()) + "
                                "(weight - F.BlockGrad(weight)))"), unsafe=True),
        Invalid(SIGN + IN_INIT.format("        return self.sign(x)\n"),
                SIGN + helper_code(cst.Module([])) + "\n\n" +
                IN_INIT.format("        return _as_custom_op(F, self.sign, x)\n"), unsafe=True),
        Invalid(SCALED_SIGN + FORWARD.format("        return Sign()(x) * 2\n"),
                SCALED_SIGN + helper_code(cst.Module([])) + "\n\n" +
                FORWARD.format("        return _as_custom_op(F, Sign(), x) * 2\n"), unsafe=True),
    ]

    def __init__(self) -> None:
        self._calls = FunctionCalls()

    def visit_Call(self, node, ctx) -> None:
        call = self._calls.find(node, ctx)
        if call is None or not (call.stored or call.failure is not None and not call.failure.in_training):
            return  # a forward that traces in predict mode: HY810
        stored = ("an instance can be called only once, so the block's second call raises AssertionError "
                  "(eagerly too); " if call.stored else "")
        traced = (f"its forward uses `{call.failure.code}`, which fails on a Symbol"
                  if call.failure is not None and not call.failure.in_training else
                  "under autograd.record() the hybridized call fails or crashes the process")
        functions = self._calls.functions(ctx)
        rewrite = None if call.stored else straight_through(node, call.cls, functions, ctx)
        fix = custom_op(node, call.cls, functions, ctx) if rewrite is None else \
            PendingFix(Applicability.UNSAFE, rewrite.title, [replace(node, rewrite.replacement)])
        ctx.report(node, f"{call.what}: it fails {'on a second call and ' if call.stored else ''}after hybridize()",
                   fix, help=f"{stored}after hybridize() its forward runs once on Symbols, when the graph is "
                             f"traced, and {traced}; {instead(ctx.f_name)}")
