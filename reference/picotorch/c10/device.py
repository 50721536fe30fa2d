"""``torch.device``: a device type and an optional index.

Models ``c10/core/Device.h`` and its Python face in ``torch/csrc/Device.cpp``.
"""

from __future__ import annotations

import re

_TYPES = ("cpu", "cuda")


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):
        if isinstance(type, device):
            _set(self, "type", type.type)
            _set(self, "index", type.index)
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_typename(type)})")
        dev_type, dev_index = _parse(type)
        if index is not None:
            if dev_index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            dev_index = index
        if dev_index is not None and dev_index < 0:
            raise RuntimeError("Device index must not be negative")
        _set(self, "type", dev_type)
        _set(self, "index", dev_index)

    def __setattr__(self, name, value):
        # read-only, as PyTorch's: tensors share device objects (every CPU tensor the one ``CPU``)
        if name in device.__slots__:
            raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")
        raise AttributeError(f"'torch.device' object has no attribute '{name}'")

    def __delattr__(self, name):
        self.__setattr__(name, None)

    def __reduce__(self):  # copy, deepcopy and pickle rebuild it through the constructor (fields are read-only)
        return device, (self.type, self.index)

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other) -> bool:
        if other is self:
            return True  # most comparisons are of a tensor's device with itself or a shared one
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


_set = object.__setattr__


_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
_KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def _parse(text: str) -> tuple[str, int | None]:
    match = _DEVICE_STRING.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    name, index = match.group(1), match.group(2)
    if name not in _KNOWN_TYPES:
        raise RuntimeError(
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
            f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "
            f"string: {text}")
    return name, None if index is None else int(index)


def _typename(obj) -> str:
    return type(obj).__name__


# The one CPU device (no index) that tensors made on the CPU share: comparing a tensor's device with an
# operand's is then ``is``, not a call of ``__eq__`` (once per binary op with a Python number).
CPU = device("cpu")
