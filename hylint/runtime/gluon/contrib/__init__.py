"""``mxnet.gluon.contrib``: ``nn`` and ``rnn``."""
from . import nn, rnn  # noqa: F401
