"""Where a failure comes from: the user line that created a failing graph node (recorded by the runtime,
or on MXNet by wrapping its symbol creator), else the innermost user frame."""
from __future__ import annotations

import contextlib
import linecache
import re
import sys
from typing import Any, Dict, Iterator, Optional, Tuple

from hylint.verify.outcomes import ERROR, first_line, Location, Outcome
from hylint.verify.sandbox import is_user_file, library_dirs, user_frames


def _location(filename: str, line: int) -> Location:
    return Location(filename, line, linecache.getline(filename, line).strip())


# MXNet names the failing node as `Error in operator <node>:` or, for errors in a node's parameters,
# `in operator _backward_topk(name="<node>_backward", ...)`
NODE_IN_MESSAGE = re.compile(r'Error in operator (\S+?):|in operator \w+\(name="([^"]+?)(?:_backward)?"')


def failure(error: BaseException, phase: str, origins: Optional[Dict[str, Tuple[str, int]]] = None) -> Outcome:
    """An ERROR outcome for ``error``, located: the graph node's creating line (the runtime records it on the
    error; for MXNet, ``origins`` maps node names to lines), else the innermost user frame of the traceback."""
    outcome = Outcome(ERROR, type(error).__name__, first_line(error), phase=phase)
    origin = getattr(error, "node_origin", None)
    if origin is None and origins:
        match = NODE_IN_MESSAGE.search(str(error))
        if match:
            origin = origins.get(match.group(1) or match.group(2))
    if origin is not None and phase not in ("eager", "construct"):
        outcome.phase = "graph"
        outcome.location = _location(*origin)
        return outcome
    frames = user_frames(error)
    if frames:
        outcome.location = _location(frames[-1].filename, frames[-1].lineno)
    return outcome


@contextlib.contextmanager
def node_origins(mx: Any) -> Iterator[Dict[str, Tuple[str, int]]]:
    """On real MXNet, record ``node name -> (file, line)`` of the user code that creates every operator node
    while active (every generated ``mx.sym`` operator goes through ``mxnet.symbol.register._symbol_creator``).
    The reference runtime records origins itself (``MXNetError.node_origin``): nothing to do there."""
    origins: Dict[str, Tuple[str, int]] = {}
    register = sys.modules.get("mxnet.symbol.register")
    original = getattr(register, "_symbol_creator", None)
    if getattr(mx, "__hylint_runtime__", False) or original is None:
        yield origins
        return
    library = library_dirs()

    def creator(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        frame = sys._getframe(1)
        while frame is not None and not is_user_file(frame.f_code.co_filename, library):
            frame = frame.f_back
        if frame is not None:
            try:
                name = result.name
            except Exception:  # a grouped symbol has no single name
                name = None
            if name:
                origins.setdefault(name, (frame.f_code.co_filename, frame.f_lineno))
        return result

    register._symbol_creator = creator
    try:
        yield origins
    finally:
        register._symbol_creator = original

