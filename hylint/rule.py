"""The base class every rule derives from, and its examples."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from hylint.diagnostic import Applicability, FactCheck

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")


@dataclass(frozen=True)
class Valid:
    """Code the rule must not flag."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Code the rule must flag (at least once), and what its fix produces, if it has one."""

    code: str
    expected_fixed: Optional[str] = None
    unsafe: bool = False  # expected_fixed needs --unsafe-fixes


Replacement = Union[cst.CSTNode, str]


@dataclass(frozen=True)
class Region:
    """A part of a file a rule reads beyond what every rule gets (its hybrid functions, the block classes
    holding them with their ``__init__``/``forward``/``hybrid_forward``, and what that code names): a rule
    lists the regions it reads in ``READS``, and hylint/lint/regions.py keeps them when it parses only
    part of a file."""

    name: str
    adding_methods: Tuple[str, ...] = ()  # block-constructions: the calls whose arguments are children


# every other method of a block class that reads or writes an attribute of self the class's kept code
# (outside __init__) names
SELF_ATTRIBUTE_METHODS = Region("self-attribute-methods")
# module-level assignments, and imports (at any depth) of numpy, numpy.random and random
RANDOM_BINDINGS = Region("random-bindings")
# every import from mxnet (at any depth)
MXNET_IMPORTS = Region("mxnet-imports")
# the calls of the file's block classes outside hybrid code that an NDArray literal may feed
# (`net = Norm(); net(nd.ones((2, 5, 4)))`: analysis/callsites.py), with the module-level bindings they read
BLOCK_CALLS = Region("block-calls")


def block_constructions(adding_methods: Iterable[str]) -> Region:
    """Where the file's block classes are built (``Cls(...)``): outside class bodies, one statement
    building each inside a call of ``adding_methods`` (as a child) and one building it otherwise; in
    the other methods of a kept class, every method that builds one."""
    return Region("block-constructions", tuple(sorted(adding_methods)))


@dataclass
class PendingEdit:
    """A replacement of a node's source span, resolved to text positions by the engine."""

    node: cst.CSTNode
    replacement: Replacement
    # insert before (or after) the node instead of replacing it
    mode: str = "replace"  # "replace" | "insert_before" | "insert_after" | "delete_lines"


class Fact(str, Enum):
    """What a rewrite may need of an operand; hylint/lint/soundness.py answers each from the analysis."""

    # one tensor (an NDArray eagerly): not a Python number, a list or tuple of tensors, nor None.
    # `F.broadcast_mul(0.3, x)`, `F.slice_axis([a, b], ...)` raise where `0.3 * x` and `[a, b][0]` work
    TENSOR = "tensor"
    # a tensor or a Python number, never a list, tuple or NumPy array (on which arithmetic gives the same
    # result in place or not): `xs += (a,)` extends a list in place where `xs = xs + (a,)` raises, and a NumPy
    # array written in place stays one where `a * y` with an NDArray `y` is an NDArray
    TENSOR_OR_NUMBER = "tensor-or-number"
    # an NDArray, not a NumPy array: both have `.shape` and `.reshape`, but NumPy reads reshape's special
    # code 0 as a size and has no `F.zeros_like` (a block's output is never a NumPy array)
    NDARRAY = "ndarray"
    # one tensor of exactly ``Reliance.rank`` axes (`c.broadcast_to(shape)` gets `rank - len(shape)` new axes)
    RANK = "rank"
    # one tensor of more than ``Reliance.rank`` axes: a batch axis that a parameter of that rank lacks. HY101's
    # `normed * gamma` (`gamma` of shape (C,)) needs a broadcast only then; its rewrite computes the same
    # either way, but a fix for code that may hybridize as written is not one to apply unasked
    RANK_ABOVE = "rank-above"
    # no other name, list or block holds the array when it is written in place (`y += 1` -> `y = y + 1` keeps
    # what `z = y` bound before): a fact of the code around the node, which the rule's reading answers
    # (``Reliance.against``), not a Value
    UNALIASED = "unaliased"


