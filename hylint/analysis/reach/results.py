"""The reach of one package, as the analysis answers it: each reached function (``Reached``: which of its
parameters and names hold F or tensors, how certainly, by which chain of calls) and the package's tables
(``PackageReach``: attributes of self holding F or tensors per class, resizers, lambda names, guard
helpers per module).

Reads nothing itself: filled by ``analyze.py``, read by ``summary.py`` and the tests.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple, Union

from hylint.analysis.reach.atoms import ClassKey, FunctionKey
from hylint.analysis.resizers import Resizer


@dataclass
class Reached:
    key: FunctionKey
    path: Optional[str]
    lineno: int
    node: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
    f_params: Set[str] = field(default_factory=set)       # parameters that receive F
    tensor_params: Set[str] = field(default_factory=set)  # parameters that receive a tensor or Symbol
    f_names: Set[str] = field(default_factory=set)        # every local name that may hold F (`F = self.F`)
    tensor_names: Set[str] = field(default_factory=set)   # every local name that may hold a tensor
    certain: bool = True       # False when only a by-name method call reached it
    chain: Tuple[Tuple[FunctionKey, str], ...] = ()  # (caller, call text) from the root, empty for a root
    root: Optional[FunctionKey] = None

    @property
    def is_root(self) -> bool:
        return not self.chain

    def describe(self) -> str:
        """``reached from Model.hybrid_forward via distr.log_prob -> self._helper``; '' for a root."""
        if not self.chain:
            return ""
        return f"reached from {self.root.qualname} via " + " -> ".join(text for _, text in self.chain)


@dataclass
class PackageReach:
    reached: Dict[FunctionKey, Reached]
    paths: Dict[str, Optional[str]]   # module -> path
    # class -> attributes of self that may hold F / a tensor, in reached code (`self.F = getF(x)`,
    # `self.log_probs = log_probs`): what `self.<attr>` is in the methods of that class and its subclasses
    f_attrs: Dict[ClassKey, Set[str]] = field(default_factory=dict)
    tensor_attrs: Dict[ClassKey, Set[str]] = field(default_factory=dict)
    owners: Dict[FunctionKey, ClassKey] = field(default_factory=dict)  # method -> its class
    blocks: Set[ClassKey] = field(default_factory=set)  # the classes that are blocks
    # class -> (attributes of self that may hold F, that may hold a tensor) in its methods: what f_attrs and
    # tensor_attrs give for the class, its package bases and its subclasses (sorted)
    self_attrs: Dict[ClassKey, Tuple[Tuple[str, ...], Tuple[str, ...]]] = field(default_factory=dict)
    # module -> the block classes it names that resize their input to a size they are given (resizers.py)
    resizers: Dict[str, Tuple[Resizer, ...]] = field(default_factory=dict)
    # a reached lambda -> its name in the summary, ``Cls.__init__.<lambda#k>``: the k-th lambda (source order)
    # of the body of the function defining it, not inside another function or lambda (what the linter,
    # which has no CPython positions, can find again)
    lambdas: Dict[FunctionKey, str] = field(default_factory=dict)
    # module -> the names it binds (defines or imports) to guard helpers of the package, with the mode each
    # tests of its argument (``mxnet_is_ndarray`` -> 'nd')
    guards: Dict[str, Tuple[Tuple[str, str], ...]] = field(default_factory=dict)

    def in_module(self, module: str) -> List[Reached]:
        return sorted((r for r in self.reached.values() if r.key.module == module), key=lambda r: r.lineno)

    def depends_on(self, module: str) -> Set[str]:
        """Modules whose code decides what is reached in `module` (its callers along each chain, and the
        modules of the roots): the files a cache entry of `module` must be keyed on, besides itself."""
        found: Set[str] = set()
        for reached in self.reached.values():
            if reached.key.module == module:
                found.update(caller.module for caller, _ in reached.chain)
                if reached.root is not None:
                    found.add(reached.root.module)
        found.discard(module)
        return found
