from typing import Optional

import libcst as cst

from hylint.syntax.nodes import dotted_name, keyword_value, literal_int
from hylint.analysis.values import Kind
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call, int_node, tuple_node
from hylint.analysis.ops import NDARRAY_ONLY_ATTRS
from hylint.facts.attributes import write_instead
from hylint.rule import Fact, Invalid, LintRule, MXNET_IMPORTS, PendingFix, Reliance, Valid, replace
from hylint.repairs.eager_guard import eager_guard, enclosing_assert
from hylint.repairs.group_norm import group_norm_fix
from hylint.repairs.parity_pad import parity_pad_fix
from hylint.repairs.resize_like import resize_like_fix
from hylint.repairs.space_to_depth import space_to_depth_fix
from hylint.repairs.repeat_like import repeat_like_fix
from hylint.repairs.reshape_prefix import reshape_prefix_fix
from hylint.rules._shape_instead import instead
from hylint.syntax.walk import iter_nodes

# an assert on a size in a hybrid function whose module imports `nd` (and whose F is named G)
GUARDED = ("from mxnet import nd\n\n\nclass N(HybridBlock):\n    def hybrid_forward(self, G, y):\n"
           "        {}\n        return G.relu(y) if G is nd else G.sigmoid(y)\n")
# a block resizing to the size it is given (its call is rewritten as a `like` resize)
RESIZER = ("class Fit(HybridBlock):\n    def hybrid_forward(self, G, t, out=None):\n"
           "        return G.contrib.BilinearResize2D(t, height=out[0], width=out[1], align_corners=True)\n\n\n")
# what to write instead of the attributes other than `shape` (whose suggestion depends on where it is used)
WHAT_HAPPENS = {
    "T": "raises AttributeError ('Symbol' object has no attribute 'T')",
}


