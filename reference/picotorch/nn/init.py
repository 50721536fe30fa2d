"""``nn.init``: filling a parameter in place, under ``no_grad``. Models ``torch/nn/init.py``.

The scaled initialisations read two numbers off the weight's shape (``_calculate_fan_in_and_fan_out``):
``fan_in = size(1) * receptive field`` and ``fan_out = size(0) * receptive field``, the receptive field
being the product of the sizes after the first two (1 for a ``Linear`` weight). Xavier keeps the variance
of activations and gradients alike (``std = gain * sqrt(2 / (fan_in + fan_out))``); Kaiming keeps one of
them, by ``mode`` (``std = gain / sqrt(fan)``). A uniform draw of bound ``sqrt(3) * std`` has that std.
"""

from __future__ import annotations

import math
import warnings

from .._C import _VariableFunctions as _VF
from .._C import randperm
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "constant", "constant_", "dirac", "dirac_", "eye", "eye_", "kaiming_normal",
           "kaiming_normal_", "kaiming_uniform", "kaiming_uniform_", "normal", "normal_", "ones_", "sparse", "sparse_",
           "trunc_normal_", "uniform", "uniform_", "xavier_normal", "xavier_normal_", "xavier_uniform",
           "xavier_uniform_", "zeros_"]


def calculate_gain(nonlinearity, param=None):
    """The factor by which ``nonlinearity`` changes the standard deviation of its input (``relu``: sqrt(2))."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val: float):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    return normal_(tensor, 0, std, generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator=None):
    """Normal values kept within ``[a, b]`` by rejection, as torch 2.13 samples them: when most of the mass is
    inside (over 30%), redraw the normals that fell out until none is; otherwise draw uniformly in ``[a, b]`` and
    accept a value with probability pdf(x) / pdf(mode), redrawing the rejected ones."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        inside = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if inside > 0.3:
            _redraw_normals_outside(tensor, mean, std, a, b, generator)
        else:
            _sample_uniform_by_rejection(tensor, mean, std, a, b, generator)
    return tensor


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_normals_outside(tensor, mean, std, a, b, generator) -> None:
    low, high = tensor.new_tensor(a, device="cpu").item(), tensor.new_tensor(b, device="cpu").item()  # in its dtype
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        result = _VF.where(outside, _VF.empty_like(result).normal_(mean, std, generator=generator), result)
    if result is not tensor:
        tensor.copy_(result)


def _sample_uniform_by_rejection(tensor, mean, std, a, b, generator) -> None:
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_density_below_peak(x):  # in place, as torch's: -0.5 ((x - mean) / std)**2 - log_peak
        return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

    candidates, accept = _VF.empty_like(tensor), _VF.empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)  # the first round draws straight into the tensor
    candidates.copy_(tensor)
    pending = accept.uniform_(generator=generator).log_().gt(log_density_below_peak(candidates))
    result = tensor
    while pending.any():
        candidates.uniform_(a, b, generator=generator)
        result = _VF.where(pending, candidates, result)
        rejected = accept.uniform_(generator=generator).log_().gt(log_density_below_peak(candidates))
        pending = _VF.where(pending, rejected, pending)
    if result is not tensor:
        tensor.copy_(result)


def eye_(tensor):
    """The identity matrix (a ``Linear`` that passes its inputs through, as far as the shapes allow)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        _VF.eye(*tensor.shape, out=tensor, requires_grad=tensor.requires_grad)
    return tensor


def dirac_(tensor, groups: int = 1):
    """A convolution kernel that passes each input channel through (per group): 1 at the centre of channel
    ``d``'s kernel for output ``d``."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + tuple(size // 2 for size in sizes[2:])] = 1
    return tensor


def sparse_(tensor, sparsity, std: float = 0.01, generator=None):
    """Normal values, then in each column ``ceil(sparsity * rows)`` of them, picked by a ``randperm`` of the
    global generator, set to zero."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            tensor[randperm(rows)[:zeros_per_column], column] = 0
    return tensor


def _deprecated(init):
    """The old names without the underscore: the same function, with a FutureWarning (``_make_deprecate``)."""
    old_name = init.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{init.__name__}`.", FutureWarning,
                      stacklevel=2)
        return init(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
sparse = _deprecated(sparse_)
