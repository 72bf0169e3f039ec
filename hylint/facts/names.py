"""MXNet 1.9.1's attribute names per module the runtime stands in for (``mxnet_names.json``, measured with
``dir()`` by scripts/gen_facts.py)."""
import json
from pathlib import Path
from types import MappingProxyType
from typing import Dict, Mapping, Optional, Tuple

_NAMES: Dict[str, frozenset] = {}

# the class names of a tensor eagerly (mx.nd.NDArray) and when traced (mx.sym.Symbol): `isinstance(x, ...)`
# with one of them is true in one mode only
ND_TYPES = frozenset({"NDArray"})
SYM_TYPES = frozenset({"Symbol"})
# how code spells the eager and the traced namespace: `F is nd` is true in one mode only
ND_NAMES = frozenset({"nd", "ndarray", "mx.nd", "mx.ndarray", "mxnet.nd", "mxnet.ndarray"})
SYM_NAMES = frozenset({"sym", "symbol", "mx.sym", "mx.symbol", "mxnet.sym", "mxnet.symbol"})
# the eager namespace's submodule `mxnet.ndarray.ndarray` (`F is nd.ndarray`): never F in either mode (measured
# on MXNet 1.9.1: `F` is `mxnet.ndarray` eagerly, `mxnet.symbol` traced), so a branch under `F is nd.ndarray`
# never runs; read as an eager-only test, which keeps that dead branch out of the traced code
ND_SUBMODULE_NAMES = frozenset(name + ".ndarray" for name in ND_NAMES)
# `npx.set_np()` (any spelling ending in this name) as a module-level statement: MXNet's numpy mode for the
# module's blocks (read by analysis/module.py; lint/regions.py keeps that statement)
NUMPY_MODE_SWITCH = "set_np"


def namespace_mode(text: Optional[str], aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[str]:
    """'nd' when the dotted name ``text`` spells the eager namespace, 'sym' when the traced one, else None.
    ``aliases``: the module's own names for mxnet (syntax/imports.py ``mxnet_aliases``): with ``import mxnet
    as _mx``, ``_mx.sym`` is ``mxnet.sym``."""
    for spelling in _spellings(text, aliases):
        if spelling in ND_NAMES or spelling in ND_SUBMODULE_NAMES:
            return "nd"
        if spelling in SYM_NAMES:
            return "sym"
    return None


def negated_mode(text: Optional[str], aliases: Mapping[str, str] = MappingProxyType({})) -> Optional[str]:
    """The mode ``F is not <text>`` (or ``!=``) tests: the other namespace's mode, and None for the submodule
    ``nd.ndarray``, which F never is (the test is then true in both modes)."""
    mode = namespace_mode(text, aliases)
    if mode is None or any(spelling in ND_SUBMODULE_NAMES for spelling in _spellings(text, aliases)):
        return None
    return {"nd": "sym", "sym": "nd"}[mode]


def _spellings(text: Optional[str], aliases: Mapping[str, str]) -> Tuple[str, ...]:
    """``text`` as written and with its first name read through the module's aliases (``_mx.sym`` ->
    ``mxnet.sym``); none for an empty text."""
    if not text:
        return ()
    head, dot, rest = text.partition(".")
    return text, aliases.get(head, head) + dot + rest


def in_nd_namespace(callee: str) -> bool:
    """``callee`` (a dotted name) is a function of the eager namespace: ``nd.ones``, ``mx.nd.random.uniform``."""
    return bool(callee) and (callee.rpartition(".")[0] in ND_NAMES or any(callee.startswith(p + ".") for p in ND_NAMES))


# the namespace's `__name__` eagerly and when traced (measured on MXNet 1.9.1): `F.__name__ == 'mxnet.ndarray'`
# a switch a block's constructor takes to say whether the block may be hybridized (gluoncv2's
# `hybridizable=True`); read by analysis/guards.py and analysis/reach/guards.py
HYBRIDIZABLE_FLAG = r"_*(hybridi[sz]able|can_hybridi[sz]e|allow_hybridi[sz]e)"
ND_MODULE_NAME = "mxnet.ndarray"
SYM_MODULE_NAME = "mxnet.symbol"


_OPERATORS: Dict[str, tuple] = {}


def _load() -> dict:
    try:
        return json.loads((Path(__file__).resolve().parent / "mxnet_names.json").read_text())
    except (OSError, ValueError):
        return {}


def mxnet_names() -> Dict[str, frozenset]:
    """module -> its names; empty when the table is missing or unreadable."""
    if not _NAMES:
        _NAMES.update({module: frozenset(names) for module, names in _load().get("modules", {}).items()})
    return _NAMES


def mxnet_operators() -> Dict[str, tuple]:
    """operator namespace (``mxnet.ndarray.contrib``, ...) -> the operator functions MXNet 1.9.1 generates in
    it, sorted; empty when the table is missing or unreadable."""
    if not _OPERATORS:
        _OPERATORS.update({module: tuple(names) for module, names in _load().get("operators", {}).items()})
    return _OPERATORS