class NdarrayOnlyAttribute(LintRule):
    CODE = "HY201"
    NAME = "ndarray-only-attribute"
    MESSAGE = "NDArray-only attribute on a tensor: a Symbol has no shape, size, ndim, dtype or context"
    FIX_TITLE = "Rewrite without the static shape"
    READS = frozenset({MXNET_IMPORTS})  # the ndarray module's name, for an assert's eager-only guard
    GUARD_TITLE = ("Run the assert only eagerly (`if F is mx.nd:`); unsafe: after hybridize() the check is "
                   "dropped and a bad input passes silently")
    DOC = """
## What it does
Flags `.shape`, `.size`, `.ndim`, `.dtype`, `.context`, `.ctx`, `.T`, `.grad` and `.stype` on a
tensor inside a hybrid context, and `len(tensor)`.

## Why is this bad?
After `hybridize()` the tensor is a `Symbol`, which has none of these attributes: the first call
raises `AttributeError: 'Symbol' object has no attribute 'shape'`. `len(x)` is worse: a Symbol's
length is its number of outputs (1), so `x / len(x)` silently computes something else.
A Parameter's `self.weight.shape` is a Python tuple and is fine.

## Example
```python
def hybrid_forward(self, F, x):
    return x.reshape((x.shape[0], -1)) + F.zeros(x.shape)
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x.reshape((0, -1)) + F.zeros_like(x)
```

## Fix safety
Safe, for three exact forms: in `x.reshape((...))`, `x.shape[i]` at position `i` becomes the special
code `0` (copy this axis); a trailing `x.shape[-1]` becomes `0` with `reverse=True` (copy from the right:
`(-1, 0)` without `reverse` copies the wrong axis, measured); `F.zeros(x.shape, dtype=x.dtype)` /
`F.ones(...)` become `F.zeros_like(x)` / `F.ones_like(x)`. Without `dtype=x.dtype` the same rewrite is
unsafe: `F.zeros(x.shape)` is float32 on the default context, `F.zeros_like(x)` has x's dtype and
context (they differ for float16 or int32 inputs).

Unsafe: an `assert` that reads a shape (`assert x.shape[2] % 32 == 0`, alone on its line) becomes
`if F is mx.nd: assert ...`, with the name the module already imports MXNet's ndarray module by (`mx.nd`,
`mxnet.nd`, `nd`, `ndarray`; the name must also appear in the hybrid function). Eagerly `F` is that module
(also in numpy mode), so every eager call still checks; traced, `F` is `mxnet.symbol` and the check is
skipped: the hybridized block accepts the inputs the assert refused (measured on MXNet 1.9.1).

Unsafe: TF "SAME" padding computed from the input's size,
`x = F.pad(x, mode="constant", pad_width=same(x.shape[2:], k, s))`, with the size read inline or bound
first (`size = A if C else x.shape[2:]` on the statement before, the size used nowhere else). The
padding becomes `_pad_by_parity(F, x, lambda size: same(size, k, s))`, a function the fix inserts once
before the module's first function or class: it pads `x` for an odd and for an even size (your helper
called with sizes 1 and 2), to one length, and picks each axis with `F.where` on
`F.shape_array(x)[axis] % 2`. With `A if C else x.shape[2:]`, the padding as written stays for the
sizes given (`... if size is not None else _pad_by_parity(...)`). The conditions, which hylint cannot
see: the helper depends on each size only through its parity (TF "SAME" with stride 1 or 2 and
dilation 1, any kernel), `x` is 4-D, and the padded tensor feeds only a convolution with that kernel and
stride (an even size's padding gets zeros at the end that such a convolution never reads; anything
else sees them); with `A if C`, `A` is not None when `C` holds. Measured on MXNet 1.9.1 and on the
runtime: outputs and input gradients bit-identical to the shape-reading code, eager and hybridized,
for kernels 1 to 7, strides 1 and 2, odd, even and mixed sizes. `mode` must be `"constant"` and
`constant_value` 0.

Unsafe: group normalization written as a training-mode BatchNorm over (1, N*G, -1) (gluoncv's
`GroupNorm`): `with autograd.train_mode():` holding `y = x.expand_dims(0).reshape((0, 0, G, -1))`,
`y = y.reshape((1, -3, -1))`, the statistics' size from `x.shape[0]` and `F.BatchNorm(y, F.ones(...),
F.zeros(...), F.zeros(...), F.ones(...), ...)`. The `with` statement becomes
`y = F.InstanceNorm(x.reshape((0, G, -1)), F.ones((G,)), F.zeros((G,)), eps=...)` (BatchNorm's `eps`,
from `**kwargs` with `kwargs.get('eps', 0.001)`), and the comments of the lines it replaces stay above it.
The result must be read next only as `y.reshape_like(...)` (its shape is (N, G, M), not (1, N*G, M));
hylint checks that. The conditions it cannot check: float32 (InstanceNorm rejects float64, and so does
the original), BatchNorm's `axis` 1 and `use_global_stats` false when they come from `**kwargs`, and
rounding-level differences: the two operators sum in another order (gluoncv's resnet50_v1b_gn: 4.3e-6 at
outputs of 5.7, measured on MXNet 1.9.1).

Unsafe: space-to-depth spelled out from the unpacked shape, `b, c, h, w = x.shape` followed by a tail of
the function (to its `return`) of `transpose`, `split`, `reshape` (also of each piece, in a
comprehension), `F.stack` and size arithmetic (`h // s`, `c * s * s`, `self.s`) that moves the elements
as `F.space_to_depth(x, block_size=s)` does: output channels in the order (row in block, column in
block, channel). hylint follows the layout symbolically and rewrites the tail to
`return F.space_to_depth(x, block_size=s)` only when the result matches exactly (another channel order
is left alone). The conditions it cannot check: the sizes the tail divides are divisible by `s` (the
tail's asserts go; a bad size raises MXNetError instead of the original's error).

Unsafe: a size read from the input handed to a child block that resizes to it:
`size = x.shape[2:]` (or `size = A if C else x.shape[2:]`), read only by `y2 = self.up(y, size)` (the
value of a later statement of the same block) where `self.up` is built in `__init__` from a block class
whose `hybrid_forward(self, F, x, size)`, given a size, returns exactly
`F.contrib.BilinearResize2D(x, height=size[0], width=size[1])` (a literal `align_corners` allowed; `if`
tests and conditional expressions that `size is not None` decides are followed, and nothing else may
run before the return; the class and its package bases define no `forward`). The class may be defined in
another module of the package: the package's reach reads it (docs/reach.md). The call becomes
`F.contrib.BilinearResize2D(y, x, mode='like')` with the child's `align_corners`; with `A if C`, the size
read becomes `None` (`A if A is not None else ...` becomes `A`) and the call
`self.up(y, size) if size is not None else ...`, so a given size still goes to the child. When `x` is
rebound between the two statements, `size_like = x` keeps the tensor the size was read from. Measured on
MXNet 1.9.1: outputs and gradients bit-identical to the size-reading call, eager and hybridized, for
`align_corners` true and false, up- and down-sizing; the like tensor's gradient is exactly zero. The
conditions hylint cannot check: the child's hooks and any later change to its `hybrid_forward` no longer
apply to the rewritten call, and with `A if C`, `A` is not None when `C` holds.

Every other use is reported without a fix; the help says what to write: a static size passed to the
constructor, reshape's special codes (`0` copy, `-1` infer, `-2` copy the rest, `-3` merge two axes,
`-4` split one), the `like` operators (`F.reshape_like`, `F.slice_like`, `F.broadcast_like`,
`F.zeros_like`, `F.contrib.arange_like`, `F.contrib.BilinearResize2D(y, x, mode='like')`), or
`F.shape_array(x)` where the size only feeds data (never an attribute such as `pad_width`).
"""
    VALID = [
        Valid(GUARDED.format("if G is nd: assert y.shape[1] % 4 == 0, 'channels'")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, weight):\n"
              "        return F.dot(x, weight) * self.weight.shape[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a = np.ones((2, 3))\n"
              "        return x * a.shape[0]\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        t = (1, 2)\n        return x * len(t)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        return x * len(args)\n"),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        if F is nd:\n            print(x.shape)\n        return x\n"),
        # `nd.ndarray` is the submodule mxnet.ndarray.ndarray, never F (MXNet 1.9.1): the branch never runs
        Valid("def _reshape_like(F, x, y):\n    return x.reshape(y.shape) if F is nd.ndarray else F.reshape_like(x, y)\n\n\n"
              "class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return _reshape_like(F, x, y)\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x.reshape((x.shape[0], -1))\n"),
    ]
    INVALID = [
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.reshape((x.shape[0], -1))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.reshape((0, -1))\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.reshape((-1, x.shape[-1]))\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.reshape((-1, 0), reverse=True)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.zeros(x.shape)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x + F.zeros_like(x)\n", unsafe=True),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * F.ones(x.shape, dtype=x.dtype)\n",
                "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * F.ones_like(x)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.reshape((-3, x.shape[-1]))\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.sum() / x.size\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x / len(x)\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.T\n"),
        Invalid("class N(HybridBlock):\n    def hybrid_forward(self, F, x, weight):\n        return F.dot(x, weight) * weight.shape[0]\n"),
        Invalid(GUARDED.format("assert y.shape[1] % 4 == 0, 'channels'"),
                GUARDED.format("if G is nd: assert y.shape[1] % 4 == 0, 'channels'"), unsafe=True),
        Invalid(RESIZER + "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fit = Fit()\n\n    def hybrid_forward(self, F, img, mask):\n"
                "        hw = img.shape[2:]\n        return self.fit(mask, hw)\n",
                RESIZER + "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fit = Fit()\n\n    def hybrid_forward(self, F, img, mask):\n"
                "        return F.contrib.BilinearResize2D(mask, img, mode='like', align_corners=True)\n", unsafe=True),
        # no ndarray binding the hybrid function uses: no fix, the help says what to write
        Invalid(GUARDED.format("assert y.shape[1] % 4 == 0").replace(" if G is nd else G.sigmoid(y)", "")),
        Invalid(GUARDED.format("assert y.shape[1] % 4 == 0; y = y * 2")),
    ]

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:
        attr = node.attr.value
        if attr not in NDARRAY_ONLY_ATTRS:
            return
        value = ctx.value(node.value)
        if value.kind not in (Kind.TENSOR, Kind.CHILD):
            return
        name = ctx.code(node.value).strip()
        what = WHAT_HAPPENS.get(attr, f"raises AttributeError ('Symbol' object has no attribute '{attr}')")
        message = f"`{name}.{attr}` is NDArray-only: a Symbol (hybridized) has no `.{attr}`"
        why = f"After hybridize() `{name}` is a Symbol and `.{attr}` {what}"
        parents = ctx.hybrid.parents if ctx.hybrid is not None else {}
        statement = enclosing_assert(node, parents)
        if statement is not None:
            guarded = eager_guard(statement, parents, ctx)
            why += (f". An assert on sizes can run only eagerly: guard it with `if {ctx.f_name} is mx.nd:` "
                    f"(the check is then skipped when traced), or check the sizes in __init__")
            if guarded is None:
                why += (f" (hylint guards it when the module imports MXNet's ndarray module under a name "
                        f"the hybrid function also uses, e.g. `from mxnet import nd` and `{ctx.f_name} is nd`)")
            ctx.report(node, f"`{name}.{attr}` is NDArray-only: this assert fails after hybridize()",
                       None if guarded is None else PendingFix(
                           Applicability.UNSAFE, self.GUARD_TITLE.replace("F is mx.nd", guarded.split(":", 1)[0][3:]),
                           [replace(statement, guarded)]), help=why)
            return
        fix = self._fix(node, ctx)
        advice = instead(node, parents, ctx.f_name, name) if attr == "shape" else \
            write_instead(attr, name, ctx.f_name)
        ctx.report(node, message, fix, instead=advice, help=why)

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if dotted_name(node.func) != "len" or len(node.args) != 1:
            return
        value = ctx.value(node.args[0].value)
        if value.kind is not Kind.TENSOR or not value.certain:
            return
        name = ctx.code(node.args[0].value).strip()
        fix = repeat_like_fix(node, node.args[0].value, 0, ctx.hybrid.parents if ctx.hybrid is not None else {}, ctx)
        ctx.report(node, f"`len({name})` is silently wrong after hybridize(): the Symbol's number of outputs (1)", fix,
                   instead=f"a row count given to `__init__`, or `{ctx.f_name}.slice_axis({ctx.f_name}.shape_array("
                           f"{name}), axis=0, begin=0, end=1)` where it only feeds data",
                   help=f"Eagerly `len({name})` is the number of rows, but after hybridize() it is the Symbol's "
                        f"number of outputs (1)")

    # -- fixes --------------------------------------------------------------------------------
    @staticmethod
    def _repeat_like(attr_node: cst.Attribute, parents, ctx) -> Optional[PendingFix]:
        """``x.shape[i]`` as the number of repeats of a size-1 axis (repairs/repeat_like.py)."""
        index = parents.get(attr_node)
        if not (isinstance(index, cst.Subscript) and len(index.slice) == 1 and
                isinstance(index.slice[0].slice, cst.Index)):
            return None
        axis = literal_int(index.slice[0].slice.value)
        return repeat_like_fix(index, attr_node.value, axis, parents, ctx) if axis is not None else None

    def _fix(self, attr_node: cst.Attribute, ctx) -> Optional[PendingFix]:
        parents = ctx.hybrid.parents if ctx.hybrid is not None else {}
        group_norm = group_norm_fix(attr_node, parents, ctx)  # GroupNorm as a train-mode BatchNorm
        if group_norm is None and attr_node.attr.value == "T":
            return _transpose_fix(attr_node)
        if group_norm is not None or attr_node.attr.value != "shape":
            return group_norm
        idiom = parity_pad_fix(attr_node, parents, ctx) or space_to_depth_fix(attr_node, parents, ctx) or \
            resize_like_fix(attr_node, parents, ctx) or reshape_prefix_fix(attr_node, parents, ctx) or \
            self._repeat_like(attr_node, parents, ctx)
        if idiom is not None:  # TF "SAME" padding from x.shape[2:]; space-to-depth from the unpacked shape;
            # a size from x.shape[2:] handed to a resizing child
            return idiom
        parent = parents.get(attr_node)
        # F.zeros(x.shape) / F.ones(x.shape)
        if isinstance(parent, cst.Arg):
            call = parents.get(parent)
            if not isinstance(call, cst.Call) or parent is not call.args[0] or \
                    parent.keyword is not None and parent.keyword.value != "shape":
                return None
            # `dtype=x.dtype` makes the rewrite exact; without it the result is float32 while
            # `zeros_like(x)` has x's dtype (and x's context): unsafe
            rest = call.args[1:]
            dtype = keyword_value(call, "dtype")
            if rest and not (len(rest) == 1 and dtype is not None and isinstance(dtype, cst.Attribute)
                             and dtype.attr.value == "dtype"
                             and ctx.code(dtype.value).strip() == ctx.code(attr_node.value).strip()):
                return None
            callee = dotted_name(call.func) or ""
            for op in ("zeros", "ones"):
                if callee == f"{ctx.f_name}.{op}":
                    new = f_call(ctx.f_name, f"{op}_like", [attr_node.value])
                    return PendingFix(Applicability.SAFE if rest else Applicability.UNSAFE,
                                      f"Use `{ctx.f_name}.{op}_like`", [replace(call, new)],
                                      relies_on=[Reliance(attr_node.value, Fact.NDARRAY)])
            return None
        # x.reshape((... x.shape[i] ...))
        if not isinstance(parent, cst.Subscript):
            return None
        tuple_node_ = parents.get(parents.get(parent))
        if not isinstance(tuple_node_, cst.Tuple):
            return None
        arg = parents.get(tuple_node_)
        call = parents.get(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "reshape":
            return None
        target = ctx.code(call.func.value).strip()
        if target != ctx.code(attr_node.value).strip():
            return None
        values = [e.value for e in tuple_node_.elements]
        n = len(values)
        new_values = []
        reverse = False
        for position, value in enumerate(values):
            index = _shape_index(value, target, ctx)
            if index is None:
                if _mentions_shape(value):
                    return None
                new_values.append(value)
                continue
            if index == position:
                new_values.append(int_node(0))
            elif index < 0 and index == position - n:
                new_values.append(int_node(0))
                reverse = True
            else:
                return None
        if reverse and any(_shape_index(v, target, ctx) is not None and _shape_index(v, target, ctx) >= 0 for v in values):
            return None
        if reverse and any(literal_int(v) in (0, -2, -3, -4) for v in values):
            return None  # special codes other than -1 change meaning under reverse=True
        new_tuple = tuple_node(new_values).with_changes(lpar=tuple_node_.lpar, rpar=tuple_node_.rpar)
        new_args = [call.args[0].with_changes(value=new_tuple)]
        if reverse:
            new_args = [new_args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(keyword=cst.Name("reverse"), value=cst.Name("True"),
                                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                      whitespace_after=cst.SimpleWhitespace("")))]
        new_call = call.with_changes(args=new_args)
        # a NumPy array has `.shape` too, and reads 0 as a size: the receiver must be an NDArray
        return PendingFix(Applicability.SAFE, "Use reshape's special code 0 (copy this axis)", [replace(call, new_call)],
                          relies_on=[Reliance(call.func.value, Fact.NDARRAY)])


