"""``mxnet.gluon.model_zoo.model_store``: pretrained weights are downloaded files the runtime does not fetch."""
import os

from ...base import data_dir, unsupported

#: name -> SHA-1 of the pretrained files; MXNet's entries are left out (nothing is downloaded), but libraries
#: (gluonnlp) add theirs to the table at import time.
_model_sha1 = {}

get_model_file = unsupported("mxnet.gluon.model_zoo.model_store.get_model_file (pretrained weights)")


def short_hash(name):
    raise ValueError("Pretrained model for {name} is not available.".format(name=name))


def purge(root=os.path.join(data_dir(), "models")):
    return None
