"""Storages: the memory under a tensor, as ``tensor.untyped_storage()`` and ``tensor.storage()`` show it.

Models ``torch/storage.py``: ``UntypedStorage``, a storage's bytes (in PyTorch it also derives from the C class
``torch._C.StorageBase``; here it is Python alone), and ``TypedStorage``, the same bytes read as elements of one
dtype, deprecated since PyTorch 2.0: ``Tensor.storage()`` and most of its methods call
``_warn_typed_storage_removal``, which warns once per process. A storage wraps the NumPy array that owns the
tensor's memory (NOTE [A tensor's storage is the array that owns its memory] in ``native/helpers.py``).
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from ._C import _tensor_base
from .c10 import scalar_type as st
from .c10.device import CPU
from .native.helpers import address_of, storage_bytes


class _StorageBase:
    """What both storages print and list: an element per line, then the storage's type and size."""

    is_sparse = False
    is_sparse_csr = False
    filename = None  # the file of a storage mapped from one (UntypedStorage.from_file): never, here

    def size(self) -> int:
        return self.nbytes()

    def get_device(self):
        return self.device.index

    def __repr__(self) -> str:
        info = f"[torch.storage.{type(self).__qualname__}(device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(self[i]) for i in range(self.size())) + "\n" + info

    def __iter__(self):
        return iter(self[i] for i in range(self.size()))

    def tolist(self) -> list:
        return list(self)

    def cpu(self):
        return self

    def is_shared(self) -> bool:
        """Whether ``share_memory_()`` moved these bytes to shared memory (a CPU storage; a CUDA one always is)."""
        array = self._owner()
        return self.device.type == "cuda" or _SHARED.get(id(array)) is array

    def share_memory_(self):
        """Mark the bytes shared (PyTorch moves them into a shared-memory segment; here they stay where they are,
        which one process cannot tell apart)."""
        array = self._owner()
        _SHARED[id(array)] = array
        return self

    def is_pinned(self, device=None) -> bool:
        return False


# The arrays whose storage share_memory_() marked, while they live (a storage object may be made again for one)
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class UntypedStorage(_StorageBase):
    """A storage's bytes; indexing gives them as ints, a slice a storage over some of them."""

    def __init__(self, size: int = 0, *, device=None) -> None:
        # PyTorch leaves new bytes uninitialized; zeros are one of the values they may hold
        self._array = np.zeros(size, dtype=np.uint8)
        self.device = CPU

    @classmethod
    def _wrap(cls, array, device) -> UntypedStorage:
        storage = object.__new__(cls)
        storage._array, storage.device = array, device
        return storage

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def _owner(self):
        return self._array

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return 0 if self._array.nbytes == 0 else address_of(self._array)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def __getitem__(self, idx):
        data = storage_bytes(self._array)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(data))
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            return UntypedStorage._wrap(data[start:max(start, stop)], self.device)
        return int(data[self._index(idx, len(data))])

    def __setitem__(self, idx, value) -> None:
        data = storage_bytes(self._array)
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        if not isinstance(value, int):
            raise RuntimeError(f"can only set storage content with a int types, but got {type(value).__name__} "
                               "instead")
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(data))
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            data[start:stop] = value % 256
            return
        if not 0 <= idx < len(data):  # (no negative index here, unlike reading)
            raise RuntimeError("out of bounds")
        data[idx] = value % 256  # a byte keeps the value's lowest 8 bits, as a C cast to uint8

    def fill_(self, value) -> UntypedStorage:
        if not isinstance(value, int):
            raise RuntimeError(f"fill_ expects int, but got {type(value).__name__}")
        storage_bytes(self._array)[:] = value % 256
        return self

    def copy_(self, src, non_blocking=None) -> UntypedStorage:
        if isinstance(src, TypedStorage):
            src = src._untyped_storage
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"copy_(): argument 'src' (position 1) must be torch.Storage, not {type(src).__name__}")
        if src.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src was {src.nbytes()} "
                               "bytes")
        storage_bytes(self._array)[:] = storage_bytes(src._array)
        return self

    def clone(self) -> UntypedStorage:
        """A copy of the bytes in a storage of its own."""
        return UntypedStorage._wrap(storage_bytes(self._array).copy(), self.device)

    def __copy__(self) -> UntypedStorage:
        return self.clone()

    def __deepcopy__(self, memo) -> UntypedStorage:
        memo = memo.setdefault("torch", {})
        if id(self._array) not in memo:  # (PyTorch's key is the StorageImpl: one copy per storage)
            memo[id(self._array)] = self.clone()
        return memo[id(self._array)]

    def _index(self, idx, size: int) -> int:
        if not isinstance(idx, int):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        wrapped = idx + size if idx < 0 else idx
        if not 0 <= wrapped < size:
            raise IndexError(f"index {wrapped} out of range for storage of size {size}")
        return wrapped

    def type(self, dtype=None, non_blocking: bool = False) -> str:
        return f"torch.storage.{type(self).__qualname__}"


