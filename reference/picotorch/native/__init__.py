"""Kernels and the dispatcher: the bottom of picotorch's stack.

Models ``aten/src/ATen/native/`` (the kernels, one per op and device type) and
``aten/src/ATen/core/dispatch/Dispatcher.h`` (the table that picks a kernel for a call). Kernels take
and return tensors without autograd: they read ``tensor._data`` (an Array-API array) and build new
tensors with :func:`tensor_impl.new_tensor`.

The files are ATen's, one module per ``.cpp``:

- ``binary_ops.py`` (``BinaryOps.cpp``), ``unary_ops.py`` (``UnaryOps.cpp``), ``activation.py``
  (``Activation.cpp``), ``soft_max.py`` (``SoftMax.cpp``), ``layer_norm_kernel.py`` (``layer_norm.cpp``),
  ``fused_dropout.py`` (``Dropout.cpp``: ``native_dropout``), ``loss.py`` (``Loss.cpp``),
  ``loss_nll.py`` (``LossNLL.cpp``, ``LossNLL2d.cpp``), ``reduce_ops.py`` (``ReduceOps.cpp``),
  ``reduce_all_ops.py`` (``ReduceAllOps.cpp``: ``max()``, ``min()``), ``linear_algebra.py``
  (``LinearAlgebra.cpp``), ``tensor_shape.py`` (``TensorShape.cpp``), ``indexing.py``
  (``TensorAdvancedIndexing.cpp``), ``tensor_factories.py`` (``TensorFactories.cpp``), ``triangular_ops.py``
  (``TriangularOps.cpp``: ``tril``, ``triu``), ``pad_nd.py`` (``PadNd.cpp``: ``constant_pad_nd``), ``scatter_gather.py``
  (``gather``, ``scatter``, ``index_select``, ``index_add`` of ``TensorAdvancedIndexing.cpp``), ``embedding.py``
  (``Embedding.cpp``);
- ``tensor_compare.py`` (``TensorCompare.cpp``: ``clamp``), ``copy.py`` (``Copy.cpp``),
  ``distributions.py`` (``Distributions.cpp``: ``normal_``, ``uniform_``);
- ``composite.py``: the ``CompositeImplicitAutograd`` kernels, built from other ops;
- ``cuda/``: CUDA's lazy initialisation and the kernels that launch hand-written CUDA C;
- ``helpers.py``: what the kernel files share (and the only kernel-side names the layers above use);
- ``checks.py``, ``layout.py``, ``device.py``, ``tensor_impl.py``, ``dispatcher.py``: argument
  checks, output layout, backends, the tensor's fields, the operator table.

This package's namespace is ATen's flat ``at::native``: every kernel that a ``dispatch:`` entry of
``native_functions.yaml`` names is importable from here, and the generated code refers to it as
``native.<name>``, whichever file defines it.
"""

