"""What ``nd`` and ``sym`` expose: the public and prefixed op names, and the hand-written wrappers whose
behaviour differs between the two namespaces."""
import math

import numpy as np

from ...facts.operators import ND_BINARY_FUNCTIONS  # facts are shared with the linter, not part of it
from ...facts.names import mxnet_operators
from ..base import unsupported

from .table import OPS
from .math import _BINARY


# ----------------------------------------------------------------------------------------------
# namespace layout: which public names each namespace exposes
# ----------------------------------------------------------------------------------------------
#: names hidden from both namespaces (internal ops reached through operators / wrappers)
_INTERNAL_PREFIX = "_"


def public_names():
    """Top-level op names shared by ``nd`` and ``sym`` (each op once, under every public alias)."""
    names = {}
    for name, op in OPS.items():
        if name.startswith(_INTERNAL_PREFIX) or "." in name or not op.namespaces:
            continue
        names[name] = op
    for creation in ("zeros", "ones", "full", "arange", "eye"):
        names.pop(creation, None)  # hand-written wrappers in both namespaces (see WRAPPERS)
    for nd_only_wrappers in ("maximum", "minimum", "power"):
        names.pop(nd_only_wrappers, None)
    return names


def prefixed_names(group):
    """``{name: op}`` for the ops MXNet registers as ``_<group>_<name>`` and shows as ``nd.<group>.<name>``
    (``_contrib_SyncBatchNorm`` is ``nd.contrib.SyncBatchNorm``, ``_image_to_tensor`` ``nd.image.to_tensor``)."""
    prefix = "_%s_" % group
    return {name[len(prefix):]: op for name, op in OPS.items() if name.startswith(prefix)}


def stand_in_for_lacking_operators(namespace, public_name):
    """Give ``namespace`` (the runtime's ``public_name``: ``mxnet.ndarray`` or ``mxnet.symbol``) and its
    operator submodules (``contrib``, ``image``, ...) every operator function MXNet 1.9.1 generates there and
    the runtime lacks, as a stand-in that raises RuntimeUnsupported when called. Libraries test for operators
    (gluoncv: ``'box_decode' in F.contrib.__dict__``) and run other code without them; with the name present,
    the runtime takes MXNet's branch and, where that calls an operator it lacks, stops naming it, instead of
    verifying code MXNet does not run."""
    for module_name, names in mxnet_operators().items():
        if module_name != public_name and not module_name.startswith(public_name + "."):
            continue
        module = namespace
        for part in module_name[len(public_name):].split(".")[1:]:
            module = getattr(module, part, None)
        if module is None:  # a namespace the runtime does not have at all: its own AttributeError names it
            continue
        for name in names:
            if not hasattr(module, name):
                setattr(module, name, unsupported("%s.%s" % (module_name, name)))


# ----------------------------------------------------------------------------------------------
# Python wrapper functions whose behaviour differs between nd and sym (written once, parametrised
# by the namespace's invoke function). ``ns`` gives: ns.kind ('nd'|'sym'), ns.invoke(op_name, args,
# kwargs, hint=None), ns.is_tensor(x).
# ----------------------------------------------------------------------------------------------
_NUMERIC = (float, int, np.generic)


def _nd_binary(ns, name, broadcast_op, scalar_op, rscalar_op, pyfn):
    """MXNet's eager wrappers (``nd.maximum``, ``nd.add``, ...): numbers become scalar ops, two tensors broadcast,
    anything else on the right is a TypeError (a Symbol on the left reaches the op's type assertion)."""
    def wrapper(lhs, rhs):
        if isinstance(lhs, _NUMERIC):
            if isinstance(rhs, _NUMERIC):
                return pyfn(lhs, rhs)
            return ns.invoke(rscalar_op or scalar_op, (rhs,), {"scalar": float(lhs)})
        if isinstance(rhs, _NUMERIC):
            return ns.invoke(scalar_op, (lhs,), {"scalar": float(rhs)})
        if ns.is_tensor(rhs):
            return ns.invoke(broadcast_op, (lhs, rhs), {})
        raise TypeError("type %s not supported" % str(type(rhs)))
    wrapper.__name__ = name
    return wrapper


