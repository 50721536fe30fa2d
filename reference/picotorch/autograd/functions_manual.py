"""Helpers that backward formulas in ``derivatives.yaml`` call.

Models ``torch/csrc/autograd/FunctionsManual.cpp``. Every helper is built from picotorch ops called
through the dispatcher (``ops.<name>``), so that backward is itself differentiable when
``create_graph=True``.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from ..c10 import scalar_type as st
from ..c10.layout import contiguous_format
from ..native.device import to_numpy
from ..native.dispatcher import ops
from ..native.helpers import products_of_others, scalar_tensor, wrap, xp_dtype, xp_of, zeros_array
from ..native.tensor_impl import TensorImpl, new_tensor
from .grad_mode import is_grad_enabled

__all__ = [  # what `from functions_manual import *` gives the generated nodes
    "as_strided_backward",
    "block_diag_backward",
    "index_copy_source_backward",
    "handle_r_to_c",
    "conj",
    "conj_scalar",
    "lerp_self_factor",
    "maybe_multiply",
    "mul_tensor_backward",
    "div_tensor_self_backward",
    "div_tensor_other_backward",
    "pow_backward",
    "pow_backward_self",
    "pow_backward_exponent",
    "mm_mat1_backward",
    "mm_mat2_backward",
    "sum_to",
    "sum_backward",
    "mean_backward",
    "permute_backwards",
    "unsqueeze_to",
    "slice_backward_wrapper",
    "index_backward",
    "_to_copy_backward",
    "cat_tensors_backward",
    "stack_tensors_backward",
    "scalar_zero",
    "scalar_div",
    "clamp_backward",
    "clamp_backward_min",
    "clamp_backward_max",
    "max_min_backward",
    # torch.nn (group D)
    "is_grad_enabled",
    "to_dtype_of",
    "softmax_double_backward",
    "log_softmax_double_backward_grad_output",
    "log_softmax_double_backward_output",
    "gelu_double_backward",
    "infinitely_differentiable_silu_backward",
    "dropout_scale",
    "infinitely_differentiable_native_dropout_backward",
    "native_dropout_double_backward",
    "binary_cross_entropy_with_logits_target_backward",
    "mse_loss_double_backward",
    "mse_loss_double_backward_grad_output",
    # reductions (group G)
    "value_selecting_reduction_backward",
    "evenly_distribute_backward",
    "restore_reduced_dims",
    "scale_grad_by_count", "aminmax_backward",
    "mkldnn_rnn_layer_backward_grads",
    # convolution, pooling, batch_norm (ops batch 8)
    "convolution_double_backward",
    "max_pool_double_backward",
    "batchnorm_double_backward",
    "group_norm_backward",
    "logsumexp_backward",
    "var_backward",
    "std_backward",
    "linalg_vector_norm_backward",

    # indexing (group I)
    "gather_backward",
    "index_add_source_backward",
    "embedding_dense_double_backward",
    "not_implemented",
    # shape ops (group H)
    "split_backward",
    "split_with_sizes_backward",
    "unbind_backward",
    "roll_backward",
    "repeat_backward",
    # ops batch (prod, cumsum, erf, softplus, elu, constant_pad_nd)
    "to_scalar_type",
    "prod_backward",
    "cumsum_backward",
    "erf_backward",
    "softplus_double_backward",
    "elu_double_backward",
    "constant_pad_nd_backward",
    # ops batch 2 (cumprod)
    "cumprod_backward",
    "trace_backward",
    "unique_of",
    "atan2_backward",
    "logit_backward",
    # ops batch 3
    "masked_fill_backward",
    "one_minus",
    "zeros_of",
    "reshape_as",
    # ops batch 4 (cummax/cummin, smooth_l1_loss, huber_loss)
    "cummaxmin_backward",
    "smooth_l1_loss_double_backward",
    "smooth_l1_loss_double_backward_grad_output",
    "huber_loss_double_backward",
    "huber_loss_double_backward_grad_output",
    # ops batch 5
    "acosh_backward",
    "atanh_backward",
    "sinc_backward",
    "sgn_backward",
    "polar_backward",
    "angle_backward",
    "copysign_tensor_self_backward",
    "fmax_fmin_mask",
    "xlogy_scalar_other_backward",
    # ops batch 6
    "scalar_tensor",
    "nansum_backward",
    "var_mean_backward",
    "std_mean_backward",
    # ops batch 8
    "hardswish_double_backward", "log_sigmoid_double_backward", "infinitely_differentiable_mish_backward",
    "glu_double_backward_grad_output", "glu_double_backward", "binary_cross_entropy_target_backward",
    "binary_cross_entropy_double_backward", "binary_cross_entropy_double_backward_grad_output",
    "soft_margin_loss_double_backward", "soft_margin_loss_double_backward_grad_output",
    "prelu_kernel_double_backward", "float32_value",
    "logcumsumexp_backward",
    "renorm_backward",
    "linalg_det_backward",
    "slogdet_backward",
    "linalg_inv_backward",
    "euclidean_dist_backward",
    "scatter_reduce_backward",
    "index_reduce_backward",
    "linalg_matrix_exp_differential",
    # ops batch 9
    "i1_backward",
]


def handle_r_to_c(self_scalar_type, grad):
    """A real input's gradient is the real part of a complex one (the imaginary part is no direction it has)."""
    if grad._dtype.is_complex and not self_scalar_type.is_complex:
        return ops.real(grad)
    return grad


def maybe_multiply(grad, factor):
    return grad if (not isinstance(factor, TensorImpl) and factor == 1) else ops.mul(grad, factor)


# NOTE [Complex gradients]
# PyTorch's gradient of a real loss L with respect to a complex z is dL/d(conj z) (times 2): each formula
# multiplies ``grad`` by the *conjugate* of the local derivative (``grad * other.conj()``), so a real
# input's formula is unchanged (conj of a real tensor is the tensor itself, without a node). Where a real
# input met a complex result, ``handle_r_to_c`` keeps the real part. The matrix products branch on the
# dtype so that the real training path calls nothing more than before.


def conj(t):
    """``t.conj()`` in a formula: a real tensor is its own conjugate, answered without a call through the
    dispatcher (most formulas run on real tensors, and ``ops.conj`` costs a binding per call)."""
    return ops.conj(t) if t._dtype.is_complex else t


def conj_scalar(value):
    """``Scalar::conj``: a Python complex number's conjugate; other numbers are their own."""
    return value.conjugate() if isinstance(value, complex) else value


def lerp_self_factor(weight):
    """``1 - weight`` for ``lerp.Scalar``'s ``self``: in double for a real weight, conjugated for a complex one."""
    return 1 - weight.conjugate() if isinstance(weight, complex) else 1 - float(weight)


def _conj_of(value):
    """``other.conj()`` for a tensor or a Python number (``at::scalar_to_tensor(other).conj()``)."""
    if isinstance(value, TensorImpl):
        return conj(value) if value._dtype.is_complex else value
    return conj_scalar(value)


def mul_tensor_backward(grad, other, self_scalar_type):
    """``grad * conj(other)``, its real part for a real ``self`` (written out: every MulBackward runs it)."""
    if isinstance(other, TensorImpl):
        if other._dtype.is_complex:
            other = conj(other)
    elif type(other) is complex:
        other = other.conjugate()
    result = ops.mul(grad, other)
    if result._dtype.is_complex and not self_scalar_type.is_complex:
        return ops.real(result)
    return result


def div_tensor_self_backward(grad, other, self_scalar_type, rounding_mode=None):
    """``grad / conj(other)``; a rounded quotient is a step function: zeros of ``self``'s dtype."""
    if rounding_mode is not None:
        return ops.zeros_like(grad, dtype=self_scalar_type)
    return handle_r_to_c(self_scalar_type, ops.div(grad, _conj_of(other)))


def div_tensor_other_backward(grad, self, other, rounding_mode=None):
    """``-grad * conj((self / other) / other)``."""
    if rounding_mode is not None:
        return ops.zeros_like(grad, dtype=other.dtype)
    return handle_r_to_c(other.dtype, ops.mul(ops.neg(grad), conj(ops.div(ops.div(self, other), other))))


def pow_backward(grad, self, exponent):
    """d(self ** e)/dself = e * self ** (e - 1), conjugated; exactly zero where e == 0."""
    if exponent == 0:
        return ops.zeros_like(self)
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)  # toDouble(): 2 -> 2.0
    slope = ops.mul(ops.pow(self, exponent - 1), exponent)
    return handle_r_to_c(self.dtype, ops.mul(grad, conj(slope)))


def pow_backward_self(grad, self, exponent):
    """d(self ** e)/dself = e * self ** (e - 1), conjugated; defined as 0 where e == 0."""
    slope = ops.mul(grad, conj(ops.mul(exponent, ops.pow(self, ops.sub(exponent, 1)))))
    return handle_r_to_c(self.dtype, ops.where(ops.eq(exponent, 0.0), ops.zeros_like(slope), slope))


def _real_nonnegative(exponent):
    """``exponent >= 0``; for a complex exponent: real and non-negative (``imag == 0 and real >= 0``)."""
    if exponent.dtype.is_complex:
        return ops.bitwise_and(ops.eq(ops.imag(exponent), 0), ops.ge(ops.real(exponent), 0))
    return ops.ge(exponent, 0)


def pow_backward_exponent(grad, self, exponent, result):
    """d(b ** e)/de = b ** e * log(b), conjugated; defined as 0 where b == 0 and e >= 0 (a complex e: real
    and non-negative).

    The zero is chosen before ``grad`` multiplies, as PyTorch does: a NaN or infinite ``grad`` still gives
    NaN there, and a ``-0.`` gives ``-0.``.
    """
    if not isinstance(self, TensorImpl):
        if exponent.dtype.is_complex or isinstance(self, complex):
            log_base = cmath.log(complex(self)) if self != 0 else complex(-math.inf)
            slope = conj(ops.mul(result, log_base))
            if self == 0:
                slope = ops.where(_real_nonnegative(exponent), scalar_zero(grad), slope)
            return handle_r_to_c(exponent.dtype, ops.mul(grad, slope))
        if self == 0:
            return ops.mul(grad, ops.where(ops.ge(exponent, 0), scalar_zero(grad), ops.mul(result, -math.inf)))
        return ops.mul(grad, ops.mul(result, math.log(self) if self > 0 else math.nan))  # C's log(-2.) is NaN
    at_zero = ops.bitwise_and(ops.eq(self, 0), _real_nonnegative(exponent))
    base = self if self.dtype is result.dtype else ops._to_copy(self, dtype=result.dtype)  # log in the promoted dtype
    slope = conj(ops.mul(result, ops.log(base)))
    return handle_r_to_c(exponent.dtype, ops.mul(grad, ops.where(at_zero, scalar_zero(grad), slope)))


def mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha):
    """``grad @ mat2.T`` times alpha; for a column-major ``mat1`` computed as ``(mat2 @ grad.T).T``, so the
    gradient comes out in ``mat1``'s layout (and an accumulator can keep it without a copy). Complex: ``mat2``
    and ``alpha`` conjugated (NOTE [Complex gradients])."""
    if mat2._dtype.is_complex:
        return _mm_mat1_backward_complex(grad, mat2, mat1_sizes, mat1_strides, alpha)
    if _column_major(mat1_sizes, mat1_strides):
        return maybe_multiply(ops.t(ops.mm(mat2, ops.t(grad))), alpha)
    return maybe_multiply(ops.mm(grad, ops.t(mat2)), alpha)


