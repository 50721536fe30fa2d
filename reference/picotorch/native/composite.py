"""Operators built from other operators (PyTorch's ``CompositeImplicitAutograd`` kernels).

Models ``aten/src/ATen/native/LinearAlgebra.cpp`` (``matmul``) and ``TensorShape.cpp`` (``reshape``,
``expand_as``, ``flatten``, ``unflatten``, ``chunk``, ``narrow``, ``tile``, ``contiguous``, ``diag``). They call
operators through the dispatcher, so autograd records the ops they call: this is why ``a @ b`` on
matrices shows ``MmBackward0`` and ``reshape`` shows ``ViewBackward0`` or ``UnsafeViewBackward0`` —
there is no ``MatmulBackward`` or ``ReshapeBackward``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..c10 import scalar_type as st
from ..c10.layout import contiguous_format
from . import checks
from .dispatcher import ops
from .helpers import result_type, scalar_tensor, wrap, xp_of, zeros_array
from .matmul_rules import check_matmul_dims, should_fold
from .resize import resize_output
from .tensor_compare import clamp_min_
from .tensor_impl import new_tensor
from .tensor_shape import view_strides


def flatten(self, start_dim=0, end_dim=-1):
    """Dims ``start_dim`` to ``end_dim`` folded into one (``TensorShape.cpp``): a ``reshape``, so a view when the
    strides allow; the tensor itself when the range is one dim; a zero-dim tensor becomes one element."""
    ndim = self._data.ndim
    start, end = checks.wrap_dim(start_dim, ndim), checks.wrap_dim(end_dim, ndim)
    if ndim == 0:
        return ops.reshape(self, (1,))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    sizes = tuple(self._data.shape)
    folded = 1
    for size in sizes[start:end + 1]:
        folded *= size
    return ops.reshape(self, sizes[:start] + (folded,) + sizes[end + 1:])


def unflatten(self, dim, sizes):
    """Dim ``dim`` unfolded into ``sizes`` (one of them may be -1): a ``view``, so ``ViewBackward0``."""
    shape = list(self._data.shape)
    d = checks.wrap_dim(dim, len(shape))
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {d} but tensor has no "
                           "dimensions")  # the dim wrapped already (-1 is 0)
    try:
        inferred = checks.infer_size(sizes, shape[d])
    except RuntimeError as err:
        if "shape '" not in str(err):
            raise RuntimeError(f"unflatten got an unexpected error:\n{err}") from None
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {d} "
                           f"({shape[d]}) in the input tensor") from None
    return ops.view(self, tuple(shape[:d]) + tuple(inferred) + tuple(shape[d + 1:]))


def contiguous(self, memory_format=contiguous_format):
    """The tensor itself when already row-major, else a row-major copy (``CloneBackward0``)."""
    return self if self.is_contiguous() else ops.clone(self, memory_format=memory_format)


def chunk(self, chunks, dim=0):
    """``split`` into pieces of ``ceil(size / chunks)``: fewer than ``chunks`` pieces when they run out.

    An empty dim still gives ``chunks`` empty pieces, through ``split_with_sizes`` (``split`` would give one).
    """
    if self._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self._data.shape[checks.wrap_dim(dim, self._data.ndim)]
    split_size = -(-size // chunks)
    if split_size == 0 and size == 0:
        return ops.split_with_sizes(self, [0] * chunks, dim)
    return ops.split(self, split_size, dim)


def split_sizes(self, split_size, dim=0):
    """``split`` given a list of sizes: ``split_with_sizes``."""
    return ops.split_with_sizes(self, split_size, dim)


def narrow(self, dim, start, length):
    """``length`` elements of dim ``dim`` from ``start`` (which may count from the end): a ``slice``."""
    if self._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = self._data.shape[checks.wrap_dim(dim, self._data.ndim)]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return ops.slice(self, dim, start, start + length, 1)


def narrow_tensor(self, dim, start, length):
    kind = start._dtype
    if start._data.ndim != 0 or kind.is_floating_point or kind.is_complex or kind.name == "bool":
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return narrow(self, dim, int(start._data), length)


def tile(self, dims):
    """``repeat``, with ones prepended to ``dims`` when the tensor has more dims (as ``numpy.tile``)."""
    dims = tuple(int(d) for d in dims)
    missing = self._data.ndim - len(dims)
    return ops.repeat(self, (1,) * missing + dims if missing > 0 else dims)


def reshape(self, shape):
    """A ``view`` of a row-major tensor; ``_reshape_alias`` (``ReshapeAliasBackward0``) of another whose strides
    allow one; else a row-major copy viewed as the new shape (``_unsafe_view``)."""
    strides = view_strides(self, shape)  # (an array without strides, ``array_api_strict``'s, answers here)
    if strides is None:
        return ops._unsafe_view(ops.clone(self, memory_format=contiguous_format), shape)
    if self.is_contiguous():
        return ops.view(self, shape)
    return ops._reshape_alias(self, checks.infer_size(shape, self.numel()), strides)


def expand_as(self, other):
    return ops.expand(self, other.shape)


def view_as(self, other):
    """``self.view(other.sizes())``: a ``ViewBackward0`` view."""
    return ops.view(self, tuple(other._data.shape))


def matmul(self, other):
    """Pick the op by the operands' dimensions, as ``at::native::_matmul_impl`` does."""
    dim1, dim2 = self.dim(), other.dim()
    check_matmul_dims(dim1, dim2)
    if dim1 == 1 and dim2 == 1:
        return ops.dot(self, other)
    if dim1 == 2 and dim2 == 1:
        return ops.mv(self, other)
    if dim1 == 1 and dim2 == 2:
        return ops.squeeze_(ops.mm(ops.unsqueeze(self, 0), other), 0)
    if dim1 == 2 and dim2 == 2:
        return ops.mm(self, other)
    if should_fold(self, other):
        return _fold_into_mm(self, other)
    if dim1 == 3 and dim2 == 3 and self.shape[0] != other.shape[0]:
        # a batch of one that needs a gradient is squeezed away (then folded), so that its gradient is not
        # summed back from an expanded batch
        if self.shape[0] == 1 and self.requires_grad:
            return matmul(ops.squeeze(self, 0), other)
        if other.shape[0] == 1 and other.requires_grad:
            return matmul(self, ops.squeeze(other, 0))
    return _broadcast_into_bmm(self, other)


def _fold_into_mm(self, other):
    """(..., n, k) @ (k, m): fold the batch into the rows, one ``mm`` (or ``mv``), unfold (``_unsafe_view``).

    When ``other`` holds the batch the product is computed transposed, ``other.mT @ self.mT``, and
    transposed back into a contiguous result.
    """
    transpose = other.dim() > self.dim()
    big = ops.transpose(other, -2, -1) if transpose else self
    small = other if not transpose else (ops.t(self) if self.dim() == 2 else self)
    out_shape = tuple(big.shape[:-1])
    folded = ops.reshape(big, (checks.numel(out_shape), big.shape[-1]))
    if small.dim() == 1:
        return ops._unsafe_view(ops.mv(folded, small), out_shape)
    product = ops._unsafe_view(ops.mm(folded, small), out_shape + (small.shape[1],))
    if not transpose:
        return product
    product = ops.transpose(product, -2, -1)  # ``.contiguous()``: a row-major copy unless already one
    return product if product.is_contiguous() else ops.clone(product, memory_format=contiguous_format)


