"""``default_collate``: a list of samples into one batch. Models ``torch/utils/data/_utils/collate.py``.

The rules, by the type of the first sample: a tensor -> ``stack`` along a new dim 0; a NumPy array ->
the same, through ``as_tensor``; a Python float -> a float64 tensor; an int (or bool) -> ``tensor(batch)``;
a string -> the list itself; a mapping -> the same mapping type of collated values, key by key; a
namedtuple -> the same namedtuple of collated fields; a tuple -> a *list* of collated fields; another
sequence -> the same type if it can be rebuilt from a list, else a list (all samples of equal length).
Without batching (``batch_size=None``) each sample goes through ``default_convert``: NumPy values become
tensors, containers are rebuilt with converted items (a plain tuple becoming a list, as in PyTorch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..._C import _VariableFunctions, tensor
from ..._tensor import Tensor
from ...c10.scalar_type import float64

_VF = _VariableFunctions
_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _VF.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "USO":  # strings and objects: PyTorch names the array's dtype
            raise TypeError(_ERROR.format(elem.dtype))
        return _VF.stack([tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic) and elem.dtype.kind not in "USO":
        return tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(list(samples)) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return fields
        try:
            return type(elem)(fields)
        except TypeError:
            return fields
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)):
        return data if data.dtype.kind in "USO" else tensor(np.asarray(data))
    if isinstance(data, Mapping):
        try:
            return type(data)({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
