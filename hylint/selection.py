"""Which rules run on which file: the rules selectors choose (the codes themselves: codes.py, re-exported
here), and a run's selection with its per-file-ignores.

Nothing heavy is imported until a file needs analysis: the rules (and libcst, which ``hylint.rule``
imports) load on the first call that needs them, so a run served from the result cache never does.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Type

from hylint.codes import (  # noqa: F401  (re-exported: selection gave them before codes.py)
    RETIRED, UnknownRuleError, all_rules, expand, retired_named, retired_warning, unknown_code_in)
from hylint.patterns import matches_any

if TYPE_CHECKING:
    from hylint.config import Config
    from hylint.lint.engine import Linter
    from hylint.rule import LintRule


class SelectionError(ValueError):
    """A bad rule selector in an option or the configuration: the message is the whole error."""


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