def _mm_mat1_backward_complex(grad, mat2, mat1_sizes, mat1_strides, alpha):
    if _column_major(mat1_sizes, mat1_strides):
        return maybe_multiply(ops.t(ops.mm(conj(mat2), ops.t(grad))), conj_scalar(alpha))
    return maybe_multiply(ops.mm(grad, conj(ops.t(mat2))), conj_scalar(alpha))


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha):
    """``mat1.T @ grad`` times alpha; for a column-major ``mat2`` (``nn.Linear``'s ``weight.t()``) computed as
    ``(grad.T @ mat1).T``, in ``mat2``'s layout (the weight's gradient is then contiguous, as the weight).
    Complex: ``mat1`` and ``alpha`` conjugated."""
    if mat1._dtype.is_complex:
        return _mm_mat2_backward_complex(grad, mat1, mat2_sizes, mat2_strides, alpha)
    if _column_major(mat2_sizes, mat2_strides):
        return maybe_multiply(ops.t(ops.mm(ops.t(grad), mat1)), alpha)
    return maybe_multiply(ops.mm(ops.t(mat1), grad), alpha)


def _mm_mat2_backward_complex(grad, mat1, mat2_sizes, mat2_strides, alpha):
    if _column_major(mat2_sizes, mat2_strides):
        return maybe_multiply(ops.t(ops.mm(ops.t(grad), conj(mat1))), conj_scalar(alpha))
    return maybe_multiply(ops.mm(conj(ops.t(mat1)), grad), conj_scalar(alpha))


def _column_major(sizes, strides) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape`` (undoing broadcasting), as ``at::sum_to`` does."""
    # Worked example: a (3, 1) tensor broadcast to (2, 3, 4) gets a (2, 3, 4) gradient; summing over
    # dim 0 (a leading dim the tensor did not have) and dim 2 (where it had size 1, keepdim) gives
    # (1, 3, 1), and a view makes it (3, 1). Use ops.sum(grad, dims, True) and ops.view(grad, shape); a
    # zero-dim shape is always the plain sum, ops.sum(grad) (a create_graph backward then shows SumBackward0).
    # BEGIN SOLUTION 0.2: sum grad over the broadcast dimensions so that it has exactly `shape`
    shape = tuple(shape)
    if not shape:
        return ops.sum(grad)
    grad_shape = tuple(grad.shape)
    if grad_shape == shape:
        return grad
    lead = len(grad_shape) - len(shape)
    dims = list(range(lead))
    dims += [lead + i for i, s in enumerate(shape) if s == 1 and grad_shape[lead + i] != 1]
    if dims:
        grad = ops.sum(grad, dims, True)
    if lead > 0 or tuple(grad.shape) != shape:
        grad = ops.view(grad, shape)
    return grad
    # END SOLUTION


def sum_backward(grad, sizes, dims, keepdim):
    """``grad`` expanded back over the reduced dims (none given or ``[]``: all, a 0-dim ``grad`` expands)."""
    if not keepdim and len(sizes) > 0 and dims is not None and (isinstance(dims, int) or len(dims) > 0):
        grad = unsqueeze_multiple(grad, dims, len(sizes))
    return ops.expand(grad, sizes)


def _wrapped_dims(dims, ndim):
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        return list(range(ndim))
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [d % ndim for d in dims]


def mean_backward(grad, sizes, dims, numel, keepdim):
    """Spread the gradient back over the reduced dims, divided by how many elements each mean took."""
    all_reduced = dims is None or (not isinstance(dims, int) and len(dims) == 0)
    count = numel
    if not all_reduced and len(sizes):
        count = 1
        for d in _wrapped_dims(dims, len(sizes)):
            count *= sizes[d]
    return ops.div(sum_backward(grad, sizes, dims, keepdim), count)


def permute_backwards(grad, dims):
    ndim = len(dims)
    inverse = [0] * ndim
    for i, d in enumerate(dims):
        inverse[d % ndim] = i
    return ops.permute(grad, inverse)


def unsqueeze_to(grad, sizes, dims=None):
    """Put back the size-1 dims that squeeze removed."""
    ndim = len(sizes)
    if dims is None:
        targets = [i for i, s in enumerate(sizes) if s == 1]
    else:
        targets = [d % max(ndim, 1) for d in ([dims] if isinstance(dims, int) else dims)]
        targets = [d for d in targets if ndim and sizes[d] == 1]
    for d in sorted(targets):
        grad = ops.unsqueeze(grad, d)
    return grad


def slice_backward_wrapper(grad, sizes, dim, start, end, step):
    """The slice's own bounds, not wrapped (None: 0 and INT64_MAX): ``slice_backward`` wraps them itself, and
    its node keeps them as given (``_saved_end`` of SliceBackwardBackward0 under create_graph)."""
    start = 0 if start is None else start
    end = 9223372036854775807 if end is None else end
    return ops.slice_backward(grad, sizes, dim, start, end, step)


def index_backward(grad, sizes, options, indices):
    dtype, _ = options
    base = wrap(grad, zeros_array(grad, sizes, dtype), dtype)
    return ops._index_put_impl_(base, indices, grad, True, True)


def _to_copy_backward(grad, self_options):
    """``grad.to(self.options())``; a real input's gradient is the real part of a complex one (no warning)."""
    dtype, device = self_options
    if grad._dtype.is_complex and not dtype.is_complex:
        grad = ops.real(grad)
    return ops._to_copy(grad, dtype=dtype, device=device)


def cat_tensors_backward(grad, sizes, dtypes, dim):
    dim = dim % max(len(grad.shape), 1)
    grads, offset = [], 0
    real_part = ops.real(grad) if grad._dtype.is_complex else None  # a real input's part, taken once
    for shape, dtype in zip(sizes, dtypes):
        part = real_part if real_part is not None and not dtype.is_complex else grad
        if tuple(shape) == (0,):  # a skipped legacy empty tensor still gets a gradient: an empty one
            grads.append(wrap(part, zeros_array(part, (0,))))
            continue
        length = shape[dim]
        grads.append(ops.slice(part, dim, offset, offset + length, 1))
        offset += length
    return grads


def stack_tensors_backward(grad, dim, dtypes):
    return [handle_r_to_c(dtype, ops.select(grad, dim, i)) for i, dtype in enumerate(dtypes)]


def scalar_div(value, other):
    """C++'s ``value / other`` for a Scalar ``value`` (ATen's TensorOperators.h): ``other``'s shape filled with
    ``value``, divided in place (the DivBackward0 saves that filled tensor)."""
    return ops.div_(ops.fill_(ops.empty_like(other), value), other)


def scalar_zero(grad):
    """``at::scalar_tensor(0., grad.options())``: a zero-dim zero of ``grad``'s dtype and device."""
    return wrap(grad, zeros_array(grad, ()))


def clamp_backward(grad, self, min, max):
    """The gradient passes where ``self`` lies inside the bounds (ends included), else 0."""
    if min is None and max is None:
        return grad
    if min is not None and max is not None:
        inside = ops.mul(ops.ge(self, min), ops.le(self, max))
    else:
        inside = ops.ge(self, min) if min is not None else ops.le(self, max)
    return ops.where(inside, grad, scalar_zero(grad))


def clamp_backward_min(grad, self, min, max):
    """``min``'s half of ``clamp_backward_min_max``: where ``self`` was raised to ``min`` (and ``min < max``)."""
    below = ops.lt(self, min)
    if max is not None:
        below = ops.mul(below, ops.lt(min, max))
    return ops.where(below, grad, scalar_zero(grad))


def clamp_backward_max(grad, self, min, max):
    """``max``'s half: where ``self`` was lowered to ``max``, or everywhere ``max < min`` (max wins)."""
    above = ops.gt(self, max)
    if min is not None:
        above = ops.add(above, ops.lt(max, min))
    return ops.where(above, grad, scalar_zero(grad))


def max_min_backward(grad, self, other, loses):
    """``maximum``/``minimum``: the whole gradient to the chosen side, half each on a tie, 0 to the loser.

    PyTorch writes ``where(self == other, grad / 2, grad).masked_fill_(loses(self, other), 0)``.
    """
    shared = ops.where(ops.eq(self, other), ops.div(grad, 2), grad)
    return ops.masked_fill_(shared, loses(self, other), 0)  # in place: MaskedFillBackward0 under create_graph


# ----------------------------------------------------------------------------- torch.nn (group D)
# Reductions as ``at::Reduction``: 0 none, 1 mean, 2 sum.
_MEAN = 1


def to_dtype_of(grad, output):
    """``grad.to(output.dtype())``."""
    return grad if grad.dtype is output.dtype else ops._to_copy(grad, dtype=output.dtype)


def softmax_double_backward(grad, grad_output, dim, output):
    """d/d(output) of ``_softmax_backward_data``: ``go*g - sum(y*go)*g - go*sum(y*g)``."""
    return ops.sub(ops.sub(ops.mul(grad_output, grad), ops.mul(ops.sum(ops.mul(output, grad_output), dim, True), grad)),
                   ops.mul(grad_output, ops.sum(ops.mul(output, grad), dim, True)))


def log_softmax_double_backward_grad_output(grad, output, dim):
    """``grad - (grad * output.exp()).sum(dim, true)``."""
    return ops.sub(grad, ops.sum(ops.mul(grad, ops.exp(output)), dim, True))


def log_softmax_double_backward_output(grad, grad_output, output, dim):
    """``-grad_output.sum(dim, true) * output.exp() * grad``."""
    return ops.mul(ops.mul(ops.neg(ops.sum(grad_output, dim, True)), ops.exp(output)), grad)


def gelu_double_backward(ggI, gO, self, approximate):
    """The derivative of ``gelu_backward`` with respect to ``self`` (both approximations)."""
    if approximate == "tanh":
        return _gelu_tanh_double_backward(ggI, gO, self)
    m_2_sqrtpi, sqrt1_2 = 2 / math.sqrt(math.pi), math.sqrt(0.5)
    kBeta = m_2_sqrtpi * sqrt1_2 * 0.5
    pdf = ops.mul(ops.exp(ops.mul(ops.mul(self, self), -0.5)), kBeta)
    # d/dx (x * pdf(x) + cdf(x)) = 2 pdf(x) - x^2 pdf(x)
    dgrad = ops.mul(pdf, ops.rsub(ops.mul(self, self), 2))
    return ops.mul(ops.mul(ggI, gO), dgrad)


def _gelu_tanh_double_backward(ggI, gO, self):
    kBeta, kKappa = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5, 0.044715
    x_sq = ops.mul(self, self)
    inner = ops.mul(ops.add(self, ops.mul(ops.mul(x_sq, self), kKappa)), kBeta)
    t = ops.tanh(inner)
    dinner = ops.mul(ops.add(ops.mul(x_sq, 3 * kKappa), 1), kBeta)
    ddinner = ops.mul(self, 6 * kKappa * kBeta)
    sech2 = ops.rsub(ops.mul(t, t), 1)
    # f(x) = 0.5 x (1 + t); f' = 0.5 (1 + t) + 0.5 x sech2 dinner; f'' below
    f2 = ops.add(ops.mul(sech2, dinner),
                 ops.mul(ops.mul(self, 0.5), ops.sub(ops.mul(sech2, ddinner),
                                                     ops.mul(ops.mul(ops.mul(t, sech2), ops.mul(dinner, dinner)), 2))))
    return ops.mul(ops.mul(ggI, gO), f2)


