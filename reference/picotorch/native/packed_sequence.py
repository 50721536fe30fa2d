"""``_pack_padded_sequence`` (its backward too) and ``_pad_packed_sequence``.

Models ``aten/src/ATen/native/PackedSequence.cpp``. Packing keeps, for each time step ``t``, the first
``batch_sizes[t]`` rows of a padded ``(T, B, *)`` input (sequences sorted longest first), one after another:
``data`` is ``(sum(lengths), *)``. ``_pack_padded_sequence`` has its own node (``PackPaddedSequenceBackward0``);
``_pad_packed_sequence`` is a composite: a ``full`` tensor into whose slices the blocks of ``data`` are copied
(``CopySlices``), transposed for ``batch_first``.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from .device import to_numpy
from .dispatcher import ops
from .helpers import xp_of, zeros_array
from .tensor_impl import new_tensor


def _check_long_tensor(t) -> None:
    if t.dim() != 1 or t.device.type != "cpu" or t._dtype is not st.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D "
                           f"{t.device.type} {t._dtype.c10_name} tensor")


def _int64(values, device):
    return new_tensor(np.asarray(values, dtype=np.int64), st.int64, device)


def _pack_padded_sequence(input, lengths, batch_first):
    _check_long_tensor(lengths)
    data = input._data
    if batch_first:
        data = xp_of(input).permute_dims(data, (1, 0) + tuple(range(2, data.ndim)))
    batch_size = data.shape[1]
    lens = [int(v) for v in to_numpy(lengths._data)]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch_size})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(later > earlier for earlier, later in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    xp = xp_of(input)
    rows = xp.concat([data[t, :n, ...] for t, n in enumerate(batch_sizes)], axis=0)
    return new_tensor(xp.asarray(rows, copy=True), input._dtype, input._device), _int64(batch_sizes, lengths.device)


def _pack_padded_sequence_backward(grad, input_size, batch_sizes, batch_first):
    sizes = list(input_size)
    if batch_first:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    _check_long_tensor(batch_sizes)
    xp = xp_of(grad)
    out = zeros_array(grad, sizes)
    offset = 0
    for t, n in enumerate(int(v) for v in to_numpy(batch_sizes._data)):
        out[t, :n, ...] = grad._data[offset:offset + n, ...]
        offset += n
    if batch_first:
        out = xp.asarray(xp.permute_dims(out, (1, 0) + tuple(range(2, out.ndim))), copy=True)
    return new_tensor(out, grad._dtype, grad._device)


def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    _check_long_tensor(batch_sizes)
    sizes = [int(v) for v in to_numpy(batch_sizes._data)]
    max_batch_size, max_real_seq_length = sizes[0], len(sizes)
    max_seq_length = max_real_seq_length
    if total_length > 0:
        if total_length < max_seq_length:
            raise RuntimeError(f"Expected total_length to be at least the length of the longest sequence in input, "
                               f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    trailing = tuple(data.shape[1:])
    output = ops.new_full(data, (max_seq_length, max_batch_size) + trailing, padding_value)
    lengths = [0] * max_batch_size
    data_offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            n = prev_batch_size * (i - prev_i)
            block = ops.view(ops.slice(data, 0, data_offset, data_offset + n), (i - prev_i, prev_batch_size) + trailing)
            ops.copy_(ops.slice(ops.slice(output, 0, prev_i, i), 1, 0, prev_batch_size), block)
            data_offset += n
            prev_i = i
        for j in range(batch_size, prev_batch_size):
            lengths[j] = i
        prev_batch_size = batch_size
    if batch_first:
        output = ops.transpose(output, 0, 1)
    return output, _int64(lengths, batch_sizes.device)
