"""``pad_sequence`` and ``unpad_sequence``. Models ``torch/nn/utils/rnn.py`` and ``pad_sequence`` of
``aten/src/ATen/native/PackedSequence.cpp``.

``pad_sequence`` fills a ``(max_len, batch, *)`` tensor (``(batch, max_len, *)`` with ``batch_first``) with
``padding_value`` and copies each sequence into its slot (``select`` then ``narrow``, or the other way round, and
``copy_``), so its graph is a chain of ``CopySlices``, one per sequence. Packed sequences
(``PackedSequence``, ``pack_padded_sequence``...) are not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._C import arange, full

__all__ = ["pad_sequence", "unpad_sequence"]


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
