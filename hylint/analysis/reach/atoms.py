"""What a name may hold, to the reach: values as sets of atoms, and the keys naming functions and classes.

Reads nothing: the vocabulary the other modules of the reach share. Answers what an atom means (the kinds
below), how a function or class is named (``FunctionKey``), and which attributes and methods of a tensor
or of a builtin are not the package's (``_TENSOR_PY_ATTRS``, ``_TENSOR_EXITS``, ``_BUILTIN_METHODS``).
"""
from __future__ import annotations

from typing import FrozenSet, NamedTuple

# Values are sets of atoms (what a name may hold). Atoms are tuples whose first item is the kind:
F = ("F",)                  # the namespace: mx.nd eagerly, mx.sym hybridized
F_MEMBER = ("F.member",)    # F.random, F.linalg.potrf, ...: calling it gives a tensor
TENSOR = ("tensor",)
TENSOR_METHOD = ("tensor.method",)  # x.reshape, x.sum: calling it gives a tensor
# ("fn", FunctionKey); ("class", ClassKey); ("obj", ClassKey); ("obj?", ClassKey): an object whose class a
# by-name call guessed; ("bound", ClassKey, FunctionKey, sure): a method of an object;
# ("module", dotted name); ("external", dotted name); ("method?", name): an attribute of an unknown object;
# ("runs", FunctionKey[, ClassKey]): a block the package does not define, built around a function (a method
# bound to an object of that class); ("super", FunctionKey,
# name of self): super().method
Value = FrozenSet[tuple]
NOTHING: Value = frozenset()

# External names that are the F namespace (what getF-style accessors return)
_F_NAMESPACES = {"mxnet.nd", "mxnet.ndarray", "mxnet.sym", "mxnet.symbol"}
# Tensor attributes that are Python values, not tensors
_TENSOR_PY_ATTRS = {"shape", "dtype", "ndim", "size", "context", "ctx", "stype", "name", "T"}
# Tensor methods whose result leaves the graph: NumPy or Python values (`rpn_score.asnumpy()`)
_TENSOR_EXITS = {"asnumpy", "asscalar", "tolist", "item", "wait_to_read", "list_outputs", "tojson"}
# Methods of builtin containers and strings: a call of one of these on an unknown object is not resolved
# by name to a package method of the same name
_BUILTIN_METHODS = set(dir(list)) | set(dir(dict)) | set(dir(str)) | set(dir(set)) | {"forward", "hybrid_forward"}


class FunctionKey(NamedTuple):
    """A function, method, nested function or lambda: its module and a qualified name unique in the module
    (``Model.hybrid_forward``, ``helper.<locals>.step``, ``Model.__init__.<lambda@12>``)."""
    module: str
    qualname: str


ClassKey = FunctionKey  # a class: its module and qualified name


def _ordered(value: Value):
    """A value's atoms in an order that does not depend on string hashing: the first call that reaches a
    function names its chain, so the calls of one expression are made in the same order on every run."""
    return value if len(value) < 2 else sorted(value, key=repr)
