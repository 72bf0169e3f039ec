import libcst as cst

from hylint.analysis.values import Kind
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import describe
from hylint.rules._subscript import (is_assignment_target, is_whole_slice, subscript_fix, subscript_instead,
                                     what_happens)

# `x = F.relu(x)` proves `x` a tensor: only then is a fix safe (an argument used nowhere else may be a list)
CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        x = F.relu(x)\n        return {}\n"


class TensorSubscript(LintRule):
    CODE = "HY301"
    LOCAL_FIX = True
    NAME = "tensor-subscript"
    MESSAGE = "Subscript on a tensor: after hybridize() `[]` selects graph outputs, not rows"
    FIX_TITLE = "Use `F.slice_axis` / `F.slice` (and `F.squeeze` for an integer index)"
    DOC = """
## What it does
Flags subscripts on a tensor inside a hybrid context: `x[0]`, `x[-1]`, `x[1:3]`, `x[:, 0]`, `x[::2]`,
`x[0, 1]`, `x[..., 0]`. A value counts as a tensor when it is the result of an `F.` operator or of
arithmetic on tensors, or a `hybrid_forward` argument that the body uses as a tensor (or the first
data argument, when nothing suggests it is a list). Arguments whose kind is unknown are not flagged
(HY302 flagged them and was retired: on real code they were Python sequences). Not flagged: `x[:]`, output selection on multi-output results (`F.split(x, 2)[1]`),
Python sequences (`args[0]`, `states[0]`).

## Why is this bad?
On a Symbol, `[]` selects graph outputs. `x[0]` on a one-output Symbol returns `x` itself: no error,
and the result silently keeps the axis the eager code dropped. `x[::2]` silently returns `x`;
`x[1]`, `x[1:3]` raise `IndexError`; `x[-1]` raises `MXNetError`; `x[:, 0]` raises `TypeError`.

## Example
```python
def hybrid_forward(self, F, x):
    return x[0] + x[:, 1:3].sum()
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0) + \\
        F.slice_axis(x, axis=1, begin=1, end=3).sum()
```

## Fix safety
Safe for literal indices and slices on a value proven to be a tensor (measured on MXNet 1.9.1, see
docs/fixing.md); unsafe on an argument that is a tensor only by assumption (used nowhere as one: it may
be a Python list of tensors, which the rewrite would break eagerly):
- an integer index (`x[0]`, `x[-1]`, `x[:, 2]`) becomes `F.squeeze(F.slice_axis(...), axis=...)`: exact
  (legacy NDArray has no 0-d arrays, `squeeze` never goes below shape `(1,)`), and it fails where the
  index is out of range. Never `F.slice_axis` alone: it keeps the axis (mxnet-truth §1.4);
- a slice (`x[:2]`, `x[-2:]`, `x[::2]`, `x[::-1]`) becomes `F.slice(x, begin=..., end=..., step=...)`,
  which clamps out-of-range bounds as NDArray's `[]` does. A slice that can be empty on a short axis
  (`x[1:3]`, `x[1:]`, `x[:-1]` on one row) is unsafe unless the axis size is known: NDArray returns an
  empty array there, while `F.slice` to an empty result fails (MXNet 1.9.1: `Check failed: delay_alloc`).
  `F.slice_axis` is not used for slices: it refuses `x[1:10]` or `x[3:]` on three rows, which work eagerly;
- several indexed axes (`x[0, 1]`, `x[0, 1:]`) become one `F.slice` plus `F.squeeze` over the
  integer-indexed axes (an out-of-range index still fails, in the squeeze).
Unsafe when an index or bound is a Python variable (`x[i]`, `x[:, :n]`): `end=i + 1` is wrong for
`i == -1`, and the value could be a tuple. Ellipsis, `None`, tensor indices and literal slices that
always raise eagerly (`x[2:1]`) are reported without a fix.
"""
    VALID = [
        Valid(CLS.format("x[:]")),
        # PyTorch's `x.size()`: on an NDArray `size` is an int, so the call fails eagerly: no tensor to slice
        Valid(CLS.format("F.relu(x).size()[2]")),
        Valid(CLS.format("F.split(x, 2)[1]")),
        Valid(CLS.format("F.split(x, num_outputs=3)[1:]")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        return x + args[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n        return x + states[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, out_size=(2, 2)):\n"
              "        return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a = np.arange(4)\n        return x * a[0]\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a, b = F.split(x, 2)\n        return a + b\n"),
    ]
    INVALID = [
        Invalid(CLS.format("x[0]"), CLS.format("F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)")),
        Invalid(CLS.format("x[-1]"), CLS.format("F.squeeze(F.slice_axis(x, axis=0, begin=-1, end=None), axis=0)")),
        Invalid(CLS.format("x[:, 0]"), CLS.format("F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)")),
        Invalid(CLS.format("x[1:3]"), CLS.format("F.slice(x, begin=(1,), end=(3,))"), unsafe=True),
        Invalid(CLS.format("x[:, 1:3]"), CLS.format("F.slice(x, begin=(None, 1), end=(None, 3))"), unsafe=True),
        Invalid(CLS.format("x[1:]"), CLS.format("F.slice(x, begin=(1,), end=(None,))"), unsafe=True),
        # a slice from the start is never empty: exact
        Invalid(CLS.format("x[:2]"), CLS.format("F.slice(x, begin=(None,), end=(2,))")),
        Invalid(CLS.format("x[-2:]"), CLS.format("F.slice(x, begin=(-2,), end=(None,))")),
        Invalid(CLS.format("x[::2]"), CLS.format("F.slice(x, begin=(None,), end=(None,), step=(2,))")),
        Invalid(CLS.format("x[::-1]"), CLS.format("F.slice(x, begin=(None,), end=(None,), step=(-1,))")),
        Invalid(CLS.format("x[0, 1]"), CLS.format("F.squeeze(F.slice(x, begin=(0, 1), end=(1, 2)), axis=(0, 1))")),
        Invalid(CLS.format("x[0, -1:]"), CLS.format("F.squeeze(F.slice(x, begin=(0, -1), end=(1, None)), axis=0)")),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        for i in range(3):\n"
                "            x = x + x[i]\n        return x\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        for i in range(3):\n"
                "            x = x + F.squeeze(F.slice_axis(x, axis=0, begin=i, end=i + 1), axis=0)\n        return x\n",
                unsafe=True),
        Invalid(CLS.format("x[2:1]")),
        Invalid(CLS.format("x[..., 0]")),
        # the first argument is a tensor by assumption only (it could be a list of feature maps): unsafe
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return self.head(x[-1])\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                "        return self.head(F.squeeze(F.slice_axis(x, axis=0, begin=-1, end=None), axis=0))\n",
                unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        h = F.relu(x)\n        return h[0]\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        h = F.relu(x)\n"
                "        return F.squeeze(F.slice_axis(h, axis=0, begin=0, end=1), axis=0)\n"),
    ]

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:
        value = ctx.value(node.value)
        if value.kind is not Kind.TENSOR or not value.certain:
            return
        if is_whole_slice(node) or is_assignment_target(node, ctx):
            return
        name = ctx.code(node.value).strip()
        ctx.report(node, f"`{describe(node, ctx)}` indexes graph outputs after hybridize(), not rows of `{name}`",
                   subscript_fix(node, ctx), instead=subscript_instead(name, ctx.f_name),
                   help=f"After hybridize() `{name}` is a Symbol and `{ctx.code(node).strip()}` "
                        f"{what_happens(node, name)}")
