"""``mxnet.gluon.data``: datasets, samplers and a single-process ``DataLoader``; ``vision`` transforms."""
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import dataset, sampler, dataloader, vision  # noqa: F401
