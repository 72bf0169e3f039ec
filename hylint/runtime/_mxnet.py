"""The module that ``import mxnet`` resolves to inside :func:`hylint.runtime.activate`."""
from . import autograd, base, context, initializer, names, ndarray, random, symbol  # noqa: F401
from . import gluon  # noqa: F401
from . import contrib, image, io, lr_scheduler, metric, operator, optimizer, recordio, registry, util  # noqa: F401
from .base import MXNetError  # noqa: F401
from .context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus  # noqa: F401

__version__ = "1.9.1"          # the MXNet API this runtime mirrors
__hylint_runtime__ = True      # lets code tell the reference runtime from real MXNet

nd = ndarray
sym = symbol
init = initializer
name = names


def waitall():
    return None
