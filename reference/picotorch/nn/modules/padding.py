"""The padding layers: ``torch/nn/modules/padding.py``. Each one holds its padding, as ``F.pad`` takes it (last dim
first, a (before, after) pair per dim; one int stands for every amount), and calls ``F.pad`` in its mode:
constant (``ConstantPad*d``, and ``ZeroPad*d`` with 0.), reflect, replicate or circular (whose layers check the
input's dims first)."""

from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]

_quadruple = _ntuple(4, "_quadruple")
_sextuple = _ntuple(6, "_sextuple")


class _PadNd(Module):
    """A padding layer of one ``F.pad`` mode; it prints its padding."""

    __constants__ = ["padding"]
    mode = "constant"

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    mode = "circular"
    dims = 1

    def forward(self, input):
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class CircularPad2d(_CircularPadNd):
    dims = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad3d(_CircularPadNd):
    dims = 3

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sextuple(padding)


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
