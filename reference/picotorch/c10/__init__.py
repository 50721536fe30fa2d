"""Core value types shared by every layer: dtypes, devices, sizes (and inference mode's thread flag).

Models PyTorch's ``c10/core/`` (``ScalarType.h``, ``Device.h``, ``InferenceMode.h``) and ``torch/Size`` — the small
vocabulary that every other layer speaks. It sits below everything and imports nothing of picotorch.
"""

from .device import device
from .scalar_type import (
    bool_,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .size import Size

__all__ = [
    "Size", "bool_", "device", "dtype", "float16", "float32", "float64", "get_default_dtype",
    "int8", "int16", "int32", "int64", "set_default_dtype", "uint8",
]