_tensor_base.set_storage_class(UntypedStorage)


_always_warn_typed_storage_removal = False
_has_warned = False


def _get_always_warn_typed_storage_removal() -> bool:
    return _always_warn_typed_storage_removal


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    global _always_warn_typed_storage_removal
    _always_warn_typed_storage_removal = bool(always_warn)


def _reset_warn_typed_storage_removal() -> None:
    global _has_warned
    _has_warned = False


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    """Warn that ``TypedStorage`` is deprecated: the first time only, unless asked to warn always."""
    global _has_warned
    if _always_warn_typed_storage_removal or not _has_warned:
        message = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                   "storage class. This should only matter to you if you are using storages directly.  To access "
                   "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
        warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
        _has_warned = True


class TypedStorage:
    """An ``UntypedStorage``'s bytes read as elements of ``dtype`` (``tensor.storage()``)."""

    is_sparse = False

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None, _internal: bool = False) -> None:
        if not _internal:
            _warn_typed_storage_removal()
        if dtype is None:
            dtype = st.get_default_dtype()
        if wrap_storage is None:
            if len(args) > 1 or (args and not isinstance(args[0], int)):
                raise NotImplementedError("picotorch's TypedStorage is made from a size or wrap_storage= only")
            wrap_storage = UntypedStorage((args[0] if args else 0) * dtype.itemsize)
        self._untyped_storage = wrap_storage
        self.dtype = dtype

    @property
    def device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        _warn_typed_storage_removal()
        return self._untyped_storage.device.type == "cuda"

    def _owner(self):
        return self._untyped_storage._array

    def untyped(self) -> UntypedStorage:
        _warn_typed_storage_removal()
        return self._untyped_storage

    def size(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def __len__(self) -> int:
        _warn_typed_storage_removal()
        return self._size()

    def _size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def nbytes(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        _warn_typed_storage_removal()
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        _warn_typed_storage_removal()
        return self._untyped_storage.data_ptr()

    def get_device(self):
        _warn_typed_storage_removal()
        return self._untyped_storage.get_device()

    def type(self, dtype=None, non_blocking: bool = False) -> str:
        """The legacy name of the storage's type (``torch.FloatStorage``); converting to another is not modelled."""
        _warn_typed_storage_removal()
        if dtype is not None:
            raise NotImplementedError("picotorch's TypedStorage.type() names the type; it converts to no other")
        prefix = "torch.cuda." if self._untyped_storage.device.type == "cuda" else "torch."
        return f"{prefix}{self.dtype.c10_name}Storage"

    def __getitem__(self, idx):
        _warn_typed_storage_removal()
        return self._getitem(idx)

    def _getitem(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a <class 'torch.storage.{type(self).__qualname__}'> with {type(idx)}")
        value = self._elements()[self._wrap_index(idx)]
        return float(value) if self.dtype.is_floating_point else value.item()

    def __setitem__(self, idx, value) -> None:
        _warn_typed_storage_removal()
        if not isinstance(idx, (int, slice)):
            raise RuntimeError(f"can't index a <class 'torch.storage.{type(self).__qualname__}'> with {type(idx)}")
        self._elements()[idx if isinstance(idx, slice) else self._wrap_index(idx)] = value

    def _wrap_index(self, idx: int) -> int:
        size = self._size()
        if idx >= size or idx < -size:
            raise IndexError(f"index {idx} out of range for storage of size {size}")
        return idx % size

    def _elements(self):
        data = storage_bytes(self._untyped_storage._array)
        whole = len(data) - len(data) % self.dtype.itemsize
        return data[:whole].view(st.to_numpy_dtype(self.dtype))

    def __str__(self) -> str:
        _warn_typed_storage_removal()
        info = (f"[torch.storage.{type(self).__qualname__}(dtype={self.dtype}, device={self.device}) of size "
                f"{len(self)}]")
        return " " + "\n ".join(str(self[i]) for i in range(self.size())) + "\n" + info

    def __repr__(self) -> str:
        _warn_typed_storage_removal()
        return str(self)

    def __iter__(self):
        _warn_typed_storage_removal()
        return iter(self[i] for i in range(self.size()))

    def tolist(self) -> list:
        _warn_typed_storage_removal()
        return list(self)

    def cpu(self) -> TypedStorage:
        _warn_typed_storage_removal()
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype, _internal=True)
