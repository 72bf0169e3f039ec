"""Which rules run on which file: all rules (found by importing every module of ``hylint.rules``, one
rule per module), selectors (codes, prefixes, ALL), and a run's selection with its per-file-ignores.

Nothing heavy is imported until a file needs analysis: the rules (and libcst, which ``hylint.rule``
imports) load on the first call that needs them, so a run served from the result cache never does.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Type

if TYPE_CHECKING:
    from hylint.config import Config
    from hylint.lint.engine import Linter
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


class SelectionError(ValueError):
    """A bad rule selector in an option or the configuration: the message is the whole error."""


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


def select_rules(select: Iterable[str] = (), extend_select: Iterable[str] = (), ignore: Iterable[str] = (),
                 named_retired: bool = False) -> List[Type[LintRule]]:
    """``named_retired``: keep a retired rule its exact code names (its own examples and fixtures run it;
    no user selection does)."""
    rules = all_rules()
    select, extend_select = list(select), list(extend_select)
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
    kept = set(retired_named(select + extend_select)) if named_retired else set()
    return [rules[code] for code in sorted(chosen - (set(RETIRED) - kept))]


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


def split_codes(values: Sequence[str]) -> Tuple[str, ...]:
    """Command-line selector values, each possibly comma-separated, as one tuple of selectors."""
    out: List[str] = []
    for value in values:
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(out)


class RuleSelection:
    """A run's rule selection, resolved (importing the rules, and libcst) only when a file needs analysis,
    and its per-file-ignores: the one place that decides which codes a file can be reported with.

    A run whose files all hit the result cache never resolves it: its cache file exists only if an
    earlier run validated this exact selection.
    """

    def __init__(self, select: Sequence[str], extend_select: Sequence[str], ignore: Sequence[str],
                 per_file_ignores: Sequence[Tuple[str, Sequence[str]]], root: Path,
                 options: Sequence[Tuple[str, Sequence[str]]] = (), config: Optional[Config] = None) -> None:
        self.config = config
        self.select, self.extend_select, self.ignore = tuple(select), tuple(extend_select), tuple(ignore)
        self.per_file_ignore_codes = tuple(per_file_ignores)
        self.root = root
        self.options = tuple((option, tuple(values)) for option, values in options)  # to name a bad one
        self.retired = retired_named(self.select + self.extend_select)  # named, but they check nothing
        self._rules: Optional[List[Type[LintRule]]] = None
        self._per_file_ignores: Optional[List[Tuple[str, Set[str]]]] = None
        self._linter: Optional[Linter] = None
        self._linters: Dict[FrozenSet[str], Linter] = {}

    def rules(self) -> List[Type[LintRule]]:
        """The selected rules; a bad selector (configuration first, then the options) raises SelectionError."""
        if self._rules is None:
            config = self.config
            if config is not None and config.path is not None:  # loaded without its codes checked
                message = unknown_code_in({"select": config.select, "extend_select": config.extend_select,
                                           "ignore": config.ignore, "per_file_ignores": config.per_file_ignores},
                                          f"{config.path}: [tool.hylint]")
                if message is not None:
                    raise SelectionError(message)
            for option, values in self.options:
                for value in split_codes(values):
                    try:
                        expand(value)
                    except UnknownRuleError as error:
                        raise SelectionError(f"{option}: {error}") from None
            try:
                self._rules = select_rules(self.select, self.extend_select, self.ignore)
                self._per_file_ignores = [(pattern, set().union(*(expand(c) for c in codes)) if codes else set())
                                          for pattern, codes in self.per_file_ignore_codes]
            except UnknownRuleError as error:
                raise SelectionError(str(error)) from None
        return self._rules

    def ignored_for(self, filename: str) -> FrozenSet[str]:
        """The codes per-file-ignores take away from ``filename``."""
        self.rules()
        if not self._per_file_ignores:
            return frozenset()
        from hylint.batch.discovery import matches_any

        return frozenset(code for pattern, codes in self._per_file_ignores
                         if matches_any(Path(filename), [pattern], self.root) for code in codes)

    def linter(self) -> Linter:
        """The linter of the run (all selected rules)."""
        if self._linter is None:
            from hylint.lint.engine import Linter

            self._linter = Linter(self.rules(), all_rules())
            self._linters = {frozenset(): self._linter}
        return self._linter

    def linter_for(self, filename: str) -> Linter:
        """The linter for one file: per-file-ignores deselect rules for it, so ignored diagnostics are
        neither reported nor fixed."""
        base = self.linter()
        if not self._per_file_ignores:
            return base
        from hylint.lint.engine import Linter

        ignored = self.ignored_for(filename)
        if ignored not in self._linters:
            self._linters[ignored] = Linter([rule for rule in self._rules if rule.CODE not in ignored], all_rules())
        return self._linters[ignored]