def infinitely_differentiable_silu_backward(grad_output, input):
    """``grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))``, built from ops so it differentiates again."""
    sigmoid = ops.sigmoid(input)
    one_minus_sigmoid = ops.sub(scalar_tensor(1), sigmoid)  # C++'s ``1 - sigmoid``: a Tensor minus a tensor
    return ops.mul(ops.mul(grad_output, sigmoid), ops.add(ops.mul(input, one_minus_sigmoid), 1))


def dropout_scale(p, train):
    """What a kept element is multiplied by: ``1 / (1 - p)`` in training, 0 when ``p == 1``, else 1."""
    if not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def infinitely_differentiable_native_dropout_backward(grad, mask, scale):
    return ops.mul(ops.mul(grad, mask), scale)


def native_dropout_double_backward(ggI, grad, mask, scale):
    return ops.mul(ops.mul(ggI, ops._to_copy(mask, dtype=ggI.dtype)), scale)


def binary_cross_entropy_with_logits_target_backward(grad_output, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        grad_target = ops.mul(ops.sub(_log_sigmoid(ops.neg(self)), ops.mul(_log_sigmoid(self), pos_weight)),
                              grad_output)
    else:
        grad_target = ops.mul(ops.neg(self), grad_output)
    if weight is not None:
        grad_target = ops.mul(grad_target, weight)
    if reduction == _MEAN:
        grad_target = ops.div(grad_target, target.numel())
    return grad_target


def _log_sigmoid(x):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, which neither overflows nor loses small values."""
    return ops.sub(ops.clamp_max(x, 0), ops.log1p(ops.exp(ops.neg(ops.abs(x)))))


def mse_loss_double_backward(grad, input, reduction):
    grad_input = ops.mul(grad, 2)
    return ops.div(grad_input, input.numel()) if reduction == _MEAN else grad_input


def mse_loss_double_backward_grad_output(grad, grad_output, input, target, reduction):
    if reduction == 0:
        return ops.mse_loss_backward(grad, input, target, reduction)
    r = ops.mse_loss_backward(ops.ones_like(grad_output), input, target, reduction)
    return ops.sum(ops.mul(r, grad))


# ----------------------------------------------------------------------------- reductions (group G)


def value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
    """``max.dim``/``min.dim``: each output's gradient goes to the element its index chose, 0 elsewhere:
    scattered into zeros of the input's shape, as PyTorch does (a double backward shows ``ScatterBackward0``)."""
    if not keepdim and len(sizes) > 0:
        grad, indices = ops.unsqueeze(grad, dim), ops.unsqueeze(indices, dim)
    return ops.scatter(wrap(grad, zeros_array(grad, tuple(sizes))), dim, indices, grad)


def evenly_distribute_backward(grad, input, value):
    """``max()``/``min()``: the gradient shared evenly among every element equal to the result (or among
    the NaNs when the result is NaN)."""
    if ops.isnan(value).item():
        mask = ops.isnan(input)
    else:
        mask = ops.eq(input, value)
    zeros = wrap(grad, zeros_array(input, tuple(input.shape)))  # ``grad.new_zeros(sizes, input.options())``
    return ops.masked_fill_(zeros, mask, ops.div(grad, ops.sum(mask)))


def restore_reduced_dims(output, dims, keepdim):
    """The reduced output reshaped with a 1 where each reduced dim was, so it broadcasts against the input."""
    if keepdim:
        return output
    total = len(output.shape) + len(dims)
    reduced = _wrapped(dims, total)
    sizes = iter(output.shape)
    return ops.reshape(output, [1 if i in reduced else next(sizes) for i in range(total)])


def _wrapped(dims, ndim):
    return {d % ndim for d in dims}


def scale_grad_by_count(grad, mask, dims):
    """``amax``/``amin``: the gradient split evenly among the elements that tie for the extreme value."""
    return ops.mul(ops.div(grad, ops.sum(mask, dims, True)), mask)


def aminmax_backward(grads, self, min, max, dim, keepdim):
    """``amin``'s and ``amax``'s gradients added (either may be missing): each split among its ties."""
    dims = [] if self.dim() == 0 else list(range(self.dim())) if dim is None else [dim]
    keep = keepdim or self.dim() == 0
    parts = [scale_grad_by_count(restore_reduced_dims(grad, dims, keep),
                                 ops.eq(restore_reduced_dims(result, dims, keep), self), dims)
             for grad, result in zip(grads, (min, max)) if grad is not None]
    return parts[0] if len(parts) == 1 else ops.add(parts[0], parts[1])


def unsqueeze_multiple(t, dims, ndim):
    """One dim is unsqueezed as given (``-1`` stays ``-1`` on the node); several, wrapped, in increasing order."""
    if isinstance(dims, int):
        return ops.unsqueeze(t, dims)
    if dims is not None and len(dims) <= 1:
        return ops.unsqueeze(t, dims[0]) if dims else t
    for d in sorted(_wrapped(range(ndim) if dims is None else dims, ndim)):
        t = ops.unsqueeze(t, d)
    return t


def logsumexp_backward(grad, self, result, dim, keepdim):
    """``grad * exp(self - result)``: the softmax of ``self`` over the reduced dims, times ``grad``."""
    ndim = len(self.shape)
    if not keepdim and ndim != 0:
        grad = unsqueeze_multiple(grad, dim, ndim)
        result = unsqueeze_multiple(result, dim, ndim)
    return ops.mul(grad, conj(ops.exp(ops.sub(self, result))))


def var_backward(grad, self, dim, correction, keepdim):
    """``2 / (N - correction) * grad * (self - mean)``. As in PyTorch, N is the count over ``dim`` (1 for
    ``dim=()``), and a full reduction with no degrees of freedom gives NaN where ``self`` is its mean, inf
    elsewhere."""
    correction = 1 if correction is None else correction
    ndim = len(self.shape)
    if ndim == 0 or dim is None:
        dof = self.numel() - correction
        if dof <= 0:
            nan_or_inf = ops.where(ops.eq(self, ops.mean(self)), math.nan, math.inf)
            return ops.mul(grad, nan_or_inf)
        return ops.mul(ops.mul(grad, 2.0 / dof), ops.sub(self, ops.mean(self)))
    if not keepdim and ndim > 1:
        grad = unsqueeze_multiple(grad, dim, ndim)
    count = 1
    for d in _wrapped(dim, ndim):
        count *= self.shape[d]
    return ops.mul(ops.mul(grad, _float_divide(2.0, count - correction)), ops.sub(self, ops.mean(self, dim, True)))


def _float_divide(a, b):
    """``a / b`` as C++ divides doubles: by zero gives inf (or nan for 0 / 0), never an exception."""
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


def std_backward(result, grad, self, dim, correction, keepdim):
    """The variance's gradient scaled by ``1 / (2 * std)``, 0 where the std is 0."""
    grad_var = ops.masked_fill_(ops.div(grad, ops.mul(result, 2)), ops.eq(result, 0), 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def linalg_vector_norm_backward(grad, self, ord, norm, dim, keepdim):
    """``norm_backward`` in PyTorch: one rule per kind of order (0 has no gradient)."""
    p = float(ord)
    dim = () if dim is None else dim
    ndim = len(self.shape)
    if not keepdim and ndim != 0:
        grad, norm = unsqueeze_multiple(grad, dim, ndim), unsqueeze_multiple(norm, dim, ndim)
    if p == 0.0:
        return None
    sign = ops.sgn  # FunctionsManual's self.sgn(): a real tensor's sign, a complex number's z / |z| (SgnBackward0)
    if p == 1.0:
        return ops.mul(sign(self), grad)
    if p == 2.0:
        return ops.mul(grad, _zero_where(ops.div(self, norm), ops.eq(norm, 0)))
    if math.isinf(p):  # the derivative of amax(|self|): shared among the ties (NaNs count as ties)
        self_abs = ops.abs(self)
        mask = ops.bitwise_or(ops.eq(self_abs, norm), ops.isnan(self_abs))
        return ops.mul(sign(self), ops.mul(ops.div(grad, ops.sum(mask, dim, True)), mask))
    if p < 1.0:
        self_scaled = ops.mul(sign(self), _zero_where(ops.pow_(ops.abs(self), p - 1), ops.eq(self, 0)))
        return ops.mul(ops.mul(self_scaled, grad), ops.pow(norm, 1 - p))
    if p < 2.0:
        self_scaled = ops.mul(sign(self), ops.pow_(ops.abs(self), p - 1))
    else:  # pow_ in place, as PyTorch: the PowBackward0 saves a clone of |self| (CloneBackward0)
        self_scaled = ops.mul(self, ops.pow_(ops.abs(self), p - 2))
    scale_v = _zero_where(ops.div(grad, ops.pow(norm, p - 1)), ops.eq(norm, 0))
    return ops.mul(self_scaled, scale_v)


def _zero_where(t, mask):
    """``t.masked_fill_(mask, 0)`` (out of place: the same node, ``MaskedFillBackward0``)."""
    return ops.masked_fill(t, mask, 0)


# ----------------------------------------------------------------------------- indexing (group I)


def gather_backward(grad, self, dim, index, sparse_grad):
    """Zeros of ``self``'s shape with the gradient added back where ``gather`` read (``scatter_add_``)."""
    if sparse_grad:
        raise NotImplementedError("picotorch has no sparse tensors: gather(..., sparse_grad=True) cannot make its "
                                  "gradient; use sparse_grad=False")
    return ops.scatter_add_(wrap(grad, zeros_array(grad, tuple(self.shape))), dim, index, grad)


def index_add_source_backward(grad, dim, index, source, alpha, source_dim):
    """The rows ``index_add`` added, read back; a zero-dim ``source`` (one index) reads one row."""
    if source_dim > 0:
        return maybe_multiply(ops.expand_as(ops.index_select(grad, dim, index), source), alpha)
    return maybe_multiply(ops.index_select(grad, dim, ops.squeeze(index, 0)), alpha)


def embedding_dense_double_backward(grad, indices, padding_idx):
    """The gradient's rows picked by ``indices`` (the padding row's picks zeroed), shaped like the forward output."""
    picked = ops.index_select(grad, 0, ops.reshape(indices, (-1,)))
    if padding_idx >= 0:
        picked = ops.masked_fill_(picked, ops.reshape(ops.eq(indices, padding_idx), (-1, 1)), 0)
    return ops.view(picked, tuple(indices.shape) + (-1,))


def not_implemented(name):
    """A formula PyTorch declares but does not have: its node exists and raises when backward reaches it."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


# ----------------------------------------------------------------------------- shape ops (group H)


def split_backward(grads, split_size, dim, sizes, options):
    """The pieces' sizes ``split`` made (all ``split_size`` but the last), then ``split_with_sizes_backward``."""
    dim = dim % len(sizes)
    count = len(grads)
    split_sizes = [split_size] * count
    split_sizes[-1] = sizes[dim] - split_size * (count - 1)
    return split_with_sizes_backward(grads, split_sizes, dim, sizes, options)


def split_with_sizes_backward(grads, split_sizes, dim, sizes, options):
    """The pieces' gradients joined back with ``cat``; a piece without one contributes zeros of its shape."""
    dim = dim % len(sizes)
    ref = next(g for g in grads if g is not None)
    pieces = []
    for g, length in zip(grads, split_sizes):
        if g is None:
            shape = list(sizes)
            shape[dim] = length
            g = wrap(ref, zeros_array(ref, shape, options[0]))
        pieces.append(g)
    return ops.cat(pieces, dim)


def unbind_backward(grads, dim):
    """The slices' gradients stacked back along ``dim``; a missing one is zeros shaped like the others."""
    ref = next(g for g in grads if g is not None)
    return ops.stack([g if g is not None else ops.expand(scalar_zero(ref), tuple(ref.shape)) for g in grads], dim)


def roll_backward(grad, shifts, dims):
    """Roll back: the shifts negated, shifts and dims both reversed."""
    return ops.roll(grad, [-s for s in reversed(shifts)], list(reversed(dims)))


def repeat_backward(grad, repeats, input_shape):
    """Sum the copies ``repeat`` made: view each dim of size ``r * s`` as ``(r, s)`` and sum over the ``r``s.

    The leading dims ``repeat`` added are summed away first; any zero repeat gives zeros.
    """
    if 0 in repeats:
        return wrap(grad, zeros_array(grad, input_shape))
    for _ in range(len(grad.shape) - len(input_shape)):
        grad = ops.sum(grad, 0, False)
    added = len(repeats) - len(input_shape)
    grad_size, sum_dims = [], []
    for size, r in zip(input_shape, repeats[added:]):
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if not sum_dims:
        return grad
    return ops.sum(ops.reshape(grad, grad_size), sum_dims)


# ----------------------------------------------------------------------------- ops batch


def to_scalar_type(t, dtype):
    """``t.to(dtype)``: ``t`` itself when it has that dtype already."""
    return t if t.dtype is dtype else ops._to_copy(t, dtype=dtype)


def prod_backward(grad, input, result, dim=None, keepdim=False):
    """``grad * result / input`` when no element of ``input`` is 0; otherwise, for each element, the product of
    the others in its slice (``_prod_of_others``). Without ``dim`` the whole tensor is one slice; with two zeros
    or more and grad mode off the answer is all zeros (every product of others holds a zero)."""
    if input.dim() == 0:
        return grad
    if dim is None:
        zeros = ops.sum(ops.eq(input, 0)).item()
        if zeros == 0:
            return ops.mul(grad, conj(ops.div(result, input)))
        if zeros > 1 and not is_grad_enabled():
            return ops.zeros_like(input, memory_format=contiguous_format)
        flat = ops.view(ops.contiguous(input), (-1,))
        return ops.view_as(ops.mul(grad, conj(_prod_of_others(flat, 0))), input)
    dim %= input.dim()
    if not keepdim:
        grad, result = ops.unsqueeze(grad, dim), ops.unsqueeze(result, dim)
    if ops.sum(ops.eq(input, 0)).item() == 0:
        return ops.mul(grad, conj(ops.div(result, input)))
    if input.numel() == 0:
        return ops.expand_as(grad, input)
    if input.shape[dim] == 1:
        return grad
    return ops.mul(grad, conj(_prod_of_others(input, dim)))


def _prod_of_others(input, dim):
    """For each element, the product of the other elements along ``dim``, zeros included: the exclusive ``cumprod``
    from the front times the one from the back (``prod_safe_zeros_backward``). A plain backward takes the values
    directly (``products_of_others``, the same steps in ATen's accumulation type); a ``create_graph`` backward
    records the ``cat``/``narrow``/``flip``/``cumprod`` ops, so the graph shows PyTorch's nodes."""
    if not is_grad_enabled():
        return products_of_others(input, dim)
    n = input.shape[dim]
    ones = wrap(input, _ones_array(input, input.shape[:dim] + (1,) + input.shape[dim + 1:]))
    before = ops.cumprod(ops.cat([ones, ops.narrow(input, dim, 0, n - 1)], dim), dim)
    after = ops.flip(ops.cumprod(ops.cat([ones, ops.flip(ops.narrow(input, dim, 1, n - 1), [dim])], dim), dim), [dim])
    return ops.mul(before, after)


def cumsum_backward(grad, dim):
    """Each input adds to every output from its place on: its gradient is the reversed running sum of ``grad``."""
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return _reversed_cumsum(grad, dim)


def erf_backward(grad, self):
    """``2 / sqrt(pi) * exp(-self**2) * grad``."""
    return ops.mul(ops.mul(ops.exp(ops.neg(ops.pow(self, 2))), 2.0 / math.sqrt(math.pi)), grad)


def softplus_double_backward(grad, input, beta, threshold):
    """The slope ``sigmoid(beta * x)`` differentiated again: ``beta * s * (1 - s)``, 0 on the linear branch."""
    x = ops.mul(input, beta)
    below = to_dtype_of(ops.lt(x, threshold), grad)
    return ops.mul(ops.mul(ops.sigmoid_backward(grad, ops.sigmoid(x)), below), beta)


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """d(elu_backward)/d(self_or_result): nonzero on the exponential branch only (where it is below 0)."""
    below = to_dtype_of(ops.lt(self_or_result, 0), grad)
    scaled = ops.mul(ops.mul(grad, grad_output), input_scale)
    if is_result:
        return ops.mul(scaled, below)
    return ops.mul(ops.elu_backward(scaled, alpha, scale, input_scale, is_result, self_or_result), below)


def constant_pad_nd_backward(grad, pad):
    """The padding cut off again: the same amounts, negated."""
    return ops.constant_pad_nd(grad, [-p for p in pad], 0)


def _ones_array(like, shape):
    xp = xp_of(like)
    return xp.ones(tuple(shape), dtype=xp_dtype(xp, like.dtype), device=like._data.device)


def _reversed_cumsum(t, dim):
    return ops.flip(ops.cumsum(ops.flip(t, [dim]), dim), [dim])


def cumprod_backward(grad, input, dim, output):
    """Each input ``x_k`` scales every output from ``k`` on. Without zeros that is the reversed running sum of
    ``output * grad`` over ``x_k``. With zeros, a plain backward takes the values slice by slice; under grad mode the
    products of the others are recorded one position at a time, each copied into its slice of a zero tensor, as
    PyTorch does (its O(n^2) differentiable path: a CopySlices node per position)."""
    if input.numel() <= 1:
        return grad
    dim = dim % input.dim()
    n = input.shape[dim]
    if n == 1:
        return grad
    if input._dtype.is_complex:  # from here on the conjugates stand for input and output (NOTE [Complex gradients])
        input, output = conj(input), conj(output)
    w = ops.mul(output, grad)
    if not ops.any(ops.eq(input, 0)).item():
        return ops.div(_reversed_cumsum(w, dim), input)
    if not is_grad_enabled():
        return _cumprod_backward_with_zeros(grad, input, dim, output, w)
    ones = ops.expand(wrap(grad, _ones_array(grad, (1,))), input.shape[:dim] + (1,) + input.shape[dim + 1:])
    grad_input = wrap(grad, zeros_array(grad, input.shape))
    for k in range(n):
        if k == 0:
            omitted = ops.cat([ones, ops.cumprod(ops.slice(input, dim, 1), dim)], dim)
        elif k == n - 1:
            omitted = ops.prod(ops.slice(input, dim, 0, k), dim, True)
        else:
            until_k = ops.prod(ops.slice(input, dim, 0, k), dim, True)
            from_k_plus_1 = ops.cumprod(ops.slice(input, dim, k + 1), dim)
            omitted = ops.cat([until_k, ops.mul(ops.expand_as(until_k, from_k_plus_1), from_k_plus_1)], dim)
        ops.copy_(ops.select(grad_input, dim, k), ops.sum(ops.mul(ops.slice(grad, dim, k), omitted), dim))
    return grad_input


def _cumprod_backward_with_zeros(grad, input, dim, output, w):
    """Before the first zero of a slice, the no-zero formula; at the first zero, the product of the inputs before it
    times the sum of ``grad`` times the running product of the inputs after it, up to the second zero; 0 after."""
    zeros_so_far = ops.cumsum(ops.eq(input, 0), dim)
    before_first = ops.eq(zeros_so_far, 0)
    upto_second = ops.eq(zeros_so_far, 1)
    first_zero = ops.bitwise_and(upto_second, ops.eq(input, 0))
    not_between = ops.bitwise_or(ops.ne(zeros_so_far, 1), ops.eq(input, 0))
    early = ops.div(_reversed_cumsum(ops.masked_fill(w, ops.ne(zeros_so_far, 0), 0.0), dim), input)
    tail = ops.sum(ops.mul(ops.cumprod(ops.masked_fill(input, not_between, 1.0), dim),
                           ops.masked_fill(grad, ops.ne(zeros_so_far, 1), 0.0)), dim, True)
    n = input.shape[dim]
    ones = wrap(output, _ones_array(output, output.shape[:dim] + (1,) + output.shape[dim + 1:]))
    exclusive = ops.cat([ones, ops.narrow(output, dim, 0, n - 1)], dim)
    at_zero = ops.mul(tail, exclusive)
    return ops.where(before_first, early, ops.where(first_zero, at_zero, scalar_tensor(0.0)))


def trace_backward(grad, sizes):
    """``grad`` on the diagonal of zeros shaped like the input: every ``m + 1``-th element of it flattened."""
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    n, m = sizes
    xp = xp_of(grad)
    grad_input = wrap(grad, zeros_array(grad, (n * m,)))
    diagonal = wrap(grad, xp.arange(0, n * m, m + 1, dtype=xp.int64, device=grad._data.device), st.int64)
    return ops.view(ops.index_fill_(grad_input, 0, diagonal, grad), sizes)


def unique_of(index, like):
    """The distinct indices (``at::_unique``), on ``like``'s device: a repeated one is filled once, so its gradient
    counts once."""
    xp = xp_of(like)
    values = xp.unique_values(xp.asarray(to_numpy(index._data).reshape(-1), device=like._data.device))
    return wrap(like, values, index.dtype)


def atan2_backward(grad, self, other, output_mask):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2), both from one reciprocal; where x^2 + y^2 is 0 (at the origin,
    or both squares underflowing) the gradient is 0, not NaN."""
    denominator = ops.add(ops.mul(self, self), ops.mul(other, other))
    recip = ops.masked_fill(ops.reciprocal(denominator), ops.eq(denominator, 0), 0)
    return (ops.mul(ops.mul(grad, other), recip) if output_mask[0] else None,
            ops.mul(ops.mul(grad, ops.neg(self)), recip) if output_mask[1] else None)


def logit_backward(grad, self, eps):
    """``grad / (x (1 - x))`` inside ``[eps, 1 - eps]`` (``[0, 1]`` without eps), else 0 (NaN without eps). Under grad
    mode PyTorch records this ``where`` (infinitely differentiable); otherwise its kernel runs, which treats a
    negative eps as none and lets NaN inputs through (the values below, with no graph)."""
    quotient = ops.div(grad, ops.mul(self, ops.sub(scalar_tensor(1.0), self)))  # C++'s ``1.0 - self``
    if is_grad_enabled():
        lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
        inside = ops.bitwise_and(ops.ge(self, lo), ops.le(self, hi))
        outside = wrap(self, _full_array(self, 0.0 if eps is not None else math.nan))
        return ops.where(inside, quotient, outside)
    lo, hi = (0.0, 1.0) if eps is None or eps < 0 else (eps, 1.0 - eps)
    outside = ops.bitwise_or(ops.lt(self, lo), ops.gt(self, hi))
    return ops.where(outside, scalar_tensor(math.nan if eps is None or eps < 0 else 0.0), quotient)


def _full_array(like, value):
    xp = xp_of(like)
    return xp.full((), value, dtype=xp_dtype(xp, like.dtype), device=like._data.device)


def masked_fill_backward(grad, mask):
    """A tensor value's gradient: the sum of ``grad`` where the (broadcast) mask is true."""
    return ops.sum(ops.masked_select(grad, mask))


def one_minus(t):
    """``1 - t`` as ATen's C++ ``Scalar - Tensor`` computes it: a tensor like ``t`` filled with 1, then ``t``
    subtracted in place (the graph shows SubBackward0 with no edge for the 1s)."""
    return ops.sub_(ops.fill_(ops.empty_like(t), 1), t)


def reshape_as(t, other):
    return ops.reshape(t, tuple(other._data.shape))


def zeros_of(info, like):
    """Zeros of a saved (shape, dtype) on ``like``'s device: ``zeros_like`` of an input that is not saved."""
    shape, dtype = info
    return wrap(like, zeros_array(like, shape, dtype), dtype)


# ----------------------------------------------------------------------------- ops batch 4


def cummaxmin_backward(grad, input, indices, dim):
    """Each output's gradient added to the element it copied (several outputs may copy one): ``scatter_add_``
    into zeros. An empty input is returned as it is, as PyTorch does."""
    if input.numel() == 0:
        return input
    return ops.scatter_add_(wrap(grad, zeros_array(input, tuple(input.shape))), dim, indices, grad)


def smooth_l1_loss_double_backward(grad, input, target, reduction, beta):
    """d(smooth_l1_loss_backward)/d(self): ``1 / beta`` inside ``(-beta, beta)``, 0 on the linear parts."""
    if beta == 0:
        return wrap(grad, zeros_array(grad, tuple(grad.shape)))
    inside = to_dtype_of(ops.lt(ops.abs(ops.sub(input, target)), beta), grad)
    grad_input = ops.div(ops.mul(grad, inside), beta)
    return ops.div(grad_input, input.numel()) if reduction == _MEAN else grad_input


def smooth_l1_loss_double_backward_grad_output(grad, grad_output, input, target, reduction, beta):
    return _loss_backward_grad_output(ops.smooth_l1_loss_backward, grad, grad_output, input, target, reduction, beta)


def huber_loss_double_backward(grad, input, target, reduction, delta):
    """d(huber_loss_backward)/d(self): 1 inside ``(-delta, delta)``, 0 on the linear parts."""
    grad_input = ops.mul(grad, ops.lt(ops.abs(ops.sub(input, target)), delta))
    return ops.div(grad_input, input.numel()) if reduction == _MEAN else grad_input


def huber_loss_double_backward_grad_output(grad, grad_output, input, target, reduction, delta):
    return _loss_backward_grad_output(ops.huber_loss_backward, grad, grad_output, input, target, reduction, delta)


def _loss_backward_grad_output(backward, grad, grad_output, input, target, reduction, parameter):
    """A loss backward's derivative with respect to its ``grad_output``: the backward of ``grad`` itself when
    unreduced, else the backward of ones summed against ``grad`` (``grad_output`` is then a scalar)."""
    if reduction == 0:
        return backward(grad, input, target, reduction, parameter)
    return ops.sum(ops.mul(backward(ops.ones_like(grad_output), input, target, reduction, parameter), grad))


# ----------------------------------------------------------------------------- ops batch 5


def acosh_backward(grad, self):
    """``grad * rsqrt(x * x - 1)``; for complex ``x``, ``conj(rsqrt(x + 1) * rsqrt(x - 1))``, which keeps the
    principal branch where ``x * x - 1`` would cross the negative reals (torch 2.13's graph shows these nodes)."""
    if self.dtype.is_complex:
        return ops.mul(grad, conj(ops.mul(ops.rsqrt(ops.add(self, 1)), ops.rsqrt(ops.sub(self, 1)))))
    return ops.mul(grad, ops.rsqrt(ops.sub(ops.mul(self, self), 1)))


def atanh_backward(grad, self):
    """``grad * 1 / (1 - x^2)``; C++'s ``1 - t`` fills a new tensor with 1 and subtracts in place (SubBackward0 with
    no edge for the 1), which a Tensor minus a tensor records the same way."""
    return ops.div(ops.mul(grad, 1), conj(ops.sub(scalar_tensor(1), ops.pow(self, 2))))


def sinc_backward(grad, self):
    """d sinc(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), with 0 where pi x^2 is 0 (the limit at x = 0)."""
    self_pi = ops.mul(self, math.pi)
    self_squared_pi = ops.mul(ops.mul(self, self), math.pi)
    out = ops.mul(grad, ops.div(ops.sub(ops.mul(self_pi, ops.cos(self_pi)), ops.sin(self_pi)), self_squared_pi))
    return ops.where(ops.eq(self_squared_pi, 0.0), scalar_zero(grad), out)


def sgn_backward(self, grad, result):
    """A real tensor's ``sgn`` is flat wherever it has a derivative: zeros (PyTorch's ZeroTensor, without history).
    A complex one moves only along the circle: ``(grad - sgn^2 conj(grad)) / (2 |z|)``, 0 at 0."""
    if not self.dtype.is_complex:
        return ops.zeros_like(result)
    magnitude = ops.abs(self)
    value = ops.div(ops.sub(grad, ops.mul(ops.mul(result, result), conj(grad))), ops.mul(magnitude, 2.0))
    return ops.masked_fill_(value, ops.eq(magnitude, 0.0), 0.0)


def polar_backward(grad, result):
    """``polar(r, theta)``: r moves along ``sgn(result)``, theta along ``i result``; each takes the real part."""
    grad_conj = conj(grad)
    grad_abs = ops.real(ops.mul(grad_conj, ops.sgn(result)))
    grad_angle = ops.real(ops.mul(grad_conj, ops.mul(result, 1j)))
    return grad_abs, grad_angle


def angle_backward(grad, self):
    """Real inputs: a step function, zeros. Complex: ``grad * z / |z|^2 * i``, 0 at 0."""
    if not self.dtype.is_complex:
        return ops.zeros_like(self)
    value = ops.mul(ops.div(ops.mul(grad, self), ops.pow(ops.abs(self), 2)), 1j)
    return ops.where(ops.eq(self, 0.0), scalar_zero(self), value)


def copysign_tensor_self_backward(grad, self, result):
    """``grad * result / self``: +-1 where the sign was kept or flipped, 0 where ``self`` is 0."""
    ratio = ops.div(result, self)
    return ops.mul(grad, ops.masked_fill(ratio, ops.eq(self, 0), 0))


def fmax_fmin_mask(self, other, compare, to_self):
    """Where ``grad`` does not go: ``fmax`` (``compare`` ge) and ``fmin`` (le) pass it to ``self`` where
    ``compare(self, other)`` holds or ``other`` is NaN, to ``other`` everywhere else."""
    chosen = ops.bitwise_or(compare(self, other), ops.isnan(other))
    return ops.eq(chosen, False) if to_self else chosen


def xlogy_scalar_other_backward(grad, self, other):
    """``xlogy(grad, other)``; for ``other <= 0`` (log not finite) 0 where ``self`` is 0, as the forward's 0 there."""
    grad_self = ops.xlogy(grad, other)
    return grad_self if float(other) > 0 else ops.masked_fill(grad_self, ops.eq(self, 0.0), 0.0)


# ----------------------------------------------------------------------------- ops batch 6


def nansum_backward(grad, self, dim, keepdim):
    """``sum``'s gradient, zero where ``self`` was NaN (those elements were not summed)."""
    spread = ops.expand(grad, tuple(self.shape)) if dim is None else sum_backward(grad, tuple(self.shape), dim, keepdim)
    return ops.mul(spread, ops.logical_not(ops.isnan(self)))


def var_mean_backward(grads, self, dim, correction, keepdim):
    """The two outputs' gradients added: the variance's first, then the mean's, each when it has one."""
    return _plus_mean_backward(var_backward(grads[0], self, dim, correction, keepdim) if grads[0] is not None
                               else None, grads[1], self, dim, keepdim)


def std_mean_backward(grads, self, std, dim, correction, keepdim):
    return _plus_mean_backward(std_backward(std, grads[0], self, dim, correction, keepdim) if grads[0] is not None
                               else None, grads[1], self, dim, keepdim)


def _plus_mean_backward(grad, grad_mean, self, dim, keepdim):
    if grad_mean is None:
        return grad
    from_mean = mean_backward(grad_mean, tuple(self.shape), dim, self.numel(), keepdim)
    return from_mean if grad is None else ops.add(grad, from_mean)


# ----------------------------------------------------------------------------- ops batch 8: activations


def float32_value(scalar) -> float:
    """``Scalar::toFloat()``: the number rounded to float32 (celu's backward takes ``1.0 / alpha.toFloat()``)."""
    return float(np.float32(scalar))


def hardswish_double_backward(grad, grad_output, self):
    """``where(-3 < x < 3, grad * grad_output / 3, 0)``: the slope ``x / 3 + 1/2`` differentiated again."""
    outside = ops.logical_not(ops.logical_and(ops.gt(self, -3.0), ops.lt(self, 3.0)))
    return ops.masked_fill(ops.div(ops.mul(grad, grad_output), 3.0), outside, 0)


def log_sigmoid_double_backward(grad, input):
    """``grad * (sigmoid(x) - 1) * sigmoid(x)``."""
    z = ops.sigmoid(input)
    return ops.mul(ops.mul(grad, ops.sub(z, 1)), z)


def infinitely_differentiable_mish_backward(grad_output, input):
    """``grad * (tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2))``, ``sp = log1p(exp(x))``, built from ops."""
    sigmoid = ops.sigmoid(input)
    tanh_softplus = ops.tanh(ops.log1p(ops.exp(input)))
    slope = ops.sub(scalar_tensor(1.0), ops.mul(tanh_softplus, tanh_softplus))  # C++'s ``1.0 - t``
    return ops.mul(grad_output, ops.add(tanh_softplus, ops.mul(ops.mul(input, sigmoid), slope)))


def prelu_kernel_double_backward(grads, grad_output, self, weight, output_mask):
    """The gradients of ``_prelu_kernel_backward``'s two outputs (``ggI``, ``ggW``) taken back to its inputs."""
    gg_input, gg_weight = grads
    nonnegative = ops.ge(self, 0)
    grad_grad_output = grad_self = grad_weight = None
    if output_mask[0]:
        if gg_input is None:
            grad_grad_output = ops.where(nonnegative, ops.new_zeros(grad_output, []), ops.mul(gg_weight, self))
        elif gg_weight is None:
            grad_grad_output = ops.where(nonnegative, gg_input, ops.mul(gg_input, weight))
        else:
            grad_grad_output = ops.where(nonnegative, gg_input,
                                         ops.add(ops.mul(gg_input, weight), ops.mul(gg_weight, self)))
    if output_mask[1]:
        grad_self = (ops.zeros_like(self) if gg_weight is None
                     else ops.where(nonnegative, ops.new_zeros(self, []), ops.mul(grad_output, gg_weight)))
    if output_mask[2]:
        grad_weight = (ops.zeros_like(self) if gg_input is None
                       else ops.where(nonnegative, ops.new_zeros(weight, []), ops.mul(grad_output, gg_input)))
    return grad_grad_output, grad_self, grad_weight


def glu_double_backward_grad_output(grad, input, dim):
    """``grad`` times glu's backward of ones, its two halves added."""
    dim = dim + input.dim() if dim < 0 else dim
    half = input.shape[dim] // 2
    sizes = list(input.shape)
    sizes[dim] = half
    ones = ops.ones_like(ops.narrow(input, dim, 0, half))
    tmp = ops.mul(grad, ops.glu_backward(ones, input, dim))
    return ops.add(ops.narrow(tmp, dim, 0, half), ops.narrow(tmp, dim, half, half))


def glu_double_backward(grad, grad_output, input, dim):
    """d(glu_backward)/d(input): the sigmoid of the second half differentiated once more."""
    half = input.shape[dim] // 2
    first, second = ops.narrow(input, dim, 0, half), ops.narrow(input, dim, half, half)
    sig = ops.sigmoid(second)
    one_sub_sig = ops.sub(scalar_tensor(1), sig)
    sig_one_sub_sig = ops.mul(sig, one_sub_sig)
    gg_first, gg_second = ops.narrow(grad, dim, 0, half), ops.narrow(grad, dim, half, half)
    gi_first = ops.mul(ops.mul(gg_second, grad_output), sig_one_sub_sig)
    second_order = ops.sub(ops.mul(sig_one_sub_sig, one_sub_sig), ops.mul(sig, sig_one_sub_sig))
    gi_second = ops.add(ops.mul(ops.mul(ops.mul(gg_second, first), grad_output), second_order),
                        ops.mul(ops.mul(gg_first, grad_output), sig_one_sub_sig))
    return ops.cat([gi_first, gi_second], dim)


# ----------------------------------------------------------------------------- ops batch 8: losses


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """``-logit(self) * grad``, times ``weight``, over ``numel`` for ``mean``; in place, as PyTorch's (its
    MulBackward0 saves a clone of ``-logit(self)``)."""
    grad_target = ops.mul_(ops.neg_(ops.logit(self)), grad)
    if weight is not None:
        grad_target = ops.mul_(grad_target, weight)
    if reduction == _MEAN:
        grad_target = ops.div(grad_target, target.numel())  # PyTorch's div_: the same DivBackward1, saving numel
    return grad_target


def binary_cross_entropy_double_backward(grad_output, grad, input, target, weight, reduction):
    """d(bce's backward)/d(input): ``(x^2 - 2 x t + t) / ((x + eps)^2 (1 - x + eps)^2)`` times both gradients."""
    eps = 1e-12
    one_minus = ops.add(_number_minus(1, input), eps)
    numerator = ops.add(ops.sub(ops.mul(input, input), ops.mul(ops.mul(input, 2), target)), target)
    grad_input = ops.div(numerator, ops.mul(ops.pow(ops.add(input, eps), 2), ops.pow(one_minus, 2)))
    grad_input = ops.mul_(grad_input, ops.mul(grad, grad_output))
    if weight is not None:
        grad_input = ops.mul_(grad_input, weight)
    return ops.div(grad_input, input.numel()) if reduction == _MEAN else grad_input


def binary_cross_entropy_double_backward_grad_output(grad, input, target, weight, reduction):
    """d(bce's backward)/d(grad_output): ``(x - t) / ((x + eps) (1 - x + eps))`` times ``grad``, reduced."""
    eps = 1e-12
    ggo = ops.div(ops.sub(input, target), ops.mul(ops.add(input, eps), ops.add(_number_minus(1, input), eps)))
    ggo = ops.mul_(ggo, grad)
    if weight is not None:
        ggo = ops.mul_(ggo, weight)
    if reduction == _MEAN:
        return ops.div(ops.sum(ggo), input.numel())
    return ops.sum(ggo) if reduction == 2 else ggo


def soft_margin_loss_double_backward(grad, input, target, reduction):
    """``grad * t^2 * z / (z + 1)^2`` with ``z = exp(-x t)``, over ``numel`` for ``mean``."""
    z = ops.exp(ops.mul(input, ops.neg(target)))
    zplus1 = ops.add(z, 1)
    grad_input = ops.div(ops.mul(ops.mul(grad, ops.mul(target, target)), z), ops.mul(zplus1, zplus1))
    return ops.div(grad_input, input.numel()) if reduction == _MEAN else grad_input


def soft_margin_loss_double_backward_grad_output(grad, grad_output, input, target, reduction):
    if reduction == 0:
        return ops.soft_margin_loss_backward(grad, input, target, reduction)
    r = ops.soft_margin_loss_backward(ops.ones_like(grad_output), input, target, reduction)
    return ops.sum(ops.mul(r, grad))


def _number_minus(value, tensor):
    """C++'s ``number - tensor``: ``empty_like(tensor).fill_(number).sub_(tensor)``."""
    return ops.sub_(ops.fill_(ops.empty_like(tensor), value), tensor)
def convolution_double_backward(grads, grad_output, weight, input, stride, padding, dilation, transposed,
                                output_padding, groups, output_mask):
    """``_convolution_double_backward``: ``convolution_backward`` is linear in ``grad_output`` and in each of
    ``input`` and ``weight``, so each gradient is a convolution (or its backward) of the incoming ones."""
    gg_input, gg_weight, gg_bias = (list(grads) + [None, None])[:3]
    args = (stride, padding, dilation, transposed, output_padding, groups)
    g_output = g_input = g_weight = None
    if output_mask[0]:
        parts = []
        if gg_input is not None:
            parts.append(ops.convolution(gg_input, weight, None, *args))
        if gg_weight is not None:
            parts.append(ops.convolution(input, gg_weight, None, *args))
        if gg_bias is not None:
            parts.append(ops.expand(ops.reshape(gg_bias, (-1,) + (1,) * (input.dim() - 2)),
                                    tuple(grad_output.shape)))
        for part in parts:
            g_output = part if g_output is None else ops.add(g_output, part)
    if output_mask[1] and gg_weight is not None:
        g_input = ops.convolution_backward(grad_output, input, gg_weight, None, *args, [True, False, False])[0]
    if output_mask[2] and gg_input is not None:
        g_weight = ops.convolution_backward(grad_output, gg_input, weight, None, *args, [False, True, False])[1]
    return g_output, g_input, g_weight


def max_pool_double_backward(grad, indices, dim):
    """The gradient of a max pool's backward: ``grad`` read at the elements each window took."""
    if indices.numel() == 0:
        return ops.zeros_like(indices, dtype=grad.dtype)
    size = tuple(indices.shape[:indices.dim() - dim]) + (-1,)
    return ops.view(ops.gather(ops.view(ops.contiguous(grad), size), -1, ops.view(indices, size)),
                    tuple(indices.shape))


def batchnorm_double_backward(input, gamma, grads, grad_out, running_mean, running_var, train, eps, save_mean,
                              save_invstd, output_mask):
    """The gradients of ``native_batch_norm_backward``'s three results, given theirs (``grads``): for the input,
    the weight and the output gradient. In training the mean and ``invstd`` depend on the input, so its gradient
    has their terms too (``J = invstd * (I - 1/M - xhat xhat^T / M)`` is the Jacobian of ``xhat``)."""
    gg_input, gg_gamma, gg_beta = (list(grads) + [None, None])[:3]
    ndim = input.dim()
    dims = [0] + list(range(2, ndim))
    count = input.numel() // input.shape[1]

    def channel(t):
        return ops.reshape(t, (1, -1) + (1,) * (ndim - 2))

    def csum(t):
        return ops.sum(t, dims, True)

    def cmean(t):
        return ops.mean(t, dims, True)

    def normalized_jvp(t):  # J @ t: how xhat's pairing with t changes with the input
        return ops.mul(s, ops.sub(ops.sub(t, cmean(t)), ops.mul(xhat, cmean(ops.mul(t, xhat)))))

    if train:
        mu, s = channel(save_mean), channel(save_invstd)
    else:
        mu, s = channel(running_mean), channel(ops.rsqrt(ops.add(running_var, eps)))
    xhat = ops.mul(ops.sub(input, mu), s)
    g = grad_out
    w = channel(gamma) if gamma is not None else None
    g_input = g_gamma = g_out = None
    if output_mask[0]:
        parts = []
        if train:
            d_q = normalized_jvp(g)
            if gg_gamma is not None:
                parts.append(ops.mul(channel(gg_gamma), d_q))
            if gg_input is not None:
                k = ops.sub(csum(ops.mul(gg_input, g)), ops.mul(csum(gg_input), cmean(g)))
                p, q = csum(ops.mul(gg_input, xhat)), csum(ops.mul(g, xhat))
                through_invstd = ops.mul(ops.div(ops.mul(ops.mul(s, s), xhat), -count),
                                         ops.sub(k, ops.div(ops.mul(p, q), count)))
                through_xhat = ops.mul(ops.div(s, -count), ops.add(ops.mul(q, normalized_jvp(gg_input)),
                                                                   ops.mul(p, d_q)))
                term = ops.add(through_invstd, through_xhat)
                parts.append(term if w is None else ops.mul(w, term))
        elif gg_gamma is not None:
            parts.append(ops.mul(ops.mul(channel(gg_gamma), g), s))
        g_input = _added(parts) if parts else ops.zeros_like(input)
    if output_mask[1] and gamma is not None:
        if gg_input is None:
            g_gamma = ops.zeros_like(gamma)
        else:
            d_g = normalized_jvp(g) if train else ops.mul(s, g)
            g_gamma = ops.sum(ops.mul(gg_input, d_g), dims, False)
    if output_mask[2]:
        parts = []
        if gg_input is not None:
            scaled = normalized_jvp(gg_input) if train else ops.mul(s, gg_input)
            parts.append(scaled if w is None else ops.mul(w, scaled))
        if gg_gamma is not None:
            parts.append(ops.mul(channel(gg_gamma), xhat))
        if gg_beta is not None:
            parts.append(ops.expand(channel(gg_beta), tuple(g.shape)))
        g_out = _added(parts) if parts else ops.zeros_like(g)
    return g_input, g_gamma, g_out


def _added(parts):
    total = parts[0]
    for part in parts[1:]:
        total = ops.add(total, part)
    return total


def group_norm_backward(grads, input, mean, rstd, weight, N, C, HxW, group, eps, output_mask):
    """``native_group_norm``'s gradients: its kernel when no graph is wanted; else, with ``create_graph``, PyTorch's
    differentiable formula (``infinitely_differentiable_native_group_norm_backward``), whose ops the graph shows."""
    d_out, d_mean, d_rstd = (list(grads) + [None, None])[:3]
    if d_out is None and d_mean is None and d_rstd is None:
        return None, None, None
    if not is_grad_enabled():
        return ops.native_group_norm_backward(ops.contiguous(d_out), ops.contiguous(input), mean, rstd, weight, N,
                                              C, HxW, group, output_mask)
    return _differentiable_group_norm_backward(d_out, d_mean, d_rstd, input, mean, rstd, weight, N, C, HxW, group,
                                               eps, output_mask)


def _differentiable_group_norm_backward(d_out, d_mean, d_rstd, x, mean, rstd, gamma, N, C, HxW, group, eps,
                                        output_mask):
    """``dX = a * dY + b * X + c`` per group, where ``a = rstd * gamma`` and ``b``, ``c`` gather the sums of
    ``dY * gamma`` and ``dY * X * gamma`` over the group (their chain through the mean and ``rstd``)."""
    per_group = C // group
    s = 1.0 / (per_group * HxW)
    x4 = ops.reshape(x, (N, group, per_group, HxW))
    mean4, rstd4 = ops.reshape(mean, (N, group, 1, 1)), ops.reshape(rstd, (N, group, 1, 1))
    d_input = d_gamma = d_beta = ds = db = None
    if d_out is not None:
        dy4 = ops.reshape(d_out, (N, group, per_group, HxW))
        ds = ops.unsqueeze_(ops.sum(ops.mul(dy4, x4), [3]), -1)
        db = ops.unsqueeze_(ops.sum(dy4, [3]), -1)
    if output_mask[0]:
        gamma4 = ops.reshape(gamma, (1, group, per_group, 1)) if gamma is not None else None
        rstd_cube = ops.mul(ops.mul(rstd4, rstd4), rstd4)
        if d_out is not None:
            a = ops.mul(rstd4, gamma4) if gamma is not None else rstd4
            b = ops.unsqueeze_(ops.sum(ops.mul(ds, gamma4) if gamma is not None else ds, [2]), -2)
            c = ops.unsqueeze_(ops.sum(ops.mul(db, gamma4) if gamma is not None else db, [2]), -2)
            b = ops.mul(ops.mul(ops.sub(ops.mul(c, mean4), b), rstd_cube), s)
            c = ops.sub(ops.mul(ops.neg(b), mean4), ops.mul(ops.mul(c, rstd4), s))
            d_input = ops.add(ops.add(ops.mul(a, dy4), ops.mul(b, x4)), c)
            if d_mean is not None and d_rstd is not None:
                d_input = ops.add(d_input, _group_stats_backward(d_mean, d_rstd, rstd_cube, x4, N, group))
            d_input = ops.reshape_as(d_input, x)
        elif d_mean is not None and d_rstd is not None:
            d_input = ops.reshape_as(_group_stats_backward(d_mean, d_rstd, rstd_cube, x4, N, group), x)
    if output_mask[1] and d_out is not None:
        d_gamma = ops.reshape_as(ops.sum(ops.mul(ops.sub(ds, ops.mul(db, mean4)), rstd4), [0]), gamma)
    if output_mask[2] and d_out is not None:
        d_beta = ops.reshape_as(ops.sum(db, [0]), gamma)
    return d_input, d_gamma, d_beta


def _group_stats_backward(d_mean, d_rstd, rstd_cube, x4, N, group):
    """The gradient reaching the input through the group means and ``rstd`` themselves (``var_mean_backward``)."""
    d_var = ops.mul(ops.mul(rstd_cube, -0.5), ops.view(d_rstd, (N, group, 1, 1)))
    return var_mean_backward([d_var, ops.view(d_mean, (N, group, 1, 1))], x4, [2, 3], 0, True)
def logcumsumexp_backward(grad, self, result, dim):
    """The gradient of a running log-sum-exp: for each input, the later outputs' gradients weighted by softmax
    terms, summed as a reversed logcumsumexp of log|grad| - result, the positive and negative parts apart (the
    absent part held at the dtype's lowest value, so that its exp vanishes)."""
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    finfo = _bfloat16_finfo() if grad.dtype is st.bfloat16 else np.finfo
    xp = xp_of(grad)
    lowest = xp.asarray(float(finfo(grad.dtype._numpy).min), dtype=xp_dtype(xp, grad.dtype), device=grad._data.device)
    grad_min = wrap(grad, lowest)
    log_abs_grad = ops.log(ops.abs(grad))
    positive = ops.where(ops.gt(grad, 0), log_abs_grad, grad_min)
    negative = ops.where(ops.lt(grad, 0), log_abs_grad, grad_min)

    def reversed_logcumsumexp(x):
        return ops.flip(ops.logcumsumexp(ops.flip(x, [dim]), dim), [dim])

    output_pos = ops.exp(ops.add(reversed_logcumsumexp(ops.sub(positive, result)), self))
    output_neg = ops.exp(ops.add(reversed_logcumsumexp(ops.sub(negative, result)), self))
    return ops.sub(output_pos, output_neg)


def renorm_backward(grad, self, p, dim, maxnorm):
    """Where a slice's norm exceeded ``maxnorm`` its output was ``self * maxnorm / (norm + 1e-7)``: the product
    rule through the norm (``linalg_vector_norm_backward``); elsewhere the gradient passes unchanged."""
    ndim = self.dim()
    dim = dim + ndim if dim < 0 else dim
    reduce_dims = [d for d in range(ndim) if d != dim]
    acc = st.float32 if self.dtype in (st.float16, st.bfloat16) else self.dtype
    norm = ops.linalg_vector_norm(self, p, reduce_dims, True, dtype=acc)
    grad_output = ops.sum(ops.mul(self, grad), reduce_dims, True, dtype=acc)
    nb = linalg_vector_norm_backward(grad_output, self, p, norm, reduce_dims, True)
    invnorm = ops.reciprocal(ops.add(norm, 1e-7))
    factor = ops.mul(invnorm, maxnorm)
    return ops.where(ops.gt(norm, maxnorm), ops.sub(ops.mul(factor, grad), ops.mul(ops.mul(factor, invnorm), nb)), grad)


def linalg_det_backward(grad, det, A, LU, pivots):
    """d det(A) = det(A) tr(A^-1 dA): the gradient is ``grad * det * A^-T``. Where the determinant is exactly 0,
    torch 2.13's solve against ``det * grad * I`` returns zeros (not the cofactor matrix), and so does this."""
    if A.numel() == 0:
        return ops.zeros_like(A)
    scale = ops.unsqueeze(ops.unsqueeze(ops.mul(grad, conj(det)), -1), -1)
    singular = ops.unsqueeze(ops.unsqueeze(ops.eq(det, 0), -1), -1)
    inverse_t = ops.linalg_inv_ex(ops.transpose(A, -2, -1))[0]  # A^T factored, as torch's solve does
    return ops.where(singular, 0.0, ops.mul(scale, conj(inverse_t)))  # complex: grad * conj(det) * A^-H


def slogdet_backward(grads, A, sign, LU, pivots):
    """Only ``logabsdet`` has a gradient for a real matrix (the sign is piecewise constant): ``g * A^-T``."""
    grad_logabsdet = grads[1]
    if grad_logabsdet is None:
        return ops.zeros_like(A)
    inverse_t = ops.linalg_inv_ex(ops.transpose(A, -2, -1))[0]  # A^T factored: a singular A's infinities as torch's
    return ops.mul(ops.unsqueeze(ops.unsqueeze(grad_logabsdet, -1), -1), inverse_t)


def linalg_inv_backward(grad, inverse):
    """d(A^-1) = -A^-1 dA A^-1, so the gradient is ``-A^-H grad A^-H`` (``A^-T`` for a real ``A``)."""
    inverse_t = conj(ops.transpose(inverse, -2, -1))
    return ops.neg(ops.matmul(inverse_t, ops.matmul(grad, inverse_t)))


def _bfloat16_finfo():
    import ml_dtypes  # only when bfloat16 is in use: importing picotorch does not load ml_dtypes

    return ml_dtypes.finfo


def euclidean_dist_backward(grad, x1, x2, res, output_mask):
    """``_euclidean_dist_backward``: with ``ratio = grad / res`` (0 where the distance is 0),
    ``x1 * ratio.sum(-1) - ratio @ x2`` and ``x2 * ratio.sum(-2) - ratio^T @ x1``."""
    ratio = ops.div(grad, res)
    ops.masked_fill_(ratio, ops.eq(res, 0), 0)
    return (ops.sub(ops.mul(x1, ops.sum(ratio, [-1], True)), ops.matmul(ratio, x2)) if output_mask[0] else None,
            ops.sub(ops.mul(x2, ops.unsqueeze(ops.sum(ratio, [-2], False), -1)),
                    ops.matmul(ops.transpose(ratio, -2, -1), x1)) if output_mask[1] else None)


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, output_mask):
    """``scatter_reduce_backward``: sum passes ``grad`` on (gathered for ``src``); prod divides the result by each
    factor (the product of the others where a factor is zero); mean divides by the count reduced; amax and amin
    share the gradient evenly among the values equal to the result. Without ``include_self`` the positions
    written get no gradient in ``self``."""
    if reduce == "sum":
        grads = (grad, ops.gather(grad, dim, index))
    else:
        grads = _reduce_backward(grad, self, src, reduce, include_self, result,
                                 take=lambda t: ops.gather(t, dim, index),
                                 add_at=lambda t, values: ops.scatter_add(t, dim, index, values),
                                 reduce_again=lambda t, values: ops.scatter_reduce(
                                     t, dim, index, values, reduce, include_self=include_self))
    grad_self, grad_src = grads
    if not include_self:
        grad_self = ops.scatter(grad_self, dim, index, 0)
    return (grad_self if output_mask[0] else None, grad_src if output_mask[1] else None)


