"""``softmax`` and ``log_softmax`` along one dim, and their gradients.

Models ``aten/src/ATen/native/SoftMax.cpp`` (``softmax_cpu_out``, ``log_softmax_cpu_out`` and the
``*_backward_cpu_out`` kernels). Both subtract the maximum along ``dim`` before ``exp``, so a large input
does not overflow; ``log_softmax`` is ``x - max - log(sum(exp(x - max)))``, never ``log(softmax(x))``,
which would lose the small probabilities to rounding. NOTE [Matching PyTorch's float32 softmax] below says
how close float32 values come to PyTorch's. The public
``softmax(x, dim, dtype=...)`` is composite (``composite.py``): a cast, then ``_softmax``.
"""

from __future__ import annotations

import math

import numpy as np

from ..c10 import scalar_type as st
from . import checks
from .helpers import convert, in_float32, is_reduced_float, np_xp, rounded_to, xp_dtype, xp_of
from .tensor_impl import new_tensor


def _softmax(self, dim, half_to_float):
    """``exp(x - max) * (1 / sum)``: PyTorch's steps (a reciprocal, then a multiply), in ``x``'s dtype."""
    xp, a, dim = _start(self, dim, half_to_float, "softmax")
    shifted = a - xp.max(a, axis=dim, keepdims=True) if a.size else a
    exps = _exp_rounded(xp, shifted)
    if dim != a.ndim - 1:
        return _finish(self, xp, _divided_by_sums(xp, exps, dim, self._dtype))
    total = _sum_rounded(xp, exps, dim)
    return _finish(self, xp, exps * (1 / total))


# NOTE [softmax along a dim that is not the last]
# PyTorch's ``_vec_softmax`` walks the dim for each inner position: it adds the exps one after another in the
# computing dtype (float32 for float16 / bfloat16) and divides each exp by that sum (no reciprocal, unlike the
# last-dim kernel). For float16 / bfloat16 its scalar loop stores each exp in the tensor's dtype before it
# divides the stored value by the float sum of the unrounded exps (two roundings); its vector loop, which takes
# 32 inner positions at a time on AVX512 (how many depends on the machine and the threads), keeps the exps in
# float32. Inner sizes below 32 always take the scalar loop, so they get the two roundings here; larger ones
# the vector loop's one (measured against torch 2.13 on float16 / bfloat16: every value of sizes 3..48).
_VECTOR_LANES = 32


def _divided_by_sums(xp, exps, dim, dtype):
    total = xp.sum(exps, axis=dim, keepdims=True)  # along a leading axis NumPy adds in order, as PyTorch does
    inner = math.prod(exps.shape[dim + 1:])
    if is_reduced_float(dtype) and inner < _VECTOR_LANES:
        return rounded_to(xp, exps, dtype) / total
    return exps / total


def _log_softmax(self, dim, half_to_float):
    """``(x - max) - log(sum(exp(x - max)))``, in ``x``'s dtype."""
    xp, a, dim = _start(self, dim, half_to_float, "log_softmax")
    if xp is np_xp and a.dtype == np.float32 and a.size > _EXACT_EXP_LIMIT:
        return _finish(self, xp, _in_row_blocks(_log_softmax_float32, a, dim))
    shifted = a - xp.max(a, axis=dim, keepdims=True) if a.size else a
    exps = _exp_rounded(xp, shifted)
    # along another dim than the last PyTorch adds the exps in order, in the computing dtype (as NumPy does)
    total = _sum_rounded(xp, exps, dim) if dim == a.ndim - 1 else xp.sum(exps, axis=dim, keepdims=True)
    if is_reduced_float(self._dtype) and dim == a.ndim - 1:
        # PyTorch's last-dim kernel for float16 / bfloat16 keeps the sum and its log in the input's dtype
        # (measured: 100% of 64,000 values agree this way, 95% when they stay float32)
        log_total = rounded_to(xp, xp.log(rounded_to(xp, total, self._dtype)), self._dtype)
        return _finish(self, xp, shifted - log_total)
    # the log of the sum rounded once from float64: NumPy's float32 log is a unit off on a quarter of the
    # values, PyTorch's on few (measured on small float32 rows: 98% exact this way, 78% with NumPy's)
    return _finish(self, xp, shifted - _rounded_once(xp, xp.log, total))


