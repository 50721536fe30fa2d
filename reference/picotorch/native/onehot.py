"""``one_hot``: each class index becomes a row of zeros with a one at that index.

Models ``aten/src/ATen/native/Onehot.cpp``. The checks come in PyTorch's order: the dtype (int64 only),
an empty input (its number of classes cannot be inferred), negative values, then values too large for
``num_classes`` (which ``-1`` asks to infer as the largest value plus one). The result is int64, one dim
longer than the input.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from .helpers import wrap, xp_of


def one_hot(self, num_classes=-1):
    if self._dtype is not st.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = xp_of(self)
    shape = tuple(self._data.shape)
    if _numel(shape) == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return wrap(self, xp.zeros(shape + (num_classes,), dtype=xp.int64, device=self._data.device))
    if int(xp.min(self._data)) < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(xp.max(self._data))
    if num_classes == -1:
        num_classes = largest + 1
    elif largest >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = xp.arange(num_classes, dtype=xp.int64, device=self._data.device)
    hits = xp.reshape(self._data, shape + (1,)) == classes
    return wrap(self, xp.astype(hits, xp.int64))


def _numel(shape) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