def index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result, output_mask):
    """``index_reduce_backward``: ``scatter_reduce_backward``'s rules with whole slices (``index_select`` and
    ``index_add`` in place of ``gather`` and ``scatter_add``)."""
    grad_self, grad_src = _reduce_backward(grad, self, source, reduce, include_self, result,
                                           take=lambda t: ops.index_select(t, dim, index),
                                           add_at=lambda t, values: ops.index_add(t, dim, index, values),
                                           reduce_again=lambda t, values: ops.index_reduce(
                                               t, dim, index, values, reduce, include_self=include_self))
    if not include_self:
        grad_self = ops.index_fill(grad_self, dim, index, 0)
    return (grad_self if output_mask[0] else None, grad_src if output_mask[1] else None)


def _reduce_backward(grad, self, src, reduce, include_self, result, take, add_at, reduce_again):
    """The prod, mean and amax/amin rules both backwards share: ``take`` reads ``src``'s positions out of a tensor
    shaped like ``self`` (gather / index_select), ``add_at`` adds ``src``-shaped values into one (scatter_add /
    index_add), ``reduce_again`` is the forward op."""
    if reduce == "prod":
        masked_self = ops.masked_fill(self, ops.eq(self, 0), 1)
        grad_self = ops.div(ops.mul(grad, reduce_again(masked_self, src)), masked_self)
        src_zero = ops.eq(src, 0)
        src_num_zeros = take(add_at(ops.zeros_like(self), ops._to_copy(src_zero, dtype=self.dtype)))
        src_single_zero = ops.bitwise_and(src_zero, ops.eq(src_num_zeros, 1))
        masked_src_result = reduce_again(self, ops.masked_fill(src, src_single_zero, 1))
        grad_src = ops.where(src_single_zero, take(ops.mul(grad, masked_src_result)),
                             ops.div(take(ops.mul(grad, result)), ops.masked_fill(src, src_zero, 1)))
        return grad_self, grad_src
    if reduce == "mean":
        counts = add_at(ops.ones_like(grad) if include_self else ops.zeros_like(grad), ops.ones_like(src))
        ops.masked_fill_(counts, ops.eq(counts, 0), 1)
        return ops.div(grad, counts), ops.div(take(grad), take(counts))
    value = take(result)
    self_is_result = ops._to_copy(ops.eq(self, result), dtype=self.dtype)
    src_is_result = ops._to_copy(ops.eq(src, value), dtype=self.dtype)
    shared = ops.div(grad, add_at(self_is_result, src_is_result))
    return ops.mul(self_is_result, shared), ops.mul(src_is_result, take(shared))


