"""The per-file summary of a package's reach, what the linter reads (and the cache keeps) of it.

Reads a ``PackageReach``; answers, for each module, the functions a trace certainly reaches (``FileReach``
of ``ReachedFunction``: plain strings and tuples, picklable, JSON), with the resizers and guard helpers the
file sees. A guessed reach (a method found by name only) is left out.
"""
from __future__ import annotations

import ast
from typing import Dict, Iterable, List, NamedTuple, Tuple

from hylint.analysis.reach.results import PackageReach
from hylint.analysis.resizers import Resizer


class ReachedFunction(NamedTuple):
    """What the linter needs of one function a trace certainly reaches (plain strings: picklable, JSON)."""
    qualname: str                  # ``Dist.log_prob``, ``helper.<locals>.step``
    f_params: Tuple[str, ...]      # parameters that receive F
    tensor_params: Tuple[str, ...]  # parameters that receive a tensor or Symbol
    f_names: Tuple[str, ...]       # local names that may hold F (``F = self.F``)
    chain: str                     # ``reached from Model.hybrid_forward via distr.log_prob``
    block_method: bool             # a method of a block class (of the package's or MXNet's), not of a plain object
    self_f_attrs: Tuple[str, ...] = ()       # for a method: attributes of self that may hold F (`self.F`)
    self_tensor_attrs: Tuple[str, ...] = ()  # and those that may hold a tensor (`self.log_probs`)


class FileReach(NamedTuple):
    """The functions of one file that a trace of its package certainly reaches, other than the
    ``hybrid_forward`` roots (a lambda under its ``PackageReach.lambdas`` name), and the block
    classes the file names that resize their input to a size they are given (from any module of the package)."""
    functions: Tuple[ReachedFunction, ...]
    resizers: Tuple[Resizer, ...] = ()
    guards: Tuple[Tuple[str, str], ...] = ()  # (name, mode) of the guard helpers the file sees

    @classmethod
    def from_plain(cls, data: Iterable) -> "FileReach":
        """From the plain nested tuples or lists it travels and is cached as (hylint/batch/reach.py): a
        function is 8 items, a resizer 4 (``"resizer"``, name, position, keywords), a guard helper 3
        (``"guard"``, name, mode)."""
        entries = list(data)
        return cls(tuple(ReachedFunction(str(q), tuple(fp), tuple(tp), tuple(fn), str(chain), bool(block),
                                         tuple(fa), tuple(ta))
                         for q, fp, tp, fn, chain, block, fa, ta in (e for e in entries if len(e) == 8)),
                   tuple(Resizer(str(name), int(position), str(keywords))
                         for _, name, position, keywords in (e for e in entries if len(e) == 4)),
                   tuple((str(name), str(mode)) for _, name, mode in (e for e in entries if len(e) == 3)))

    def plain(self) -> tuple:
        return tuple(self.functions) + tuple(("resizer", *r) for r in self.resizers) + \
            tuple(("guard", *g) for g in self.guards)


def summarize(result: PackageReach) -> Dict[str, FileReach]:
    """module -> the summary of its certainly reached functions (modules with none are left out).

    A guessed reach (a method found by name only) is left out: it must not raise alarms."""
    found: Dict[str, List[ReachedFunction]] = {}
    owners, blocks = result.owners, result.blocks
    for reached in result.reached.values():
        qualname = result.lambdas.get(reached.key) if isinstance(reached.node, ast.Lambda) else \
            None if "<lambda@" in reached.key.qualname else reached.key.qualname
        if not reached.certain or reached.is_root or qualname is None:
            continue
        found.setdefault(reached.key.module, []).append(ReachedFunction(
            qualname, tuple(sorted(reached.f_params)), tuple(sorted(reached.tensor_params)),
            tuple(sorted(reached.f_names)), reached.describe(),
            owners.get(reached.key) in blocks, *result.self_attrs.get(owners.get(reached.key), ((), ()))))
    return {module: FileReach(tuple(sorted(found.get(module, ()))), result.resizers.get(module, ()),
                              result.guards.get(module, ()))
            for module in set(found) | set(result.resizers) | set(result.guards)}
