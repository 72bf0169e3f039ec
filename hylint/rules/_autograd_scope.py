"""Shared by HY812 and HY813: `with autograd.<scope>():` statements in hybrid code, and what in their body
computes differently in training and in predict mode."""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from hylint.facts.layers import MODE_DEPENDENT_LAYERS, MODE_DEPENDENT_OPERATORS
from hylint.rules.autograd_state_in_hybrid import MODULES
from hylint.syntax.nodes import dotted_name, keyword_value
from hylint.syntax.walk import iter_nodes

SCOPES = ("pause", "predict_mode", "train_mode", "record")


def scope_of(item: cst.WithItem) -> Optional[Tuple[str, cst.Call]]:
    """('pause' | 'predict_mode' | 'train_mode' | 'record', the call) for `with autograd.<scope>(...)`."""
    call = item.item
    if not isinstance(call, cst.Call):
        return None
    module, _, name = (dotted_name(call.func) or "").rpartition(".")
    return (name, call) if module in MODULES and name in SCOPES else None


def sets_mode(scope: str, call: cst.Call) -> Optional[str]:
    """'training' / 'predict' when the scope sets the mode (record() trains unless train_mode=False,
    pause() predicts unless train_mode=True), else None."""
    flag = keyword_value(call, "train_mode")
    if flag is None and call.args and call.args[0].keyword is None:
        flag = call.args[0].value
    value = flag.value if isinstance(flag, cst.Name) and flag.value in ("True", "False") else None
    if scope == "train_mode":
        return "training"
    if scope == "predict_mode":
        return "predict"
    if scope == "record":
        return "predict" if value == "False" else "training" if value in (None, "True") else None
    return "training" if value == "True" else None  # pause() keeps predict mode only by default


def mode_dependent_call(body: cst.CSTNode, ctx) -> Optional[str]:
    """The code of the first call in ``body`` that computes differently in training and predict mode:
    `F.Dropout`/`F.BatchNorm`, or a child built as (or from a module class holding) a Dropout/BatchNorm."""
    f = ctx.f_name
    for node in iter_nodes(body):
        if not isinstance(node, cst.Call):
            continue
        callee = dotted_name(node.func) or ""
        parts = callee.split(".")
        if parts[0] == f and parts[-1] in MODE_DEPENDENT_OPERATORS and len(parts) in (2, 3):
            return callee
        if len(parts) == 2 and parts[0] == "self" and ctx.cls is not None and parts[1] in ctx.cls.children:
            if _holds_mode_dependent(ctx.cls.children[parts[1]], ctx.module_info.classes, ()):
                return callee
    return None


def _holds_mode_dependent(constructor: str, classes, seen: Tuple[str, ...]) -> bool:
    short = constructor.rsplit(".", 1)[-1]
    info = classes.get(short) if "." not in constructor else None
    if info is None:
        return short in MODE_DEPENDENT_LAYERS
    if short in seen:
        return False
    seen = seen + (short,)
    if any(_holds_mode_dependent(child, classes, seen) for child in info.children.values()):
        return True
    forward = info.methods.get("hybrid_forward")
    if forward is None:
        return any(_holds_mode_dependent(base, classes, seen) for base in info.base_names)
    return any(isinstance(n, cst.Call) and (dotted_name(n.func) or "").rsplit(".", 1)[-1] in MODE_DEPENDENT_OPERATORS
               and "." in (dotted_name(n.func) or "") for n in iter_nodes(forward.body))
