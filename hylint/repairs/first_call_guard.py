"""A first-call cache of tensors on ``self`` run on every call instead (HY811's unsafe fix).

The idiom (gluonts' NBEATS)::

    if not self.basis_initialized:
        self.initialize_basis(F)          # self.basis = <built with F>
        self.basis_initialized = True

keeps the tensors of the first call's F for later calls: an NDArray where a trace needs a Symbol, or the
reverse. The guard is replaced by its body, dedented, so the tensors are built from each call's F (a comment on
the ``if`` line stays, on its own line). Measured on MXNet 1.9.1: fixtures/HY811 (``after_unsafe.py``
hybridizes equal to eager), and both NBEATS-interpretable networks of gluonts re-labelled OK after the fix
(benchmarks/zoo/labels/fixes.json).

Unsafe: the guarded code is assumed to build the same tensors on every call (no random op, nothing read from
the inputs) and to do nothing else that a second run changes. Offered only for a guard that is a statement of
the body of a top-level class's ``hybrid_forward``, without ``else``.

Used by HY811 (rules/tensor_cached_on_self.py).
"""
from typing import List, Optional

import libcst as cst

from hylint.analysis.module import ClassInfo
from hylint.diagnostic import Applicability
from hylint.rule import PendingFix, replace
from hylint.syntax.walk import iter_nodes

FIX_TITLE = "Build the tensors on every call: drop the first-call guard"
WHY_UNSAFE = ("the guarded code then runs on every call: it is assumed to build the same tensors each time (no "
              "random op, nothing read from the inputs) and to do nothing else that a second run would change")


def every_call_fix(guard: cst.If, family: List[ClassInfo], module: cst.Module) -> Optional[PendingFix]:
    """The guard replaced by its body, dedented: the tensors are built from each call's F. Only for a guard
    that is a statement of the body of a top-level class's hybrid_forward, without ``else``."""
    if guard.orelse is not None or not isinstance(guard.body, cst.IndentedBlock) or guard.body.footer:
        return None
    owner = method = None
    for cls in family:
        method = cls.methods.get("hybrid_forward")
        if method is not None and isinstance(method.body, cst.IndentedBlock) and \
                any(statement is guard for statement in method.body.body):
            owner = cls
            break
    if owner is None or not any(statement is owner.node for statement in module.body):
        return None
    default = module.default_indent
    indent = (owner.node.body.indent if owner.node.body.indent is not None else default) + \
        (method.body.indent if method.body.indent is not None else default)
    inner = guard.body.indent if guard.body.indent is not None else default
    code = module.code_for_node(guard.body)
    # the guard's span ends before the comment and newline of its last line, which stay where they are
    last = [node for node in iter_nodes(guard.body, frozenset()) if isinstance(node, cst.TrailingWhitespace)][-1]
    end = module.code_for_node(last)
    if not code.endswith(end):
        return None
    header, *lines = code[:len(code) - len(end)].splitlines()
    kept = [header.strip()] if header.strip() else []  # the comment on the `if` line stays, on its own line
    for line in lines:
        if line.startswith(inner):
            kept.append(line[len(inner):])
        elif line.strip():
            return None  # a line outside the block's indentation (a continued string): left alone
        else:
            kept.append("")
    newline = module.default_newline
    code = newline.join(indent + line if line and number else line for number, line in enumerate(kept))
    return PendingFix(Applicability.UNSAFE, FIX_TITLE, [replace(guard, code)], why_unsafe=WHY_UNSAFE)
