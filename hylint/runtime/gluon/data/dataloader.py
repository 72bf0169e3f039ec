"""``mxnet.gluon.data.DataLoader``, single-process: batches are built in the caller's process whatever
``num_workers`` says (MXNet's worker processes give the same batches, only sooner)."""
import pickle

import numpy as np

from ... import ndarray as _nd
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]

ForkingPickler = pickle.Pickler  # MXNet re-exports multiprocessing's pickler; libraries only import the name


def default_batchify_fn(data):
    """Stacks samples into a batch: NDArrays and numpy arrays into one NDArray, tuples field by field."""
    if isinstance(data[0], _nd.NDArray):
        return _nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return _nd.array(data, dtype=data.dtype)


default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    if isinstance(data, _nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


class DataLoader:
    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, try_nopython=None):
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = (_sampler.RandomSampler(len(dataset)) if shuffle
                           else _sampler.SequentialSampler(len(dataset)))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if batch_sampler "
                             "is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._batchify_fn = batchify_fn if batchify_fn is not None else default_batchify_fn

    def __iter__(self):
        for batch in self._batch_sampler:
            yield self._batchify_fn([self._dataset[idx] for idx in batch])

    def __len__(self):
        return len(self._batch_sampler)


class _MultiWorkerIter:
    """MXNet's worker-pool iterator; some libraries subclass it. Here it iterates in the caller's process."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=None, prefetch=0, dataset=None, data_loader=None, timeout=120):
        self._batchify_fn, self._batch_sampler, self._dataset = batchify_fn, batch_sampler, dataset
        self._iter = iter(batch_sampler)

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def __next__(self):
        return self._batchify_fn([self._dataset[idx] for idx in next(self._iter)])