def _transpose_fix(attr_node: cst.Attribute) -> PendingFix:
    """`x.T` -> `x.transpose()`: all axes reversed, values and gradient equal (measured on MXNet 1.9.1, ranks 1 to
    3), except that NDArray's `.T` of a 1-D array is the array itself, not a copy: safe from rank 2 on."""
    new = cst.Call(func=cst.Attribute(value=attr_node.value, attr=cst.Name("transpose")))
    only_copy = ("with rank 1 `.T` is the array itself and `.transpose()` a copy, which differ if either is then "
                 "written in place")
    return PendingFix(Applicability.SAFE, "Use `.transpose()`", [replace(attr_node, new)],
                      relies_on=[Reliance(attr_node.value, Fact.NDARRAY),
                                 Reliance(attr_node.value, Fact.RANK_ABOVE, rank=1, doubt="may be 1-D",
                                          otherwise=only_copy)])


def _shape_index(value: cst.BaseExpression, target: str, ctx):
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Attribute) and value.value.attr.value == "shape" \
            and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index):
        if ctx.code(value.value.value).strip() == target:
            return literal_int(value.slice[0].slice.value)
    return None


def _mentions_shape(node: cst.CSTNode) -> bool:
    return any(type(attr) is cst.Attribute and attr.attr.value in NDARRAY_ONLY_ATTRS for attr in iter_nodes(node))