def _sym_binary(ns, name, elementwise_op, scalar_op, rscalar_op, pyfn):
    """MXNet's graph wrappers (``sym.maximum``, ``sym.power``, ...): two Symbols use the elementwise (same-shape)
    operator, a Symbol and a number the scalar operator."""
    import numbers

    def wrapper(left, right):
        lt, rt = ns.is_tensor(left), ns.is_tensor(right)
        if lt and rt:
            return ns.invoke(elementwise_op, (left, right), {})
        if lt and isinstance(right, numbers.Number):
            return ns.invoke(scalar_op, (left,), {"scalar": right})
        if rt and isinstance(left, numbers.Number):
            return ns.invoke(rscalar_op or scalar_op, (right,), {"scalar": left})
        if isinstance(left, numbers.Number) and isinstance(right, numbers.Number):
            return pyfn(left, right)
        raise TypeError("types (%s, %s) not supported" % (str(type(left)), str(type(right))))
    wrapper.__name__ = name
    return wrapper


def _tensor_or_scalar(ns, name, elementwise_op, scalar_op, broadcast_op, rscalar_op=None, pyfn=None):
    if ns.kind == "nd":
        return _nd_binary(ns, name, broadcast_op, scalar_op, rscalar_op, pyfn)
    return _sym_binary(ns, name, elementwise_op, scalar_op, rscalar_op, pyfn)


def _creation(ns, op_name, positional):
    def wrapper(*args, **kwargs):
        if len(args) > len(positional):
            raise TypeError("%s() takes at most %d positional arguments" % (op_name, len(positional)))
        kwargs = dict(kwargs)
        kwargs.update(zip(positional, args))
        if op_name in ("_arange",) and ns.kind == "nd":
            kwargs.setdefault("dtype", "float32")
        ctx = kwargs.pop("ctx", None)
        del ctx  # single CPU context
        return ns.invoke(op_name, (), kwargs)
    wrapper.__name__ = op_name.strip("_")
    return wrapper


def build_wrappers(ns):
    """The hand-written functions of namespace ``ns`` (``nd`` or ``sym``), as a name -> callable dict."""
    w = {}
    w["maximum"] = _tensor_or_scalar(ns, "maximum", "_maximum", "_maximum_scalar", "broadcast_maximum", pyfn=max)
    w["minimum"] = _tensor_or_scalar(ns, "minimum", "_minimum", "_minimum_scalar", "broadcast_minimum", pyfn=min)
    w["power"] = _tensor_or_scalar(ns, "power", "_power", "_power_scalar", "broadcast_power", "_rpower_scalar",
                                   pyfn=pow)
    w["zeros"] = _creation(ns, "_zeros", ("shape",))
    w["ones"] = _creation(ns, "_ones", ("shape",))
    w["full"] = _creation(ns, "_full", ("shape", "val"))
    w["arange"] = _creation(ns, "_arange", ("start", "stop", "step", "repeat", "infer_range"))
    w["eye"] = _creation(ns, "_eye", ("N", "M", "k"))
    full = w["full"]

    def full_wrapper(shape, val=None, **kwargs):
        if "val" in kwargs:
            val = kwargs.pop("val")
        return full(shape, value=val, **kwargs)
    full_wrapper.__name__ = "full"
    w["full"] = full_wrapper
    if ns.kind == "sym":
        w["pow"] = w["power"]
        w["hypot"] = _tensor_or_scalar(ns, "hypot", "_hypot", "_hypot_scalar", "broadcast_hypot", pyfn=math.hypot)
    else:
        for name, key, sop, rsop in ND_BINARY_FUNCTIONS:
            w[name] = _nd_binary(ns, name, "broadcast_" + key, sop, rsop,
                                 lambda a, b, fn=_BINARY[key]: fn(a, b).item() if hasattr(fn(a, b), "item") else fn(a, b))
    return w


WRAPPERS = build_wrappers
