"""A model's parameters as one flat vector and back. Models ``torch/nn/utils/convert_parameters.py``."""

from __future__ import annotations

from ... import _C
from ..._tensor import Tensor
from ..modules.module import _typename

_ACCELERATORS = ("cuda",)


def parameters_to_vector(parameters) -> Tensor:
    """All ``parameters`` flattened and concatenated (a graph: ``CatBackward0`` over ``ViewBackward0``)."""
    device, flat = None, []
    for param in parameters:
        device = _check_param_device(param, device)
        flat.append(param.view(-1))
    return _C._VariableFunctions.cat(flat)


def vector_to_parameters(vec, parameters) -> None:
    """Point each parameter's ``.data`` at its slice of ``vec``, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device, start = None, 0
    for param in parameters:
        device = _check_param_device(param, device)
        count = param.numel()
        param.data = vec[start:start + count].view_as(param).data
        start += count


def _check_param_device(param, first_device):
    """The first parameter's device index (-1 for CPU); a parameter elsewhere is an error."""
    here = param.device.index if param.device.type in _ACCELERATORS else -1
    if first_device is not None and here != first_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return here
