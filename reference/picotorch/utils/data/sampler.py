"""The samplers a ``DataLoader`` draws its indices from. Models ``torch/utils/data/sampler.py``.

Every sampler derives from ``Sampler`` (any iterable of indices with a length will do, as in PyTorch).
``SequentialSampler`` yields ``0 .. n-1``; ``RandomSampler`` one ``randperm`` per epoch, drawn from its
``generator`` or, without one, from a fresh ``Generator`` seeded by one draw of the global generator, as PyTorch
does; ``BatchSampler`` cuts another sampler's indices into lists of ``batch_size``.
"""

from __future__ import annotations

from ..._C import Generator, randint, randperm
from ...native import distributions


class Sampler:
    """The base of every sampler: an iterable of data set indices (``__len__`` optional, as in PyTorch)."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _random_int64(generator) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``."""
    impl = distributions.generator_impl(generator)
    with impl.mutex:
        return distributions.random_int64(impl)


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        generator = self.generator
        if generator is None:  # a fresh generator seeded by one draw of the global one
            generator = Generator()
            generator.manual_seed(_random_int64(None))
        n = len(self.data_source)
        if self.replacement:  # in blocks of 32 draws, as PyTorch's
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
