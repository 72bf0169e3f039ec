from typing import Optional

import libcst as cst

from hylint.analysis.module import BLOCK_BASE_NAMES, is_hybrid_class
from hylint.syntax.nodes import dotted_name
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace

GLUON_PREFIXES = ("nn.", "gluon.", "gluon.nn.", "mx.gluon.", "mx.gluon.nn.", "mxnet.gluon.", "mxnet.gluon.nn.")


def _plain_bases(cls, classes, seen=None) -> bool:
    """True when every base is known and none is hybrid (object, Block, Sequential, module classes)."""
    seen = seen or set()
    for base in cls.base_names:
        if base in BLOCK_BASE_NAMES or base == "object":
            continue
        if base in classes and base not in seen:
            seen.add(base)
            if is_hybrid_class(classes[base], classes) or not _plain_bases(classes[base], classes, seen):
                return False
            continue
        return False
    return True


class HybridForwardInPlainBlock(LintRule):
    CODE = "HY704"
    NAME = "hybrid-forward-in-plain-block"
    MESSAGE = "`hybrid_forward` in a class that is not a HybridBlock is never called"
    FIX_TITLE = "Derive from HybridBlock"
    HYBRID_ONLY = False
    METHODS = ("hybrid_forward",)  # ctx.cls.methods["hybrid_forward"] is the node, or nothing is reported
    DOC = """
## What it does
Flags `def hybrid_forward(self, F, ...)` in a class whose bases are all known and none is a
HybridBlock (`Block`, `nn.Block`, `nn.Sequential`, `object`, or module classes deriving from
those), when the class does not define `forward` itself.

## Why is this bad?
Only `HybridBlock.forward` calls `hybrid_forward`. On a `Block`, calling the block runs
`Block.forward`, which raises `NotImplementedError`, and `hybridize()` is a silent no-op for the
block itself.

## Example
```python
class Scale(nn.Block):
    def hybrid_forward(self, F, x):
        return x * 2
```

## Use instead
```python
class Scale(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 2
```

## Fix safety
Unsafe, for a base spelled `<gluon module>.Block` (`nn.Block` -> `nn.HybridBlock`): the block
then really runs hybridized, where NDArray-only code in `hybrid_forward` fails. A bare `Block`
base is reported without a fix (HybridBlock may not be imported).
"""
    VALID = [
        Valid("class N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2\n"),
        Valid("class N(MyBase):\n    def hybrid_forward(self, F, x):\n        return x * 2\n"),
        Valid("class N(nn.Block):\n    def forward(self, x):\n        return self.hybrid_forward(nd, x)\n\n"
              "    def hybrid_forward(self, F, x):\n        return x * 2\n"),
    ]
    INVALID = [
        Invalid("class N(nn.Block):\n    def hybrid_forward(self, F, x):\n        return x * 2\n",
                "class N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2\n", unsafe=True),
        Invalid("class N(Block):\n    def hybrid_forward(self, F, x):\n        return x * 2\n"),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        cls = ctx.cls
        if node.name.value != "hybrid_forward" or cls is None or cls.methods.get("hybrid_forward") is not node:
            return
        if not cls.base_names or "forward" in cls.methods or not _plain_bases(cls, ctx.module_info.classes):
            return
        if not any(base in BLOCK_BASE_NAMES for base in _all_bases(cls, ctx.module_info.classes)):
            return
        ctx.report(node.name, f"`{cls.name}` is not a HybridBlock: nothing calls its hybrid_forward", self._fix(cls),
                   help="Calling the block raises NotImplementedError and hybridize() does nothing; derive it from "
                        "HybridBlock, or rename the method to forward(self, x)")

    def _fix(self, cls) -> Optional[PendingFix]:
        if len(cls.node.bases) != 1:
            return None
        base = cls.node.bases[0].value
        name = dotted_name(base) or ""
        if not isinstance(base, cst.Attribute) or base.attr.value != "Block" or not name.startswith(GLUON_PREFIXES):
            return None
        return PendingFix(Applicability.UNSAFE, self.FIX_TITLE, [replace(base.attr, cst.Name("HybridBlock"))])


def _all_bases(cls, classes, seen=None):
    seen = seen or set()
    for base in cls.base_names:
        yield base
        if base in classes and base not in seen:
            seen.add(base)
            yield from _all_bases(classes[base], classes, seen)
