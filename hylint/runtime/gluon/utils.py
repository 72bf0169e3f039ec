"""``mxnet.gluon.utils``: the helpers model code calls (single CPU context). ``download`` fetches nothing:
it raises :class:`RuntimeUnsupported` (pretrained weights and datasets are files the runtime does not get)."""
import hashlib
import os

import numpy as np

from .. import ndarray as _nd
from ..base import unsupported

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download", "replace_file"]

download = unsupported("mxnet.gluon.utils.download (network access)")


def check_sha1(filename, sha1_hash):
    """Whether the file's SHA-1 digest equals ``sha1_hash``."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1048576), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Moves ``src`` over ``dst`` atomically."""
    os.replace(src, dst)


def _get_repo_url():
    """The base URL of the Gluon model repository (``$MXNET_GLUON_REPO`` or MXNet's default), ending in '/'."""
    url = os.environ.get("MXNET_GLUON_REPO", "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return url if url.endswith("/") else url + "/"


def _get_repo_file_url(namespace, filename):
    return "{base_url}{namespace}/{filename}".format(base_url=_get_repo_url(), namespace=namespace,
                                                     filename=filename)


def shape_is_known(shape):
    """A shape is known when it has a rank and no unknown (0) dimension (legacy shape semantics)."""
    if shape is None or len(shape) == 0:
        return False
    return all(d > 0 for d in shape)


def split_data(data, num_slice, batch_axis=0, even_split=True):
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis %d. Use a batch size "
                         "that's multiple of %d or set even_split=False to allow uneven partitioning of data."
                         % (str(data.shape), num_slice, batch_axis, num_slice))
    if num_slice == 1:
        return [data]
    bounds = np.linspace(0, size, num_slice + 1).astype(int) if not even_split else \
        np.arange(0, size + 1, size // num_slice)
    return [_nd.slice_axis(data, axis=batch_axis, begin=int(b), end=int(e)) for b, e in zip(bounds[:-1], bounds[1:])]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    if not isinstance(data, _nd.NDArray):
        data = _nd.array(data)
    return split_data(data, len(ctx_list), batch_axis, even_split)


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    total = float(np.sqrt(sum(float((a.asnumpy().astype(np.float64) ** 2).sum()) for a in arrays)))
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a *= scale
    return total
