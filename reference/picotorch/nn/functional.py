"""``nn.functional``: ``linear``, ``relu``, ``softmax``, ``log_softmax``. Models ``torch/nn/functional.py``
and ``at::linear`` (``aten/src/ATen/native/Linear.cpp``), which picks ``addmm`` for 2-D input with a bias and otherwise
``matmul`` (+ ``add_``), so ``grad_fn`` names match PyTorch's (``AddmmBackward0``, ``ViewBackward0`` ...).
"""

from __future__ import annotations

import warnings

from ..native.dispatcher import ops


def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return ops.addmm(bias, input, ops.t(weight))
    if bias is not None and input.dim() != 2 and input.is_contiguous():
        return _flattened_linear(input, weight, bias)
    output = ops.matmul(input, ops.t(weight))
    if bias is not None:
        output = ops.add_(output, bias)
    return output


def _flattened_linear(input, weight, bias):
    """N-d input: fold the leading dims into rows, one addmm, view back (``_flatten_nd_linear``)."""
    sizes = tuple(input.shape)
    rows = 1
    for s in sizes[:-1]:
        rows *= s  # not -1: reshape cannot infer a dimension when another one is 0
    flat = ops.reshape(input, (rows, sizes[-1]))
    out = ops.addmm(bias, flat, ops.t(weight))
    return ops.view(out, sizes[:-1] + (out.shape[-1],))


def relu(input, inplace: bool = False):
    return ops.relu(input)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return ops.log_softmax(input, dim, dtype)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The old implicit choice, with PyTorch's deprecation warning: dim 0 for 0-, 1- and 3-D input, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1
