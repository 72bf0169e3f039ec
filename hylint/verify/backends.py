"""The backend a block runs on (``mxnet``, or the NumPy reference runtime behind ``import mxnet``), and the
parts of MXNet the runtime lacks: those stop verify (exit 2) instead of giving a verdict."""
from __future__ import annotations

import contextlib
import re
import sys
from typing import Any, Dict, Iterator, Optional

from hylint.verify.outcomes import first_line, VerifyError
from hylint.verify.sandbox import user_frames


BACKENDS = ("mxnet", "numpy")


@contextlib.contextmanager
def backend(name: str) -> Iterator[Any]:
    """Within the block, ``import mxnet`` gives the chosen backend; yields that module."""
    if name not in BACKENDS:
        raise VerifyError(f"unknown backend {name!r} (choose from: {', '.join(BACKENDS)})")
    if name == "mxnet":
        try:
            import mxnet  # noqa: F401
        except Exception as error:  # ImportError, or a broken native library
            raise VerifyError(f"the mxnet backend needs MXNet 1.x, which is not importable here "
                              f"({type(error).__name__}: {first_line(error)}); use --backend numpy "
                              f"(the reference runtime) or install mxnet") from None
        yield sys.modules["mxnet"]
        return
    try:
        import hylint.runtime as runtime
        activate = runtime.activate
    except (ImportError, AttributeError):
        raise VerifyError("the NumPy reference runtime (hylint.runtime.activate) is not available") from None
    with activate():
        import mxnet  # the runtime's import surface while activated
        yield mxnet


class RuntimeGap(VerifyError):
    """The reference runtime lacks a part of MXNet that the block uses: not a verdict on the block."""


# an MXNet name the runtime's modules do not define (they are named mxnet.* or hylint.runtime.*)
_MISSING_NAME = re.compile(r"^module '((?:mxnet|hylint\.runtime)(?:\.\w+)*)' has no attribute '(\w+)'$")


def runtime_gap(error: BaseException) -> Optional[str]:
    """The MXNet name behind ``error`` when it says the runtime lacks it: ``RuntimeUnsupported``, or a
    runtime ``mxnet`` module without an attribute that MXNet 1.9.1's module has (``mxnet_names.json``; a
    name MXNet lacks too, such as ``F.array`` on a Symbol, is the user's error). Else None."""
    name = getattr(error, "name", None)
    if type(error).__name__ == "RuntimeUnsupported" and isinstance(name, str):
        return name
    match = _MISSING_NAME.match(str(error)) if isinstance(error, AttributeError) else None
    if match is None:
        return None
    module = re.sub(r"^hylint\.runtime", "mxnet", match.group(1))
    return f"{module}.{match.group(2)}" if match.group(2) in mxnet_names().get(module, ()) else None


def mxnet_names() -> Dict[str, frozenset]:
    """MXNet 1.9.1's attribute names per module the runtime stands in for (hylint/facts/mxnet_names.json);
    empty when the table is missing."""
    from hylint.facts.names import mxnet_names as measured
    return measured()


def check_runtime_gap(mx: Any, error: BaseException) -> None:
    """On the reference runtime, a part it lacks stops verify (exit 2) with the name and where it is used,
    instead of a verdict: real MXNet may well run it."""
    from hylint.runtime.base import removed_numpy_alias  # numpy only: no MXNet, no runtime state

    old_numpy = removed_numpy_alias(error)  # the model's library, on numpy >= 1.24: no backend can run it
    if old_numpy is None and not getattr(mx, "__hylint_runtime__", False):
        return
    name = None if old_numpy is not None else runtime_gap(error)
    if old_numpy is None and name is None:
        return
    frames = user_frames(error)
    where = f" (used at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if old_numpy is not None:
        raise RuntimeGap(f"{old_numpy}{where}") from None
    raise RuntimeGap(f"hylint's NumPy runtime does not provide {name}{where}: run verify with --backend mxnet "
                     f"(real MXNet 1.x) for this block") from None

