"""``mxnet.gluon.data.vision``: ``transforms`` and the dataset classes (which download files: unsupported)."""
from . import datasets, transforms  # noqa: F401
from .datasets import *  # noqa: F401,F403
