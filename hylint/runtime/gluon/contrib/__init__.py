"""``mxnet.gluon.contrib``: ``nn``, ``rnn`` and ``cnn``."""
from . import cnn, nn, rnn  # noqa: F401
