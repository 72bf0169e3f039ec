"""Exception classes and small helpers shared by the whole runtime (mirrors ``mxnet.base``)."""
import numbers

import numpy as np

__all__ = ["MXNetError", "NotImplementedForSymbol", "RuntimeUnsupported", "unsupported", "unsupported_class",
           "numeric_types",
           "integer_types", "string_types", "mx_real_t", "shape_str", "data_dir"]

numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
string_types = (str,)
mx_real_t = np.float32


class MXNetError(RuntimeError):
    """Everything MXNet raises from its C++ core (shape/dtype inference, parameter parsing, ...).

    Errors raised while a graph is checked or run carry the failing node:
    ``node_name`` (e.g. ``net0__plus0``) and ``node_origin`` (``(filename, lineno)`` of the user code
    that created the node, or ``None``).
    """

    def __init__(self, msg="", node_name=None, node_origin=None):
        super().__init__(msg)
        self.node_name = node_name
        self.node_origin = node_origin


class NotImplementedForSymbol(MXNetError):
    """A Symbol stub for an NDArray-only method (``asnumpy``, ``+=``, ``bool()``...)."""

    def __init__(self, function, alias=None, *args):
        super().__init__()
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += ' (namely operator "{}")'.format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        msg += " is not implemented for Symbol and only available in NDArray."
        return msg


class RuntimeUnsupported(NotImplementedError):
    """A part of MXNet that no forward pass needs and the runtime does not provide (image decoding, recordio,
    optimiser updates, pretrained weights): it imports, and says so plainly when used. ``name`` is the
    MXNet name (``mxnet.image.imdecode``)."""

    def __init__(self, name):
        super().__init__("hylint.runtime does not provide %s: run verify with --backend mxnet" % name)
        self.name = name


def unsupported(name):
    """A stand-in for MXNet's function ``name`` that raises :class:`RuntimeUnsupported` when called."""
    def stand_in(*args, **kwargs):
        raise RuntimeUnsupported(name)
    stand_in.__name__ = name.rsplit(".", 1)[-1]
    stand_in.__qualname__ = stand_in.__name__
    return stand_in


def unsupported_class(name, bases=(object,)):
    """A stand-in for MXNet's class ``name`` (``mxnet.image.ImageIter``): it can be imported and subclassed,
    and constructing it raises :class:`RuntimeUnsupported`."""
    module, short = name.rsplit(".", 1)

    def __init__(self, *args, **kwargs):
        raise RuntimeUnsupported(name)
    return type(short, bases, {"__init__": __init__, "__module__": module})


def data_dir():
    """MXNet's data directory (``$MXNET_HOME`` or ``~/.mxnet``); libraries build default paths from it."""
    import os
    return os.getenv("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


def shape_str(shape):
    """MXNet prints shapes as ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def is_number(value):
    return isinstance(value, numbers.Number)


#: numpy's aliases of builtin types, removed in numpy 1.24; libraries of MXNet's era (gluoncv) still use them
_REMOVED_NUMPY_ALIASES = ("float", "int", "bool", "object", "str", "complex", "long", "unicode")


def removed_numpy_alias(error):
    """One line saying why, when ``error`` is a model library's own use of a numpy alias that numpy 1.24 removed
    (gluoncv's ``np.float`` on numpy 2): no runtime can run that code, the library needs an older numpy.
    None for any other error. (verify prints it and exits 2, as for a part the runtime lacks.)"""
    if not isinstance(error, AttributeError):
        return None
    for alias in _REMOVED_NUMPY_ALIASES:
        if str(error).startswith("module 'numpy' has no attribute '%s'" % alias):
            return ("the model's own library uses np.%s, which numpy %s no longer has (removed in numpy 1.24): "
                    "that library needs numpy < 1.24, on MXNet and on hylint's runtime alike" % (alias, np.__version__))
    return None


# MXNet's exception messages and reprs name these classes by their mxnet module path
MXNetError.__module__ = "mxnet.base"
NotImplementedForSymbol.__module__ = "mxnet.base"
