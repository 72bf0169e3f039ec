from typing import Optional

import libcst as cst

from hylint.diagnostic import Applicability
from hylint.facts.layers import BEGIN_STATE_ND_DEFAULT
from hylint.rule import Invalid, LintRule, PendingFix, Valid, replace
from hylint.rules.ndarray_namespace_call import split_callee
from hylint.syntax.nodes import dotted_name

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
       "        self.lstm = rnn.LSTM(4)\n\n    def hybrid_forward(self, F, x):\n{}")
BODY = "        states = self.lstm.begin_state({})\n        out, _ = self.lstm(x, states)\n        return out\n"


def _nd_default_class(callee: str, classes, seen=()) -> Optional[str]:
    """The gluon class whose nd.zeros default ``callee`` (a constructor) gets, through the module's own
    subclasses too; None when unknown."""
    short = callee.rsplit(".", 1)[-1]
    info = classes.get(short) if "." not in callee else None
    if info is None:
        return short if short in BEGIN_STATE_ND_DEFAULT else None
    if short in seen or "begin_state" in info.methods:
        return None  # a begin_state of the module's own: its default is not gluon's
    for base in info.base_names:
        found = _nd_default_class(base, classes, seen + (short,))
        if found is not None:
            return found
    return None


class BeginStateNdarrayFunc(LintRule):
    CODE = "HY404"
    NAME = "begin-state-ndarray-func"
    MESSAGE = "`begin_state()` of an RNN layer or cell makes NDArrays (its default `func` is `nd.zeros`)"
    FIX_TITLE = "Make the states with `F.zeros`: `begin_state(..., func=F.zeros)`"
    LOCAL_FIX = True
    DOC = """
## What it does
Flags `<rnn layer or cell>.begin_state(...)` inside a hybrid context when the states are made by
`mx.nd`: without `func` (the receiver a `gluon.rnn` layer or cell, `rnn.LSTM`, `rnn.GRUCell`,
`rnn.SequentialRNNCell`, ..., or a subclass of one in the module), or with `func=nd.zeros`,
`func=mx.nd.ones`, ... written out (any receiver).

## Why is this bad?
`begin_state(batch_size=0, func=mx.nd.zeros, **kwargs)` is the signature of MXNet 1.9.1's RNN layers
and cells (`mxnet/gluon/rnn/rnn_layer.py`, `rnn_cell.py`): the states are NDArrays in both modes.
After `hybridize()` they meet the Symbols of the graph, and the first call fails. Measured on MXNet
1.9.1 with `states = self.lstm.begin_state(batch_size=2)` and `out, _ = self.lstm(x, states)` (input
(5, 2, 3), `rnn.LSTM(4)`, the same with `rnn.LSTMCell(4).unroll(...)` and `rnn.GRU(4)` with
`func=nd.ones`): eagerly it runs; hybridized it raises `ValueError: In HybridBlock, we do not
support mixed NDArrays and Symbols types for the input`.

With `func=F.zeros` (or `F.ones`) the eager outputs are the same (eagerly `F` is `mx.nd`, and
`F.zeros` is the very function `nd.zeros`), and the hybridized outputs equal them. `batch_size`
must still be the batch size as a Python number: `batch_size=0` (or none) fails eagerly (`_zeros`
cannot infer the shape; hybridized the graph infers it), and `batch_size=x.shape[1]` fails
hybridized (HY201).

## Example
```python
def hybrid_forward(self, F, x):
    states = self.lstm.begin_state(batch_size=self._batch_size)
    out, _ = self.lstm(x, states)
    return out
```

## Use instead
```python
def hybrid_forward(self, F, x):
    states = self.lstm.begin_state(batch_size=self._batch_size, func=F.zeros)
    out, _ = self.lstm(x, states)
    return out
```
Zero states can also be left to the layer: `self.lstm(x)` makes them with the input's batch size in
both modes (it then returns the output alone, not `(output, states)`).

## Fix safety
Safe: the fix adds `func=F.zeros` (a receiver whose default is `mx.nd.zeros`) or replaces
`func=nd.<op>` with `func=F.<op>`; eagerly `F.<op>` is the same function object as `mx.nd.<op>`, so
the eager states are unchanged. A receiver hylint does not know (a block from another package, a
`begin_state` of the module's own) is reported only when `func` names an `mx.nd` function; calls with
`*args` or `**kwargs` are reported without a fix (they may carry `func`).
"""
    VALID = [
        Valid(CLS.format(BODY.format("batch_size=2, func=F.zeros"))),
        Valid(CLS.format("        return self.lstm(x)\n")),
        Valid(CLS.format("        if F is nd:\n            states = self.lstm.begin_state(batch_size=2)\n"
                         "            return self.lstm(x, states)[0]\n        return self.lstm(x)\n")),
        Valid("class N(Block):\n    def __init__(self):\n        super().__init__()\n        self.lstm = rnn.LSTM(4)\n\n"
              "    def forward(self, x):\n        states = self.lstm.begin_state(batch_size=x.shape[1])\n"
              "        return self.lstm(x, states)[0]\n"),
        Valid("class Enc(HybridBlock):\n    def begin_state(self, batch_size, func=None):\n        return []\n\n"
              "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.enc = Enc()\n\n"
              "    def hybrid_forward(self, F, x):\n        states = self.enc.begin_state(2)\n        return x\n"),
    ]
    INVALID = [
        Invalid(CLS.format(BODY.format("batch_size=2")), CLS.format(BODY.format("batch_size=2, func=F.zeros"))),
        Invalid(CLS.format(BODY.format("batch_size=2, func=nd.zeros")),
                CLS.format(BODY.format("batch_size=2, func=F.zeros"))),
        Invalid(CLS.format(BODY.format("2, mx.nd.ones")), CLS.format(BODY.format("2, F.ones"))),
        Invalid(CLS.format(BODY.format("**self._state_kwargs"))),
        Invalid("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.cell = rnn.SequentialRNNCell()\n\n    def hybrid_forward(self, F, x):\n"
                "        states = self.cell.begin_state(batch_size=2, ctx=mx.cpu())\n"
                "        return self.cell.unroll(5, x, states, merge_outputs=True)[0]\n",
                "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        self.cell = rnn.SequentialRNNCell()\n\n    def hybrid_forward(self, F, x):\n"
                "        states = self.cell.begin_state(batch_size=2, ctx=mx.cpu(), func=F.zeros)\n"
                "        return self.cell.unroll(5, x, states, merge_outputs=True)[0]\n"),
    ]

    def visit_Call(self, node: cst.Call, ctx) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "begin_state":
            return
        func = next((a for a in node.args if a.keyword is not None and a.keyword.value == "func"), None)
        if func is None and len(node.args) >= 2 and all(a.keyword is None and not a.star for a in node.args[:2]):
            func = node.args[1]
        f = ctx.hybrid.f_name
        receiver = ctx.code(node.func.value).strip()
        if func is not None:
            parts = split_callee(dotted_name(func.value) or "")
            if parts is None:
                return
            prefix, namespace, op = parts
            f_op = ".".join([f] + ([] if namespace == "top" else [namespace]) + [op])
            written = ctx.code(func.value).strip()
            ctx.report(node, f"`{receiver}.begin_state(..., func={written})` makes NDArray states: use `{f_op}`",
                       PendingFix(Applicability.SAFE, f"Make the states with `{f_op}`",
                                  [replace(func.value, cst.parse_expression(f_op))]),
                       help=f"After hybridize() NDArray states meet the graph's Symbols and the call fails (ValueError: "
                            f"mixed NDArrays and Symbols); `{f_op}` makes the same arrays eagerly and Symbols hybridized")
            return
        known = self._known_receiver(node.func.value, ctx)
        if known is None:
            return
        starred = any(a.star for a in node.args)
        fix = None if starred else PendingFix(
            Applicability.SAFE, f"Make the states with `{f}.zeros`: `begin_state(..., func={f}.zeros)`",
            [replace(node, self._with_func(node, f))])
        ctx.report(node, f"`{receiver}.begin_state(...)` without `func` makes NDArray states: pass `func={f}.zeros`",
                   fix, instead=f"`begin_state(..., func={f}.zeros)`",
                   help=f"`{known}.begin_state` makes its states with `mx.nd.zeros` by default: after hybridize() they "
                        f"meet the graph's Symbols and the call fails (ValueError: mixed NDArrays and Symbols)")

    @staticmethod
    def _known_receiver(receiver: cst.BaseExpression, ctx) -> Optional[str]:
        name = dotted_name(receiver) or ""
        parts = name.split(".")
        if ctx.cls is None or len(parts) != 2 or parts[0] != "self":
            return None
        callee = ctx.cls.children.get(parts[1])
        return _nd_default_class(callee, ctx.module_info.classes) if callee else None

    @staticmethod
    def _with_func(node: cst.Call, f: str) -> cst.Call:
        args = list(node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        keyword = cst.Arg(keyword=cst.Name("func"), value=cst.parse_expression(f"{f}.zeros"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
        return node.with_changes(args=args + [keyword])