def _broadcast_into_bmm(self, other):
    """Expand both batches to their broadcast shape, flatten them into one, ``bmm``, unfold."""
    dim1, dim2 = self.dim(), other.dim()
    n = self.shape[-2] if dim1 > 1 else 1
    m1 = self.shape[-1]
    m2 = other.shape[-2] if dim2 > 1 else other.shape[0]
    p = other.shape[-1] if dim2 > 1 else 1
    batch = _broadcast_batches(tuple(self.shape[:max(dim1 - 2, 0)]), tuple(other.shape[:max(dim2 - 2, 0)]))
    flat = 1
    for size in batch:
        flat *= size
    left = ops.reshape(ops.expand(self, batch + (n, m1)), (flat, n, m1))
    if dim2 == 1:
        right = ops.unsqueeze(ops.reshape(ops.expand(other, batch + (m2,)), (flat, m2)), 2)
    else:
        right = ops.reshape(ops.expand(other, batch + (m2, p)), (flat, m2, p))
    out_shape = batch + ((n,) if dim1 > 1 else ()) + ((p,) if dim2 > 1 else ())
    product = ops.bmm(left, right)
    if dim2 == 1:
        product = ops.squeeze(product, -1)
    return ops._unsafe_view(product, out_shape)


def _broadcast_batches(a, b):
    """``infer_size`` on the batch dimensions, with PyTorch's message when they disagree."""
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


# ----------------------------------------------------------------------------- where with Python scalars
# TensorCompare.cpp: a Python number is a wrapped zero-dim tensor, so it takes part in type promotion
# only by its category (``torch.where(c, x16, 0.5)`` stays float16), and gradients flow to the tensor.


def where_scalar_self(condition, self, other):
    return ops.where(condition, scalar_tensor(self), other)


def where_scalar_other(condition, self, other):
    return ops.where(condition, self, scalar_tensor(other))


def where_scalars(condition, self, other):
    return ops.where(condition, scalar_tensor(self), scalar_tensor(other))


# ----------------------------------------------------------------------------- torch.nn's composites
# SoftMax.cpp, layer_norm.cpp, Dropout.cpp, Loss.cpp and LossNLL.cpp: what torch.nn.functional calls.
# ``reduction`` is at::Reduction: 0 none, 1 mean, 2 sum.
_NONE, _MEAN, _SUM = 0, 1, 2


def softmax(self, dim, dtype=None):
    """A cast first when ``dtype`` is given (``ToCopyBackward0`` below ``SoftmaxBackward0``)."""
    return ops._softmax(_to_dtype(self, dtype), dim, False)


def log_softmax(self, dim, dtype=None):
    return ops._log_softmax(_to_dtype(self, dtype), dim, False)


def _to_dtype(self, dtype):
    """``self.toType(dtype)``: ``self`` itself when it has that dtype already."""
    return self if dtype is None or dtype is self.dtype else ops._to_copy(self, dtype=dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return ops.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def dropout(input, p, train):
    """On an accelerator the fused ``native_dropout``; on the CPU ``input * noise`` (``_dropout_impl``)."""
    if train and input.device.type != "cpu" and 0 < p < 1 and input.numel() > 0:
        return ops.native_dropout(input, p, train)[0]
    return _dropout_impl(input, p, train, ops.mul)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, ops.mul_)


def feature_dropout(input, p, train):
    return _dropout_impl(input, p, train, ops.mul, feature=True)


def feature_dropout_(self, p, train):
    return _dropout_impl(self, p, train, ops.mul_, feature=True)


def _dropout_impl(input, p, train, multiply, feature=False):
    """Identity (the same tensor) when nothing drops; all dropped times a zero when ``p == 1``; else the
    input times a noise of ``0`` and ``1 / (1 - p)``, made outside autograd's view (it needs no gradient).
    Feature dropout draws one noise value per (sample, channel), shaped ``(N, C, 1, ...)``."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return multiply(input, ops.zeros_like(scalar_tensor(0.0), dtype=input.dtype, device=input.device))
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        sizes = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
        noise = ops.bernoulli_(ops.new_zeros(input, sizes), 1 - p)
    else:
        noise = ops.bernoulli_(ops.zeros_like(input), 1 - p)
    noise = ops.div_(noise, scalar_tensor(1 - p))
    return multiply(input, noise)


def l1_loss(self, target, reduction=_MEAN):
    return _apply_loss_reduction(ops.abs(ops.sub(self, target)), reduction)


def _apply_loss_reduction(unreduced, reduction):
    if reduction == _MEAN:
        return ops.mean(unreduced)
    if reduction == _SUM:
        return ops.sum(unreduced)
    return unreduced


def nll_loss(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    return ops.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss2d(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    return ops.nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss_nd(self, target, weight=None, reduction=_MEAN, ignore_index=-100):
    """Any number of dims: ``(C)`` and ``(N, C)`` go to ``nll_loss``, ``(N, C, H, W)`` to ``nll_loss2d``, and
    ``(N, C, d1, ...)`` is viewed as ``(N, C, 1, d1 * ...)`` for ``nll_loss2d`` (the output viewed back)."""
    if self.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {self.dim()})")
    if self.dim() != 1 and target.dim() > 0 and self.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({self.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if self.dim() in (1, 2):
        return ops.nll_loss(self, target, weight, reduction, ignore_index)
    if self.dim() == 4:
        return ops.nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = self.shape[0], self.shape[1]
    out_size = (n,) + tuple(self.shape[2:])
    if tuple(target.shape[1:]) != tuple(self.shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target.shape)}")
    input_ = ops.reshape(contiguous(self), (n, c, 1, -1) if self.numel() > 0 else (n, c, 0, 0))
    target_ = ops.reshape(contiguous(target), (n, 1, -1) if target.numel() > 0 else (n, 0, 0))
    out = ops.nll_loss2d(input_, target_, weight, reduction, ignore_index)
    return out if reduction != _NONE else ops.view(out, out_size)


def cross_entropy_loss(self, target, weight=None, reduction=_MEAN, ignore_index=-100, label_smoothing=0.0):
    """``nll_loss_nd(log_softmax(x))`` for class indices; targets shaped like the input are probabilities."""
    class_dim = 0 if self.dim() == 1 else 1
    if tuple(self.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype.c10_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    return ops.nll_loss_nd(ops.log_softmax(self, class_dim, self.dtype), target, weight, reduction, ignore_index)


def _check_label_smoothing(label_smoothing) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing):
    """``-(log_softmax(x) * target [* weight]).sum()`` over the classes, reduced over the batch."""
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")
    input = ops.log_softmax(self, class_dim, self.dtype)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        target = ops.add(ops.mul(target, 1 - label_smoothing), label_smoothing / n_classes)
    product = ops.mul(input, target)
    if weight is not None:
        product = ops.mul(product, _class_weight_view(weight, input.dim(), 1))
    if reduction == _MEAN:
        if input.numel() == 0:
            return ops.fill_(ops.neg(ops.sum(product)), float("nan"))
        return ops.div(ops.neg(ops.sum(product)), input.numel() // n_classes)
    if reduction == _SUM:
        return ops.neg(ops.sum(product))
    return ops.neg(ops.sum(product, class_dim))


def _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    """``(1 - s) * nll + s / C * smooth``, ``smooth`` the loss against the uniform distribution."""
    class_dim = 0 if self.dim() == 1 else 1
    input = ops.log_softmax(self, class_dim, self.dtype)
    nllloss = ops.nll_loss_nd(input, target, weight, reduction, ignore_index)
    n_classes = input.shape[class_dim]
    smooth_loss = _smoothing_term(input, weight, class_dim)
    ignore_mask = ops.eq(target, ignore_index)
    smooth_loss = ops.masked_fill_(smooth_loss, ignore_mask, 0.0)
    if reduction == _MEAN:
        kept = ops.ne(target, ignore_index)
        if weight is not None:
            # weight.gather(0, target[kept]).sum(): no gradient flows here, so read the weights directly
            denominator = ops.sum(ops.index(weight, [ops.index(target, [kept])]))
        else:
            denominator = ops.sum(kept)
        ret = ops.div(ops.sum(smooth_loss), denominator)
    elif reduction == _SUM:
        ret = ops.sum(smooth_loss)
    else:
        ret = smooth_loss
    smoothed = ops.mul(ret, label_smoothing / n_classes)  # NOTE [C++ operand order]: the right operand first
    return ops.add(ops.mul(nllloss, 1 - label_smoothing), smoothed)


def _smoothing_term(log_probs, weight, class_dim):
    """The loss of each sample against the uniform target: minus the sum of its log-probabilities over
    ``class_dim``, each class's term times its ``weight`` when one is given (``weight`` has one entry per
    class: ``_class_weight_view`` makes it broadcast). ``_cross_entropy_prob_target`` above is the
    worked example: there the log-probabilities are multiplied by the target probabilities."""
    # BEGIN SOLUTION 8.2: -sum(log_probs [* weight per class]) over class_dim: one loss per sample
    if weight is not None:
        log_probs = ops.mul(log_probs, _class_weight_view(weight, log_probs.dim(), class_dim))
    return ops.neg(ops.sum(log_probs, class_dim))
    # END SOLUTION


def _class_weight_view(weight, ndim, class_dim):
    """``weight`` viewed as ``(1, C, 1, ...)`` to broadcast along the class dim."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return ops.view(weight, shape)