@dataclass(frozen=True)
class Reliance:
    """A fact a fix relies on: ``node`` (an expression of the code before the fix) is ``fact``."""

    node: cst.CSTNode
    fact: Fact
    rank: Optional[int] = None  # for Fact.RANK and Fact.RANK_ABOVE
    # for Fact.UNALIASED: what the rule's reading of the function found against it (`z = y` before the write),
    # None when nothing; soundness decides from it as from a Value
    against: Optional[str] = None
    # what the rewrite changes when the fact does not hold, said after the evidence of an unproven fact
    # (HY101: "with rank 1 the operator needs no broadcast and the code hybridizes as written")
    otherwise: Optional[str] = None
    # what an unproven fact leaves open, where the fact's general wording (soundness.DOUBT) does not fit
    doubt: Optional[str] = None


@dataclass
class PendingFix:
    applicability: Applicability
    message: str
    edits: List[PendingEdit]
    # the facts the rewrite needs to compute what the code computed eagerly: a fix marked safe stays
    # safe only when the analysis proves every one (lint/soundness.py), else it is unsafe, saying why
    relies_on: List[Reliance] = field(default_factory=list)
    why_unsafe: Optional[str] = None
    checked: Tuple["FactCheck", ...] = ()  # relies_on as the analysis answered it (set by lint/soundness.py)


def replace(node: cst.CSTNode, replacement: Replacement) -> PendingEdit:
    return PendingEdit(node, replacement)


_RULES_PACKAGE = "hylint.rules."
_KNOWN_CODES: Set[str] = set()  # the codes of the rule classes of hylint.rules imported so far


def known_rule_codes() -> FrozenSet[str]:
    """The codes of hylint's rules imported so far (all of them once ``selection.all_rules()`` ran)."""
    return frozenset(_KNOWN_CODES)


class LintRule:
    """One pattern, one file.

    Subclasses define ``visit_<NodeType>(self, node, ctx)`` methods; the engine calls all selected
    rules in a single traversal. ``ctx`` is a :class:`hylint.lint.engine.RuleContext`.
    """

    CODE: ClassVar[str] = ""
    NAME: ClassVar[str] = ""
    MESSAGE: ClassVar[str] = ""
    FIX_TITLE: ClassVar[Optional[str]] = None
    DEFAULT_ENABLED: ClassVar[bool] = True
    # Only called for nodes inside hybrid contexts (and outside eager-only mode guards).
    HYBRID_ONLY: ClassVar[bool] = True
    # A structure rule (HYBRID_ONLY = False) that reports only inside these methods of a class the
    # analysis collected (``ctx.cls.methods[name]``, with ``ctx.cls`` that class) names them: the engine
    # then visits just those methods for it, not the whole module. None: the whole module.
    METHODS: ClassVar[Optional[Tuple[str, ...]]] = None
    # Also called in code a trace reaches from elsewhere in the package (docs/reach.md); False for a rule
    # that judges what a block's hybrid_forward keeps from one call to the next
    REACHED: ClassVar[bool] = True
    # The regions of a file the rule reads beyond its hybrid functions (see ``Region``): kept for it when
    # only part of a file is parsed. A rule that reads anything else sets PREFILTER = None.
    READS: ClassVar[FrozenSet[Region]] = frozenset()
    # The rule's fixes are built from the node it reports and the analysis's values alone (no name, statement
    # or indentation of the module elsewhere): a fix found on the reduced source is the whole file's, and
    # the engine keeps it instead of linting the file whole again (hylint/lint/regions.py)
    LOCAL_FIX: ClassVar[bool] = False
    DOC: ClassVar[str] = ""
    VALID: ClassVar[Sequence[Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.CODE and cls.__module__.startswith(_RULES_PACKAGE):
            _KNOWN_CODES.add(cls.CODE)

    @classmethod
    def fixable(cls) -> bool:
        return any(example.expected_fixed is not None for example in cls.INVALID)

    @classmethod
    def summary(cls) -> str:
        return cls.MESSAGE.split("\n", 1)[0]
