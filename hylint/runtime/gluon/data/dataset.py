"""Datasets (``mxnet.gluon.data.dataset``): indexable collections with lazy ``transform``/``filter``/``shard``."""
from ...base import RuntimeUnsupported
from ... import ndarray as _nd

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Abstract dataset: ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        return SimpleDataset([self[i] for i in range(len(self)) if fn(self[i])])

    def shard(self, num_shards, index):
        assert index < num_shards, "Shard index of out bound: %d out of %d" % (index, num_shards)
        assert num_shards > 0, "Number of shards must be greater than 0"
        assert index >= 0, "Index must be non-negative"
        length = len(self)
        per_shard, extra = divmod(length, num_shards)
        start = index * per_shard + min(index, extra)
        end = start + per_shard + (1 if index < extra else 0)
        return SimpleDataset([self[i] for i in range(start, end)])

    def take(self, count):
        if count is None or count > len(self):
            count = len(self)
        return SimpleDataset([self[i] for i in range(count)])

    def sample(self, sampler):
        return SimpleDataset([self[i] for i in sampler])

    def transform(self, fn, lazy=True):
        trans = _LazyTransformDataset(self, fn)
        return trans if lazy else SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        return self.transform(_TransformFirst(fn), lazy)


class SimpleDataset(Dataset):
    """Wraps anything indexable with a length (a list, a numpy array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class _TransformFirst:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args if args else self._fn(x)


class ArrayDataset(Dataset):
    """Zips arrays of the same length; a sample is the tuple of their rows (a lone array: its row)."""

    def __init__(self, *args):
        assert len(args) > 0, "Needs at least 1 arrays"
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, \
                "All arrays must have the same length; array[0] has length %d while array[%d] has %d." % (
                    self._length, i + 1, len(data))
            if isinstance(data, _nd.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    def __init__(self, filename):
        raise RuntimeUnsupported("mxnet.gluon.data.RecordFileDataset (recordio)")