# ----------------------------------------------------------------------------- reductions (group G)
# ``max(a, b)`` is ``maximum`` (so its node is MaximumBackward0); ``var(x, dim, unbiased)`` and
# ``var(x, unbiased)`` are ``var.correction`` with correction 1 or 0 (VarBackward0, StdBackward0).


def max_other(self, other):
    return ops.maximum(self, other)


def min_other(self, other):
    return ops.minimum(self, other)


def var_dim(self, dim, unbiased=True, keepdim=False):
    return ops.var(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def var_unbiased(self, unbiased=True):
    return ops.var(self, None, correction=1 if unbiased else 0)


def std_dim(self, dim, unbiased=True, keepdim=False):
    return ops.std(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def std_unbiased(self, unbiased=True):
    return ops.std(self, None, correction=1 if unbiased else 0)


# ----------------------------------------------------------------------------- indexing (issue 10, group I)
# Embedding.cpp and TensorAdvancedIndexing.cpp: the gradients PyTorch builds from other ops, so a double
# backward records those ops (``IndexAddBackward0`` under ``index_select``'s gradient).


def embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    """The dense gradient; a sparse one needs sparse tensors, which picotorch does not have."""
    if sparse:
        raise NotImplementedError("picotorch has no sparse tensors: embedding(..., sparse=True) cannot make its "
                                  "gradient; use sparse=False")
    return ops.embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


def index_select_backward(grad, self_sizes, dim, index):
    """Zeros of the input's shape, the gradient's rows added back where they were read (``index_add_``)."""
    return ops.index_add_(wrap(grad, zeros_array(grad, self_sizes)), dim, index, grad)


# ----------------------------------------------------------------------------- ops batch
# ``square`` is ``pow(self, 2)`` (PowBackward0); ``movedim`` a ``permute`` (an ``alias`` of a zero-dim tensor);
# ``swapaxes``/``swapdims`` a ``transpose``; ``outer`` (and ``ger``) the first vector as a column times the
# second; ``nn.functional.pad`` checks its arguments and calls ``constant_pad_nd`` (PadNd.cpp).


def square(self):
    return ops.pow(self, 2)


def square_(self):
    return ops.pow_(self, 2)


def movedim(self, source, destination):
    source, destination = [int(d) for d in source], [int(d) for d in destination]
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) should contain the "
                           f"same number of dims as destination ({destination} dims)")
    ndim = self.dim()
    moved = [checks.wrap_dim(d, ndim) for d in source]
    targets = [checks.wrap_dim(d, ndim) for d in destination]
    if len(set(moved)) != len(moved):
        raise RuntimeError(f"movedim: repeated dim in `source` ({source})")
    if len(set(targets)) != len(targets):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({destination})")
    if ndim == 0:
        return ops.alias(self)
    order = [None] * ndim
    for d, target in zip(moved, targets):
        order[target] = d
    rest = iter(d for d in range(ndim) if d not in moved)  # the other dims keep their relative order
    return ops.permute(self, [d if d is not None else next(rest) for d in order])


def movedim_int(self, source, destination):
    return movedim(self, [source], [destination])


def swapaxes(self, axis0, axis1):
    return ops.transpose(self, axis0, axis1)


def swapaxes_(self, axis0, axis1):
    return ops.transpose_(self, axis0, axis1)


