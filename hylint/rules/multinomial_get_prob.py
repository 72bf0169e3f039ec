from typing import List

import libcst as cst

from hylint.syntax.nodes import call_arg, dotted_name
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS
from hylint.syntax.walk import walk


def _operand_uses(name: str, statements: List[cst.CSTNode], parents, f_name: str) -> List[cst.Name]:
    """The reads of ``name`` in ``statements`` (those after its assignment, in order) that use it as one tensor:
    the receiver of a method (``idx.broadcast_like(x)``), an operand of arithmetic or a comparison, or an
    argument of an ``F.`` operator; up to the statement that assigns ``name`` again at the same level (its
    own reads included). Reads in a loop or a branch count, since either may run first."""
    found: List[cst.Name] = []

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value != name:
                return
            parent = parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                used = isinstance(parents.get(parent), cst.Call) and parents[parent].func is parent
            elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)):
                used = True
            elif isinstance(parent, cst.Arg) and parent.value is node:
                call = parents.get(parent)
                used = isinstance(call, cst.Call) and (dotted_name(call.func) or "").startswith(f_name + ".")
            else:
                used = False
            if used:
                found.append(node)

    for stmt in statements:
        walk(stmt, _Reads())
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                      for t in small.targets) for small in stmt.body):
            break
    return found


class MultinomialGetProb(LintRule):
    CODE = "HY904"
    NAME = "multinomial-get-prob"
    MESSAGE = "`F.random.multinomial` without `get_prob`: the default differs between nd and sym"
    FIX_TITLE = "Pass `get_prob=False` (the eager default)"
    DOC = """
## What it does
Flags `F.random.multinomial(...)` inside a hybrid context when `get_prob` is not given. When its result
is kept in a name that later code uses as one tensor (`idx = F.random.multinomial(p)`, then
`idx.broadcast_like(x)`, `idx + 1`, `F.pick(s, idx)`), the report is at each such use that may run
first (in a loop or a branch, and the first one after it), where the trace fails; the fix is at the call.

## Why is this bad?
`mxnet.ndarray.random.multinomial` defaults to `get_prob=False` (one output: the samples), and
`mxnet.symbol.random.multinomial` to `get_prob=True` (two outputs: samples and log-probabilities).
After `hybridize()` the block silently returns two outputs instead of one, and an operator given the
result fails in the trace: `idx.broadcast_like(x)`, `idx + 1` and `F.pick(s, idx)` raise `MXNetError:
... Keyword Argument lhs (data, index) is a tuple, single value is required` (measured on MXNet 1.9.1;
gluonts' mixture distribution samples so).

## Example
```python
def hybrid_forward(self, F, p):
    return F.random.multinomial(p)
```

## Use instead
```python
def hybrid_forward(self, F, p):
    return F.random.multinomial(p, get_prob=False)
```

## Fix safety
Safe: `get_prob=False` is what the code did eagerly.
"""
    VALID = [
        Valid(CLS.format("        return F.random.multinomial(x, get_prob=False)\n")),
        Valid(CLS.format("        s, lp = F.random.multinomial(x, get_prob=True)\n        return s\n")),
        Valid(CLS.format("        return F.sample_multinomial(x)\n")),
        Valid(CLS.format("        idx = F.random.multinomial(x, get_prob=False)\n        return idx + 1\n")),
    ]
    INVALID = [
        Invalid(CLS.format("        return F.random.multinomial(x)\n"),
                CLS.format("        return F.random.multinomial(x, get_prob=False)\n")),
        Invalid(CLS.format("        return F.random.multinomial(x, shape=2)\n"),
                CLS.format("        return F.random.multinomial(x, shape=2, get_prob=False)\n")),
        Invalid(CLS.format("        idx = F.random.multinomial(x)\n        return idx.broadcast_like(x)\n"),
                CLS.format("        idx = F.random.multinomial(x, get_prob=False)\n        return idx.broadcast_like(x)\n")),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if dotted_name(node.func) != f"{ctx.f_name}.random.multinomial":
            return
        if call_arg(node, 2, "get_prob") is not None or any(a.star for a in node.args):
            return
        args = list(node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(keyword=cst.Name("get_prob"), value=cst.Name("False"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
        fix = PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(node, node.with_changes(args=args))])
        uses = self._uses_as_one_tensor(node, ctx)
        if not uses:
            ctx.report(node, "`random.multinomial` without get_prob has two outputs after hybridize(): pass get_prob=False",
                       fix, help="Eagerly it has one output (get_prob=False), after hybridize() two (mxnet.symbol "
                                 "defaults to get_prob=True): silently different")
            return
        # the trace fails where the two outputs meet an operator: report there, each read that may come first
        # (the fix, at the call, is carried by the first report only, so it is applied once)
        name = uses[0].value
        for index, use in enumerate(uses):
            ctx.report(use, f"`{name}` is two outputs after hybridize(): pass get_prob=False to `{ctx.code(node.func)}`",
                       fix if index == 0 else None,
                       help="It is one tensor eagerly, but after hybridize() two outputs (mxnet.symbol defaults to "
                            "get_prob=True), so this operator fails when traced (MXNetError: Keyword Argument ... is a "
                            "tuple, single value is required)")

    @staticmethod
    def _uses_as_one_tensor(call: cst.Call, ctx) -> List[cst.Name]:
        """For ``name = F.random.multinomial(...)``, the later reads that use ``name`` as one tensor."""
        if ctx.hybrid is None:
            return []
        parents = ctx.hybrid.parents
        assign = parents.get(call)
        line = parents.get(assign)
        block = parents.get(line)
        if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name) and isinstance(line, cst.SimpleStatementLine)
                and isinstance(block, cst.IndentedBlock)):
            return []
        following = list(block.body)[list(block.body).index(line) + 1:]
        return _operand_uses(assign.targets[0].target.value, following, parents, ctx.f_name)
