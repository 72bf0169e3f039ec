import libcst as cst

from hylint.analysis.values import Kind
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._binary import describe
from hylint.rules._subscript import (is_assignment_target, is_whole_slice, subscript_fix, subscript_instead,
                                     what_happens)


class SubscriptOnUnprovenTensor(LintRule):
    CODE = "HY302"
    LOCAL_FIX = True
    NAME = "subscript-on-unproven-tensor"
    MESSAGE = "Subscript on a value that may be a tensor"
    FIX_TITLE = "Use `F.slice_axis` / `F.slice` (and `F.squeeze` for an integer index)"
    DEFAULT_ENABLED = False
    DOC = """
## What it does
Off by default. Flags subscripts on values that may be tensors but that hylint cannot prove are:
`hybrid_forward` arguments after the first that the body never uses as a tensor, and results of
child blocks indexed on several axes (`self.blk(x)[:, 0]`). Not flagged: a child's result indexed by
one integer (`self.blk(x)[0]`: most often one of the outputs it returns), the result of a block class
of the module whose `hybrid_forward` returns a Python list (`outs.append(...)`, `return outs`), a later
argument rebound to its own element (`x_len = x_len[0]`: it packs several values), and the parts of
Python lists (`fwd, bwd = states`, then `fwd[0]`: nested states are lists as often as tensors).

## Why is this bad?
If the value is a tensor, `[]` selects graph outputs after `hybridize()` (see HY301): `v[0]`
silently returns all of `v`. If it is a Python list or tuple, the subscript is fine, which is why
this rule is opt-in: about all of the `param[int]` sites in real Gluon code index lists of states.

## Example
```python
def hybrid_forward(self, F, x, mask):
    return x * mask[0]
```

## Use instead
```python
def hybrid_forward(self, F, x, mask):
    return x * F.squeeze(F.slice_axis(mask, axis=0, begin=0, end=1), axis=0)
```

## Fix safety
As HY301, but always unsafe: the value may be a Python sequence, for which the rewrite is wrong.
"""
    VALID = [
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n        return x + states[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        return x + args[0]\n"),
        # a child's output indexed by one integer: most often one of the outputs it returns
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return self.body(x)[0]\n"),
        # parts of a list of states are lists themselves as often as tensors
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n"
              "        fwd, bwd = states\n        return x + fwd[0]\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask):\n        return x * mask[0]\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask):\n"
                "        return x * F.squeeze(F.slice_axis(mask, axis=0, begin=0, end=1), axis=0)\n", unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return self.body(x)[:, 0]\n"),
    ]

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:
        value = ctx.value(node.value)
        if not (value.kind is Kind.TENSOR and not value.certain or value.kind is Kind.CHILD):
            return
        if value.assumed:
            return  # a part of a Python list: most often a list itself (nested states), or a tensor
        if value.kind is Kind.CHILD and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            return  # `out[0]` on a child's output: most often selecting one of the outputs it returns
        if is_whole_slice(node) or is_assignment_target(node, ctx):
            return
        name = ctx.code(node.value).strip()
        fix = subscript_fix(node, ctx)
        if fix is not None:
            from hylint.diagnostic import Applicability
            fix.applicability = Applicability.UNSAFE
        ctx.report(node, f"`{describe(node, ctx)}`: if `{name}` is a tensor, this indexes graph outputs after hybridize()",
                   fix, instead=subscript_instead(name, ctx.f_name),
                   help=f"If `{name}` is a tensor, after hybridize() `{ctx.code(node).strip()}` {what_happens(node, name)}")