def outer(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return ops.mul(ops.reshape(self, (self.shape[0], 1)), vec2)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(self, pad, mode="constant", value=None):
    """``nn.functional.pad`` (``_pad_enum``): ``constant_pad_nd`` for mode 'constant'; reflect and replicate by
    their kernels for the last 1, 2 or 3 dims (native/reflection_pad.py); circular by ``_pad_circular``."""
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > self.dim() * 2:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {self.dim()}")
    if mode == "constant":
        return ops.constant_pad_nd(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    padded, ndim = len(pad) // 2, self.dim()
    if len(pad) not in (2, 4, 6) or ndim not in (padded + 1, padded + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
                                  "Supported combinations for non-constant padding:\n"
                                  "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                                  "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                                  "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return ops._pad_circular(self, pad)
    kind = "reflection" if mode == "reflect" else "replication"
    return getattr(ops, f"{kind}_pad{padded}d")(self, pad)


def _pad_circular(self, pad):
    """Circular padding as PyTorch builds it from views and copies: an empty tensor, the input (cut by negative
    amounts) copied into its middle, then for each padded dim (last first) the far end copied before the input and
    the near end after it. Corners are written more than once. The graph is the copies': ``CopySlices`` nodes."""
    pad = [int(p) for p in pad]
    in_shape = tuple(self._data.shape)
    padded = len(pad) // 2
    kept = len(in_shape) - padded  # 1 without a batch dim, else 2
    if kept not in (1, 2):
        raise RuntimeError("Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(len(in_shape) - 1) * 2} or {(len(in_shape) - 2) * 2} "
                           f"respectively but got {len(pad)}")
    out_shape = list(in_shape)
    for i in range(padded):
        before, after = pad[2 * (padded - i - 1)], pad[2 * (padded - i - 1) + 1]
        size = in_shape[kept + i]
        out_shape[kept + i] = size + before + after
        if not (before <= size and after <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[kept + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = ops.new_empty(self, out_shape)
    out_slice, in_slice = out, self
    for i in range(padded):
        dim = padded - i + kept - 1
        before, after = pad[2 * i], pad[2 * i + 1]
        out_slice = ops.slice(out_slice, dim, max(before, 0), out_shape[dim] - max(after, 0))
        in_slice = ops.slice(in_slice, dim, max(-before, 0), in_shape[dim] - max(-after, 0))
    ops.copy_(out_slice, in_slice)
    for i in range(padded):
        dim = padded - i + kept - 1
        before, after = pad[2 * i], pad[2 * i + 1]
        if before > 0:
            ops.copy_(ops.slice(out, dim, 0, before),
                      ops.slice(out, dim, out_shape[dim] - before - max(after, 0), out_shape[dim] - max(after, 0)))
        if after > 0:
            ops.copy_(ops.slice(out, dim, out_shape[dim] - after, out_shape[dim]),
                      ops.slice(out, dim, max(before, 0), max(before, 0) + after))
    return out


# ----------------------------------------------------------------------------- ops batch 2
# ``arctan2`` is an alias: it calls ``atan2`` (the graph shows Atan2Backward0).


def arctan2(self, other):
    return ops.atan2(self, other)


def arctan2_(self, other):
    return ops.atan2_(self, other)


# ----------------------------------------------------------------------------- ops batch 3
# ``masked_select_backward`` as in TensorAdvancedIndexing.cpp, ``diag`` as in TensorShape.cpp.


def masked_select_backward(grad, input, mask):
    """Zeros of the shape ``input`` and ``mask`` broadcast to, with ``grad`` written where the mask is true (in place:
    ``masked_scatter_``, so the graph shows MaskedScatterBackward0 with no edge for the zeros)."""
    shape = checks.broadcast_shapes(tuple(input._data.shape), tuple(mask._data.shape))
    return ops.masked_scatter_(ops.zeros_like(ops.expand(input, shape)), mask, grad)


def diag(self, diagonal=0):
    """A vector to a matrix with it on a diagonal (``diag_embed``), a matrix to a copy of its diagonal
    (``diagonal_copy``)."""
    ndim = self._data.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    return ops.diag_embed(self, diagonal) if ndim == 1 else ops.diagonal_copy(self, diagonal)


# ----------------------------------------------------------------------------- ops batch 5: float_power and aliases
# ``float_power`` is ``pow`` in float64 (the inputs converted with ``to``, so a float32 input shows ToCopyBackward0
# under PowBackward1). The aliases call the op they name, whose node the graph shows (``absolute`` gives
# AbsBackward0, ``clip`` ClampBackward1, ``divide`` DivBackward0).


def float_power(self, exponent):
    """``pow`` in double precision: float64, or complex128 when either operand is complex."""
    target = _float_power_dtype(self, exponent)
    if isinstance(self, (int, float, bool, complex)):
        return ops.pow(_number_as(self, target), _as_dtype(exponent, target))
    if isinstance(exponent, (int, float, bool, complex)):
        return ops.pow(_as_dtype(self, target), _number_as(exponent, target))
    return ops.pow(_as_dtype(self, target), _as_dtype(exponent, target))


def _float_power_dtype(self, exponent):
    complex_ = any(isinstance(v, complex) or getattr(v, "_dtype", st.float64).is_complex for v in (self, exponent))
    return st.complex128 if complex_ else st.float64


def _number_as(value, dtype):
    return complex(value) if dtype.is_complex else float(value)


def _as_dtype(t, dtype):
    """``t.to(dtype)``: ``t`` itself when it has that dtype already."""
    return t if t._dtype is dtype else ops._to_copy(t, dtype=dtype)


def _to_double(t):
    return _as_dtype(t, st.float64)


def float_power_(self, exponent):
    target = _float_power_dtype(self, exponent)
    if self._dtype is not target:
        raise RuntimeError(f"the base given to float_power_ has dtype {self._dtype.c10_name} but the operation's "
                           f"result requires dtype {target.c10_name}")
    if isinstance(exponent, (int, float, bool, complex)):
        return ops.pow_(self, _number_as(exponent, target))
    return ops.pow_(self, _as_dtype(exponent, target))


def absolute(self):
    return ops.abs(self)


def absolute_(self):
    return ops.abs_(self)


def negative(self):
    return ops.neg(self)


def negative_(self):
    return ops.neg_(self)


def arcsin(self):
    return ops.asin(self)


def arcsin_(self):
    return ops.asin_(self)


def arccos(self):
    return ops.acos(self)


def arccos_(self):
    return ops.acos_(self)


def arctan(self):
    return ops.atan(self)


def arctan_(self):
    return ops.atan_(self)


def arcsinh(self):
    return ops.asinh(self)


def arcsinh_(self):
    return ops.asinh_(self)


def arccosh(self):
    return ops.acosh(self)


def arccosh_(self):
    return ops.acosh_(self)


def arctanh(self):
    return ops.atanh(self)


def arctanh_(self):
    return ops.atanh_(self)


def clip(self, min=None, max=None):
    return ops.clamp(self, min, max)


def clip_(self, min=None, max=None):
    return ops.clamp_(self, min, max)


def divide(self, other):
    return ops.div(self, other)


def divide_(self, other):
    return ops.div_(self, other)


def divide_mode(self, other, rounding_mode=None):
    return ops.div(self, other, rounding_mode=rounding_mode)


def divide_mode_(self, other, rounding_mode=None):
    return ops.div_(self, other, rounding_mode=rounding_mode)


def multiply(self, other):
    return ops.mul(self, other)


def multiply_(self, other):
    return ops.mul_(self, other)


def subtract(self, other, alpha=1):
    return ops.sub(self, other, alpha=alpha)


def subtract_(self, other, alpha=1):
    return ops.sub_(self, other, alpha=alpha)


def greater(self, other):
    return ops.gt(self, other)


def greater_equal(self, other):
    return ops.ge(self, other)


def less(self, other):
    return ops.lt(self, other)


def less_equal(self, other):
    return ops.le(self, other)


def not_equal(self, other):
    return ops.ne(self, other)


# ----------------------------------------------------------------------------- ops batch 6
# ReduceOps.cpp and TensorAdvancedIndexing.cpp: ``nanmean`` divides ``nansum`` by the count of non-NaN elements
# (DivBackward0 over NansumBackward0); ``std_mean``/``var_mean`` with ``unbiased`` are the ``correction``
# overload; ``argwhere`` is ``nonzero``; ``as_tuple=True`` is ``nonzero_numpy``, its columns unbound.


def nonzero_numpy(self):
    if self.dim() == 0:
        return ops.unbind(ops.nonzero(ops.unsqueeze(self, 0)), 1)
    return ops.unbind(ops.nonzero(self), 1)


def where_condition(condition):
    return ops.nonzero_numpy(condition)


def argwhere(self):
    return ops.nonzero(self)


def count_nonzero_dim(self, dim=None):
    """PyTorch's kernel is CompositeExplicitAutograd; with no gradient to record, nothing tells the two apart."""
    return ops.count_nonzero(self, [] if dim is None else [dim])


def nanmean(self, dim=None, keepdim=False, dtype=None):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self.dtype.c10_name}")
    counted = ops.sum(ops.logical_not(ops.isnan(self)), dim, keepdim)
    return ops.div(ops.nansum(self, dim, keepdim, dtype=dtype), counted)


def std_mean_unbiased(self, unbiased=True):
    return ops.std_mean(self, None, correction=1 if unbiased else 0)


def std_mean_dim(self, dim, unbiased=True, keepdim=False):
    return ops.std_mean(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def var_mean_unbiased(self, unbiased=True):
    return ops.var_mean(self, None, correction=1 if unbiased else 0)


def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    return ops.var_mean(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def reshape_as(self, other):
    return ops.reshape(self, tuple(other.shape))


# ----------------------------------------------------------------------------- ops batch 6: shape ops
# TensorShape.cpp and TensorTransformations.cpp: the graph shows what they are made of (``broadcast_to`` an
# ``expand``, ``ravel`` a contiguous ``view``, ``hstack`` an ``atleast_1d`` each and a ``cat``, ``diff`` a
# subtraction of two ``narrow``s, ``meshgrid`` a ``view`` and ``expand`` per tensor, ``tensor_split`` ``slice``s).


def broadcast_to(self, size):
    return ops.expand(self, size)


def broadcast_tensors(tensors):
    """Each tensor expanded to the shape they all broadcast to; one that has it already is returned itself."""
    shape = ()
    for t in tensors:
        shape = checks.broadcast_shapes(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else ops.expand(t, shape) for t in tensors)


def atleast_1d(self):
    return ops.reshape(self, (1,)) if self.dim() == 0 else self


def atleast_2d(self):
    if self.dim() == 0:
        return ops.reshape(self, (1, 1))
    return ops.unsqueeze(self, 0) if self.dim() == 1 else self


def atleast_3d(self):
    if self.dim() == 0:
        return ops.reshape(self, (1, 1, 1))
    if self.dim() == 1:
        return ops.unsqueeze(ops.unsqueeze(self, 0), -1)
    return ops.unsqueeze(self, -1) if self.dim() == 2 else self


def atleast_1d_sequence(tensors):
    return tuple(atleast_1d(t) for t in tensors)


def atleast_2d_sequence(tensors):
    return tuple(atleast_2d(t) for t in tensors)


def atleast_3d_sequence(tensors):
    return tuple(atleast_3d(t) for t in tensors)


def _check_nonempty(tensors, name):
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def hstack(tensors):
    """Side by side: along dim 0 for vectors, dim 1 otherwise."""
    _check_nonempty(tensors, "hstack")
    rep = atleast_1d_sequence(tensors)
    return ops.cat(rep, 0 if rep[0].dim() == 1 else 1)


def vstack(tensors):
    _check_nonempty(tensors, "vstack")
    return ops.cat(atleast_2d_sequence(tensors), 0)


def dstack(tensors):
    _check_nonempty(tensors, "dstack")
    return ops.cat(atleast_3d_sequence(tensors), 2)


def column_stack(tensors):
    """Vectors (and numbers) as columns, ``reshape``d to ``(n, 1)``; the rest as they are; joined along dim 1."""
    _check_nonempty(tensors, "column_stack")
    columns = [ops.reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t for t in tensors]
    return ops.cat(columns, 1)


_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. "
                     "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)")
_meshgrid_warned = []  # TORCH_WARN_ONCE: the first call without ``indexing`` in the process warns, no other


def meshgrid(tensors):
    if not _meshgrid_warned:
        _meshgrid_warned.append(True)
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
    return meshgrid_indexing(tensors, "ij")


def meshgrid_indexing(tensors, indexing):
    """Tensor ``i`` viewed along dim ``i`` and expanded over the others; ``'xy'`` swaps the first two dims."""
    _check_meshgrid_inputs(tensors)
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    refs = [tensors[1], tensors[0], *tensors[2:]] if swap else list(tensors)
    shape = tuple(t.numel() for t in refs)
    grids = []
    for i, t in enumerate(refs):
        view_shape = [1] * len(refs)
        view_shape[i] = -1
        grids.append(ops.expand(ops.view(t, view_shape), shape))
    return (grids[1], grids[0], *grids[2:]) if swap else tuple(grids)


def _check_meshgrid_inputs(tensors) -> None:
    _check_nonempty(tensors, "meshgrid")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")


def ravel(self):
    return ops.view(contiguous(self), (-1,))


def repeat_interleave_self_int(self, repeats, dim=None, output_size=None):
    """Each slice along ``dim`` (of the flattened tensor when ``dim`` is None) written ``repeats`` times: a new
    dim after ``dim``, expanded, copied row-major and viewed as one."""
    input = self if dim is not None else flatten(self)
    d = checks.wrap_dim(dim if dim is not None else 0, self.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    sizes = list(input.shape)
    if output_size is not None and output_size != sizes[d] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {sizes[d] * repeats} but got "
                           f"{output_size}")
    expanded = ops.expand(ops.unsqueeze(input, d + 1), sizes[:d + 1] + [repeats] + sizes[d + 1:])
    out_sizes = sizes[:d] + [sizes[d] * repeats] + sizes[d + 1:]
    return ops.reshape(ops.clone(expanded, memory_format=contiguous_format), out_sizes)


def repeat_interleave_self_tensor(self, repeats, dim=None, output_size=None):
    """The slices picked by ``index_select`` at the indices ``repeat_interleave(repeats)`` writes."""
    input = self if dim is not None else flatten(self)
    d = dim if dim is not None else 0
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats.shape[0] == 1):
        repeats = ops.expand(ops.reshape(repeats, (1,)), (input.shape[d],))
    elif repeats.dim() == 1:
        if repeats.shape[0] != input.shape[d]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.shape[0]} and input.size({d}) = {input.shape[d]}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return ops.index_select(input, d, ops.repeat_interleave(repeats, output_size=output_size))


def fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return ops.flip(self, [1])


def flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return ops.flip(self, [0])


def diff(self, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``logical_xor`` for bool), after joining ``prepend`` and
    ``append`` on; the tensor itself when its dim is empty."""
    if self.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = checks.wrap_dim(dim, self.dim())
    for other in (prepend, append):
        if other is not None:
            _check_diff_shape(self, other, d)
    if n == 0:  # a copy of the input alone, even beside prepend or append (CopyBackwards in the graph)
        return ops.copy_(ops.empty_like(self), self)
    if self.shape[d] == 0 and prepend is None and append is None:
        return self
    joined = [t for t in (prepend, self, append) if t is not None]
    # cat and narrow get ``dim`` as given (their nodes save it so: -1 reads back as 2**64 - 1)
    result = ops.cat(joined, dim) if len(joined) > 1 else self
    length = result.shape[d] - 1
    for _ in range(min(n, result.shape[d])):
        # NOTE [C++ operand order]
        # PyTorch's composites are C++ expressions, and the compiler PyTorch is built with (GCC) evaluates the
        # operands of ``a - b`` or the arguments of ``f(a, b)`` right to left: ``b``'s nodes are made first and get
        # the smaller sequence numbers, which decide the order backward runs ready nodes in. Here
        # ``narrow(1) - narrow(0)``.
        earlier = ops.narrow(result, dim, 0, length)
        later = ops.narrow(result, dim, 1, length)
        result = ops.logical_xor(later, earlier) if result.dtype.name == "bool" else ops.sub(later, earlier)
        length -= 1
    return result


def _check_diff_shape(self, other, dim) -> None:
    if other.dim() != self.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(self.dim()):
        if i != dim and other.shape[i] != self.shape[i]:
            raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of input except "
                               f"along the differencing dimension; input.size({i}) = {self.shape[i]}, but got "
                               f"tensor.size({i}) = {other.shape[i]}")


def tensor_split_sections(self, sections, dim=0):
    """``sections`` pieces, the first ``size % sections`` of them one longer."""
    _check_tensor_split(self)
    d = checks.wrap_dim(dim, self.dim())
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self.shape[d]
    pieces, start = [], 0
    for i in range(sections):
        length = size // sections + (1 if i < size % sections else 0)
        pieces.append(ops.slice(self, d, start, start + length, 1))
        start += length
    return tuple(pieces)


def tensor_split_indices(self, indices, dim=0):
    """Pieces between the given indices (a ``slice`` each, so a later index before an earlier one gives an empty
    piece)."""
    _check_tensor_split(self)
    d = checks.wrap_dim(dim, self.dim())
    bounds = [0, *[int(i) for i in indices], self.shape[d]]
    return tuple(ops.slice(self, d, start, end, 1) for start, end in zip(bounds, bounds[1:]))


def tensor_split_tensor(self, tensor_indices_or_sections, dim=0):
    split = tensor_indices_or_sections
    _check_tensor_split(self)
    if split.device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {split.device}")
    if split.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{split.dtype.c10_name}")
    if split.dim() > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {split.dim()} dims")
    if split.dim() == 0:
        return tensor_split_sections(self, split.item(), dim)
    return tensor_split_indices(self, split.tolist(), dim)


def _check_tensor_split(self) -> None:
    if self.dim() == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{self.dim()} dims")


# ---- ops batch 7: inner and kron (LinearAlgebra.cpp), take_along_dim (TensorAdvancedIndexing.cpp)


def inner(self, other):
    """A scalar operand multiplies; otherwise the last dims contract, as ``tensordot(self, other, [-1], [-1])``."""
    if self.dim() == 0 or other.dim() == 0:
        return ops.mul(self, other)
    _check_inner_sizes(self, other)
    return ops.tensordot(self, other, [-1], [-1])


def inner_out(self, other, out):
    if self.dim() == 0 or other.dim() == 0:
        return ops.mul(self, other, out=out)
    _check_inner_sizes(self, other)
    return ops.tensordot(self, other, [-1], [-1], out=out)


def _check_inner_sizes(self, other):
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self.shape)} and {list(other.shape)}")


def kron(self, other):
    """Each element of ``self`` times all of ``other``: the dims interleaved (self's as ``(n, 1)``, other's as
    ``(1, m)``, the shorter shape padded with 1s in front), one broadcast ``mul``, each pair folded back."""
    a, b, sizes = _kron_operands(self, other)
    return ops._unsafe_view(ops.mul(a, b), sizes)


def kron_out(self, other, out):
    """``out`` resized to the result, and ``mul``'s out= writing through a view of it with the interleaved dims."""
    a, b, sizes = _kron_operands(self, other)
    resize_output(out, tuple(sizes))
    ops.mul(a, b, out=ops.view(out, [s for pair in zip(a.shape[::2], b.shape[1::2]) for s in pair]))
    return out


def _kron_operands(self, other):
    """Both inputs viewed with interleaved dims, and the result's sizes."""
    ndim = max(self.dim(), other.dim())
    a_sizes = [1] * (ndim - self.dim()) + list(self.shape)
    b_sizes = [1] * (ndim - other.dim()) + list(other.shape)
    a_view = [s for size in a_sizes for s in (size, 1)]
    b_view = [s for size in b_sizes for s in (1, size)]
    sizes = [a * b for a, b in zip(a_sizes, b_sizes)]
    return ops._unsafe_view(self, a_view), ops._unsafe_view(other, b_view), sizes


def take_along_dim(self, indices, dim=None):
    """``gather`` along ``dim`` after broadcasting both inputs over the other dims; without ``dim``, of the flat
    tensors."""
    return ops.gather(*_take_along_dim_args(self, indices, dim))


def take_along_dim_out(self, indices, dim=None, out=None):
    return ops.gather(*_take_along_dim_args(self, indices, dim), out=out)


def _take_along_dim_args(self, indices, dim):
    """``gather``'s (self, dim, index) for ``take_along_dim``."""
    checks.check_same_device(self, indices)
    if dim is None:
        return ops.view(self, (-1,)), 0, ops.view(indices, (-1,))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    if indices.dtype is not st.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype.c10_name}")
    dim = checks.wrap_dim(dim, self.dim())
    self_sizes, indices_sizes = list(self.shape), list(indices.shape)
    self_sizes[dim], indices_sizes[dim] = indices.shape[dim], self.shape[dim]
    indices = ops.broadcast_to(indices, checks.broadcast_shapes(tuple(self_sizes), tuple(indices.shape)))
    self = ops.broadcast_to(self, checks.broadcast_shapes(tuple(indices_sizes), tuple(self.shape)))
    return self, dim, indices


# ----------------------------------------------------------------------------- ops batch 8: activations
# Activation.cpp's composites: relu6 is hardtanh(0, 6), selu is elu with SELU's constants, log_sigmoid the first
# output of log_sigmoid_forward, prelu reshapes its weight to broadcast over dim 1, rrelu draws into a fresh noise.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu6(self):
    return ops.hardtanh(self, 0, 6)


def relu6_(self):
    return ops.hardtanh_(self, 0, 6)


def selu(self):
    return ops.elu(self, _SELU_ALPHA, _SELU_SCALE)


def selu_(self):
    return ops.elu_(self, _SELU_ALPHA, _SELU_SCALE)


def log_sigmoid(self):
    return ops.log_sigmoid_forward(self)[0]


def prelu(self, weight):
    if self._dtype is not weight._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {self._dtype.c10_name} and "
                           f"{weight._dtype.c10_name}")
    ndim, numel = self._data.ndim, weight.numel()
    if numel != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self._data.shape[1] if ndim > 1 else 1
        if channels != numel:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{numel} and channel size = {channels}.")
    if weight._data.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight._data.ndim}")
    if ndim != weight._data.ndim:
        sizes = [1] * ndim
        if ndim > 1:
            sizes[1] = numel
        weight = ops.reshape(weight, tuple(sizes))
    return ops._prelu_kernel(self, weight)


