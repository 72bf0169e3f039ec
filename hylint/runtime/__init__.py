"""hylint.runtime: a NumPy re-implementation of the legacy MXNet 1.x NDArray / Symbol / Gluon surface.

It runs Gluon code eagerly and hybridized, and fails where MXNet 1.9.1 fails, with MXNet's exception
types and messages (see ``docs/runtime.md``). ``activate()`` makes ``import mxnet`` resolve to it::

    from hylint.runtime import activate
    with activate():
        import mxnet as mx
        ...

Graph-time errors are :class:`MXNetError` with ``node_name`` and ``node_origin`` (the user's
``(filename, lineno)`` that created the failing node). This package never imports the linter.
"""
import contextlib
import sys

from .base import MXNetError, NotImplementedForSymbol

__all__ = ["activate", "runtime_modules", "MXNetError", "NotImplementedForSymbol", "node_origin", "copy_parameters"]


def runtime_modules():
    """``{'mxnet': module, 'mxnet.nd': module, ...}``: the import names the runtime provides."""
    from . import _mxnet, autograd, base, context, initializer, names, ndarray, random, symbol, gluon
    from . import contrib as mx_contrib, image, io, lr_scheduler, metric, operator, optimizer, recordio, registry
    from . import util
    from .gluon import block, contrib, data, loss, model_zoo, nn, parameter, rnn, trainer, utils
    from .gluon.nn import basic_layers, conv_layers
    return {
        "mxnet": _mxnet, "mxnet.base": base, "mxnet.context": context, "mxnet.autograd": autograd,
        "mxnet.ndarray": ndarray, "mxnet.nd": ndarray, "mxnet.ndarray.ndarray": ndarray.ndarray,
        "mxnet.ndarray.random": ndarray.random, "mxnet.ndarray.contrib": ndarray.contrib,
        "mxnet.symbol": symbol, "mxnet.sym": symbol, "mxnet.symbol.symbol": symbol,
        "mxnet.symbol.random": symbol.random, "mxnet.symbol.contrib": symbol.contrib,
        "mxnet.initializer": initializer, "mxnet.init": initializer, "mxnet.random": random, "mxnet.name": names,
        "mxnet.gluon": gluon, "mxnet.gluon.block": block, "mxnet.gluon.parameter": parameter,
        "mxnet.gluon.nn": nn, "mxnet.gluon.rnn": rnn, "mxnet.gluon.loss": loss, "mxnet.gluon.trainer": trainer,
        "mxnet.gluon.utils": utils, "mxnet.gluon.contrib": contrib, "mxnet.gluon.contrib.nn": contrib.nn,
        "mxnet.gluon.rnn.rnn_layer": rnn.rnn_layer, "mxnet.gluon.nn.basic_layers": basic_layers,
        "mxnet.gluon.nn.conv_layers": conv_layers,
        "mxnet.gluon.model_zoo": model_zoo, "mxnet.gluon.model_zoo.vision": model_zoo.vision,
        "mxnet.gluon.model_zoo.model_store": model_zoo.model_store,
        "mxnet.gluon.data": data, "mxnet.gluon.data.dataset": data.dataset, "mxnet.gluon.data.sampler": data.sampler,
        "mxnet.gluon.data.dataloader": data.dataloader, "mxnet.gluon.data.vision": data.vision,
        "mxnet.gluon.data.vision.transforms": data.vision.transforms,
        "mxnet.gluon.data.vision.datasets": data.vision.datasets,
        "mxnet.ndarray.image": ndarray.image, "mxnet.symbol.image": symbol.image,
        "mxnet.image": image, "mxnet.image.image": image.image, "mxnet.io": io, "mxnet.lr_scheduler": lr_scheduler,
        "mxnet.metric": metric, "mxnet.operator": operator, "mxnet.optimizer": optimizer, "mxnet.recordio": recordio,
        "mxnet.registry": registry, "mxnet.util": util, "mxnet.contrib": mx_contrib,
        "mxnet.gluon.contrib.rnn": contrib.rnn, "mxnet.gluon.rnn.rnn_cell": rnn.rnn_cell,
        "mxnet.gluon.contrib.cnn": contrib.cnn,
        "mxnet.contrib.amp": mx_contrib.amp, "mxnet.contrib.amp.amp": mx_contrib.amp,
        # MXNet's vision zoo is a package of one module per family; the runtime's is one module (gluonfr
        # imports `mxnet.gluon.model_zoo.vision.resnet`)
        **{"mxnet.gluon.model_zoo.vision." + family: model_zoo.vision
           for family in ("alexnet", "densenet", "inception", "mobilenet", "resnet", "squeezenet", "vgg")},
    }


def _is_mxnet_name(name):
    return name == "mxnet" or name.startswith("mxnet.")


@contextlib.contextmanager
def activate():
    """Make ``import mxnet`` (and its submodules) resolve to the runtime; restore ``sys.modules`` exactly on exit.

    A real ``mxnet`` imported before is hidden while active and put back afterwards, together with every
    other ``mxnet.*`` entry; modules imported while active keep referring to the runtime."""
    saved = {name: module for name, module in sys.modules.items() if _is_mxnet_name(name)}
    for name in saved:
        del sys.modules[name]
    sys.modules.update(runtime_modules())
    try:
        yield sys.modules["mxnet"]
    finally:
        for name in [n for n in sys.modules if _is_mxnet_name(n)]:
            del sys.modules[name]
        sys.modules.update(saved)


def node_origin(error):
    """``(filename, lineno)`` of the user code that created the graph node an MXNetError is about, or None."""
    return getattr(error, "node_origin", None)


def copy_parameters(source, target):
    """Give ``target`` (a freshly built Block of the same structure) the parameter values of ``source``.

    Parameters are matched by their structural names (``fc1.weight``), so the two instances may have
    different prefixes (``net0_`` / ``net1_``). Works before ``target``'s deferred shapes are known."""
    src = source._collect_params_with_prefix()
    dst = target._collect_params_with_prefix()
    if sorted(src) != sorted(dst):
        raise ValueError("blocks differ in structure: %s vs %s" % (sorted(src), sorted(dst)))
    for name, param in dst.items():
        param.set_data(src[name].data().copy())