def linalg_matrix_exp_differential(self, grad, adjoint):
    """The Fréchet derivative of exp through a block matrix: ``exp([[A^H, G], [0, A^H]])``'s upper right block."""
    n = self.shape[-1]
    block = ops.transpose(self, -2, -1) if adjoint else self
    shape = list(self.shape[:-2]) + [2 * n, 2 * n]
    meta = ops.new_zeros(grad, shape)
    ops.copy_(ops.narrow(ops.narrow(meta, -2, 0, n), -1, 0, n), block)
    ops.copy_(ops.narrow(ops.narrow(meta, -2, n, n), -1, n, n), block)
    ops.copy_(ops.narrow(ops.narrow(meta, -2, 0, n), -1, n, n), grad)
    return ops.narrow(ops.narrow(ops.linalg_matrix_exp(meta), -2, 0, n), -1, n, n)
def as_strided_backward(grad, input_geometry, size, stride, storage_offset):
    """The gradient of ``as_strided``: zeros laid out as the storage both geometries reach, the gradient
    written where the output sat, read back through the input's geometry (averaged where input elements share
    memory). First the output's dims of size 1 are squeezed out of the gradient and its dims of stride 0 summed,
    as PyTorch does, so only a truly overlapping output needs ``index_add_``."""
    in_sizes, in_strides, in_offset = input_geometry
    out_offset = in_offset if storage_offset is None else storage_offset
    if 0 in tuple(size):
        return wrap(grad, zeros_array(grad, in_sizes))
    out_sizes, out_strides = [], []
    for i in reversed(range(len(size))):
        if size[i] == 1:
            grad = ops.squeeze(grad, i)
        elif stride[i] == 0:
            grad = ops.sum(grad, [i], False)
        else:
            out_sizes.insert(0, size[i])
            out_strides.insert(0, stride[i])
    shared = min(in_offset, out_offset)
    in_offset, out_offset = in_offset - shared, out_offset - shared
    extent = max(_min_storage_size(in_sizes, in_strides, in_offset),
                 _min_storage_size(out_sizes, out_strides, out_offset))
    storage = ops.new_zeros(grad, [extent])
    if _maybe_overlapping(out_sizes, out_strides):
        positions = ops.as_strided(_storage_positions(grad, extent), out_sizes, out_strides, out_offset)
        storage = ops.index_add_(storage, 0, ops.reshape(positions, [-1]), ops.reshape(grad, [-1]))
    else:
        ops.copy_(ops.as_strided(storage, out_sizes, out_strides, out_offset), grad)
    if _maybe_overlapping(in_sizes, in_strides):
        count = ops.zeros_like(storage)
        positions = ops.reshape(ops.as_strided(_storage_positions(grad, extent), in_sizes, in_strides, in_offset),
                                [-1])
        count = ops.index_add_(count, 0, positions, ops.ones_like(positions, dtype=storage.dtype))
        storage = ops.div(storage, count)
    return ops.as_strided(storage, in_sizes, in_strides, in_offset)