def _check_rrelu_bounds(lower, upper) -> None:
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def rrelu(self, lower=0.125, upper=1 / 3, training=False, generator=None):
    _check_rrelu_bounds(lower, upper)
    return ops.rrelu_with_noise(self, ops.empty_like(self, memory_format=contiguous_format), lower, upper, training,
                                generator)


def rrelu_(self, lower=0.125, upper=1 / 3, training=False, generator=None):
    _check_rrelu_bounds(lower, upper)
    return ops.rrelu_with_noise_(self, ops.empty_like(self, memory_format=contiguous_format), lower, upper, training,
                                 generator)


# ----------------------------------------------------------------------------- ops batch 8: losses and distances
# Loss.cpp's and Distance.cpp's composites, op for op as ATen writes them, so the graph shows the same nodes. C++'s
# ``number - tensor`` is ``empty_like(tensor).fill_(number).sub_(tensor)``: a SubBackward0 whose first edge is empty.
_COSINE_EPSILON = 1e-12


def _number_minus(value, tensor):
    return ops.sub_(ops.fill_(ops.empty_like(tensor), value), tensor)


def kl_div(self, target, reduction=_MEAN, log_target=False):
    if not (self._dtype.is_floating_point and target._dtype.is_floating_point):
        if self._dtype.is_complex or target._dtype.is_complex:  # checked first
            raise RuntimeError("kl_div: Complex inputs not supported.")
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = ops.mul(ops.exp(target), ops.sub(target, self))
    else:
        output = ops.sub(ops.xlogy(target, target), ops.mul(target, self))
    return _apply_loss_reduction(output, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=_MEAN):
    unclamped = ops.add(ops.mul(ops.neg(target), ops.sub(input1, input2)), float(margin))  # a C++ double
    return _apply_loss_reduction(ops.clamp_min_(unclamped, 0), reduction)


