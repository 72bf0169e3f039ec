"""All rules, found by importing every module of ``hylint.rules`` (one rule per module)."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache
from typing import Dict, Iterable, List, Set, Type

from hylint.rule import LintRule


class UnknownRuleError(ValueError):
    pass


@lru_cache(maxsize=None)
def all_rules() -> Dict[str, Type[LintRule]]:
    import hylint.rules as package

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
        return set(rules)
    matched = {code for code in rules if code.startswith(selector)}
    if not matched or not selector.startswith("HY"):
        raise UnknownRuleError(f"unknown rule selector: {selector!r}")
    return matched


def select_rules(select: Iterable[str] = (), extend_select: Iterable[str] = (), ignore: Iterable[str] = ()) -> List[Type[LintRule]]:
    rules = all_rules()
    select = list(select)
    chosen: Set[str] = set()
    if select:
        for selector in select:
            chosen |= expand(selector)
    else:
        chosen = {code for code, rule in rules.items() if rule.DEFAULT_ENABLED}
    for selector in extend_select:
        chosen |= expand(selector)
    for selector in ignore:
        chosen -= expand(selector)
    return [rules[code] for code in sorted(chosen)]