from .activation import (
    elu,
    elu_,
    elu_backward,
    gelu,
    gelu_backward,
    hardtanh,
    hardtanh_,
    hardtanh_backward,
    leaky_relu,
    leaky_relu_,
    leaky_relu_backward,
    relu,
    relu_,
    silu,
    silu_,
    silu_backward,
    softplus,
    softplus_backward,
    threshold_backward,
)
from .binary_ops import (
    add,
    add_,
    atan2,
    atan2_,
    bitwise_and,
    bitwise_and_,
    bitwise_or,
    bitwise_or_,
    div,
    div_,
    div_mode,
    div_mode_,
    eq,
    floor_divide,
    floor_divide_,
    fmod,
    ge,
    gt,
    le,
    logical_and,
    logical_and_,
    logical_or,
    logical_or_,
    logical_xor,
    logical_xor_,
    lt,
    maximum,
    minimum,
    mul,
    mul_,
    ne,
    pow,
    pow_,
    pow_scalar_base,
    remainder,
    remainder_,
    remainder_scalar_tensor,
    rsub,
    sigmoid_backward,
    sub,
    sub_,
    tanh_backward,
    where,
)
from .composite import (
    arctan2,
    arctan2_,
    argwhere,
    chunk,
    contiguous,
    count_nonzero_dim,
    cross_entropy_loss,
    dropout,
    dropout_,
    embedding_backward,
    expand_as,
    flatten,
    index_select_backward,
    l1_loss,
    layer_norm,
    log_softmax,
    matmul,
    max_other,
    min_other,
    movedim,
    movedim_int,
    nanmean,
    narrow,
    narrow_tensor,
    nll_loss,
    nll_loss2d,
    nll_loss_nd,
    nonzero_numpy,
    outer,
    pad,
    reshape,
    reshape_as,
    softmax,
    split_sizes,
    square,
    square_,
    std_dim,
    std_mean_dim,
    std_mean_unbiased,
    std_unbiased,
    swapaxes,
    tile,
    unflatten,
    var_dim,
    var_mean_dim,
    var_mean_unbiased,
    var_unbiased,
    view_as,
    where_scalar_other,
    where_scalar_self,
    where_scalars,
)
from .copy import copy_
from .cuda.elementwise import add_cuda, mul_cuda, relu_cuda, threshold_backward_cuda
from .distributions import bernoulli, bernoulli_, normal_, uniform_
from .embedding import embedding, embedding_dense_backward, embedding_renorm_
from .fused_dropout import native_dropout, native_dropout_backward
from .helpers import strides_of
from .indexing import _index_put_impl_, index, masked_fill, masked_fill_, nonzero
from .layer_norm_kernel import native_layer_norm, native_layer_norm_backward
from .linear_algebra import addmm, baddbmm, baddbmm_, bmm, dot, linalg_vector_norm, mm, mv
from .loss import (
    binary_cross_entropy_with_logits,
    binary_cross_entropy_with_logits_backward,
    mse_loss,
    mse_loss_backward,
)
from .loss_nll import nll_loss2d_backward, nll_loss2d_forward, nll_loss_backward, nll_loss_forward
from .onehot import one_hot
from .pad_nd import constant_pad_nd
from .pointwise_ops import addcdiv, addcdiv_, addcmul, addcmul_, lerp_
from .reduce_all_ops import max, min
from .reduce_ops import (
    all,
    all_dim,
    all_dims,
    amax,
    amin,
    any,
    any_dim,
    any_dims,
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumprod_,
    cumsum,
    cumsum_,
    equal,
    logsumexp,
    mean,
    mean_dim,
    nansum,
    prod,
    prod_dim,
    std,
    std_mean,
    sum,
    sum_dim,
    trace,
    var,
    var_mean,
)
from .resize import resize_output, write_out
from .scatter_gather import (
    gather,
    index_add,
    index_add_,
    index_fill,
    index_fill_,
    index_select,
    scatter,
    scatter_,
    scatter_add,
    scatter_add_,
)
from .soft_max import _log_softmax, _log_softmax_backward_data, _softmax, _softmax_backward_data
from .sorting import argsort, argsort_stable, sort, sort_stable, topk
from .tensor_compare import (
    allclose,
    clamp,
    clamp_,
    clamp_max,
    clamp_max_,
    clamp_min,
    clamp_min_,
    clamp_tensor,
    clamp_tensor_,
    isclose,
    isfinite,
    isinf,
    isnan,
    max_dim,
    min_dim,
)
from .tensor_factories import (
    _to_copy,
    clone,
    empty_like,
    eye,
    eye_m,
    fill,
    fill_,
    full_like,
    new_empty,
    new_full,
    new_ones,
    new_zeros,
    ones_like,
    zero_,
    zeros_like,
)
from .tensor_shape import (
    _reshape_alias,
    _unsafe_view,
    alias,
    cat,
    expand,
    flip,
    permute,
    repeat,
    roll,
    select,
    select_backward,
    slice,
    slice_backward,
    split,
    split_with_sizes,
    squeeze,
    squeeze_,
    squeeze_dim,
    squeeze_dim_,
    squeeze_dims,
    squeeze_dims_,
    stack,
    t,
    transpose,
    unbind,
    unsqueeze,
    view,
)
from .triangular_ops import tril, tril_, triu, triu_
from .unary_ops import (
    abs,
    abs_,
    ceil,
    ceil_,
    cos,
    cos_,
    erf,
    erf_,
    exp,
    exp2,
    exp2_,
    exp_,
    expm1,
    expm1_,
    floor,
    floor_,
    frac,
    frac_,
    log,
    log1p,
    log1p_,
    log2,
    log2_,
    log10,
    log10_,
    log_,
    logical_not,
    logical_not_,
    logit,
    logit_,
    nan_to_num,
    neg,
    neg_,
    reciprocal,
    reciprocal_,
    round,
    round_,
    rsqrt,
    rsqrt_,
    sigmoid,
    sigmoid_,
    sign,
    sign_,
    sin,
    sin_,
    sqrt,
    sqrt_,
    tanh,
    tanh_,
    trunc,
    trunc_,
)

