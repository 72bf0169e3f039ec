"""The runtime's parameter file format: a NumPy ``.npz`` archive (written to exactly the given path)."""
import numpy as np


def save(filename, data):
    """``data``: dict name -> NDArray (or list of NDArrays, stored as ``__list__<i>``)."""
    from .ndarray import NDArray
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, (list, tuple)):
        arrays = {"__list__%d" % i: a.asnumpy() for i, a in enumerate(data)}
    else:
        arrays = {k: v.asnumpy() for k, v in data.items()}
    with open(filename, "wb") as handle:
        np.savez(handle, **arrays)


def load(filename):
    from .ndarray import array
    with np.load(filename, allow_pickle=False) as archive:
        items = {k: array(archive[k], dtype=archive[k].dtype) for k in archive.files}
    if items and all(k.startswith("__list__") for k in items):
        return [items["__list__%d" % i] for i in range(len(items))]
    return items
