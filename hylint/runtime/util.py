"""``mxnet.util``: the legacy (non-NumPy) mode is the only one: ``is_np_array()``/``is_np_shape()`` are False."""
import functools
import os

from .base import RuntimeUnsupported


def is_np_array():
    return False


def is_np_shape():
    return False


def set_np_shape(active):
    if active:
        raise RuntimeUnsupported("mxnet.util.set_np_shape(True) (the mx.np interface)")
    return False


def set_np(shape=True, array=True, dtype=False):
    if shape or array or dtype:
        raise RuntimeUnsupported("mxnet.util.set_np (the mx.np interface)")


def reset_np():
    return None


def use_np(func):
    """MXNet switches the decorated class or function to NumPy semantics; the runtime refuses it when the
    function is called or the class instantiated (it would otherwise run with legacy semantics)."""
    if isinstance(func, type):
        def refuse_init(self, *args, **kwargs):
            raise RuntimeUnsupported("mxnet.util.use_np on %s (the mx.np interface)" % func.__name__)
        func.__init__ = refuse_init
        return func

    @functools.wraps(func)
    def refuse(*args, **kwargs):
        raise RuntimeUnsupported("mxnet.util.use_np (the mx.np interface)")
    return refuse


use_np_shape = use_np_array = use_np


def get_gpu_count():
    return 0


def getenv(name):
    return os.environ.get(name)


def setenv(name, value):
    os.environ[name] = value