# NOTE [Matching PyTorch's float32 softmax]
# PyTorch's CPU kernel works in the input's dtype with vectorised exp and sums (their lane order is the
# machine's). Measured on 2 * 10^5 float32 values against torch 2.13 (x = 3 * normal, rows of 100): NumPy in
# float32 agrees exactly on 31% (softmax) / 88% (log_softmax); everything in float64, rounded once, on
# 20% / 75%; each exp and the sum computed in float64 and rounded to float32, then PyTorch's own float32
# steps (a reciprocal times each exp; ``x - max - log(sum)``), on 60% / 92% — what the kernels here do. The
# rest differ by a unit or two in the last place. A row shorter than 16 is summed in order, in float32, as
# ``vec::reduce_all`` adds it (``_sum_rounded``): softmax then agrees on 93% of rows of 3 to 7 (75% before),
# log_softmax on 99%.
# Speed: a float64 exp costs six times NumPy's float32 one, and a float64 sum of float32 values four times a
# float32 sum (a 4096x1000 batch: 13 ms and 2.6 ms against 2 and 0.7, when NumPy's whole cross entropy,
# forward and backward, takes 10). So above ``_EXACT_EXP_LIMIT`` elements (a batch nobody prints whole)
# ``log_softmax`` and its backward are NumPy's float32 steps, written in place in one buffer: on 4096 rows
# of 1000 (x = 3 * normal, ``cross_entropy``) the forward is exactly PyTorch's on 91% of the values instead
# of 92.5% (99.97% within a unit in the last place); the backward's ``exp(y)`` is each gradient's own
# value, so the gradient is exact on 55% instead of 91% (90% within a unit, a few cancelling entries
# further). Below the limit nothing changes.


_EXACT_EXP_LIMIT = 1 << 18


def _exp_rounded(xp, shifted):
    return _rounded_once(xp, xp.exp, shifted)


def _rounded_once(xp, function, a):
    """``function(a)`` computed in float64 and rounded once to ``a``'s dtype."""
    return xp.astype(function(_widened(xp, a)), a.dtype)


def _sum_rounded(xp, values, axis):
    """The sum of a row (the last dim): one after another in float32 for a row shorter than a vector register
    of AVX512 (PyTorch's ``vec::reduce_all`` then adds lane by lane; NumPy's sum pairs them from 8 on), else in
    float64, rounded (a vectorised sum's order is the machine's: this agrees more often)."""
    if xp is np_xp and values.dtype == np.float32 and values.shape[axis] < _FLOAT32_LANES:
        return np.cumsum(values, axis=axis, dtype=np.float32).take([-1], axis=axis)
    return xp.astype(xp.sum(_widened(xp, values), axis=axis, keepdims=True), values.dtype)


_FLOAT32_LANES = 16


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """``y * (g - sum(g * y))`` along ``dim``."""
    xp, dim = xp_of(output), checks.wrap_dim(dim, output.dim())
    if _float32_steps(xp, grad_output._data, output._data):
        g, y = grad_output._data, output._data
        total = _row_sums(g * y, dim) if dim == y.ndim - 1 else _fused_sum_of_products(g, y, dim)
        return _finish(output, xp, y * (g - total))
    g, y = _widened(xp, grad_output._data), _widened(xp, output._data)
    if not y.ndim:
        return _finish(output, xp, y * (g - g * y))
    return _finish(output, xp, y * (g - _sum_from_first(xp, g * y, dim)))


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """``g - exp(y) * sum(g)`` along ``dim``."""
    xp, dim = xp_of(output), checks.wrap_dim(dim, output.dim())
    g, y = grad_output._data, output._data
    if xp is np_xp and y.dtype == np.float32 and g.dtype == np.float32 and y.size > _EXACT_EXP_LIMIT:
        return _finish(output, xp, _in_row_blocks(_log_softmax_backward_float32, y, dim, g))
    if _float32_steps(xp, g, y):
        total = _row_sums(g, dim) if dim == y.ndim - 1 else xp.sum(g, axis=dim, keepdims=True)
        # ``g - exp(y) * total`` rounded once (the compiled loop's fused multiply-add): exact in float64
        return _finish(output, xp, _widened(xp, g) - _widened(xp, _exp_rounded(xp, y)) * _widened(xp, total))
    g, y = _widened(xp, g), _widened(xp, y)
    total = _sum_from_first(xp, g, dim) if y.ndim else g
    return _finish(output, xp, g - xp.exp(y) * total)


