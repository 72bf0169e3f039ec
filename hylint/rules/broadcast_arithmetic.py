from typing import Optional

import libcst as cst

from hylint.analysis.callsites import calls_running, input_position
from hylint.analysis.values import Value, assumed_batch_axis, rank_source, shape_difference
from hylint.rule import BLOCK_CALLS, Fact, Invalid, LintRule, Reliance, Valid
from hylint.rules._binary import broadcast_fix, describe, tensor_pairs


def _batch_axis(parameter: Value, other: cst.BaseExpression, other_value: Value, rank: int, ctx) -> Optional[str]:
    """Why a parameter of rank ``rank`` and ``other`` (rank unknown) differ in shape, on the assumption that
    ``other`` has a batch axis, settled by the calls of the block the module shows where ``other`` has the
    rank of an input of the block: None when every such call passes that input with the parameter's rank."""
    assumption = (f"{parameter.shape.why}; if `{describe(other, ctx)}` has a batch axis (rank above {rank}), the "
                  f"shapes differ")
    hybrid = ctx.hybrid
    source = rank_source(other_value.shape)
    if hybrid is None or hybrid.is_helper or ctx.cls is None or source is None:
        return assumption
    position = input_position(hybrid.fn, ctx.cls, source)
    if position is None:
        return assumption
    known = [(call.ranks[position], call) for call in calls_running(hybrid.fn, ctx.module, ctx.module_info)
             if position < len(call.ranks) and call.ranks[position] is not None]
    differing = [(found, call) for found, call in known if found != rank]
    if differing:
        found, call = differing[0]
        had = "is" if describe(other, ctx) == source else f"has the rank of the input `{source}`, which is"
        return (f"{parameter.shape.why} (rank {rank}), while `{describe(other, ctx)}` {had} of rank {found} in "
                f"`{call.code}`")
    if known:
        return None
    return assumption


