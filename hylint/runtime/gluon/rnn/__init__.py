"""``mxnet.gluon.rnn`` (fused layers only)."""
from .rnn_layer import GRU, LSTM, RNN  # noqa: F401
