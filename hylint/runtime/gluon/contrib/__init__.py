"""``mxnet.gluon.contrib`` (``nn`` only)."""
from . import nn  # noqa: F401
