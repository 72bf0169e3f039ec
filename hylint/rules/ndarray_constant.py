from typing import List, Optional

import libcst as cst

from hylint.analysis.guards import ND_NAMES
from hylint.syntax.nodes import dotted_name, keyword_value, literal_number, nested_literal_shape
from hylint.diagnostic import Applicability
from hylint.syntax.rewrite import f_call, int_node, tuple_node
from hylint.rule import Invalid, LintRule, PendingEdit, PendingFix, Valid, replace
from hylint.syntax.walk import walk

CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return {}\n"


def _numbers(node: cst.CSTNode) -> Optional[List[float]]:
    value = literal_number(node)
    if value is not None:
        return [value]
    if isinstance(node, (cst.List, cst.Tuple)):
        out: List[float] = []
        for element in node.elements:
            inner = _numbers(element.value)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


class NdarrayConstant(LintRule):
    CODE = "HY402"
    NAME = "ndarray-constant"
    MESSAGE = "NDArray created inside a hybrid context"
    FIX_TITLE = "Create the constant with `F.full` / `F.ones` / `F.zeros`"
    DOC = """
## What it does
Flags tensors created outside F inside a hybrid context: `nd.array(...)`, `mx.nd.array(...)`,
`mx.ndarray.array(...)` and `F.array(...)`. `np.array(...)` used as Python-side data is not flagged.

## Why is this bad?
After `hybridize()` the other operands are Symbols, and an NDArray cannot enter a graph:
`x + nd.array(...)` raises `TypeError: type <class 'NDArray'> not supported`. `F.array` does not
exist in `mxnet.symbol` (`AttributeError`).

## Example
```python
def hybrid_forward(self, F, x):
    return x + nd.array([[1, 1, 1]])
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return F.broadcast_add(x, F.ones((1, 3)))
```
(hylint first rewrites the constant, then HY101 the operator.) A constant whose values differ
belongs in a constant parameter: `self.c = self.params.get_constant('c', value)` in `__init__`
and a `c` argument of `hybrid_forward`.

## Fix safety
Safe for a literal whose elements are all equal: `F.full(shape, v)` (`F.ones`, `F.zeros`) with the
literal's shape and the same dtype (float32 unless `dtype=` is given) computes the same array. A
`ctx=` argument makes it unsafe (the constant would follow the default context).
A literal whose values differ gets an unsafe fix: it becomes a constant parameter,
`self.c = self.params.get_constant('c', nd.array(...))` after `super().__init__()` and a `c`
keyword argument of `hybrid_forward` (Gluon passes a parameter under its attribute name). The values
are the same, but the block gains a parameter: `collect_params()` and saved parameter files change.
Blocks without `__init__`, helpers called with F, and `F.array(..., dtype=...)` get no fix.
"""
    VALID = [
        Valid(CLS.format("x + F.ones((1, 3))")),
        Valid("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        k = np.array([1, 2])\n"
              "        return x * float(k.sum())\n"),
        Valid("class N(Block):\n    def forward(self, x):\n        return x + nd.array([1, 2, 3])\n"),
    ]
    INVALID = [
        # (then HY101, whose fix is unsafe: `x` is a tensor by assumption only)
        Invalid(CLS.format("x + nd.array([[1, 1, 1]])"), CLS.format("x + F.ones((1, 3))")),
        Invalid(CLS.format("x + nd.array([[1, 1, 1]])"), CLS.format("F.broadcast_add(x, F.ones((1, 3)))"), unsafe=True),
        Invalid(CLS.format("x * mx.nd.array([[0.5, 0.5], [0.5, 0.5]])"), CLS.format("x * F.full((2, 2), 0.5)")),
        Invalid(CLS.format("x + mx.nd.array([[0, 0]], dtype='float32')"),
                CLS.format("x + F.zeros((1, 2), dtype='float32')")),
        Invalid(CLS.format("x + nd.array([[1, 2, 3]])")),
        Invalid("class N(HybridBlock):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n\n"
                "    def hybrid_forward(self, F, x):\n        return x * nd.array([[1, 2, 3]])\n",
                "class N(HybridBlock):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
                "        self.c = self.params.get_constant('c', nd.array([[1, 2, 3]]))\n\n"
                "    def hybrid_forward(self, F, x, c):\n        return F.broadcast_mul(x, c)\n", unsafe=True),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.dense = nn.Dense(3)\n\n"
                "    def hybrid_forward(self, F, x, mask=None):\n        return self.dense(x) + F.array([1, 2, 3])\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.c = self.params.get_constant('c', [1, 2, 3])\n        self.dense = nn.Dense(3)\n\n"
                "    def hybrid_forward(self, F, x, mask=None, *, c):\n        return self.dense(x) + c\n", unsafe=True),
        Invalid(CLS.format("x + F.array([[1, 2, 3], [4, 5, 6]])")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        callee = dotted_name(node.func) or ""
        namespace, _, last = callee.rpartition(".")
        if last != "array" or not (namespace in ND_NAMES or namespace == ctx.f_name):
            return
        brief, where = ("does not exist in mxnet.symbol", "does not exist in mxnet.symbol (AttributeError)") \
            if namespace == ctx.f_name else \
            ("makes an NDArray, which cannot enter a hybridized graph",
             "is an NDArray that cannot enter the graph (TypeError: type NDArray not supported)")
        ctx.report(node, f"`{callee}(...)` {brief}", self._fix(node, ctx),
                   help=f"After hybridize() it {where}; create constants with {ctx.f_name}.full/ones/zeros or a "
                        f"constant parameter")

    def _fix(self, node: cst.Call, ctx) -> Optional[PendingFix]:
        if not node.args or node.args[0].keyword is not None:
            return None
        literal = node.args[0].value
        shape = nested_literal_shape(literal)
        numbers = _numbers(literal)
        if not shape or not numbers:
            return None
        if len(set(numbers)) != 1:
            return constant_parameter_fix(node, ctx)
        for arg in node.args[1:]:
            if arg.keyword is None or arg.keyword.value not in ("dtype", "ctx"):
                return None
        value = numbers[0]
        extra = [("dtype", keyword_value(node, "dtype"))] if keyword_value(node, "dtype") is not None else []
        shape_node = tuple_node([int_node(d) for d in shape])
        if value == 0:
            new = f_call(ctx.f_name, "zeros", [shape_node], extra)
        elif value == 1:
            new = f_call(ctx.f_name, "ones", [shape_node], extra)
        else:
            first = literal
            while isinstance(first, (cst.List, cst.Tuple)):
                first = first.elements[0].value
            new = f_call(ctx.f_name, "full", [shape_node, first], extra)
        applicability = Applicability.UNSAFE if keyword_value(node, "ctx") is not None else Applicability.SAFE
        return PendingFix(applicability, "Create the constant with " + ctx.code(new.func), [replace(node, new)])


# ---------------------------------------------------------------------------------------------
# the unsafe fix for a literal whose values differ: a constant parameter (mxnet-truth §1.4)


def _identifiers(module: cst.Module) -> set:
    """Every identifier and string literal of the module: a new name must clash with none."""
    found: set = set()

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            try:
                found.add(str(node.evaluated_value))
            except Exception:  # pragma: no cover - odd string prefixes
                pass

    walk(module, _Collect())
    return found


def _super_init(init: cst.FunctionDef, cls_name: str) -> Optional[int]:
    """Index in ``__init__``'s body of the ``super().__init__(...)`` statement."""
    if not isinstance(init.body, cst.IndentedBlock):
        return None
    for index, stmt in enumerate(init.body.body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Expr):
            continue
        call = stmt.body[0].value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "__init__":
            continue
        owner = call.func.value
        if isinstance(owner, cst.Call) and dotted_name(owner.func) == "super" or \
                (dotted_name(owner) or "").rsplit(".", 1)[-1] in ("HybridBlock", cls_name) or dotted_name(owner):
            return index
    return None


def constant_parameter_fix(node: cst.Call, ctx) -> Optional[PendingFix]:
    """``x + nd.array([[1, 2, 3]])`` -> ``x + c`` with ``self.c = self.params.get_constant('c', nd.array(...))``.

    The constant's attribute name is also the keyword hybrid_forward receives it under (measured:
    Gluon passes parameters by attribute name). Unsafe: the block gains a parameter, so its
    ``collect_params()`` and saved parameter files change (loading an older file needs
    ``allow_missing=True``), though the values it computes do not.
    """
    hybrid = ctx.hybrid
    cls = ctx.cls
    if hybrid is None or hybrid.is_helper or cls is None or hybrid.fn is not cls.hybrid_forward:
        return None
    init = cls.methods.get("__init__")
    if init is None or cls.node not in ctx.module.body:
        return None
    index = _super_init(init, cls.name)
    if index is None:
        return None
    callee = dotted_name(node.func) or ""
    namespace = callee.rpartition(".")[0]
    if namespace in ND_NAMES:
        value_code = ctx.code(node).strip()  # nd is importable in __init__: keeps dtype= exactly
    elif len(node.args) == 1:
        value_code = ctx.code(node.args[0].value).strip()  # F.array(lit): get_constant makes float32 too
    else:
        return None
    if "\n" in value_code or "#" in value_code:
        return None  # multi-line literals and comments stay where the user wrote them
    taken = _identifiers(ctx.module)
    name = next(n for n in ["c"] + [f"c{i}" for i in range(1, 1000)] if n not in taken)
    # the indentation of __init__'s body
    default = ctx.module.default_indent
    indent = (cls.node.body.indent if cls.node.body.indent is not None else default) + \
        (init.body.indent if init.body.indent is not None else default)
    statement = f"self.{name} = self.params.get_constant({name!r}, {value_code})"
    body = init.body.body
    if index + 1 < len(body):
        insert = PendingEdit(body[index + 1], f"{statement}{ctx.module.default_newline}{indent}", mode="insert_before")
    else:
        line = body[index]
        if line.trailing_whitespace.comment is not None:
            return None
        insert = PendingEdit(line, f"{ctx.module.default_newline}{indent}{statement}", mode="insert_after")
    # the new keyword argument of hybrid_forward
    params = hybrid.fn.params
    new_param = cst.Param(cst.Name(name))
    if any(p.default is not None for p in params.params) or isinstance(params.star_arg, cst.Param) \
            or params.kwonly_params or params.star_kwarg is not None:
        star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
        kwonly = list(params.kwonly_params)
        if kwonly and kwonly[-1].comma is cst.MaybeSentinel.DEFAULT and params.star_kwarg is None:
            kwonly[-1] = kwonly[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new_params = params.with_changes(star_arg=star, kwonly_params=kwonly + [new_param])
    else:
        positional = list(params.params)
        last = positional[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT:
            positional[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            positional.append(new_param)
        else:
            positional.append(new_param.with_changes(comma=cst.Comma()))  # keep a trailing comma style
        new_params = params.with_changes(params=positional)
    return PendingFix(Applicability.UNSAFE, f"Move the constant to a constant parameter `{name}`",
                      [replace(node, cst.Name(name)), replace(params, new_params), insert])
