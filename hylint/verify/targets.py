"""What ``hylint verify`` runs: a :class:`Target` from the command line (``file.py::Name`` or
``package.module:name``) or from ``[[tool.hylint.verify]]`` entries, and the factory that builds its block."""
from __future__ import annotations

import inspect
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hylint.verify.backends import BACKENDS
from hylint.verify.inputs import parse_inputs
from hylint.verify.outcomes import Outcome, VerifyError
from hylint.verify.sandbox import forget_package, import_attribute


def module_factory(mx: Any, module: str, attr: str, label: str) -> Any:
    """What builds the block of a ``module:attr`` target: the Block class, the function, or for a Block
    instance a function giving that instance first, then a fresh one (the module imported again)."""
    obj = import_attribute(module, attr, label)
    if isinstance(obj, mx.gluon.Block):
        given = [obj]

        def instance() -> Any:
            if given:
                return given.pop()
            forget_package(module)
            return import_attribute(module, attr, label)

        instance.__name__ = attr
        return instance
    return block_factory(mx, obj, attr, label, "a Block subclass, a Block instance nor")


def block_factory(mx: Any, obj: Any, name: str, label: str, kinds: str = "a Block subclass nor") -> Any:
    """``obj`` when it is a Block subclass or a function (that should return a Block); VerifyError if not."""
    if isinstance(obj, type):
        if not issubclass(obj, mx.gluon.Block):
            raise VerifyError(f"{label}: {name} is a class but not a gluon Block")
        return obj
    if callable(obj):
        return obj
    raise VerifyError(f"{label}: {name} is neither {kinds} a function returning a Block "
                      f"(it is a {type(obj).__name__})")


def file_to_fix(block: Any, hybridized: Outcome) -> Optional[Path]:
    """The file verify fixes for a module target: the one holding the line the hybridized run failed at,
    else the one defining the block's class."""
    if hybridized.location is not None and os.path.isfile(hybridized.location.filename):
        return Path(hybridized.location.filename)
    try:
        found = inspect.getsourcefile(type(block))
    except (TypeError, OSError):
        return None
    return Path(found) if found and os.path.isfile(found) else None


@dataclass
class Target:
    """``path::name`` (a file) or ``module:name`` (an importable module) with its inputs: ``name`` is a Block
    subclass, a function returning a Block or (module form) a Block instance, perhaps dotted (``models.Net``).
    ``inputs`` holds one spec per input (see :func:`make_inputs`), keyword inputs as :class:`Named` last."""
    path: Optional[Path]
    name: str
    inputs: List[Any]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    backend: str = "numpy"
    seed: int = 0
    module: Optional[str] = None  # the module form: its dotted name (``path`` is then the file verify fixes)
    search: Optional[Path] = None  # module form: the folder put first on sys.path (default: the current one)
    train: bool = False  # also compare a train-mode call of the hybridized block (traced in predict mode)
    gate: bool = False  # a [[tool.hylint.verify]] entry: the block must hybridize as committed, not after fixes

    @property
    def label(self) -> str:
        return f"{self.module}:{self.name}" if self.module else f"{self.path}::{self.name}"


_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"


def parse_target(text: str) -> Tuple[Optional[Path], Optional[str], str]:
    """``path/to/file.py::Name`` -> ``(path, None, name)``; ``package.module:attr`` -> ``(None, module, attr)``."""
    path, sep, name = text.rpartition("::")
    if sep:
        if not path or not name.isidentifier():
            raise VerifyError(f"target {text!r} is not path/to/file.py::Name")
        return Path(path), None, name
    match = re.fullmatch(rf"({_DOTTED}):({_DOTTED})", text.strip())
    if match is None:
        raise VerifyError(f"target {text!r} is not path/to/file.py::Name (a file) or package.module:name (a module)")
    return None, match.group(1), match.group(2)


VERIFY_KEYS = {"target": str, "inputs": list, "kwargs": dict, "backend": str, "train_mode": bool}


def targets_from_config(entries: Sequence[Dict[str, Any]], root: Path, where: str) -> List[Target]:
    """``[[tool.hylint.verify]]`` entries -> targets (paths relative to ``root``); VerifyError naming the key."""
    targets = []
    for number, entry in enumerate(entries, 1):
        at = f"{where}: [[tool.hylint.verify]] entry {number}"
        for key, value in entry.items():
            if key not in VERIFY_KEYS:
                raise VerifyError(f"{at}: unknown key `{key}` (known: {', '.join(VERIFY_KEYS)})")
            if not isinstance(value, VERIFY_KEYS[key]):
                raise VerifyError(f"{at}: `{key}` must be a {VERIFY_KEYS[key].__name__.replace('dict', 'table')}"
                                  f", got {value!r}")
        for key in ("target", "inputs"):
            if key not in entry:
                raise VerifyError(f"{at}: `{key}` is required")
        try:
            path, module, name = parse_target(entry["target"])
            inputs = parse_inputs(entry["inputs"])
        except VerifyError as error:
            raise VerifyError(f"{at}: {error}") from None
        if not inputs:
            raise VerifyError(f"{at}: `inputs` must name at least one input shape")
        backend_name = entry.get("backend", "numpy")
        if backend_name not in BACKENDS:
            raise VerifyError(f"{at}: `backend` must be one of {', '.join(BACKENDS)}, got {backend_name!r}")
        if path is not None and not path.is_absolute():
            path = root / path
            try:  # shown relative to the current folder when it is under it
                path = path.relative_to(Path.cwd().resolve())
            except ValueError:
                pass
        targets.append(Target(path, name, inputs, dict(entry.get("kwargs", {})), backend_name, module=module,
                              search=root if module else None, train=entry.get("train_mode", False), gate=True))
    return targets


def resolve_factory(mx: Any, module: ModuleType, name: str, label: str) -> Any:
    obj = getattr(module, name, None)
    if obj is None:
        raise VerifyError(f"{label}: the module defines no {name!r}")
    return block_factory(mx, obj, name, label)


def check_signature(factory: Any, target: Target) -> None:
    try:
        inspect.signature(factory).bind(**target.kwargs)
    except TypeError as error:
        raise VerifyError(f"{target.label}: cannot be called with "
                          f"{'--kwargs ' + json.dumps(target.kwargs) if target.kwargs else 'no arguments'}: "
                          f"{error} (pass constructor arguments with --kwargs)") from None
    except ValueError:  # no signature to check (a builtin): let the call tell
        pass


def read_target_source(path: Path) -> str:
    from hylint.batch.files import SourceError, read_source

    if not path.is_file():
        raise VerifyError(f"{path}: no such file")
    try:
        return read_source(path).text
    except SourceError as error:
        raise VerifyError(f"{path}: cannot be read: {error}") from None

