"""The top-level imports of a module, as (module, name, local) triples, for rules that look up how a module
names MXNet: ``import mxnet as mx`` -> ("mxnet", None, "mx"); ``import mxnet`` -> ("mxnet", None, None);
``from mxnet import nd as n`` -> ("mxnet", "nd", "n")."""
from __future__ import annotations

from typing import Dict, Iterator, Optional, Tuple

import libcst as cst

from hylint.syntax.nodes import dotted_name


def top_level_imports(module: cst.Module) -> Iterator[Tuple[str, Optional[str], Optional[str]]]:
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    yield dotted_name(alias.name), None, alias.asname.name.value if alias.asname is not None else None
            elif isinstance(small, cst.ImportFrom) and small.module is not None and \
                    not isinstance(small.names, cst.ImportStar):
                source = dotted_name(small.module)
                for alias in small.names:
                    yield source, alias.name.value, \
                        alias.asname.name.value if alias.asname is not None else alias.name.value


def mxnet_aliases(module: cst.Module) -> Dict[str, str]:
    """The module's top-level names for mxnet and its submodules, each with the dotted path it names:
    ``import mxnet as _mx`` -> {"_mx": "mxnet"}; ``from mxnet import symbol as S`` -> {"S": "mxnet.symbol"};
    ``import mxnet.ndarray as nd_`` -> {"nd_": "mxnet.ndarray"}."""
    aliases: Dict[str, str] = {}
    for source, name, local in top_level_imports(module):
        if local is None or not source or source.split(".", 1)[0] != "mxnet":
            continue
        aliases[local] = source if name is None else f"{source}.{name}"
    return aliases
