"""What the code holds: one analysis per file, shared by every rule.

* ``module``: classes (bases, children and parameters declared in ``__init__``) and functions;
* ``interpreter.HybridContext``: for one function that runs with F = mxnet.sym after hybridize()
  (every ``hybrid_forward(self, F, ...)`` and every helper called with F), the name bound to F,
  what each parameter holds (``evidence``), the value of every expression (``values``: tensor,
  multi-output result, Python list, Python value, NumPy, ...) with what is known of tensor shapes,
  and the regions that only ever run eagerly (``guards``);
* ``ops``: THE table of operator semantics both call forms (``F.op(x)``, ``x.op()``) are read from;
* ``syntax``: small helpers over libcst nodes.

``analyze_module(module)`` is the entry point.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from hylint.analysis.interpreter import HybridContext
from hylint.analysis.module import ClassInfo, ModuleInfo, collect_defs, sets_numpy_mode
from hylint.analysis.reach import FileReach
from hylint.analysis.traced import add_reached
from hylint.syntax.imports import mxnet_aliases
from hylint.syntax.nodes import param_names
from hylint.analysis.values import Value

__all__ = ["analyze_module", "HybridContext", "ModuleInfo", "ClassInfo"]


def analyze_module(module: cst.Module, reach: Optional[FileReach] = None) -> ModuleInfo:
    """``reach``: the functions of this file that a trace of its package reaches (analysis/reach/,
    summarised per file): analysed as hybrid code too, after the module's own contexts."""
    classes: Dict[str, ClassInfo] = {}
    functions: Dict[str, cst.FunctionDef] = {}
    class_of: Dict[cst.FunctionDef, ClassInfo] = {}
    collect_defs(module.body, classes, functions, class_of)
    info = ModuleInfo(classes, class_of, functions, {})
    info.numpy_mode = sets_numpy_mode(module)
    info.mxnet_aliases = mxnet_aliases(module)
    if reach is not None:
        info.guards = dict(reach.guards)  # read by the guards of every hybrid context below
    pending: List[Tuple[cst.FunctionDef, Optional[ClassInfo], Optional[str], Dict[str, Value], bool]] = []
    for cls in classes.values():
        fn = cls.hybrid_forward
        if fn is None:
            continue
        params = param_names(fn)
        if len(params) >= 2:
            pending.append((fn, cls, params[1].name.value, {}, False))
    while pending:
        fn, cls, f_name, incoming, is_helper = pending.pop(0)
        if fn in info.contexts:
            continue
        ctx = HybridContext(fn, f_name, cls, info, incoming, is_helper)
        info.contexts[fn] = ctx
        for helper, helper_cls, helper_f, helper_args in ctx.helper_calls:
            if helper not in info.contexts:
                pending.append((helper, helper_cls, helper_f, helper_args, True))
    add_reached(info, module, reach)
    if reach is not None:
        info.resizers = {resizer.name: resizer for resizer in reach.resizers}
    return info


