"""``mxnet.contrib.amp`` (and ``mxnet.contrib.amp.amp``): mixed precision is never initialised on the runtime
(float16 GPU training); ``init`` and the conversions raise :class:`RuntimeUnsupported`."""
from ..base import unsupported

amp = None  # set below: ``from mxnet.contrib.amp import amp`` gives this same module
_amp_initialized = False

init = unsupported("mxnet.contrib.amp.init (mixed precision)")
init_trainer = unsupported("mxnet.contrib.amp.init_trainer (mixed precision)")
scale_loss = unsupported("mxnet.contrib.amp.scale_loss (mixed precision)")
unscale = unsupported("mxnet.contrib.amp.unscale (mixed precision)")
convert_model = unsupported("mxnet.contrib.amp.convert_model (mixed precision)")
convert_hybrid_block = unsupported("mxnet.contrib.amp.convert_hybrid_block (mixed precision)")
convert_symbol = unsupported("mxnet.contrib.amp.convert_symbol (mixed precision)")


def _self():
    import sys
    return sys.modules[__name__]


amp = _self()
