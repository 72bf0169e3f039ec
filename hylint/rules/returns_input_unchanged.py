import libcst as cst

from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call
from hylint.rule import Invalid, LintRule, PendingFix, Valid, block_constructions, replace
from hylint.rules._hazards import ADDING_METHODS, CLS, child_only
from hylint.syntax.nodes import bound_names
from hylint.syntax.walk import walk


class ReturnsInputUnchanged(LintRule):
    CODE = "HY908"
    READS = frozenset({block_constructions(ADDING_METHODS)})  # child-only classes
    NAME = "returns-input-unchanged"
    MESSAGE = "hybrid_forward returns an input unchanged: the hybridized block cannot be back-propagated"
    # off by default: on real code every block flagged was a building block used as a child (see DOC)
    DEFAULT_ENABLED = False
    FIX_TITLE = "Return `F.identity(x)`"
    DOC = """
## What it does
Flags, in `hybrid_forward`, a returned name (or element of a returned tuple/list) that is a tensor
argument never reassigned in the body: `return x`, `return y, x * 2`. Not flagged: a class that the
module builds only as a child of other blocks (`self.x = Cls(...)`, `.add(Cls(...))`,
`register_child(Cls(...))`, or any construction inside a block's method); one built anywhere else
(a model factory, module level) may be the outermost block.

Opt-in: the hazard exists only when the block is the outermost hybridized graph, which a file
rarely shows. On the PyPI corpus (gluoncv, gluonnlp, mxnet) and gluoncv2 every block it flagged was
a building block used as a child (stages that pass a second input through, `Identity` layers), so a
default-on rule would only cry wolf there.

## Why is this bad?
Hybridized as the outermost block, the graph output is then the graph input itself. The forward pass
works, but measured on MXNet 1.9.1 (a block returning `self.dense(x), x0`):
- `backward()` with that output as a head fails (`Check failed: !AGInfo::IsNone(*i): Cannot
  differentiate node because it is not in a computational graph`), whether or not `x0` is a leaf
  with a gradient or was computed under `autograd.record()`;
- used further (`(y * x0_out).sum().backward()`), the gradient of `x0` is silently 0 (eagerly it is
  the true gradient);
- backward through the other outputs only works.
The same block as a child of a hybridized parent that uses the passed-through value works in both
modes, and so does a hybridized child of a plain `Block`. A parent that returns the child's
pass-through output (its own input) fails like an outermost block. Eagerly everything works.

## Example
```python
def hybrid_forward(self, F, x, mask):
    return x * mask, mask
```

## Use instead
```python
def hybrid_forward(self, F, x, mask):
    return x * mask, F.identity(mask)
```

## Fix safety
Safe: `F.identity` returns the same values and passes the gradient through unchanged; the output is
a new array instead of the caller's own (only in-place writes to the output could tell).
"""
    VALID = [
        Valid(CLS.format("        return F.identity(x)\n")),
        Valid(CLS.format("        x = x * 2\n        return x\n")),
        Valid(CLS.format("        if F is nd:\n            return x\n        return F.identity(x)\n")),
        Valid("def _helper(F, x):\n    return x\n\n\n" + CLS.format("        return _helper(F, x) * 2\n")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, scale=2.0):\n        return x * scale, scale\n"),
        Valid(CLS.format("        return x\n") + "\n\nclass Net(HybridBlock):\n    def __init__(self):\n"
              "        super().__init__()\n        self.body = N()\n\n    def hybrid_forward(self, F, x):\n"
              "        return self.body(x) * 2\n"),
        Valid(CLS.format("        return x\n") + "\n\nseq = nn.HybridSequential()\nseq.add(nn.Dense(2), N())\n"),
    ]
    INVALID = [
        Invalid(CLS.format("        return x\n"), CLS.format("        return F.identity(x)\n")),
        Invalid(CLS.format("        return x\n") + "\n\ndef get_model():\n    return N()\n",
                CLS.format("        return F.identity(x)\n") + "\n\ndef get_model():\n    return N()\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask):\n        return x * mask, mask\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x, mask):\n        return x * mask, F.identity(mask)\n"),
    ]

    def visit_Return(self, node: cst.Return, ctx) -> None:
        hybrid = ctx.hybrid
        if hybrid.is_helper or ctx.function is not hybrid.fn or node.value is None:
            return
        if ctx.cls is not None and ctx.cls.name in child_only(ctx):
            return
        elements = [e.value for e in node.value.elements] if isinstance(node.value, (cst.Tuple, cst.List)) \
            else [node.value]
        rebound = None
        for element in elements:
            if not isinstance(element, cst.Name) or element.value not in hybrid.params:
                continue
            if hybrid.params[element.value].kind is not Kind.TENSOR:
                continue
            if rebound is None:
                rebound = bound_names(hybrid.fn)
            if element.value in rebound:
                continue
            ctx.report(element, f"`{element.value}` is returned unchanged: return {ctx.f_name}.identity({element.value})",
                       fix=PendingFix(Applicability.SAFE, f"Return `{ctx.f_name}.identity({element.value})`",
                                      [replace(element, f_call(ctx.f_name, "identity", [element]))]),
                       help="Hybridized, the graph output is its input and backward() through the block fails")
