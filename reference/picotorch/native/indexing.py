"""Advanced indexing: ``x[idx]`` with tensor indices, and writing through them.

Models ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (``index``, ``_index_put_impl_``). The
Python indexing that turns ``x[1:, mask]`` into these calls is ``picotorch/_C/_indexing.py``
(``torch/csrc/autograd/python_variable_indexing.cpp``). With ``accumulate=True`` repeated indices add
up (``index_put_(..., accumulate=True)``, and the backward of ``index``).
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .helpers import wrap


def index(self, indices):
    _check_indices(self, indices)
    try:
        data = self._data[_index_key(indices)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return wrap(self, data)


def _index_put_impl_(self, indices, values, accumulate=False, unsafe=False):
    key = _index_key(indices)
    data = self._data
    if accumulate and hasattr(data, "__array__") and type(data).__module__ == "numpy":
        np.add.at(data, key, values._data)
    elif accumulate and type(data).__module__.startswith("cupy"):
        import cupyx  # CuPy is imported only when a CUDA tensor exists

        cupyx.scatter_add(data, key, values._data)
    elif accumulate:
        data[key] = data[key] + values._data
    else:
        data[key] = values._data
    return self


def _index_key(indices):
    return tuple(slice(None) if i is None else i._data for i in indices)


def _check_indices(self, indices) -> None:
    for i in indices:
        if i is not None and i._dtype not in (st.int64, st.int32, st.bool_, st.uint8, st.int8, st.int16):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
