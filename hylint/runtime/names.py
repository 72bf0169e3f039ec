"""Automatic node names (``_plus0``, ``net0_dense0_fwd``) and where user code created a node."""
import os
import sys
import threading

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))


class NameManager:
    """Names nodes ``<prefix><hint><count>``; a fresh counter per entered prefix scope, like MXNet."""

    _local = threading.local()

    def __init__(self, prefix=""):
        self.prefix = prefix
        self._counter = {}
        self._old = None

    def get(self, name, hint):
        if name:
            # MXNet's base manager hands a given name back untouched (a non-string fails later, when the node is
            # made: ``'int' object has no attribute 'encode'``); a prefix scope adds its prefix
            return self.prefix + name if self.prefix else name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return "%s%s%d" % (self.prefix, hint, count)

    def __enter__(self):
        self._old = NameManager.current()
        NameManager._local.value = self
        return self

    def __exit__(self, *exc):
        NameManager._local.value = self._old
        return False

    @staticmethod
    def current():
        value = getattr(NameManager._local, "value", None)
        if value is None:
            value = NameManager._local.value = NameManager()
        return value


Prefix = NameManager


def capture_origin():
    """(filename, lineno) of the innermost frame outside ``hylint/runtime`` (the user's line)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_RUNTIME_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    return (frame.f_code.co_filename, frame.f_lineno)
