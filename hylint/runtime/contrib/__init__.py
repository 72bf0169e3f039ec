"""``mxnet.contrib``: only ``amp`` (automatic mixed precision), whose state libraries read at import time."""
from . import amp  # noqa: F401
