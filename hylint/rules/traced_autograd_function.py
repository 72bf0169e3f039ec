import libcst as cst

from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, MXNET_IMPORTS, PendingFix, Valid, replace
from hylint.rules._autograd_function import FORWARD, IN_INIT, SCALED_SIGN, SIGN, FunctionCalls, instead
from hylint.repairs.custom_op import FIX_TITLE as CUSTOM_OP_TITLE, custom_op, helper_code
from hylint.repairs.straight_through import FIX_TITLE, straight_through

# a Function whose training path calls mx.nd, as stochastic-depth and shake-shake regularisers do
TRAINING_NOISE = SIGN.replace("        return x.sign()\n", "        if mx.autograd.is_training():\n"
                              "            return mx.nd.relu(x)\n        return x * 0.5\n")


class TracedAutogradFunction(LintRule):
    CODE = "HY810"
    READS = frozenset({MXNET_IMPORTS})  # the names mx.autograd.Function is imported as
    NAME = "traced-autograd-function"
    FIX_TITLE = FIX_TITLE + "; any other Function: " + CUSTOM_OP_TITLE
    MESSAGE = "An `mx.autograd.Function` traced into a graph: hybridized training loses its backward, or fails"
    DOC = """
## What it does
Flags a call of an `mx.autograd.Function` subclass of the module, made on the spot inside a hybrid
context (`ShakeDrop(p)(x)`, `f = Sign()` then `f(x)`), whose `forward` works on a Symbol in predict
mode: only Symbol-compatible operators, or what a Symbol lacks (`mx.nd.*`, `x.shape`) only under
`if mx.autograd.is_training():`. Hybridized inference gives the eager output, training does not.
The Functions that fail hybridized in any mode are HY809's.

## Why is this bad?
After `hybridize()` the `forward` runs once, on Symbols, when the graph is traced, and the graph keeps
what that one run did. Measured on MXNet 1.9.1:
- the graph traced by a predict-mode call is the predict path: a later call under
  `autograd.record()` reuses it, so training runs the predict path of `forward` (a shake-shake or
  stochastic-depth regulariser becomes a constant mix) and never the custom `backward`;
- when the first hybridized call is recorded, `forward`'s training path runs on Symbols: `mx.nd.*`
  fails (`AssertionError: Argument data must have NDArray type, but got <Symbol ...>`, gluoncv2's
  `shakedropresnet20_cifar10` and `shakeshakeresnet20_2x16d_cifar10`), and a forward that does trace
  kills the process (segmentation fault): the custom backward is recorded on Symbol handles.

## Example
```python
class ShakeDrop(mx.autograd.Function):
    def forward(self, x):
        if mx.autograd.is_training():
            return mx.nd.random.uniform_like(x) * x
        return 0.5 * x

    def backward(self, dy):
        return dy

class Unit(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return ShakeDrop()(x) + x
```

## Use instead
```python
class Unit(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if autograd.is_training():  # HY806: a mode guard is traced once as well; keep the block eager
            ...                     # for training, or write the noise with F.random and F.BlockGrad
        return 0.5 * x + x
```
Write the forward with `F` operators (`F.random.uniform`, a custom gradient as
`x + F.BlockGrad(f(x) - x)`), or make it a registered `mx.operator.CustomOp`, which a graph can hold.

## Fix safety
A straight-through Function made on the spot, `Cls()(x)` (forward one `return f(v)`, backward
`return dy`), is inlined as `(F.BlockGrad(f(x)) + (x - F.BlockGrad(x)))`, HY809's rewrite: the same value
for finite `x`, the identity gradient, in the graph. Unsafe: for an infinite `x` the value is nan.
Any other Function becomes a registered custom operator, HY809's second rewrite (`_as_custom_op(F, fn,
x)` plus a helper added to the module): its forward then runs on NDArrays at every call, in the
call's training mode, and training uses its backward. Unsafe for HY809's reasons (its attributes must
be Python literals, the output shape must follow from the input shapes and its dtype be the input's).
"""
    VALID = [
        Valid(SIGN + FORWARD.format("        return F.sign(x)\n")),
        Valid(SIGN + "class N(Block):\n    def forward(self, x):\n        return Sign()(x)\n"),
        Valid(SCALED_SIGN + FORWARD.format("        return Sign()(x) * 2\n")),  # fails in any mode: HY809
        Valid(SIGN + IN_INIT.format("        return self.sign(x)\n")),  # one instance, called twice: HY809
    ]
    INVALID = [
        Invalid(SIGN + FORWARD.format("        return Sign()(x) * 2\n")),
        Invalid(TRAINING_NOISE + FORWARD.format("        return Sign()(x) + x\n")),
        Invalid(SIGN + FORWARD.format("        sign = Sign()\n        return sign(x)\n")),
        Invalid(SIGN + FORWARD.format("        return Sign()(x) * 2\n"),
                SIGN + FORWARD.format("        return (F.BlockGrad(x.sign()) + (x - F.BlockGrad(x))) * 2\n"), unsafe=True),
        Invalid(TRAINING_NOISE + FORWARD.format("        return Sign()(x) + x\n"),
                TRAINING_NOISE + helper_code(cst.Module([])) + "\n\n" +
                FORWARD.format("        return _as_custom_op(F, Sign(), x) + x\n"), unsafe=True),
    ]

    def __init__(self) -> None:
        self._calls = FunctionCalls()

    def visit_Call(self, node, ctx) -> None:
        call = self._calls.find(node, ctx)
        if call is None or call.stored or call.failure is not None and not call.failure.in_training:
            return  # fails hybridized in any mode: HY809
        training = (f"a recorded first call runs its training path on Symbols, where `{call.failure.code}` fails"
                    if call.failure is not None else
                    "a recorded first call crashes the process (its backward cannot be recorded on Symbols)")
        functions = self._calls.functions(ctx)
        rewrite = straight_through(node, call.cls, functions, ctx)
        fix = custom_op(node, call.cls, functions, ctx) if rewrite is None else \
            PendingFix(Applicability.UNSAFE, rewrite.title, [replace(node, rewrite.replacement)])
        ctx.report(node, f"{call.what}: hybridize() freezes one traced run of its forward", fix,
                   help=f"After hybridize() its forward runs once on Symbols, when the graph is traced, and the graph "
                        f"keeps that run: training after a predict call runs the predict path without its backward, "
                        f"and {training}; {instead(ctx.f_name)}")