class BroadcastArithmetic(LintRule):
    CODE = "HY101"
    LOCAL_FIX = True
    READS = frozenset({BLOCK_CALLS})  # the calls of the block that may settle a parameter's missing batch axis
    NAME = "broadcast-arithmetic"
    MESSAGE = "Tensor operator relies on NDArray auto-broadcasting; after hybridize() it needs equal shapes"
    FIX_TITLE = "Use the explicit `F.broadcast_*` operator"
    DOC = """
## What it does
Flags `+ - * / % ** < <= > >= == !=` between two tensors inside `hybrid_forward` when there is
evidence that their shapes differ: a rank difference, or a size-1 axis made for broadcasting.

Evidence hylint tracks for each tensor of a hybrid context:
- `F.ones/zeros/full(shape)` with a literal shape: its rank and its size-1 axes; likewise
  `F.random.uniform/normal/randint(..., shape=...)` whose distribution arguments are Python numbers,
  and `repeat(repeats, axis)` of such a tensor (that axis made `repeats` times longer);
- reductions with `keepdims=True` (a size-1 axis); without an axis, shape `(1,)` (legacy MXNet has
  no 0-d arrays, so `x - x.mean()` is flagged); with a literal axis of a tensor of known rank, that
  rank minus the reduced axes;
- `expand_dims` (rank + 1, a size-1 axis), and each part of an `F.split` of it; `reshape` and
  `broadcast_to` with a literal shape; `F.dot` (the rank of its result);
- a `Dense(1)` child's output: (N, 1);
- a pool to size 1 (`F.contrib.AdaptiveAvgPooling2D(x, output_size=1)`, `F.Pooling(..., global_pool=True)`,
  `nn.GlobalAvgPool2D()`): size-1 spatial axes;
- results of shape-preserving ops (unary math, activations, normalisations, `identity`, ...) keep
  their input's shape (and are proven equal to it);
- parameters declared in `__init__` with `shape=` (their rank and sizes); two parameters whose shapes are the
  same expressions of the constructor's arguments are equal (a mask declared as `(out_channels, in_channels //
  groups, k[0], k[1])` in a class deriving from `nn.Conv2D` has the shape of the `weight` that Conv2D declares
  from the arguments of `super().__init__`);
- `nd.array` literals (their literal shape);
- in a helper called with F (`_attention(F, q, k)`, `self._step(F, x)`), each parameter carries
  the evidence of the argument passed at the (first) call.
A declared parameter against a tensor of unknown rank (a hand-written layer norm's `normed * gamma`, `gamma`
of shape `(C,)`) is reported on an assumption, which the help states: "if `normed` has a batch axis (rank
above 1)". That is not evidence: `w * x` with `shape=30` and `x` of shape (30,) hybridizes. The calls of the
block that the module shows settle it where the tensor has the rank of an input of the block (the input
itself, or what shape-preserving ops, keepdims reductions and broadcasts with them make of it): a call on an
NDArray literal (`net(mx.nd.ones(30))`, `Norm()(nd.array(...))`, `nd.random.uniform(shape=(2, 5, 4))`, or a
name bound to one in the same scope), or a child block's call in hybrid code whose input rank the analysis
knows. Every such call with the parameter's rank: not reported; one with another rank: reported as a fact,
naming the call. Calls in other modules (scripts, tests) are not read.
Operands with equal or unknown shapes (the residual `x + self.body(x)`) are not flagged here:
HY102 (retired: false on real code) flagged every tensor-tensor operator whose shapes were not proven equal.

## Why is this bad?
Eagerly, NDArray operators broadcast (`(2, 3) + (1, 3)` works). After `hybridize()` the same
operator is the elementwise Symbol op (`_plus`), which requires identical shapes: the first call
fails in shape inference with `MXNetError: ... Incompatible attr in node ..._plus0 at 1-th input:
expected [2,3], got [1,3]`.

## Example
```python
def hybrid_forward(self, F, x):
    return x - x.mean(axis=1, keepdims=True)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))
```

## Fix safety
Safe when both operands are proven tensors (an operator's result, a declared Parameter, the input of
a built-in layer, an argument the code uses as a tensor): NDArray's operators already call the
`broadcast_*` kernels, so the rewrite computes the same values eagerly, and hybridized it is the
operator that accepts different shapes. Unsafe when an operand is a tensor by assumption only (an
argument used nowhere as one, or only as a Python number allows: `1 - lam`): `F.broadcast_mul(0.3, x)`
raises where `0.3 * x` works. Unsafe, too, when the report rests on the assumption of a batch axis that the
analysis does not prove (the rewrite computes the same values, but the code it rewrites may hybridize as
written). Chained comparisons (`a < b < c`) are reported without a fix.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.score = nn.Dense(1)\n\n"
              "    def hybrid_forward(self, F, x, y):\n        return self.score(x) - self.score(y)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + 1\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return 2.0 * x - x / 3\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + self.body(x)\n"),
        # the module calls the block on a vector: `w * x` needs no broadcast (measured: it hybridizes)
        Valid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.w = self.params.get('w', shape=30)\n\n"
              "    def hybrid_forward(self, F, x, w):\n        return w * x\n\n\n"
              "def demo():\n    net = N()\n    net.initialize()\n    return net(mx.nd.ones(30))\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return x * y\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.ones((2, 3))\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * np.float32(2) + F.relu(x)\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x + nd.ones((1, 1))\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        m = x.mean(axis=1, keepdims=True)\n        return m + x.max(axis=1, keepdims=True)\n"),
        # a keepdims mean of an image and an explicit-shape draw repeated to the same (N, 3, 1, 1)
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, img):\n"
              "        noise = F.random.normal(scale=0.1, shape=(2, 1, 1, 1)).repeat(repeats=3, axis=1)\n"
              "        gain = F.random.uniform(*self.gains, shape=(2, 3, 1, 1))\n"
              "        return (F.mean(img, keepdims=True, axis=(2, 3)) + noise) * gain\n"),
    ]
    INVALID = [
        # a `Dense(1)` head gives (N, 1) (issue 43; measured on MXNet 1.9.1: eager (2, 4), hybridized
        # "Error in operator ..._mul0")
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.score = nn.Dense(1)\n        self.proj = nn.Dense(4)\n\n"
                "    def hybrid_forward(self, F, x):\n        return self.proj(x) * F.sigmoid(self.score(x))\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.score = nn.Dense(1)\n        self.proj = nn.Dense(4)\n\n"
                "    def hybrid_forward(self, F, x):\n        return F.broadcast_mul(self.proj(x), F.sigmoid(self.score(x)))\n"),
        # `x` is a tensor by assumption only (a Python number works eagerly with `+`): unsafe
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.ones((1, 1))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_add(x, F.ones((1, 1)))\n",
                unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.random.normal(shape=(1, 3))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                "        return F.broadcast_add(x, F.random.normal(shape=(1, 3)))\n", unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x) + F.ones((1, 1))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_add(F.relu(x), F.ones((1, 1)))\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x - x.mean(axis=1, keepdims=True)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, G, x):\n        y = G.expand_dims(x.sum(axis=0), axis=0)\n        return x / y\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, G, x):\n        y = G.expand_dims(x.sum(axis=0), axis=0)\n        return G.broadcast_div(x, y)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * F.ones((1, 3)) + F.zeros((1, 1))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_add(F.broadcast_mul(x, F.ones((1, 3))), F.zeros((1, 1)))\n",
                unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x / F.abs(x).sum()\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_div(x, F.abs(x).sum())\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x > F.full((1, 3), 0.5)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.broadcast_greater(x, F.full((1, 3), 0.5))\n",
                unsafe=True),
        # gluoncv's mixup loss: `lam` is used only as a Python number allows (`1 - lam`), and mixup passes a
        # float: `F.broadcast_mul(0.3, x)` raises eagerly (MXNet 1.9.1), so the fix is unsafe
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, lam):\n"
                "        y = F.sum(x, axis=1, keepdims=True)\n        return (1 - lam) * y\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, lam):\n"
                "        y = F.sum(x, axis=1, keepdims=True)\n        return F.broadcast_mul((1 - lam), y)\n",
                unsafe=True),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.bias = self.params.get('bias', shape=(3,))\n\n"
                "    def hybrid_forward(self, F, x, bias):\n        h = x.reshape((-1, 3))\n        return h + bias\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.bias = self.params.get('bias', shape=(3,))\n\n"
                "    def hybrid_forward(self, F, x, bias):\n        h = x.reshape((-1, 3))\n"
                "        return F.broadcast_add(h, bias)\n"),
        # gluonts' GMMModel: log|det| of a (K, D, D) parameter is (K,), the score (B, K) (measured on MXNet
        # 1.9.1: eager (5, 3), hybridized "Incompatible attr in node ..._plus0 at 1-th input: expected [5,3],
        # got [3]")
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.k = self.params.get('k', shape=(3, 2, 2))\n\n"
                "    def hybrid_forward(self, F, x, k):\n        kx = F.batch_dot(k, k).expand_dims(0)\n"
                "        score = kx.sum(axis=-1).sum(axis=-1)\n        return score + F.linalg.slogdet(k)[1]\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.k = self.params.get('k', shape=(3, 2, 2))\n\n"
                "    def hybrid_forward(self, F, x, k):\n        kx = F.batch_dot(k, k).expand_dims(0)\n"
                "        score = kx.sum(axis=-1).sum(axis=-1)\n"
                "        return F.broadcast_add(score, F.linalg.slogdet(k)[1])\n"),
        # a hand-written layer norm: `gamma` of shape (C,) against `normed` of unknown rank is reported on
        # the assumption of a batch axis (measured on MXNet 1.9.1 on (2, 5, 4): eager fine, hybridized
        # "Incompatible attr in node ..._mul0"), and its fix is unsafe, since the assumption may be false
        Invalid("class N(HybridBlock):\n    def __init__(self, units=4):\n        super().__init__()\n"
                "        self.gamma = self.params.get('gamma', shape=(units,))\n\n"
                "    def hybrid_forward(self, F, x, gamma):\n"
                "        normed = F.broadcast_sub(x, F.mean(x, axis=-1, keepdims=True))\n        return normed * gamma\n",
                "class N(HybridBlock):\n    def __init__(self, units=4):\n        super().__init__()\n"
                "        self.gamma = self.params.get('gamma', shape=(units,))\n\n"
                "    def hybrid_forward(self, F, x, gamma):\n"
                "        normed = F.broadcast_sub(x, F.mean(x, axis=-1, keepdims=True))\n"
                "        return F.broadcast_mul(normed, gamma)\n",
                unsafe=True),
    ]

    def _check(self, node, ctx) -> None:
        for symbol, left, right, lv, rv in tensor_pairs(node, ctx):
            why = shape_difference(lv.shape, rv.shape)
            fix = broadcast_fix(node, ctx)
            if why is None:
                assumed = assumed_batch_axis(lv.shape, rv.shape)
                if assumed is None:
                    continue
                position, rank = assumed
                parameter, other, other_value = (lv, right, rv) if position == 0 else (rv, left, lv)
                why = _batch_axis(parameter, other, other_value, rank, ctx)
                if why is None:
                    continue  # the module calls the block only with inputs of the parameter's rank
                if fix is not None:
                    fix.relies_on.append(Reliance(other, Fact.RANK_ABOVE, rank, otherwise=(
                        f"with rank {rank} the operator needs no broadcast and the code hybridizes as written")))
            message = f"`{describe(left, ctx)} {symbol} {describe(right, ctx)}` fails after hybridize(): shapes differ"
            ctx.report(node, message, fix, help=f"{why}; NDArray broadcasts, but after "
                                                f"hybridize() `{symbol}` needs equal shapes and fails in shape inference")
            return

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:
        self._check(node, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:
        self._check(node, ctx)
