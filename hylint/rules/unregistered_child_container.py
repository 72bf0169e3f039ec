import libcst as cst

from hylint.syntax.nodes import dotted_name
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import block_constructor, is_block_class, self_attr
from hylint.syntax.walk import walk

INIT = "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n{}\n    def hybrid_forward(self, F, x):\n        return x * 2\n"


def _builds_block(node: cst.CSTNode, classes) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if block_constructor(dotted_name(call.func) or "", classes) is not None:
                found.append(call)

    walk(node, _Find())
    return bool(found)


def _registers_elements(fn: cst.FunctionDef, attr: str) -> bool:
    """Whether ``fn`` registers the elements of ``self.<attr>`` itself: ``self.register_child(...)`` on an
    element (``self.<attr>[i]``) or on the variable of a loop over ``self.<attr>``."""
    container = f"self.{attr}"
    registered, loops = [], {}

    class _Find(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            iterated = dotted_name(node.iter) or ""
            if isinstance(node.iter, cst.Call) and node.iter.args:  # enumerate(self.x), zip(self.x, ...)
                iterated = " ".join(dotted_name(a.value) or "" for a in node.iter.args)
            if container in iterated.split():
                targets = [e.value for e in node.target.elements] if isinstance(node.target, cst.Tuple) \
                    else [node.target]
                for target in targets:
                    if isinstance(target, cst.Name):
                        loops[target.value] = True

        def visit_Call(self, node: cst.Call) -> None:
            if dotted_name(node.func) == "self.register_child" and node.args:
                registered.append(node.args[0].value)

    walk(fn, _Find())
    for value in registered:
        base = value.value if isinstance(value, cst.Subscript) else value
        if dotted_name(base) == container or (isinstance(value, cst.Name) and value.value in loops):
            return True
    return False


_NOT_REGISTERED = ("Their parameters are never initialized, and hybridize() fails with "
                   "'Unknown input to HybridBlock'; use "
                   "nn.HybridSequential or register_child")


class UnregisteredChildContainer(LintRule):
    CODE = "HY702"
    NAME = "unregistered-child-container"
    MESSAGE = "Child blocks kept in a Python list or dict are never registered"
    HYBRID_ONLY = False
    METHODS = ("__init__",)  # ctx.cls.methods["__init__"] is ctx.function, or nothing is reported
    DOC = """
## What it does
Flags, in `__init__` of a Block, an attribute that holds blocks in a Python container:
`self.layers = [nn.Dense(4), nn.Dense(4)]`, a list comprehension or dict of blocks, or
`self.layers = []` followed by `self.layers.append(nn.Dense(4))`. Not reported when the same
`__init__` passes the container's elements to `self.register_child(...)` (`self.layers[-1]`,
`self.layers[i]`, or the variable of a loop over `self.layers`).

## Why is this bad?
Gluon registers a child only when a Block is assigned to an attribute (or passed to
`register_child`). Blocks inside a list, tuple or dict are invisible to `collect_params()`:
`initialize()` warns and skips them, eagerly the first call raises `Parameter ... has not been
initialized`, and even when they are initialized by hand, `hybridize()` fails with
`AssertionError: Unknown input to HybridBlock: <param>`.

## Example
```python
def __init__(self):
    super().__init__()
    self.layers = [nn.Dense(4) for _ in range(3)]
```

## Use instead
```python
def __init__(self):
    super().__init__()
    self.layers = nn.HybridSequential()
    for _ in range(3):
        self.layers.add(nn.Dense(4))
```
(or `self.register_child(layer)` for each, or one attribute per child).

## Fix safety
No fix: the container is iterated or indexed elsewhere, which the rewrite must follow.
"""
    VALID = [
        Valid(INIT.format("        self.layers = nn.HybridSequential()\n        self.layers.add(nn.Dense(4))\n")),
        Valid(INIT.format("        self.sizes = [4, 8]\n        self.names = {'a': 1}\n")),
        Valid(INIT.format("        self.layers = []\n        for i in range(2):\n            layer = nn.Dense(4)\n"
                          "            self.register_child(layer)\n            self.layers.append(layer)\n")),
        Valid("def make():\n    return [nn.Dense(4), nn.Dense(4)]\n"),
        Valid(INIT.format("        self.proj = [nn.Dense(d) for d in (2, 3)]\n        for dense in self.proj:\n"
                          "            self.register_child(dense)\n")),
        Valid(INIT.format("        self.heads = [nn.Dense(2), nn.Dense(3)]\n        for i in range(2):\n"
                          "            self.register_child(self.heads[i], 'head%d' % i)\n")),
        Valid(INIT.format("        self.layers = []\n        for i in range(2):\n            self.layers.append(nn.Dense(4))\n"
                          "            self.register_child(self.layers[-1])\n")),
    ]
    INVALID = [
        Invalid(INIT.format("        self.layers = [nn.Dense(4), nn.Dense(4)]\n")),
        Invalid(INIT.format("        self.layers = [nn.Dense(4) for _ in range(3)]\n")),
        Invalid(INIT.format("        self.heads = {'a': nn.Dense(2), 'b': nn.Dense(3)}\n")),
        Invalid(INIT.format("        self.proj = [nn.Dense(d) for d in (2, 3)]\n        for dense in self.other:\n"
                            "            self.register_child(dense)\n")),
        Invalid(INIT.format("        self.layers = []\n        for i in range(2):\n            self.layers.append(nn.Dense(4))\n")),
        Invalid(INIT.format("        self.layers = []\n        self.other = []\n        self.layers.append(nn.Dense(4))\n"
                            "        self.other.append(nn.Dense(4))\n        self.register_child(self.other[-1])\n")),
    ]

    def _in_init(self, ctx) -> bool:
        fn = ctx.function
        return (fn is not None and fn.name.value == "__init__" and ctx.cls is not None
                and ctx.cls.methods.get("__init__") is fn and is_block_class(ctx.cls, ctx.module_info.classes))

    def visit_Assign(self, node: cst.Assign, ctx) -> None:
        if not self._in_init(ctx) or len(node.targets) != 1:
            return
        attr = self_attr(node.targets[0].target)
        if attr is None or not isinstance(node.value, (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp)):
            return
        if _builds_block(node.value, ctx.module_info.classes) and not _registers_elements(ctx.function, attr):
            ctx.report(node, f"`self.{attr}` holds blocks in a Python {type(node.value).__name__.lower().replace('comp', '')}: "
                             f"they are not registered children",
                       help=_NOT_REGISTERED)

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not self._in_init(ctx) or not isinstance(node.func, cst.Attribute):
            return
        if node.func.attr.value not in ("append", "extend", "insert") and not \
                (node.func.attr.value == "__setitem__"):
            return
        attr = self_attr(node.func.value)
        if attr is None or not node.args:
            return
        if any(_builds_block(a.value, ctx.module_info.classes) for a in node.args) and \
                not _registers_elements(ctx.function, attr):
            ctx.report(node, f"`self.{attr}.{node.func.attr.value}(<block>)`: blocks in a Python list are not "
                             f"registered children", help=_NOT_REGISTERED)
