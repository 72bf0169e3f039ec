"""Each rule class's hooks, read once per class: the node types it visits and leaves, and whether it judges
the noqa directives. The engine dispatches by this table, never by looking attributes up per call.

No libcst here: the prefilter reads the table too, before anything is parsed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

VISIT, LEAVE = "visit_", "leave_"
NOQA_HOOK = "check_noqa"  # called once per file after suppression: (source, filename, used, selected, known)


@dataclass(frozen=True)
class RuleHooks:
    visit: Tuple[Tuple[str, str], ...]  # (node type name, method name), in dir() order
    leave: Tuple[Tuple[str, str], ...]
    checks_noqa: bool

    @property
    def visits_nodes(self) -> bool:
        return bool(self.visit or self.leave)


_HOOKS: Dict[type, RuleHooks] = {}


def hooks_of(rule_type: type) -> RuleHooks:
    """The hook table of a rule class (built on first use)."""
    hooks = _HOOKS.get(rule_type)
    if hooks is None:
        names = dir(rule_type)
        hooks = _HOOKS[rule_type] = RuleHooks(
            tuple((name[len(VISIT):], name) for name in names if name.startswith(VISIT)),
            tuple((name[len(LEAVE):], name) for name in names if name.startswith(LEAVE)),
            callable(getattr(rule_type, NOQA_HOOK, None)))
    return hooks