def hinge_embedding_loss(self, target, margin=1.0, reduction=_MEAN):
    zeros = ops.zeros_like(self)
    margin_clamp = ops.clamp_min_(_number_minus(float(margin), self), 0)
    output_margin = ops.where(ops.ne(target, 1), margin_clamp, zeros)
    output_self = ops.where(ops.ne(target, -1), self, zeros)
    return _apply_loss_reduction(ops.add(output_margin, output_self), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=_MEAN):
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = ops.sum(ops.mul(input1, input2), [targ_dim])
    mag_square1 = ops.add(ops.sum(ops.mul(input1, input1), [targ_dim]), _COSINE_EPSILON)
    mag_square2 = ops.add(ops.sum(ops.mul(input2, input2), [targ_dim]), _COSINE_EPSILON)
    cos = ops.div(prod_sum, ops.sqrt_(ops.mul(mag_square1, mag_square2)))
    zeros = ops.zeros_like(cos)
    pos = _number_minus(1, cos)
    neg = ops.clamp_min_(ops.sub(cos, float(margin)), 0)
    output_pos = ops.where(ops.eq(target, 1), pos, zeros)
    output_neg = ops.where(ops.eq(target, -1), neg, zeros)
    return _apply_loss_reduction(ops.add(output_pos, output_neg), reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    innermost_dim = max(x1.dim(), x2.dim()) - 1
    return ops.norm(ops.add(ops.sub(x1, x2), float(eps)), float(p), [innermost_dim], keepdim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=_MEAN):
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = ops.min(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = ops.clamp_min(ops.sub(ops.add(dist_pos, float(margin)), dist_neg), 0)
    return _apply_loss_reduction(output, reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = ops.sub(ops.exp(input), ops.mul(target, input))
    else:
        loss = ops.sub(input, ops.mul(target, ops.log(ops.add(input, float(eps)))))
    if full:
        stirling = ops.add(ops.sub(ops.mul(target, ops.log(target)), target),
                           ops.mul(ops.log(ops.mul(target, 2 * math.pi)), 0.5))
        loss = ops.add_(loss, ops.masked_fill(stirling, ops.le(target, 1), 0))
    return _apply_loss_reduction(loss, reduction)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``sum(x1 / |x1| * x2 / |x2|)`` over ``dim``, each norm (a clone) clamped to ``eps`` outside the graph."""
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common.c10_name}")
    x1 = x1 if x1._dtype.is_floating_point else ops._to_copy(x1, dtype=common)
    x2 = x2 if x2._dtype.is_floating_point else ops._to_copy(x2, dtype=common)
    if tuple(x1.shape) != tuple(x2.shape):
        shape = checks.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = ops.expand(x1, shape), ops.expand(x2, shape)
    x1_norm = ops.clone(ops.linalg_vector_norm(x1, 2, [dim], True))
    x2_norm = ops.clone(ops.linalg_vector_norm(x2, 2, [dim], True))
    for norm in (x1_norm, x2_norm):  # torch clamps under a NoGradGuard: the kernel and the version bump, no node
        clamp_min_(norm, eps)
        norm._version_counter.bump()
    return ops.sum(ops.mul(ops.div(x1, x1_norm), ops.div(x2, x2_norm)), [dim])
# ----------------------------------------------------------------------------- vander (LinearAlgebra.cpp)


def vander(x, N=None, increasing=False):
    """The powers ``x**0 .. x**(N-1)`` as columns (highest first unless ``increasing``): ones, ``x`` copied into
    columns 1.., their ``cumprod`` copied back, then ``flip``; integers count in int64, as ``cumprod`` does."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    result = ops.new_empty(x, [x.shape[0], n], dtype=st.promote_types(x.dtype, st.int64))
    if n > 0:
        ops.fill_(result, 1)
        if n > 1:
            ops.copy_(ops.slice(result, 1, 1), ops.unsqueeze(x, 1))
            ops.copy_(ops.slice(result, 1, 1), ops.cumprod(ops.slice(result, 1, 1), 1))
    return result if increasing else ops.flip(result, [1])
# ------------------------------------------------------------------------ ops batch 8: predicates, conj, sum_to_size
# ``resolve_neg`` and ``positive`` return ``self`` itself (no node, no view; conjugation is in complex_ops.py),
# ``adjoint`` is ``transpose(-2, -1)`` conjugated; ``sum_to_size`` is ``at::sum_to``: one ``sum``
# over the dims to reduce (keepdim), then a ``view`` when leading dims go.

_ADJOINT_0D = ("adjoint() is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4390.)")


def is_floating_point(self):
    return self._dtype.is_floating_point


def is_signed(self):
    return self._dtype.is_signed


def is_neg(self):
    return False


def is_same_size(self, other):
    return tuple(self._data.shape) == tuple(other._data.shape)


def is_nonzero(self):
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                           "is ambiguous")
    return bool(self.item() != 0)


def fill_diagonal_(self, fill_value, wrap=False):
    """The main diagonal (of a matrix, or of a cube of equal sides) filled in place through an ``as_strided`` view,
    so the history is ``CopySlices``; with ``wrap``, a matrix taller than wide is filled again every ``width + 1``
    rows, as numpy.fill_diagonal does."""
    sizes = tuple(self._data.shape)
    if len(sizes) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = sizes[0], sizes[1]
    if len(sizes) > 2 and any(n != height for n in sizes[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset, stride = self.storage_offset(), sum(self.stride())
    size = min(height, width)
    ops.fill_(ops.as_strided(self, (size,), (stride,), offset), fill_value)
    if wrap and len(sizes) == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        ops.fill_(ops.as_strided(self, (wrap_size,), (stride,), offset + self.stride(0) * step), fill_value)
    return self


def positive(self):
    if self._dtype is st.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def adjoint(self):
    ndim = self.dim()
    if ndim == 0:
        warnings.warn(_ADJOINT_0D, UserWarning, stacklevel=2)
        return self
    if ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got {ndim}-D "
                           "tensor.")
    return ops.conj(ops.transpose(self, -2, -1))


def sum_to_size(self, size):
    shape, sizes = tuple(size), tuple(self._data.shape)
    if not _expandable_to(shape, sizes):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(sizes)}}}.")
    if not shape:
        return ops.sum(self)  # a zero-dim target: the plain sum (SumBackward0)
    leading = len(sizes) - len(shape)
    dims = list(range(leading)) + [i for i in range(leading, len(sizes))
                                   if shape[i - leading] == 1 and sizes[i] != 1]
    result = ops.sum(self, dims, keepdim=True) if dims else self
    return ops.view(result, shape) if leading > 0 else result


