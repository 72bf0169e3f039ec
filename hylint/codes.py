"""Rule codes: every rule by its code (found by importing every module of ``hylint.rules``, one rule per
module), what a selector (a code, a prefix, ``ALL``) names, and the codes retired. Read by the
configuration (config.py: an unknown code in [tool.hylint] is an error naming the key) and by a run's
selection (selection.py).

Nothing heavy is imported until a code is looked up: the rules (and libcst, which ``hylint.rule``
imports) load on the first call that needs them.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Set, Type

if TYPE_CHECKING:
    from hylint.rule import LintRule


class UnknownRuleError(ValueError):
    pass


#: Rules retired because they were not right on real code: their codes stay reserved (a noqa naming one is
#: not unknown, `hylint rule CODE` explains), no selector runs them, and naming one says so. By-hand reviews
#: of random diagnostics on real code hylint was not tuned on (issue 23): HY102 0 true of 13 and of 28,
#: HY302 0 of 4 and of 1, HY803 0 of 3 and of 2, HY908 0 of 4 and of 8.
RETIRED = {
    "HY102": "on real code it flagged equal-shape operators that hybridize fine (0 true of 41 reviewed); "
             "`hylint verify` still applies its broadcast fix where a hybridized run fails at the operator",
    "HY302": "on real code the values it flagged were Python sequences, not tensors (0 true of 5 reviewed)",
    "HY803": "on real code the mode guards it listed were deliberate and correct (0 true of 5 reviewed)",
    "HY908": "on real code the blocks it flagged were children or returned values also used in the graph "
             "(0 true of 12 reviewed)",
}


@lru_cache(maxsize=None)
def all_rules() -> Dict[str, Type[LintRule]]:
    import hylint.rules as package
    from hylint.rule import LintRule

    rules: Dict[str, Type[LintRule]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"hylint.rules.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, LintRule) and obj is not LintRule and obj.__module__ == module.__name__ and obj.CODE:
                if obj.CODE in rules:
                    raise RuntimeError(f"duplicate rule code {obj.CODE}")
                rules[obj.CODE] = obj
    return dict(sorted(rules.items()))


def expand(selector: str) -> Set[str]:
    """A code, a prefix (``HY1``) or ``ALL`` -> the matching codes; unknown -> UnknownRuleError."""
    rules = all_rules()
    selector = selector.strip().upper()
    if selector == "ALL":
        return set(rules) - set(RETIRED)
    matched = {code for code in rules if code.startswith(selector)}
    if not matched or not selector.startswith("HY"):
        raise UnknownRuleError(f"unknown rule selector: {selector!r}")
    return matched if selector in RETIRED else matched - set(RETIRED)


def retired_named(selectors: Iterable[str]) -> List[str]:
    """The retired codes that ``selectors`` name exactly (a prefix or ALL never selects them): each is told
    to the user, since it checks nothing."""
    return sorted({selector.strip().upper() for selector in selectors} & set(RETIRED))


def retired_warning(code: str) -> str:
    return f"hylint: warning: {code} is retired and checks nothing: {RETIRED[code]} (`hylint rule {code}`)"


def unknown_code_in(values: Dict[str, Any], where: str) -> Optional[str]:
    """The error for the first unknown rule code of a [tool.hylint] table's select / extend-select /
    ignore / per-file-ignores (``values`` by attribute name), naming the key; None when all are known."""
    lists = [(key, values.get(key.replace("-", "_"), ())) for key in ("select", "extend-select", "ignore")]
    lists += [(f"per-file-ignores.\"{pattern}\"", codes) for pattern, codes in values.get("per_file_ignores", ())]
    for key, codes in lists:
        for code in codes:
            try:
                expand(code)
            except UnknownRuleError as error:
                return f"{where}: `{key}`: {error}"
    return None
