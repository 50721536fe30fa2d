"""``native_dropout`` and its backward: the fused dropout kernel (``dropout`` is the composite op's name).

Models ``native_dropout_cpu`` / ``native_dropout_backward_cpu`` of ``aten/src/ATen/native/Dropout.cpp``.
In training each element is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``; the boolean
``mask`` says which were kept. PyTorch's ``dropout`` calls this kernel only on an accelerator (CUDA, XPU);
on the CPU it multiplies by a noise tensor instead (``dropout`` in ``composite.py``), so ``F.dropout``
shows ``MulBackward0`` there and ``NativeDropoutBackward0`` here.
"""

from __future__ import annotations

from ..c10 import scalar_type as st
from .distributions import bernoulli_
from .helpers import convert, xp_of
from .tensor_impl import new_tensor


def native_dropout(input, p, train):
    xp = xp_of(input)
    if input.numel() == 0:
        return _like(input, xp, input._data), _bools(input, xp, _filled(xp, input, False))
    if train is None or train:
        keep = 1.0 - p
        scale = 0.0 if keep == 0 else 1.0 / keep
        mask = bernoulli_(_bools(input, xp, _filled(xp, input, False)), keep)
        kept = input._data * xp.astype(mask._data, input._data.dtype)
        return _like(input, xp, kept * _scalar(xp, scale, input._data)), mask
    return _like(input, xp, xp.asarray(input._data, copy=True)), _bools(input, xp, _filled(xp, input, True))


def native_dropout_backward(grad_output, mask, scale):
    xp = xp_of(grad_output)
    g = grad_output._data
    return _like(grad_output, xp, g * xp.astype(mask._data, g.dtype) * _scalar(xp, scale, g))


def _filled(xp, like, value: bool):
    return xp.full(tuple(like._data.shape), value, dtype=xp.bool, device=like._data.device)


def _scalar(xp, value, like):
    return xp.asarray(value, dtype=like.dtype, device=like.device)


def _bools(like, xp, data):
    return new_tensor(data, st.bool_, like._device)


def _like(like, xp, data):
    return new_tensor(convert(xp, data, like._dtype), like._dtype, like._device)
