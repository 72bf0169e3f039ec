"""``mxnet.gluon.rnn``: the fused layers (``RNN``, ``LSTM``, ``GRU``) and the step-by-step cells."""
from .rnn_layer import GRU, LSTM, RNN  # noqa: F401
from .rnn_cell import *  # noqa: F401,F403
from . import rnn_cell, rnn_layer  # noqa: F401
