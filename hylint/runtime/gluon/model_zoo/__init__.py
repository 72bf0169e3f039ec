"""``mxnet.gluon.model_zoo``: the vision model definitions (``vision``); no pretrained weights (``model_store``)."""
from . import model_store, vision  # noqa: F401
