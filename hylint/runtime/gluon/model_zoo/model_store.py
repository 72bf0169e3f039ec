"""``mxnet.gluon.model_zoo.model_store``: pretrained weights are downloaded files the runtime does not fetch."""
import os

from ...base import data_dir, unsupported

get_model_file = unsupported("mxnet.gluon.model_zoo.model_store.get_model_file (pretrained weights)")


def short_hash(name):
    raise ValueError("Pretrained model for {name} is not available.".format(name=name))


def purge(root=os.path.join(data_dir(), "models")):
    return None
