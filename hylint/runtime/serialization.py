"""The runtime's parameter file format: a NumPy ``.npz`` archive (written to exactly the given path).

Plain numpy arrays in and out: :func:`hylint.runtime.ndarray.save`/``load`` convert from and to NDArrays."""
import numpy as np


def save(filename, arrays):
    """``arrays``: dict name -> numpy array, or a list of them (stored as ``__list__<i>``)."""
    if isinstance(arrays, (list, tuple)):
        arrays = {"__list__%d" % i: a for i, a in enumerate(arrays)}
    with open(filename, "wb") as handle:
        np.savez(handle, **arrays)


def load(filename):
    """dict name -> numpy array, or a list of them if the file was saved from a list."""
    with np.load(filename, allow_pickle=False) as archive:
        items = {k: archive[k] for k in archive.files}
    if items and all(k.startswith("__list__") for k in items):
        return [items["__list__%d" % i] for i in range(len(items))]
    return items