def _storage_positions(grad, extent):
    """``arange(extent)`` on ``grad``'s device: the index of each storage element."""
    xp = xp_of(grad)
    return new_tensor(xp.arange(extent, dtype=xp.int64), st.int64, grad._device)


def _min_storage_size(sizes, strides, offset):
    if 0 in tuple(sizes):
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))


def _maybe_overlapping(sizes, strides):
    """Whether two elements of the geometry may share memory (``_maybe_overlapping_memory``)."""
    reach = 0
    for stride, n in sorted((s, n) for n, s in zip(sizes, strides) if n > 1):
        if stride <= reach:
            return True
        reach += stride * (n - 1)
    return False


def block_diag_backward(grad, sizes, dtypes):  # noqa: ARG001 (PyTorch's signature)
    """Each input's block of the gradient (a zero-dim input's 1x1 block, a vector's row), in its shape."""
    grads, row, col = [], 0, 0
    for shape in sizes:
        rows, cols = ((1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else shape)
        block = ops.slice(ops.slice(grad, 0, row, row + rows, 1), 1, col, col + cols, 1)
        if len(shape) < 2:  # PyTorch squeezes the last dim away: a vector's row of one element, a number's two
            block = ops.squeeze(block, -1)
            block = ops.squeeze(block, -1) if not shape else block
        grads.append(block)  # (the engine casts it to the input's dtype)
        row, col = row + rows, col + cols
    return grads


def index_copy_source_backward(grad, dim, index, source, source_dim):
    """The gradient's rows that ``index`` picked: ``source``'s gradient (a zero-dim source takes its one row)."""
    if source_dim > 0:
        return ops.expand_as(ops.index_select(grad, dim, index), source)
    return ops.index_select(grad, dim, ops.squeeze(index, 0) if index.dim() else index)


def i1_backward(grad, self, result):
    """``i1'(x) = i0(x) - i1(x) / x``; at |x| <= the dtype's epsilon its limit 0.5 (FunctionsManual.cpp), the
    quotient formed on x moved off zero, so that ``where`` passes no NaN back."""
    if self._dtype not in (st.float32, st.float64):
        raise NotImplementedError(f"\"i1_backward\" not implemented for '{self._dtype.c10_name}'")
    eps = float(np.finfo(st.to_numpy_dtype(self._dtype)).eps)
    not_tiny = ops.gt(ops.abs(self), eps)
    safe_self = ops.where(not_tiny, self, _zero_dim(self, eps))
    derivative = ops.sub(ops.i0(safe_self), ops.mul(result, ops.reciprocal(safe_self)))
    return ops.mul(grad, ops.where(not_tiny, derivative, _zero_dim(self, 0.5)))


def _zero_dim(like, value):
    """``at::full({}, value, like.options())``."""
    return wrap(like, zeros_array(like, ()) + value)

def mkldnn_rnn_layer_backward_grads(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy_, cy_, grads,
                                    reverse, mode, hidden_size, num_layers, has_biases, train, bidirectional,
                                    batch_sizes, batch_first, workspace):
    """oneDNN's LSTM layer: the gradients of its seven inputs from those of output, ``hy`` and ``cy``; with grad
    mode on (``create_graph``), PyTorch's differentiable version, built from ops."""
    backward = _mkldnn_rnn_layer_differentiable_backward if is_grad_enabled() else ops.mkldnn_rnn_layer_backward
    return backward(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy_, cy_, grads[0], grads[1],
                    grads[2], reverse, mode, hidden_size, num_layers, has_biases, train, bidirectional, batch_sizes,
                    batch_first, workspace)


def _one_minus(t):
    return ops.sub(scalar_tensor(1), t)  # C++'s ``1 - t``: empty_like(t).fill_(1).sub_(t)


def _lstm_layer_states(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """The forward again, step by step: each step's gates (by time index) and the states before and after it."""
    seq_length = input.size(0)
    gates, states = [None] * seq_length, [(hx, cx)]
    for seq in range(1, seq_length + 1):
        x_index = seq_length - seq if reverse else seq - 1
        gate = ops.add(ops.addmm(b_ih, ops.select(input, 0, x_index), ops.t(w_ih)), ops.addmm(b_hh, hx, ops.t(w_hh)))
        chunks = ops.unsafe_chunk(gate, 4, 1)
        i, f, g, o = ops.sigmoid(chunks[0]), ops.sigmoid(chunks[1]), ops.tanh(chunks[2]), ops.sigmoid(chunks[3])
        gates[x_index] = (i, f, g, o)
        cx = ops.add(ops.mul(f, cx), ops.mul(i, g))
        hx = ops.mul(o, ops.tanh(cx))
        states.append((hx, cx))
    return gates, states


def _mkldnn_rnn_layer_differentiable_backward(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy_, cy_,
                                              grad_output, grad_hy, grad_cy, reverse, mode, hidden_size, num_layers,
                                              has_biases, train, bidirectional, batch_sizes, batch_first, workspace):
    """Backpropagation through time in ops (mkldnn/RNN.cpp's ``mkldnn_rnn_layer_differentiable_backward``)."""
    if grad_output is None and grad_hy is None and grad_cy is None:
        return (None,) * 7
    grad_output = ops.contiguous(grad_output) if grad_output is not None else ops.zeros_like(output)
    grad_hy = ops.contiguous(grad_hy) if grad_hy is not None else ops.zeros_like(hx_)
    grad_cy = ops.contiguous(grad_cy) if grad_cy is not None else ops.zeros_like(cx_)
    if has_biases:
        b_ih, b_hh = weight2, weight3
    else:
        b_ih = b_hh = ops.new_zeros(weight0, (4 * hidden_size,))
    gates, states = _lstm_layer_states(input, weight0, weight1, b_ih, b_hh, hx_, cx_, reverse)
    seq_length = input.size(0)
    layer_dx = [None] * seq_length
    for seq in range(seq_length - 1, -1, -1):
        x_index = seq_length - seq - 1 if reverse else seq
        i, f, g, o = gates[x_index]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = ops.add(ops.select(grad_output, 0, x_index), grad_hy)
        d1 = ops.add(grad_cy, ops.mul(ops.mul(new_grad_hy, o), _one_minus(ops.mul(ops.tanh(cy), ops.tanh(cy)))))
        dgp, dip, dprev_c, dfp = ops.mul(d1, i), ops.mul(d1, g), ops.mul(d1, f), ops.mul(d1, cx)
        dop = ops.mul(new_grad_hy, ops.tanh(cy))
        do_ = ops.mul(ops.mul(dop, o), _one_minus(o))
        dg = ops.mul(dgp, _one_minus(ops.mul(g, g)))
        df = ops.mul(ops.mul(dfp, f), _one_minus(f))
        di = ops.mul(ops.mul(dip, i), _one_minus(i))
        da = ops.cat([di, df, dg, do_], 1)
        db_ = ops.sum(da, [0])
        dx = ops.unsqueeze(ops.mm(da, weight0), 0)
        dprev_h = ops.mm(da, weight1)
        dwx_ = ops.mm(ops.transpose(da, 0, 1), ops.select(input, 0, x_index))
        dwh_ = ops.mm(ops.transpose(da, 0, 1), hx)
        if seq == seq_length - 1:
            db, dwx, dwh = db_, dwx_, dwh_
        else:
            db, dwx, dwh = ops.add_(db, db_), ops.add_(dwx, dwx_), ops.add_(dwh, dwh_)
        layer_dx[x_index] = dx
        grad_hy, grad_cy = dprev_h, dprev_c
    return ops.cat(layer_dx, 0), dwx, dwh, db, db, dprev_h, dprev_c
