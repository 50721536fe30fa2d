"""Layouts and memory formats: ``c10/core/Layout.h`` and ``c10/core/MemoryFormat.h``, with their Python objects
from ``torch/csrc/Layout.cpp``, ``torch/csrc/MemoryFormat.cpp`` and ``torch/csrc/utils/tensor_layouts.cpp`` /
``tensor_memoryformats.cpp`` (which put ``torch.strided``, ``torch.contiguous_format``... on the torch module).

A layout says how a tensor's elements are stored: every picotorch tensor is ``torch.strided`` (sizes and
strides over one storage); the sparse layouts exist as names only, as in a PyTorch build without them.
A memory format is what ``contiguous()``, ``clone()`` and ``empty_like()`` are asked to lay the result out
as. Inside picotorch a memory format travels as its name (``"contiguous_format"``); the Python objects
are those names, so a kernel compares ``memory_format == "contiguous_format"`` and the argument parser still
tells ``torch.contiguous_format`` from a plain string, which PyTorch refuses.
"""

from __future__ import annotations

__all__ = ["LAYOUTS", "MEMORY_FORMATS", "contiguous_format", "layout", "memory_format", "strided"]


class layout:
    """``torch.layout``: prints as ``torch.strided``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


class memory_format(str):
    """``torch.memory_format``: prints as ``torch.contiguous_format``; equal to its name (see the docstring)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.{str.__str__(self)}"

    __str__ = __repr__

    def __reduce__(self):
        return str.__str__(self)


LAYOUTS = {name: layout(name) for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                                           "sparse_bsc", "_mkldnn", "jagged")}
strided = LAYOUTS["strided"]
MEMORY_FORMATS = {name: memory_format(name) for name in ("contiguous_format", "preserve_format", "channels_last",
                                                         "channels_last_3d")}
MEMORY_FORMATS["legacy_contiguous_format"] = contiguous_format = MEMORY_FORMATS["contiguous_format"]