# NOTE [float32 softmax gradients]
# PyTorch computes float32 gradients in float32 steps, and its compiler fuses a product into the sum it is added
# to: along another dim than the last, ``sum(g * y)`` adds each product to the running sum with one rounding,
# and ``log_softmax``'s ``g - exp(y) * sum(g)`` rounds once. Float32 steps with those fusions (float64 holds a
# product of two float32 values exactly), a short row's sum added in order (``_row_sums``), match torch 2.13 on
# every gradient of small random tensors along a dim that is not the last (dims of 3 to 40) and, given
# PyTorch's forward values, on all but a few percent along the last (where its vectorised exp is a unit off);
# everything in float64 rounded once matched 45 to 75%. float64 and float16 / bfloat16 keep the float64 steps
# (the latter compute in float32 in PyTorch and already agree).


def _float32_steps(xp, g, y) -> bool:
    return xp is np_xp and g.dtype == np.float32 and y.dtype == np.float32 and y.ndim > 0


def _row_sums(a, dim):
    """Float32 sums of rows (``dim`` the last), kept as a size-1 dim: a short row one value after another from
    its first, as ``vec::reduce_all`` adds it (``_sum_rounded``), a longer one by ``_sum_from_first``."""
    if a.shape[dim] < _FLOAT32_LANES:
        return np.cumsum(a, axis=dim, dtype=np.float32).take([-1], axis=dim)
    return _sum_from_first(np_xp, a, dim)


def _fused_sum_of_products(g, y, dim):
    """``sum(g * y)`` along ``dim``, in order, each product added to the float32 sum with one rounding."""
    total = np.zeros(g.shape[:dim] + (1,) + g.shape[dim + 1:], np.float32)
    for k in range(g.shape[dim]):
        step = (slice(None),) * dim + (slice(k, k + 1),)
        total = (g[step].astype(np.float64) * y[step] + total).astype(np.float32)
    return total


def _log_softmax_float32(out, x, dim):
    """``(x - max) - log(sum(exp(x - max)))`` in float32 steps, into ``out``."""
    # the maxima spread over ``out`` first: NumPy subtracts two arrays of one shape faster than it
    # broadcasts a column (a 4096x1000 batch: 1.0 ms against 1.3)
    np.copyto(out, x.max(axis=dim, keepdims=True))
    np.subtract(x, out, out=out)
    total = np.exp(out).sum(axis=dim, keepdims=True)  # (not ``_sums``: its order agrees less with PyTorch's)
    return np.subtract(out, np.log(total), out=out)


def _log_softmax_backward_float32(out, y, dim, g):
    """``g - exp(y) * sum(g)`` in float32 steps, into ``out``."""
    total = _sums(g, dim)
    np.exp(y, out=out)
    np.multiply(out, _one_number_if_all_equal(total), out=out)
    return np.subtract(g, out, out=out)


# NOTE [A row of negative zeros]
# The gradient kernels sum along the last dim with ``vec::reduce_all``, which starts from the row's first
# values, not from zero: a row of ``-0.`` sums to ``-0.``, and ``g - exp(y) * sum`` is then ``+0.``.
# NumPy's sum starts from ``+0.`` (so does PyTorch's own ``sum``), which would leave ``-0.`` in the
# gradient, printed as such. Along any other dim PyTorch's loops start from zero, as NumPy's do.


def _sum_from_first(xp, a, dim):
    """Sums along ``dim`` kept as a size-1 dim, as PyTorch's gradient kernels add (NOTE [A row of negative
    zeros])."""
    return _negative_zero_rows(xp, a, xp.sum(a, axis=dim, keepdims=True), dim)


