"""``mxnet.gluon.data.vision.datasets``: every one of them downloads or decodes image files, which the runtime
does not do; they import, and constructing one raises :class:`RuntimeUnsupported` naming it."""
from ....base import RuntimeUnsupported
from ..dataset import Dataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset",
           "ImageListDataset"]


def _unsupported_dataset(name):
    def __init__(self, *args, **kwargs):
        raise RuntimeUnsupported("mxnet.gluon.data.vision.%s (image files)" % name)
    return type(name, (Dataset,), {"__init__": __init__, "__module__": "mxnet.gluon.data.vision.datasets"})


for _name in __all__:
    globals()[_name] = _unsupported_dataset(_name)
