"""``DataLoader``. Models ``torch/utils/data/dataloader.py`` (its samplers are ``sampler.py``'s).

Single-process only. The index order comes from a sampler (``SequentialSampler``, or ``RandomSampler``
when ``shuffle=True``: one ``randperm`` of the data set per epoch, drawn from ``generator`` or, without
one, from a fresh ``Generator`` seeded by one draw of the global generator, as PyTorch does, so that the order
is PyTorch's after the same ``torch.manual_seed``); ``BatchSampler`` cuts it
into lists of ``batch_size`` indices, dropping a short last batch with ``drop_last``; ``collate_fn``
(``default_collate``) turns each list of samples into a batch. Every sampler derives from ``Sampler``; any
iterable of indices with a length will do, as in PyTorch.

Over a ``TensorDataset`` with the default collate and the loader's own samplers, a batch is gathered with one
``index`` per tensor instead of a ``select`` per sample and a ``stack``: the same values, dtype, shape and layout.
"""

from __future__ import annotations

import numpy as np

from ..._C import from_numpy
from ...native.dispatcher import ops
from ._collate import default_collate, default_convert
from .dataset import TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _random_int64


class DataLoader:
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, *, generator=None) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)

    def __iter__(self):
        """``_BaseDataLoaderIter.__init__`` draws the workers' base seed (one int64 from ``generator``, or the
        global generator) when the iterator is made, loading in workers or not: each epoch moves the global
        stream by one draw before the sampler's."""
        _random_int64(self.generator)
        return self._batches()

    def _batches(self):
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        rows_at_once = self._rows_at_once()
        for indices in self.batch_sampler:
            if rows_at_once and not any(t.requires_grad for t in self.dataset.tensors):
                yield _collated_rows(self.dataset.tensors, indices)
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def _rows_at_once(self) -> bool:
        """Whether a batch of a ``TensorDataset`` can be gathered whole (``_collated_rows``): default collate,
        indices from this loader's own samplers (in range), contiguous CPU tensors of at least one dim."""
        sampler = getattr(self.batch_sampler, "sampler", None)
        return (type(self.dataset) is TensorDataset and self.collate_fn is default_collate
                and type(self.batch_sampler) is BatchSampler and type(sampler) in (SequentialSampler, RandomSampler)
                and sampler.data_source is self.dataset
                and all(t.dim() > 0 and t.device.type == "cpu" and t.is_contiguous() for t in self.dataset.tensors))

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)



def _collated_rows(tensors, indices) -> list:
    """``default_collate([dataset[i] for i in indices])`` of a ``TensorDataset``: a list of each tensor's rows
    ``indices``, the values, dtype and contiguous layout ``stack`` gives, in one ``index`` per tensor instead
    of a ``select`` per sample and tensor (a batch of 32 pairs: 2 ops, not 66). Without a graph: the tensors
    do not require grad."""
    rows = from_numpy(np.asarray(indices, dtype=np.int64))
    return [ops.index(t, [rows]) for t in tensors]