def _expandable_to(shape, desired):
    if len(shape) > len(desired):
        return False
    return all(s == d or s == 1 for s, d in zip(reversed(shape), reversed(desired)))


# ``fix`` is ``trunc``; the in-place comparisons' other names call them (``greater_`` is ``gt_``: GtBackward0).


def fix(self):
    return ops.trunc(self)


def fix_(self):
    return ops.trunc_(self)


def greater_(self, other):
    return ops.gt_(self, other)


def greater_equal_(self, other):
    return ops.ge_(self, other)


def less_(self, other):
    return ops.lt_(self, other)


def less_equal_(self, other):
    return ops.le_(self, other)


def not_equal_(self, other):
    return ops.ne_(self, other)


# ----------------------------------------------------------------------- ops batch 8: building and splitting
# ``diagflat`` a flat view on a diagonal (``diag_embed``); ``concat``/``concatenate`` ``cat``, ``row_stack``
# ``vstack``; ``hsplit``/``vsplit``/``dsplit`` ``tensor_split`` along dim 1 (0 for a vector), 0 and 2;
# ``cartesian_prod`` the flattened ``meshgrid`` stacked; ``combinations`` the meshgrid's elements under a triangular
# mask (``masked_select``) stacked; ``msort`` ``sort`` along dim 0; ``unsafe_chunk`` ``unsafe_split``; ``cross``
# ``linalg_cross`` along ``dim`` (the first dim of size 3 when not given, with torch's deprecation warning).

