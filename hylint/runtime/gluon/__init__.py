"""``mxnet.gluon``."""
from .block import Block, HybridBlock, SymbolBlock  # noqa: F401
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict  # noqa: F401
from . import nn  # noqa: F401
from . import contrib, data, loss, model_zoo, rnn, utils  # noqa: F401
from .trainer import Trainer  # noqa: F401
