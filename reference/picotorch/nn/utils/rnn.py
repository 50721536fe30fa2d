"""Padding and packing variable-length sequences. Models ``torch/nn/utils/rnn.py`` (and ``pad_sequence`` of
``aten/src/ATen/native/PackedSequence.cpp``).

``pad_sequence`` fills a ``(max_len, batch, *)`` tensor (``(batch, max_len, *)`` with ``batch_first``) with
``padding_value`` and copies each sequence into its slot (``select`` then ``narrow``, or the other way round, and
``copy_``), so its graph is a chain of ``CopySlices``, one per sequence.

A ``PackedSequence`` is a named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)``:
``pack_padded_sequence`` keeps each time step's rows of the sequences still running (``_pack_padded_sequence``,
``native/packed_sequence.py``), sorting the batch by length first unless ``enforce_sorted``; the recurrent
layers take it as input and ``pad_packed_sequence`` undoes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..._C import _VariableFunctions as _VF
from ..._C import arange, as_tensor, full
from ..._tensor import Tensor
from ...c10 import scalar_type as st

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The data of a batch of sequences packed time step by time step, and how to unsort the batch."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to(*args, **{"device": "cuda", **kwargs}) if not args else self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, **{"device": "cpu", **kwargs}) if not args else self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=st.float64)

    def float(self):
        return self.to(dtype=st.float32)

    def half(self):
        return self.to(dtype=st.float16)

    def long(self):
        return self.to(dtype=st.int64)

    def int(self):
        return self.to(dtype=st.int32)

    def short(self):
        return self.to(dtype=st.int16)

    def char(self):
        return self.to(dtype=st.int8)

    def byte(self):
        return self.to(dtype=st.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                             "manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (a scatter of ``arange``)."""
    if permutation is None:
        return None
    output = _VF.empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """A padded batch packed: each sequence's first ``lengths[i]`` steps, time step by time step."""
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=st.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=st.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _VF.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _VF._pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0, total_length=None):
    """A packed batch padded again: ``(padded, lengths)``, in the batch's original order."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _VF._pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                      padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"):
    """The sequences (``L_i x *`` each) padded to the longest one and stacked along a new batch dim."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    return _pad_sequence(tuple(sequences), batch_first, padding_value, padding_side)


def _pad_sequence(sequences, batch_first, padding_value, padding_side):
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.size(0) for s in sequences)
    lead = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = full(lead + tuple(first.shape[1:]), padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False):
    """The inverse of ``pad_sequence``: each row cut to its length (a boolean-mask index)."""
    unpadded = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)  # in place, as PyTorch does
    idx = arange(padded_sequences.shape[1], device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        unpadded.append(seq[idx < length])
    return unpadded


def pack_sequence(sequences, enforce_sorted: bool = True):
    """A list of sequences packed (``pad_sequence`` then ``pack_padded_sequence``)."""
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """A packed batch back to its list of sequences."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
