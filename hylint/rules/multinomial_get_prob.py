import libcst as cst

from hylint.syntax.nodes import call_arg, dotted_name
from hylint.diagnostic import Applicability
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules._hazards import CLS


class MultinomialGetProb(LintRule):
    CODE = "HY904"
    NAME = "multinomial-get-prob"
    MESSAGE = "`F.random.multinomial` without `get_prob`: the default differs between nd and sym"
    FIX_TITLE = "Pass `get_prob=False` (the eager default)"
    DOC = """
## What it does
Flags `F.random.multinomial(...)` inside a hybrid context when `get_prob` is not given.

## Why is this bad?
`mxnet.ndarray.random.multinomial` defaults to `get_prob=False` (one output: the samples), and
`mxnet.symbol.random.multinomial` to `get_prob=True` (two outputs: samples and log-probabilities).
After `hybridize()` the block silently returns two outputs instead of one (measured on MXNet 1.9.1).

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
    ]
    INVALID = [
        Invalid(CLS.format("        return F.random.multinomial(x)\n"),
                CLS.format("        return F.random.multinomial(x, get_prob=False)\n")),
        Invalid(CLS.format("        return F.random.multinomial(x, shape=2)\n"),
                CLS.format("        return F.random.multinomial(x, shape=2, get_prob=False)\n")),
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
        ctx.report(node, "`random.multinomial` without get_prob: eagerly one output (get_prob=False), after hybridize() "
                         "two outputs (mxnet.symbol defaults to get_prob=True): silently different",
                   PendingFix(Applicability.SAFE, self.FIX_TITLE, [replace(node, node.with_changes(args=args))]))