__all__ = [
    "resize_output", "write_out",  # out= (Resize.cpp)
    "strides_of",  # what an autograd kernel saves of an input (``strides_or_error``)
    "_index_put_impl_", "_to_copy", "_unsafe_view", "add", "add_", "add_cuda", "addmm", "alias", "bmm", "cat", "clone",
    "flatten",
    "div", "dot", "eq", "exp", "expand", "expand_as", "ge", "gt", "index", "le", "log", "lt", "matmul", "mean",
    "mean_dim", "view_as", "mm", "mul", "mul_", "mul_cuda", "mv", "ne", "neg", "ones_like", "permute", "pow",
    "pow_scalar_base", "reciprocal", "relu", "relu_cuda", "reshape", "rsub", "select", "select_backward",
    "sigmoid", "sigmoid_backward", "slice", "slice_backward", "squeeze", "squeeze_", "squeeze_dim",
    "squeeze_dim_", "squeeze_dims", "squeeze_dims_", "stack", "sub", "sum", "sum_dim", "t", "tanh",
    "tanh_backward", "threshold_backward", "threshold_backward_cuda", "transpose", "unsqueeze", "view", "where",
    "zero_", "zeros_like",
    "abs", "bitwise_and", "bitwise_and_", "bitwise_or", "bitwise_or_", "clamp", "clamp_", "clamp_max", "clamp_max_",
    "clamp_min", "clamp_min_", "clamp_tensor", "clamp_tensor_", "copy_", "cos", "div_", "exp2", "expm1", "fill",
    "fill_", "floor_divide", "floor_divide_", "log1p", "log2", "log10", "maximum", "minimum", "normal_", "pow_",
    "remainder", "remainder_", "remainder_scalar_tensor", "div_mode", "div_mode_", "rsqrt", "sign", "sin", "sub_",
    "uniform_", "fmod", "floor", "ceil", "trunc", "round", "frac", "nan_to_num",
    "where_scalar_other", "where_scalar_self", "where_scalars", "addcdiv_", "addcmul_", "lerp_", "sqrt",
    # torch.nn (group D)
    "_log_softmax", "_log_softmax_backward_data", "_softmax", "_softmax_backward_data", "bernoulli", "bernoulli_",
    "binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits_backward", "cross_entropy_loss", "dropout",
    "dropout_", "gelu", "gelu_backward", "l1_loss", "layer_norm", "log_softmax", "masked_fill", "masked_fill_",
    "mse_loss", "mse_loss_backward", "native_dropout", "native_dropout_backward", "native_layer_norm",
    "native_layer_norm_backward", "nll_loss", "nll_loss2d", "nll_loss2d_backward", "nll_loss2d_forward",
    "nll_loss_backward", "nll_loss_forward", "nll_loss_nd", "relu_", "silu", "silu_", "silu_backward", "softmax",
    # reductions (group G)
    "amax", "amin", "argmax", "argmin", "linalg_vector_norm", "logsumexp", "max", "max_dim", "max_other", "min",
    "min_dim", "min_other", "std", "std_dim", "std_unbiased", "var", "var_dim", "var_unbiased",
    # indexing (group I)
    "baddbmm", "baddbmm_", "embedding", "embedding_backward", "embedding_dense_backward", "gather", "index_add",
    "index_add_", "index_select", "index_select_backward", "scatter", "scatter_", "scatter_add", "scatter_add_",
    "_reshape_alias", "embedding_renorm_",
    # shape ops (group H)
    "chunk", "contiguous", "flip", "narrow", "narrow_tensor", "repeat", "roll", "split", "split_sizes",
    "split_with_sizes", "tile", "unbind", "unflatten",
    # more ops (group L)
    "allclose", "argsort", "argsort_stable", "isclose", "isfinite", "isinf", "isnan", "one_hot", "sort",
    "sort_stable", "topk",
    # added names (equal, all/any, ...)
    "all", "all_dim", "all_dims", "any", "any_dim", "any_dims", "equal", "empty_like", "full_like", "eye", "eye_m",
    "new_empty", "new_full", "new_ones", "new_zeros",
    # the unary ops in place
    "abs_", "ceil_", "cos_", "exp2_", "exp_", "expm1_", "floor_", "frac_", "log1p_", "log2_", "log10_", "log_", "neg_",
    "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sign_", "sin_", "sqrt_", "tanh_", "trunc_",
    # ops batch (square ... pad)
    "constant_pad_nd", "cumsum", "cumsum_", "elu", "elu_", "elu_backward", "erf", "erf_", "hardtanh", "hardtanh_",
    "hardtanh_backward", "leaky_relu", "leaky_relu_", "leaky_relu_backward", "movedim", "movedim_int", "outer", "pad",
    "prod", "prod_dim", "softplus", "softplus_backward", "square", "square_", "swapaxes", "tril", "tril_", "triu",
    "triu_",
    # ops batch 2
    "arctan2", "arctan2_", "atan2", "atan2_", "cumprod", "cumprod_", "index_fill", "index_fill_", "logit", "logit_",
    "trace",
    # ops batch 6
    "addcdiv", "addcmul", "argwhere", "count_nonzero", "count_nonzero_dim", "logical_and", "logical_and_",
    "logical_not", "logical_not_", "logical_or", "logical_or_", "logical_xor", "logical_xor_", "nanmean", "nansum",
    "nonzero", "nonzero_numpy", "reshape_as", "std_mean", "std_mean_dim", "std_mean_unbiased", "var_mean",
    "var_mean_dim", "var_mean_unbiased",
]