def _negative_zero_rows(xp, a, total, dim):
    if dim != a.ndim - 1 or not bool(xp.any(total == 0)):  # the usual case costs one look at the sums
        return total
    all_negative_zero = (total == 0) & xp.all(xp.signbit(a), axis=dim, keepdims=True)
    return xp.where(all_negative_zero, -total, total)


def _sums(a, dim):
    """Sums along ``dim``, kept as a size-1 dim. Rows of a 2-D array through ``einsum``, whose float32
    sum of a contiguous row runs on vector registers: 0.4 ms for 4096 rows of 1000 against ``sum``'s 1.0.
    Its order of additions is the same for every row, whatever the number of rows or their addresses
    (a BLAS matrix-vector product is as fast, but its order changes with the number of rows). It is not
    PyTorch's order either: in the forward, where the sum of ``exp`` decides every value, it matches
    PyTorch on 2 to 4 in 100 fewer values than ``sum`` does, so only the backward uses it (the gradient
    of a loss has one number per row, and any order adds that exactly)."""
    if a.ndim == 2 and dim == 1:
        return _negative_zero_rows(np_xp, a, np.einsum("ij->i", a)[:, None], dim)
    return _sum_from_first(np_xp, a, dim)


def _one_number_if_all_equal(values):
    """``values``' one value when every entry has the same bits, else ``values``: multiplying by a number
    is three times as fast as broadcasting a column, and it is what happens for ``nll_loss``'s gradient of a
    mean (every row sums to ``-1/N``). Comparing bits keeps ``-0.`` apart from ``0.`` and a NaN as it is."""
    bits = values.view(np.int32)
    return values.flat[0] if (bits == bits.flat[0]).all() else values


_BLOCK = 1 << 17  # elements: half a megabyte of float32, which stays in the cache from one step to the next


def _in_row_blocks(steps, a, dim, *others):
    """``steps(out, a, dim, *others)`` into a new array, on C-contiguous arrays (copies, as PyTorch's kernels
    make), a block of rows at a time when ``dim`` is the last: each step then reads what the last one wrote
    from the cache, not from memory (a tenth less time). A row's values do not depend on the blocks."""
    a, *others = (np.ascontiguousarray(array) for array in (a, *others))
    out = np.empty_like(a)
    if dim != a.ndim - 1:
        return steps(out, a, dim, *others)
    out_rows, a_rows, *other_rows = (array.reshape(-1, a.shape[-1]) for array in (out, a, *others))
    step = max(1, _BLOCK // max(a.shape[-1], 1))
    for start in range(0, len(out_rows), step):
        block = slice(start, start + step)
        steps(out_rows[block], a_rows[block], 1, *(rows[block] for rows in other_rows))
    return out


def _start(self, dim, half_to_float, name):
    """The checks ``softmax_cpu_out`` makes, in its order; the input's array and ``dim`` wrapped."""
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    dim = checks.wrap_dim(dim, self.dim())
    if not self._dtype.is_floating_point:
        last = self.dim() == 0 or dim == self.dim() - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")
    xp = xp_of(self)
    a = self._data
    if is_reduced_float(self._dtype):  # float16 / bfloat16 compute as float32 does, rounded once at the end
        a = in_float32(xp, a)
    if not a.ndim:  # a zero-dim tensor is a one-element vector along dim 0
        a = xp.reshape(a, (1,))
    return xp, a, dim


def _finish(like, xp, data):
    """The result in ``like``'s shape and dtype, C-contiguous whatever the input's strides (the structured
    kernels' ``set_output_raw_strided`` with no strides)."""
    data = xp.reshape(data, tuple(like._data.shape))
    if data.dtype != xp_dtype(xp, like._dtype):  # a kernel's own buffer in the right dtype is the result itself
        data = convert(xp, data, like._dtype)
    if type(data) is np.ndarray and not data.flags.c_contiguous:  # (ascontiguousarray makes 0-dim 1-dim)
        data = np.ascontiguousarray(data)
    return new_tensor(data, like._dtype, like._device)


def _widened(xp, a):
    return a if a.dtype == xp.float64 else xp.astype(a, xp_dtype(xp, st.float64))