_CROSS_DIM_WARNING = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")
_cross_warned: list = []


def diagflat(self, offset=0):
    return ops.diag_embed(ops.view(ops.contiguous(self), [-1]), offset)


def concat(tensors, dim=0):
    return ops.cat(tensors, dim)


def row_stack(tensors):
    return ops.vstack(tensors)


def _split_along(self, name, min_dim, dim, sections):
    ndim = self.dim()
    if ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor with "
                           f"{ndim} dimensions!")
    if isinstance(sections, int):
        size = self.shape[dim]
        if sections == 0 or size % sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
        return ops.tensor_split(self, sections, dim)
    return ops.tensor_split(self, list(sections), dim)


def hsplit(self, sections):
    return _split_along(self, "hsplit", 1, 0 if self.dim() == 1 else 1, sections)


def vsplit(self, sections):
    return _split_along(self, "vsplit", 2, 0, sections)


def dsplit(self, sections):
    return _split_along(self, "dsplit", 3, 2, sections)


def cartesian_prod(tensors):
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid_indexing(tensors, "ij")
    return ops.stack([ops.flatten(g) for g in grids], 1)


def combinations(self, r=2, with_replacement=False):
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ops.new_empty(self, [0])
    n = self.numel()
    grids = meshgrid_indexing([self] * r, "ij")
    mask = _triu_mask(self, n, r, with_replacement)
    return ops.stack([ops.masked_select(g, mask) for g in grids], 1)


def _triu_mask(like, n, r, with_replacement):
    """``True`` where the r indices increase (never decrease, with replacement) from dim to dim."""

    index = np.indices((n,) * r) if r else np.zeros((0,), dtype=np.int64)
    mask = np.ones((n,) * r, dtype=bool)
    for i in range(1, r):
        mask &= index[i - 1] <= index[i] if with_replacement else index[i - 1] < index[i]
    return new_tensor(xp_of(like).asarray(mask, device=like._data.device), st.bool_, like._device)


def msort(self):
    return ops.sort(self, 0)[0]


def unsafe_chunk(self, chunks, dim=0):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self.shape[checks.wrap_dim(dim, self.dim())]
    if size == 0:  # as chunk: an empty dim still gives ``chunks`` empty pieces
        return ops.unsafe_split_with_sizes(self, [0] * chunks, dim)
    return ops.unsafe_split(self, -(-size // chunks), dim)


def vdot_out(self, other, out):
    """``dot``'s out= after vdot's own check: the result's dtype must be the input's, not merely castable."""
    if out._dtype is not self._dtype:
        raise RuntimeError(f"result dtype {out._dtype.c10_name} does not match input dtype {self._dtype.c10_name}")
    return ops.dot(self, other, out=out)


def fix_out(self, out):
    return ops.trunc(self, out=out)


def concat_out(tensors, dim=0, out=None):
    return ops.cat(tensors, dim, out=out)


def row_stack_out(tensors, out):
    return ops.vstack(tensors, out=out)


def cross_out(self, other, dim=None, out=None):
    return ops.linalg_cross(self, other, dim=_cross_dim(self, other, dim), out=out)


def cross(self, other, dim=None):
    return ops.linalg_cross(self, other, dim=_cross_dim(self, other, dim))


def _cross_dim(self, other, dim):
    if dim is None:
        if not _cross_warned:
            _cross_warned.append(True)
            warnings.warn(_CROSS_DIM_WARNING, UserWarning, stacklevel=2)
        try:  # the first dim of size 3 of the broadcast shape
            shape = np.broadcast_shapes(tuple(self.shape), tuple(other.shape))
        except ValueError:
            shape = tuple(self.shape)
        dim = next((d for d, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return dim


# ----------------------------------------------------------------------------- ops batch 9: rms_norm
# ``layer_norm.cpp``'s ``rms_norm_symint`` under autograd: a float16/bfloat16 input upcast to float32,
# ``x * rsqrt(mean(x^2 over the normalized dims, last first, keepdim) + eps)``, times the weight, cast back
# (``type_as``). eps defaults to the opmath type's epsilon.

_RMS_NORM_MISMATCH_WARNED: list = []
_FLOAT32_EPSILON = 1.1920928955078125e-07
_FLOAT64_EPSILON = 2.220446049250313e-16


def rms_norm(input, normalized_shape, weight=None, eps=None):
    _check_rms_norm_inputs(input, list(normalized_shape), weight)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype.c10_name}'")
    if weight is not None and weight.dtype != input.dtype and not _RMS_NORM_MISMATCH_WARNED:
        _RMS_NORM_MISMATCH_WARNED.append(True)  # TORCH_WARN_ONCE
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = {_TYPE_META_NAMES[input.dtype.name]}, "
                      f"weight dtype = {_TYPE_META_NAMES[weight.dtype.name]}, Cannot dispatch to fused implementation. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)",
                      UserWarning, stacklevel=3)
    upcast = input.dtype in (st.float16, st.bfloat16)
    x = ops._to_copy(input, dtype=st.float32) if upcast else input
    if eps is None:
        eps = _FLOAT64_EPSILON if input.dtype in (st.float64, st.complex128) else _FLOAT32_EPSILON
    dims = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    result = ops.mul(x, ops.rsqrt(ops.add(ops.mean(ops.pow(x, 2), dims, True), eps)))
    if weight is not None:
        result = ops.mul(result, weight)
    return result if result.dtype == input.dtype else ops._to_copy(result, dtype=input.dtype)


def _check_rms_norm_inputs(input, normalized_shape, weight) -> None:
    if len(normalized_shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {normalized_shape}")
    if weight is not None and list(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {normalized_shape}")
    sizes = list(input.shape)
    if len(sizes) < len(normalized_shape):
        raise ValueError(f"Input tensor must have at least {len(normalized_shape)} dimensions, but got {len(sizes)}")
    if sizes[len(sizes) - len(normalized_shape):] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with shape "
                           f"[*{', '.join(map(str, normalized_shape))}], but got input of size{sizes}")


_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
