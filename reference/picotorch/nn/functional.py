"""``torch.nn.functional``: activations, ``linear``, ``dropout``, ``layer_norm``, ``embedding``, the losses, ``pad``
and ``normalize``.

Models ``torch/nn/functional.py``, which mostly checks Python-level arguments and calls an op
(``torch.<op>`` or ``torch._C._nn.<op>``); the op decides what the graph shows. So ``F.cross_entropy`` is
``NllLossBackward0`` over ``LogSoftmaxBackward0``, ``F.l1_loss`` is ``MeanBackward0`` over
``AbsBackward0`` over ``SubBackward0`` (torch 2.13 records the ops it is made of) and ``F.dropout`` on the
CPU is ``MulBackward0`` (the input times a noise tensor). ``linear`` models ``at::linear``
(``aten/src/ATen/native/Linear.cpp``), which picks ``addmm`` for 2-D input with a bias and otherwise
``matmul`` (+ ``add_``), so ``grad_fn`` names match PyTorch's (``AddmmBackward0``, ``ViewBackward0`` ...).

Like PyTorch's, each function written here in Python first hands a call with a ``Tensor`` subclass (or tensor-like)
argument to its ``__torch_function__``, with ``func`` the function itself and the arguments laid out as PyTorch's
``handle_torch_function`` call lays them out; the aliases of ops (``gelu``, ``conv2d`` ...) dispatch as ops do.
The check first looks at the relevant arguments' types (``_PLAIN``), so plain tensors pay a set lookup each.
"""

from __future__ import annotations

import math
import warnings

from .._C import _nn
from .._C import _VariableFunctions as _VF
from .._C._torch_function import _has_torch_function_unary as has_torch_function_unary
from .._C._torch_function import _has_torch_function_variadic as has_torch_function_variadic
from .._C._torch_function import handle_torch_function
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..native.checks import broadcast_shapes
from ..native.dispatcher import ops
from ..native.linear import linear as _linear
from . import _reduction
from .parameter import Parameter as _Parameter

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
           "avg_pool1d", "avg_pool2d", "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu",
           "celu_", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "cosine_embedding_loss",
           "cosine_similarity", "cross_entropy", "dropout", "dropout2d", "elu", "elu_", "embedding",
           "gaussian_nll_loss", "gelu", "glu", "group_norm", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
           "hardtanh_", "hinge_embedding_loss", "huber_loss", "instance_norm", "kl_div", "l1_loss", "layer_norm",
           "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid", "margin_ranking_loss", "max_pool1d",
           "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "mish", "mse_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "nll_loss", "normalize", "one_hot", "pad", "pairwise_distance",
           "poisson_nll_loss", "prelu", "relu", "relu6", "relu_", "rrelu", "rrelu_", "selu", "selu_", "sigmoid", "silu",
           "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
           "tanhshrink", "threshold", "threshold_", "triplet_margin_loss",
           # ops batch 9
           "channel_shuffle", "pixel_shuffle", "pixel_unshuffle", "rms_norm"]


# ----------------------------------------------------------------------------- pixel and channel shuffles: the
# torch functions themselves (``F.pixel_shuffle is torch.pixel_shuffle``)
pixel_shuffle = _VF.pixel_shuffle
pixel_unshuffle = _VF.pixel_unshuffle
channel_shuffle = _VF.channel_shuffle

# The types that never answer a call (a Parameter opts out): a call whose relevant arguments are all of these
# skips the full check, which looks for subclasses and tensor-likes (objects with a __torch_function__).
_PLAIN = frozenset({Tensor, _Parameter, type(None)})


# ----------------------------------------------------------------------------- pooling


def _boolean_dispatch(arg_name, arg_index, default, if_true, if_false, func_name):
    """``torch._jit_internal.boolean_dispatch``: one of two functions, by a bool argument given by name or place."""
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    fn.__name__ = func_name
    return fn


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(max_pool1d_with_indices, (input,), input, kernel_size, stride=stride,
            padding=padding, dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    return _VF.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                       ceil_mode)


def _max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(max_pool1d, (input,), input, kernel_size, stride=stride, padding=padding,
            dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    return _VF.max_pool1d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


max_pool1d = _boolean_dispatch("return_indices", 6, False, max_pool1d_with_indices, _max_pool1d, "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(max_pool2d_with_indices, (input,), input, kernel_size, stride=stride,
            padding=padding, dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    return _nn.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                       ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(max_pool2d, (input,), input, kernel_size, stride=stride, padding=padding,
            dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)
    return _VF.max_pool2d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


max_pool2d = _boolean_dispatch("return_indices", 6, False, max_pool2d_with_indices, _max_pool2d, "max_pool2d")

avg_pool1d = _VF.avg_pool1d
avg_pool2d = _nn.avg_pool2d
adaptive_avg_pool1d = _VF.adaptive_avg_pool1d


def _list_with_default(out_size, defaults):
    """``torch/nn/modules/utils.py``: ``None`` in an output size keeps the input's size there."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(adaptive_avg_pool2d, (input,), input, output_size)
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool2d_with_indices(input, output_size, return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(adaptive_max_pool2d_with_indices, (input,), input, output_size,
            return_indices=return_indices)
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def _adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(adaptive_max_pool2d, (input,), input, output_size, return_indices=return_indices)
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


adaptive_max_pool2d = _boolean_dispatch("return_indices", 2, False, adaptive_max_pool2d_with_indices,
                                        _adaptive_max_pool2d, "adaptive_max_pool2d")


# ----------------------------------------------------------------------------- linear


def linear(*args, **kwargs):
    """``torch._C._nn.linear``, a binding: ``__torch_function__`` sees the call as it was made (``func`` is this
    function), then ``at::linear`` (``native/linear.py``) runs."""
    given = (*args, *kwargs.values()) if kwargs else args
    for arg in given:
        if type(arg) not in _PLAIN:  # a binding's overloaded arguments leave plain tensors out (and their type)
            overloaded = tuple(a for a in given if type(a) not in _PLAIN)
            if has_torch_function_variadic(*overloaded):
                return handle_torch_function(linear, overloaded, *args, **kwargs)
            break
    return _linear(*args, **kwargs)


# torch.nn.functional's convolutions are torch's own functions (``_add_docstr(torch.conv2d, ...)``)
conv1d = _VF.conv1d
conv2d = _VF.conv2d
conv_transpose1d = _VF.conv_transpose1d
conv_transpose2d = _VF.conv_transpose2d


# ----------------------------------------------------------------------------- activations


def relu(input, inplace: bool = False):
    """``inplace=True`` writes into ``input`` (``relu_``): its version goes up, and a leaf that requires grad
    refuses, as for any in-place op."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(relu, (input,), input, inplace=inplace)
    return _VF.relu_(input) if inplace else _VF.relu(input)


relu_ = _VF.relu_  # the op itself, as in PyTorch


gelu = _nn.gelu  # the op itself, as in PyTorch: ``approximate`` is keyword-only
one_hot = _nn.one_hot  # the op itself, as in PyTorch (group L)


def silu(input, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(silu, (input,), input, inplace=inplace)
    return _nn.silu_(input) if inplace else _nn.silu(input)


softplus = _nn.softplus  # the op itself, as in PyTorch


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(leaky_relu, (input,), input, negative_slope=negative_slope, inplace=inplace)
    return _nn.leaky_relu_(input, negative_slope) if inplace else _nn.leaky_relu(input, negative_slope)


leaky_relu_ = _nn.leaky_relu_


def elu(input, alpha: float = 1.0, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(elu, (input,), input, alpha=alpha, inplace=inplace)
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


elu_ = _nn.elu_


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(hardtanh, (input,), input, min_val=min_val, max_val=max_val, inplace=inplace)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


hardtanh_ = _nn.hardtanh_


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(log_softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def _threshold(input, threshold, value, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(_threshold, (input,), input, threshold, value, inplace=inplace)
    return _VF.threshold_(input, threshold, value) if inplace else _VF.threshold(input, threshold, value)


threshold = _threshold  # torch's function is named _threshold
threshold_ = _VF.threshold_


def relu6(input, inplace: bool = False):
    """``hardtanh(input, 0, 6)``: ``HardtanhBackward0``."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(relu6, (input,), input, inplace=inplace)
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def hardsigmoid(input, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(hardsigmoid, (input,), input, inplace=inplace)
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def hardswish(input, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(hardswish, (input,), input, inplace=inplace)
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


hardshrink = _VF.hardshrink  # the ops themselves, as in PyTorch
softshrink = _nn.softshrink
logsigmoid = _nn.log_sigmoid


def tanhshrink(input):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(tanhshrink, (input,), input)
    return input - input.tanh()


def softsign(input):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(softsign, (input,), input)
    return input / (input.abs() + 1)


def mish(input, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(mish, (input,), input, inplace=inplace)
    return _nn.mish_(input) if inplace else _nn.mish(input)


def selu(input, inplace: bool = False):
    """``elu`` with SELU's alpha and scale: ``EluBackward0``."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(selu, (input,), input, inplace=inplace)
    return _VF.selu_(input) if inplace else _VF.selu(input)


selu_ = _VF.selu_


def celu(input, alpha: float = 1.0, inplace: bool = False):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(celu, (input,), input, alpha=alpha, inplace=inplace)
    return _VF.celu_(input, alpha) if inplace else _VF.celu(input, alpha)


celu_ = _VF.celu_


def glu(input, dim: int = -1):
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(glu, (input,), input, dim=dim)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nn.glu(input, dim)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``softmax`` of ``-input``: ``SoftmaxBackward0`` over ``NegBackward0``."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(softmin, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


prelu = _VF.prelu


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """Eval: ``leaky_relu`` with the mean slope; training: a slope drawn per negative element (the generator's
    bits, as PyTorch draws them)."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(rrelu, (input,), input, lower=lower, upper=upper, training=training,
            inplace=inplace)
    return _VF.rrelu_(input, lower, upper, training) if inplace else _VF.rrelu(input, lower, upper, training)


rrelu_ = _VF.rrelu_


# ----------------------------------------------------------------------------- dropout, normalisation, lookup


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Whole channels zeroed (``torch.feature_dropout``): one draw per sample and channel."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(dropout2d, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if inp_dim == 3:  # taken as (N, C, L), as torch still does
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _VF.feature_dropout_(input, p, training) if inplace else _VF.feature_dropout(input, p, training)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; the identity (the same
    tensor) when not ``training``."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(dropout, (input,), input, p=p, training=training, inplace=inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _VF.dropout_(input, p, training) if inplace else _VF.dropout(input, p, training)


def _verify_batch_size(size) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05):
    """Per channel (dim 1): ``torch.batch_norm``, whose node is ``NativeBatchNormBackward0``."""
    if (type(input) not in _PLAIN or type(running_mean) not in _PLAIN or type(running_var) not in _PLAIN
            or type(weight) not in _PLAIN or type(bias) not in _PLAIN):
        if has_torch_function_variadic(input, running_mean, running_var, weight, bias):
            return handle_torch_function(batch_norm, (input, running_mean, running_var, weight, bias), input,
                running_mean, running_var, weight=weight, bias=bias, training=training, momentum=momentum, eps=eps)
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _VF.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def _verify_spatial_size(size) -> None:
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05):
    """Each sample's channels normalised on their own: ``torch.instance_norm``, a batch norm of the input viewed
    as ``(1, N * C, ...)``."""
    if (type(input) not in _PLAIN or type(running_mean) not in _PLAIN or type(running_var) not in _PLAIN
            or type(weight) not in _PLAIN or type(bias) not in _PLAIN):
        if has_torch_function_variadic(input, running_mean, running_var, weight, bias):
            return handle_torch_function(instance_norm, (input, running_mean, running_var, weight, bias), input,
                running_mean=running_mean, running_var=running_var, weight=weight, bias=bias,
                use_input_stats=use_input_stats, momentum=momentum, eps=eps)
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _VF.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, True)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05):
    """Each sample's channels in ``num_groups`` groups, each group normalised on its own (``torch.group_norm``)."""
    if (type(input) not in _PLAIN or type(weight) not in _PLAIN or type(bias) not in _PLAIN):
        if has_torch_function_variadic(input, weight, bias):
            return handle_torch_function(group_norm, (input, weight, bias), input, num_groups, weight=weight,
                bias=bias, eps=eps)
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _VF.group_norm(input, num_groups, weight, bias, eps, True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-05):
    if (type(input) not in _PLAIN or type(weight) not in _PLAIN or type(bias) not in _PLAIN):
        if has_torch_function_variadic(input, weight, bias):
            return handle_torch_function(layer_norm, (input, weight, bias), input, normalized_shape, weight=weight,
                bias=bias, eps=eps)
    return _VF.layer_norm(input, normalized_shape, weight, bias, eps, True)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: eps ``None`` is the epsilon of the input's opmath type."""
    return _VF.rms_norm(input, normalized_shape, weight, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """Rows of ``weight`` picked by the integer ``input``; ``padding_idx``'s row gets no gradient; with ``max_norm``
    the rows looked up are first rescaled in place to that norm at most."""
    if (type(input) not in _PLAIN or type(weight) not in _PLAIN) and has_torch_function_variadic(input, weight):
        return handle_torch_function(embedding, (input, weight), input, weight, padding_idx=padding_idx,
            max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():  # the rows are rescaled in place, outside the graph
            _VF.embedding_renorm_(weight, input, max_norm, norm_type)
    return _VF.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# ----------------------------------------------------------------------------- losses


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_string(size_average, reduce)
    return reduction


def _broadcast_tensors(input, target):
    """``torch.broadcast_tensors`` of two: a tensor already of the common shape is returned as it is."""
    shape = broadcast_shapes(tuple(input.shape), tuple(target.shape))
    return tuple(t if tuple(t.shape) == shape else ops.expand(t, shape) for t in (input, target))


def _warn_size_mismatch(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(mse_loss, (input, target, weight), input, target, size_average=size_average,
                reduce=reduce, reduction=reduction, weight=weight)
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.mse_loss(expanded_input, expanded_target, _reduction.get_enum(reduction))
    return _weighted(ops.pow(ops.sub(expanded_input, expanded_target), 2), input, weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(l1_loss, (input, target, weight), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction)
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.l1_loss(expanded_input, expanded_target, _reduction.get_enum(reduction))
    return _weighted(ops.abs(ops.sub(expanded_input, expanded_target)), input, weight, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
    """``SmoothL1LossBackward0``; with ``beta == 0`` the loss is the L1 loss, and torch calls ``l1_loss`` there."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(smooth_l1_loss, (input, target), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction, beta=beta)
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn.l1_loss(expanded_input, expanded_target, _reduction.get_enum(reduction))
    return _nn.smooth_l1_loss(expanded_input, expanded_target, _reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """``HuberLossBackward0``; with ``weight`` the unreduced loss times the weights, then reduced (a plain mean)."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(huber_loss, (input, target, weight), input, target, reduction=reduction,
                delta=delta, weight=weight)
    _warn_size_mismatch(input, target)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.huber_loss(expanded_input, expanded_target, _reduction.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = ops.mul(_nn.huber_loss(expanded_input, expanded_target, _reduction.get_enum("none"), delta), weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return ops.sum(weighted)
    if reduction == "mean":
        return ops.mean(weighted)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _weighted(errors, input, weight, reduction: str):
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = ops.mul(errors, weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return ops.sum(weighted)
    if reduction == "mean":
        return ops.div(ops.sum(weighted), ops.sum(weight))
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(nll_loss, (input, target, weight), input, target, weight=weight,
                size_average=size_average, ignore_index=ignore_index, reduce=reduce, reduction=reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.nll_loss_nd(input, target, weight, _reduction.get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; a target shaped like ``input`` holds
    class probabilities. ``label_smoothing`` mixes the target with the uniform distribution."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(cross_entropy, (input, target, weight), input, target, weight=weight,
                size_average=size_average, ignore_index=ignore_index, reduce=reduce, reduction=reduction,
                label_smoothing=label_smoothing)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.cross_entropy_loss(input, target, weight, _reduction.get_enum(reduction), ignore_index,
                                  label_smoothing)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN or type(pos_weight) not
        in _PLAIN):
        if has_torch_function_variadic(input, target, weight, pos_weight):
            return handle_torch_function(binary_cross_entropy_with_logits, (input, target, weight, pos_weight), input,
                target, weight=weight, size_average=size_average, reduce=reduce, reduction=reduction,
                pos_weight=pos_weight)
    if size_average is not None or reduce is not None:
        reduction_enum = _reduction.legacy_get_enum(size_average, reduce)
    else:
        reduction_enum = _reduction.get_enum(reduction)
    if not target.size() == input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _VF.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def _reduction_enum(size_average, reduce, reduction: str) -> int:
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_enum(size_average, reduce)
    return _reduction.get_enum(reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    """``BinaryCrossEntropyBackward0``: ``input`` holds probabilities; ``weight`` is broadcast to ``target``."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(binary_cross_entropy, (input, target, weight), input, target, weight=weight,
                size_average=size_average, reduce=reduce, reduction=reduction)
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(broadcast_shapes(tuple(target.size()), tuple(weight.size())))
    return _nn.binary_cross_entropy(input, target, weight, reduction_enum)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
    """``target * (log(target) - input)`` (``input`` holds log-probabilities), made of ops; ``'batchmean'`` sums and
    divides by the batch size, and ``'mean'`` (over every element) warns that it will change."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(kl_div, (input, target), input, target, size_average=size_average, reduce=reduce,
            reduction=reduction, log_target=log_target)
    if size_average is not None or reduce is not None:
        reduction_enum = _reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        reduction_enum = _reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _VF.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    if (type(input1) not in _PLAIN or type(input2) not in _PLAIN or type(target) not in _PLAIN):
        if has_torch_function_variadic(input1, input2, target):
            return handle_torch_function(margin_ranking_loss, (input1, input2, target), input1, input2, target,
                margin=margin, size_average=size_average, reduce=reduce, reduction=reduction)
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _VF.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(hinge_embedding_loss, (input, target), input, target, margin=margin,
            size_average=size_average, reduce=reduce, reduction=reduction)
    return _VF.hinge_embedding_loss(input, target, margin, _reduction_enum(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(soft_margin_loss, (input, target), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction)
    return _nn.soft_margin_loss(input, target, _reduction_enum(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    if (type(input1) not in _PLAIN or type(input2) not in _PLAIN or type(target) not in _PLAIN):
        if has_torch_function_variadic(input1, input2, target):
            return handle_torch_function(cosine_embedding_loss, (input1, input2, target), input1, input2, target,
                margin=margin, size_average=size_average, reduce=reduce, reduction=reduction)
    return _VF.cosine_embedding_loss(input1, input2, target, margin,
                                     _reduction_enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    if (type(anchor) not in _PLAIN or type(positive) not in _PLAIN or type(negative) not in _PLAIN):
        if has_torch_function_variadic(anchor, positive, negative):
            return handle_torch_function(triplet_margin_loss, (anchor, positive, negative), anchor, positive, negative,
                margin=margin, p=p, eps=eps, swap=swap, size_average=size_average, reduce=reduce, reduction=reduction)
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _VF.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    if (type(input) not in _PLAIN or type(target) not in _PLAIN) and has_torch_function_variadic(input, target):
        return handle_torch_function(poisson_nll_loss, (input, target), input, target, log_input=log_input, full=full,
            size_average=size_average, eps=eps, reduce=reduce, reduction=reduction)
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _VF.poisson_nll_loss(input, target, log_input, full, eps, _reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
    """``0.5 * (log(var) + (input - target)**2 / var)`` with ``var`` clamped to ``eps`` (outside the graph); a ``var``
    one dim short of ``input``, or differing in one size-1 dim, is broadcast."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(var) not in _PLAIN):
        if has_torch_function_variadic(input, target, var):
            return handle_torch_function(gaussian_nll_loss, (input, target, var), input, target, var, full=full,
                eps=eps, reduction=reduction)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _VF.ones_like(input)
    elif _VF.any(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = _VF.unsqueeze(var, -1)
        elif not (input.ndim == var.ndim
                  and sum(y for x, y in zip(input.size(), var.size(), strict=True) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_VF.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """The mean over classes of ``-(t * logsigmoid(x) + (1 - t) * logsigmoid(-x))`` (times ``weight``), reduced."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(multilabel_soft_margin_loss, (input, target, weight), input, target,
                weight=weight, size_average=size_average, reduce=reduce, reduction=reduction)
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
                      reduction: str = "mean"):
    """``MultiMarginLossBackward0``: the multi-class hinge loss of each sample against its target class."""
    if (type(input) not in _PLAIN or type(target) not in _PLAIN or type(weight) not in _PLAIN):
        if has_torch_function_variadic(input, target, weight):
            return handle_torch_function(multi_margin_loss, (input, target, weight), input, target, p=p, margin=margin,
                weight=weight, size_average=size_average, reduce=reduce, reduction=reduction)
    reduction_enum = _reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


cosine_similarity = _VF.cosine_similarity  # the ops themselves, as in PyTorch
pairwise_distance = _VF.pairwise_distance


# ----------------------------------------------------------------------------- padding, normalize


def pad(input, pad, mode: str = "constant", value=None):
    """``torch._C._nn.pad``: mode 'constant' is ``constant_pad_nd`` (``ConstantPadNdBackward0``); picotorch has no
    other mode."""
    if type(input) not in _PLAIN and has_torch_function_unary(input):
        return handle_torch_function(globals()["pad"], (input,), input, pad, mode=mode, value=value)
    return _nn.pad(input, pad, mode, value)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``input`` divided by its ``p``-norm over ``dim`` (at least ``eps``): ``DivBackward0`` over ``ExpandBackward0``
    over ``ClampMinBackward0`` over ``LinalgVectorNormBackward0``."""
    if (type(input) not in _PLAIN or type(out) not in _PLAIN) and has_torch_function_variadic(input, out):
        return handle_torch_function(normalize, (input, out), input, p=p, dim=dim, eps=eps, out=out)
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _VF.div(input, denom, out=out)
