"""Random tensors: what ``uniform_``, ``normal_``, ``bernoulli_``, ``random_`` and ``randperm`` make of the
generator's bits, value for value as PyTorch's CPU kernels.

Models ``aten/src/ATen/core/DistributionsHelper.h`` and ``TransformationHelper.h`` (one number from one or
two draws), ``aten/src/ATen/native/cpu/DistributionTemplates.h`` and ``DistributionKernels.cpp`` (the
kernels), ``avx_mathfun.h`` (the vectorised logarithm and sine/cosine the float32 normal uses) and
``randperm_cpu`` in ``TensorFactories.cpp``. The bits come from ``cpu_generator.py``.

The story of one number:

- **uniform** in ``[from, to)``: float32 keeps the low 24 bits of one 32-bit draw (``x = bits * 2**-24``),
  float64 the low 53 of a 64-bit draw; then ``x * (to - from) + from``. float16 and bfloat16 round a
  float32 draw.
- **normal**, the scalar way: two float64 uniforms ``u1, u2`` make two normals by Box-Muller,
  ``r = sqrt(-2 log(1 - u2))`` times ``cos(2 pi u1)``, and ``sin`` for the spare the generator keeps
  for the next call. A float32 tensor of 16 elements or more that is contiguous goes the vectorised way
  instead: all its uniforms first, then blocks of 16 (8 cosines and 8 sines, ``avx_mathfun``'s formulas);
  when 16 does not divide the size, 16 fresh uniforms redo the last 16 elements.
- **bernoulli(p)**: a float64 uniform ``< p`` (a float32 one for a float32 tensor of probabilities).
- **random_(from, to)** and ``randint``: ``bits % (to - from) + from``, 32-bit draws unless the range needs 64.
- **randperm(n)**: Fisher-Yates from the front, element ``i`` swapped with ``i + bits % (n - i)``.

NOTE [Fused multiply-add in the kernels]
PyTorch compiles these kernels for AVX2 with fused multiply-add allowed, and the compiler fuses
``x * (to - from) + from`` (and the normal's ``x * std + mean``) into one rounding. picotorch does the
same arithmetic with one rounding: a float32 product is exact in float64, and a float64 one is carried
with its error term (``_fma64``). Where the compiler fused inside ``avx_mathfun``'s polynomials, so do we.
The differential tests compare bits.

Where PyTorch differs by machine: on an Intel CPU with MKL, ``bernoulli_(p)`` with a number ``p`` draws
from MKL's own stream seeded by one draw; picotorch draws as PyTorch does everywhere else (AMD, ARM, builds
without MKL). A non-CPU tensor gets the CPU generator's numbers (a CUDA build would use its Philox stream).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..c10 import scalar_type as st
from . import complex_ops
from .checks import broadcast_shapes
from .cpu_generator import default_cpu_generator
from .device import CPU, backend, normalize, to_numpy
from .helpers import (
    contiguous_strides,
    fused_multiply_add,
    fused_multiply_add_float64,
    np_xp,
    shape_of,
    strides_of,
    xp_dtype,
    xp_of,
)
from .tensor_impl import TensorImpl, new_tensor

_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)


def generator_impl(generator):
    """The generator's bits: a ``torch.Generator``'s (its ``_impl``), or the default CPU generator's."""
    if generator is None:
        return default_cpu_generator()
    return getattr(generator, "_impl", generator)


# ----------------------------------------------------------------------------- uniform


def uniform_(self, from_=0, to=1, generator=None):
    if self._dtype.is_complex:  # each part drawn as a float: the real view's elements, in memory order
        uniform_(complex_ops.view_as_real(self), from_, to, generator)
        return self
    _check_floating(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}")
    gen = generator_impl(generator)
    with gen.mutex:
        _fill_in_memory_order(self, uniform_values(gen, self.numel(), self._dtype, from_, to))
    return self


def uniform_values(gen, n: int, dtype, low=0.0, high=1.0) -> np.ndarray:
    """``n`` draws of ``uniform_real_distribution<scalar_t>(low, high)`` (``from``/``to`` cast to the dtype first)."""
    if dtype is st.float64:
        x = (gen.random64(n) & _MASK53).astype(np.float64) * 2.0**-53
        low, high = np.float64(low), np.float64(high)
        return _fma64(x, high - low, low)
    if dtype is st.float32:
        x = (gen.random(n) & _MASK24).astype(np.float32) * np.float32(2.0**-24)
        low, high = np.float32(low), np.float32(high)
        return _fma32(x, high - low, low)
    # float16 / bfloat16: a float32 draw rounded to the dtype, where a draw that rounds up to ``to`` becomes ``from``
    # (the range stays half-open, as PyTorch keeps it)
    rounded = uniform_values(gen, n, st.float32, low, high).astype(st.to_numpy_dtype(dtype))
    rounded[rounded == np.float32(high).astype(rounded.dtype)] = np.float32(low).astype(rounded.dtype)
    return rounded


# ----------------------------------------------------------------------------- normal


def normal_(self, mean=0, std=1, generator=None):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if self._dtype.is_complex:  # each part normal with std / sqrt(2), so that |z - mean| has variance std^2
        normal_(complex_ops.view_as_real(self), mean, std / math.sqrt(2), generator)
        return self
    _check_floating(self, "normal_kernel_cpu")
    gen = generator_impl(generator)
    n = self.numel()
    with gen.mutex:
        if n >= 16 and _is_contiguous(self):
            values = _normal_fill(gen, n, self._dtype, mean, std)
        else:
            values = normal_scalar_values(gen, n, mean, std)
        _fill_in_memory_order(self, values)
    return self


def normal_scalar_values(gen, n: int, mean=0.0, std=1.0) -> np.ndarray:
    """``n`` draws of ``normal_distribution<double>``: each Box-Muller pair gives a cosine now and keeps the
    sine as the generator's spare, which the next draw (of this call or a later one) returns first."""
    values = []
    if n and gen.next_double_normal_sample is not None:
        values.append(gen.next_double_normal_sample)
        gen.next_double_normal_sample = None
    pairs = (n - len(values) + 1) // 2
    u = uniform_values(gen, 2 * pairs, st.float64)
    radius = np.sqrt(-2.0 * _log1p(-u[1::2]))
    theta = 2.0 * math.pi * u[0::2]
    cos_sin = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)
    if (n - len(values)) % 2:  # the last pair's sine is the spare
        gen.next_double_normal_sample = float(cos_sin[-1])
        cos_sin = cos_sin[:-1]
    return _fma64(np.concatenate([np.array(values, np.float64), cos_sin]), np.float64(std), np.float64(mean))


def _log1p(x: np.ndarray) -> np.ndarray:
    """The C library's ``log1p``, element by element (NumPy's differs from it in the last bit on 8% of inputs)."""
    return np.array([math.log1p(v) for v in x.tolist()], np.float64)


def _normal_fill(gen, n: int, dtype, mean, std) -> np.ndarray:
    """``normal_fill``: uniforms first, then Box-Muller on blocks of 16 (``u1 = 1 - first 8``, ``u2 = last 8``);
    a size that 16 does not divide has its last 16 redone from 16 fresh uniforms. float32 and float64 draw a
    uniform for every element first (the leftover ones are overwritten), float16 and bfloat16 only for the
    whole blocks, computing in float32 (values checked against torch: the same as its own)."""
    whole = n - n % 16
    if dtype is st.float64:
        data, fill_16 = uniform_values(gen, n, dtype), _normal_fill_16
    else:
        data, fill_16 = uniform_values(gen, n if dtype is st.float32 else whole, st.float32), _normal_fill_16_avx2
        data = np.resize(data, n)
    data[:whole] = fill_16(data[:whole].reshape(-1, 16), mean, std).reshape(-1)
    if n % 16:
        last = uniform_values(gen, 16, st.float64 if dtype is st.float64 else st.float32)
        data[n - 16:] = fill_16(last.reshape(1, 16), mean, std).reshape(-1)
    return data


def _normal_fill_16(blocks: np.ndarray, mean, std) -> np.ndarray:
    """The scalar ``normal_fill_16``, in float64 with the C library's functions. (NumPy's float64 log differs
    from glibc's in the last bit now and then, so the log is Python's; NumPy's sin and cos agree on [0, 2 pi).)"""
    logs = np.array([math.log(u) for u in (1.0 - blocks[:, :8]).reshape(-1)], np.float64).reshape(-1, 8)
    radius = np.sqrt(-2 * logs)
    theta = 2.0 * math.pi * blocks[:, 8:]
    cos = _fma64(radius * np.cos(theta), np.float64(std), np.float64(mean))
    sin = _fma64(radius * np.sin(theta), np.float64(std), np.float64(mean))
    return np.concatenate([cos, sin], axis=1)


def _normal_fill_16_avx2(blocks: np.ndarray, mean, std) -> np.ndarray:
    """``normal_fill_16_AVX2``: float32 Box-Muller with ``log256_ps`` and ``sincos256_ps``."""
    u1 = np.float32(1) - blocks[:, :8]
    radius = np.sqrt(np.float32(-2) * _log_avx(u1))
    theta = np.float32(2.0 * math.pi) * blocks[:, 8:]
    sin, cos = _sincos_avx(theta)
    mean, std = np.float32(mean), np.float32(std)
    return np.concatenate([_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)], axis=1)


# avx_mathfun's constants (Cephes' single-precision logf and sinf/cosf).
_LOG_P = tuple(np.float32(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                                       1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                                       3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_SQRTHF, _FOPI = np.float32(0.707106781186547524), np.float32(1.27323954473516)
_MINUS_DP = tuple(np.float32(v) for v in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8))
_COS_P = tuple(np.float32(v) for v in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002))
_SIN_P = tuple(np.float32(v) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_HALF, _ONE = np.float32(0.5), np.float32(1)


def _log_avx(x: np.ndarray) -> np.ndarray:
    """``log256_ps``: split ``x`` into ``m * 2**e`` with ``m`` in [sqrt(1/2), sqrt(2)), then a polynomial in
    ``m - 1``. Our ``x`` is in (0, 1], so the NaN of a negative argument never arises."""
    bits = np.maximum(x, np.float32(np.finfo(np.float32).tiny)).view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _ONE
    m = ((bits & np.int32(~0x7F800000)) | np.float32(0.5).view(np.int32)).view(np.float32)
    small = m < _SQRTHF
    m = (m - _ONE) + np.where(small, m, np.float32(0))
    e = e - small.astype(np.float32)
    z = m * m
    y = np.full_like(m, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma32(y, m, p)
    y = _fma32(y * m, z, e * _LOG_Q1)
    y = _fma32(-z, _HALF, y)
    return _fma32(e, _LOG_Q2, m + y)


def _sincos_avx(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps``: reduce by multiples of pi/4 (in three parts, for precision), then one polynomial for
    sine and one for cosine, swapped and signed by the octant."""
    sign_sin = x.view(np.int32) & np.int32(-(2**31))
    x = np.abs(x)
    octant = ((x * _FOPI).astype(np.int32) + 1) & ~1
    y = octant.astype(np.float32)
    for dp in _MINUS_DP:
        x = _fma32(y, dp, x)
    sign_sin = sign_sin ^ ((octant & 4) << 29)
    sign_cos = (~(octant - 2) & 4) << 29
    first_polynomial = (octant & 2) == 0
    z = x * x
    cos = _fma32(_fma32(np.full_like(z, _COS_P[0]), z, _COS_P[1]), z, _COS_P[2]) * z
    cos = _fma32(cos, z, -(z * _HALF)) + _ONE
    sin = _fma32(_fma32(np.full_like(z, _SIN_P[0]), z, _SIN_P[1]), z, _SIN_P[2]) * z
    sin = _fma32(sin, x, x)
    sin_value = np.where(first_polynomial, sin, cos)
    cos_value = np.where(first_polynomial, cos, sin)
    sin_value = (sin_value.view(np.int32) ^ sign_sin).view(np.float32)
    return sin_value, (cos_value.view(np.int32) ^ sign_cos).view(np.float32)


# ----------------------------------------------------------------------------- bernoulli (dropout's mask)


def bernoulli(self, generator=None):
    """A new tensor of ``self``'s dtype: 1 with probability ``self[i]``, else 0."""
    if self._dtype.is_complex:
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_self_\" not implemented for '{self._dtype.c10_name}'")
    p = _probabilities(self)
    if ((p < 0) | (p > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    gen = generator_impl(generator)
    with gen.mutex:
        values = _from_memory_order(self, _bernoulli_values(gen, _in_memory_order(self, p), self._dtype))
    xp = xp_of(self)
    data = xp.asarray(values.astype(st.to_numpy_dtype(self._dtype)), dtype=xp_dtype(xp, self._dtype),
                      device=self._data.device)
    return new_tensor(data, self._dtype, self._device)


def bernoulli_(self, p=0.5, generator=None):
    """In place: each element becomes 1 with probability ``p`` (a number, or a tensor broadcast to ``self``)."""
    gen = generator_impl(generator)
    if isinstance(p, TensorImpl):
        probabilities = np.broadcast_to(_probabilities(p), shape_of(self))
        with gen.mutex:
            _fill_in_memory_order(self, _bernoulli_values(gen, _in_memory_order(self, probabilities), p._dtype))
        return self
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    if self._dtype.is_complex:
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{self._dtype.c10_name}'")
    with gen.mutex:
        _fill_in_memory_order(self, uniform_values(gen, self.numel(), st.float64) < p)
    return self


def _bernoulli_values(gen, p: np.ndarray, p_dtype) -> np.ndarray:
    """``bernoulli_distribution<double>`` for float64 probabilities, ``<float>`` (24-bit uniforms) otherwise."""
    p = p.reshape(-1)
    if p_dtype is st.float64:
        return uniform_values(gen, p.size, st.float64) < p
    return uniform_values(gen, p.size, st.float32) < p.astype(np.float32)


def _probabilities(t) -> np.ndarray:
    return np.asarray(to_numpy(t._data), dtype=np.float64)


# ----------------------------------------------------------------------------- exponential and multinomial


def exponential_(self, lambd=1.0, generator=None):
    """``-1 / lambda * log(1 - u)`` from float64 uniforms, in every float dtype (the C library's ``log1p``)."""
    if not self._dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self._dtype.c10_name}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    gen = generator_impl(generator)
    with gen.mutex:
        _fill_in_memory_order(self, exponential_values(gen, self.numel(), lambd))
    return self


def exponential_values(gen, n: int, lambd=1.0) -> np.ndarray:
    scale = -1.0 / lambd
    return scale * _log1p(-uniform_values(gen, n, st.float64))


def multinomial(self, num_samples, replacement=False, generator=None):
    """Indices drawn by the probabilities in each row. Without replacement, or for one sample: the largest
    ``p / q`` with ``q ~ Exp(1)`` (Gumbel's trick, ``argmax`` or ``topk``); with replacement: a float64 uniform
    looked up by binary search in the row's normalised running sum (computed in the row's dtype)."""
    _check_multinomial(self, num_samples, replacement)
    p = to_numpy(self._data)
    rows = p.reshape(-1, p.shape[-1])
    gen = generator_impl(generator)
    if not replacement or num_samples == 1:
        if not (np.isfinite(p).all() and (p >= 0).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        with gen.mutex:
            q = exponential_values(gen, p.size).astype(p.dtype).reshape(rows.shape)
        keys = rows / q
        order = np.argsort(-keys.astype(np.float64), axis=1, kind="stable")[:, :num_samples]
    else:
        with gen.mutex:
            order = np.stack([_sample_with_replacement(gen, row, num_samples) for row in rows])
    indices = order.reshape(p.shape[:-1] + (num_samples,)).astype(np.int64)
    xp = xp_of(self)
    return new_tensor(xp.asarray(indices, device=self._data.device), st.int64, self._device)


def _check_multinomial(self, num_samples, replacement) -> None:
    if not 1 <= self._data.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {self._dtype.c10_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > self._data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if self._data.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _sample_with_replacement(gen, row: np.ndarray, num_samples: int) -> np.ndarray:
    """``multinomial_with_replacement_apply``: the running sum in the row's dtype (float32 for the 16-bit
    floats), each entry checked, normalised, the last bucket set to 1, one float64 uniform per sample."""
    acc = row.dtype if row.dtype in (np.float32, np.float64) else np.float32
    values = row.astype(acc)
    if (values < 0).any():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if not np.isfinite(values).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    running = np.cumsum(values, dtype=acc)  # one addition after another, as the kernel's loop
    total = running[-1]
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cumulative = running / total
    cumulative[-1] = 1
    return np.searchsorted(cumulative.astype(np.float64), uniform_values(gen, num_samples, st.float64), side="left")


# ----------------------------------------------------------------------------- normal with tensor parameters


def normal_tensor_float(mean, std=1.0, generator=None):
    """``normal(Tensor mean, float std)``: ``normal_(0, std)`` on a new tensor like ``mean``, then ``+ mean``."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    out = _empty_like(mean)
    normal_(out, 0.0, std, generator)
    out._data[...] = out._data + mean._data
    return out


def normal_float_tensor(mean, std, generator=None):
    """``normal(float mean, Tensor std)``: ``normal_(0, 1)`` on a new tensor like ``std``, ``* std``, ``+ mean``."""
    _check_tensor_std(std)
    out = _empty_like(std)
    normal_(out, 0.0, 1.0, generator)
    out._data[...] = out._data * std._data + mean  # (a Python float keeps the array's dtype)
    return out


def normal_tensor_tensor(mean, std, generator=None):
    """``normal(Tensor mean, Tensor std)``: ``normal_(0, 1)`` in the broadcast shape, ``* std``, ``+ mean``."""
    _check_tensor_std(std)
    out = _empty_like(mean, broadcast_shapes(shape_of(mean), shape_of(std)))
    normal_(out, 0.0, 1.0, generator)
    out._data[...] = out._data * std._data + mean._data
    return out


def normal_float_float(mean, std, size, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """``normal(float mean, float std, size)``: ``empty(size).normal_(mean, std)``."""
    dtype = dtype or st.get_default_dtype()
    dev = normalize(device) if device is not None else CPU
    target = backend(dev)
    data = target.xp.empty(tuple(size), dtype=xp_dtype(target.xp, dtype), device=target.array_device(dev.index))
    return normal_(new_tensor(data, dtype, dev), mean, std, generator)


def _check_tensor_std(std) -> None:
    if std._dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if (to_numpy(std._data) < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _empty_like(t, shape=None):
    xp = xp_of(t)
    data = xp.empty(shape_of(t) if shape is None else shape, dtype=xp_dtype(xp, t._dtype), device=t._data.device)
    return new_tensor(data, t._dtype, t._device)


# ----------------------------------------------------------------------------- integers


_RANDOM_BOUNDS_TYPES = "check_random_bounds handles only integral, floating-point and boolean types"


def random_(self, from_, to=None, generator=None):
    """``random_.from``: integers in ``[from, to)``, or from ``from`` to the dtype's largest (exact) value."""
    dtype = self._dtype
    if dtype.is_complex:
        raise RuntimeError(_RANDOM_BOUNDS_TYPES)
    if to is None and from_ == -(2**63):  # the whole of int64: random_full_64_bits_range_kernel
        if dtype not in (st.int64, st.float64, st.float32, st.bfloat16):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        return _fill_random(self, generator, lambda gen, n: gen.random64(n).view(np.int64))
    if to is None:
        to_inc = _largest_random(dtype)
        if dtype.is_floating_point:
            from_ = _exact_bound(from_, 1, dtype)
            if from_ >= to_inc:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={from_} > to_inc={to_inc}")
        _check_from_to_in_range(from_, to_inc, dtype)
        low, high = from_, to_inc + 1
    else:
        low, high = check_from_to(from_, to, dtype)
    return _fill_random(self, generator, lambda gen, n: random_from_to_values(gen, n, low, high, dtype))


def random_to_(self, to, generator=None):
    """``random_.to``: integers in ``[0, to)``."""
    return random_(self, 0, to, generator)


def random_full_(self, generator=None):
    """``random_()``: ``uniform_int_distribution``: for int64 63 bits of a 64-bit draw, for the other integer
    types ``bits % (max + 1)``, for float types the exact integers ``bits % (2**digits + 1)``, bool one bit."""
    dtype = self._dtype
    if dtype.is_complex:
        raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{dtype.c10_name}'")
    wide = dtype in (st.int64, st.float64)
    modulus = 2 if dtype is st.bool_ else _largest_random(dtype) + 1
    return _fill_random(self, generator, lambda gen, n: ((gen.random64(n) if wide else gen.random(n))
                                                          % np.uint64(modulus)).astype(np.int64))


def _largest_random(dtype) -> int:
    if dtype.is_floating_point:
        return 2 ** _EXACT_DIGITS[dtype]
    return _RANDOM_RANGES[dtype][1]


def _fill_random(self, generator, draw):
    gen = generator_impl(generator)
    with gen.mutex:
        values = draw(gen, self.numel())
    _fill_in_memory_order(self, values.astype(np.float64) if self._dtype.is_floating_point else values)
    return self


def check_from_to(low: int, high: int, dtype) -> tuple[int, int]:
    """``random_from_to_impl``'s checks, with the bounds a float dtype moves inwards (``update_from``/``update_to``)."""
    if dtype.is_complex:
        raise RuntimeError(_RANDOM_BOUNDS_TYPES)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype.is_floating_point:
        low, high = _exact_bound(low, 1, dtype), _exact_bound(high, -1, dtype)
        if low >= high:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                               f"from={low} >= to={high}")
    _check_from_to_in_range(low, high - 1, dtype)
    return low, high


# What ``random_(from, to)`` lets a dtype hold (``check_from_to_in_range``): an integer type's range; for a float
# type, its finite range, with a warning beyond its exact integers (``std::numeric_limits<T>::digits``). The C++
# names are those of the texts.
_RANDOM_RANGES = {st.uint8: (0, 255, "unsigned char"), st.int8: (-128, 127, "signed char"),
                   st.int16: (-2**15, 2**15 - 1, "short int"), st.int32: (-2**31, 2**31 - 1, "int"),
                   st.int64: (-2**63, 2**63 - 1, "long int"), st.bool_: (0, 1, "bool"),
                   st.float16: (-65504.0, 65504.0, "c10::Half"), st.bfloat16: (-3.3895313892515355e38,
                                                                             3.3895313892515355e38, "c10::BFloat16"),
                   st.float32: (-3.4028234663852886e38, 3.4028234663852886e38, "float"),
                   st.float64: (-1.7976931348623157e308, 1.7976931348623157e308, "double")}
_EXACT_DIGITS = {st.float16: 11, st.bfloat16: 8, st.float32: 24, st.float64: 53}
_RANDOM_WARNING_AT = "/__w/pytorch/pytorch/aten/src/ATen/native/DistributionTemplates.h"


def _check_from_to_in_range(low, last, dtype) -> None:
    lowest, highest, name = _RANDOM_RANGES[dtype]
    for value, what in ((low, "from"), (last, "to - 1")):
        if not lowest <= value <= highest:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    digits = _EXACT_DIGITS.get(dtype)
    for value, what, line in ((low, "from", 110), (last, "to - 1", 111)):
        if digits is not None and not -(2**digits) <= value <= 2**digits:
            warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} "
                          "can support discrete uniform distribution only within this range. This warning will "
                          "become an error in version 1.7 release, please fix the code in advance (Triggered "
                          f"internally at {_RANDOM_WARNING_AT}:{line}.)", UserWarning, stacklevel=4)


def _exact_bound(bound: int, step: int, dtype) -> int:
    """``update_from`` (``step=1``) / ``update_to`` (``step=-1``): a float dtype that rounds ``from + 1`` below
    ``from`` (or ``to - 1`` up to ``to``) moves the bound inwards by its spacing there, so every drawn integer
    survives the cast."""
    inner = bound + step
    with np.errstate(over="ignore"):
        rounded = float(np.float32(inner).astype(st.to_numpy_dtype(dtype)) if dtype.itemsize == 2 else
                        np.array(inner, st.to_numpy_dtype(dtype)).item())
    cast = int(rounded) if -(2**63) <= rounded < 2**63 else -(2**63)  # x86's answer to an int64 cast out of range
    if (cast < bound) if step == 1 else (cast >= bound):
        spacing = 1 << (abs(inner).bit_length() - 1 - _EXACT_DIGITS[dtype] + 1)
        return cast + spacing if step == 1 else cast - spacing
    return bound



def random_from_to_values(gen, n: int, low: int, high: int, dtype) -> np.ndarray:
    """``uniform_int_from_to_distribution``: ``bits % range + low``, 64-bit draws only for a range of 2**32 or
    more in a dtype that can hold it (int64, float64, float32, bfloat16)."""
    span = high - low
    wide = span >= 1 << 32 and dtype in (st.int64, st.float64, st.float32, st.bfloat16)
    bits = gen.random64(n) if wide else gen.random(n)
    return ((bits % np.uint64(span)).astype(object if wide else np.int64) + low).astype(np.int64)


def random_int64(gen) -> int:
    """One ``torch.empty((), dtype=torch.int64).random_()``: 63 bits of a 64-bit draw (what a DataLoader and
    a RandomSampler draw their seeds with)."""
    return int(gen.random64(1)[0] % np.uint64(1 << 63))


def randperm_values(gen, n: int) -> np.ndarray:
    """``randperm_cpu``: Fisher-Yates from the front, one 32-bit draw per position (all drawn first: the
    swaps do not change what is drawn)."""
    order = list(range(n))
    if n > 1:
        for i, z in enumerate((gen.random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()):
            order[i], order[i + z] = order[i + z], order[i]
    return np.array(order, np.int64)


# ----------------------------------------------------------------------------- details


def _check_floating(self, kernel: str) -> None:
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.c10_name}'")


def _is_contiguous(self) -> bool:
    return strides_of(self) == contiguous_strides(shape_of(self), 1)


def _memory_order_axes(self) -> tuple:
    """The dims from outermost to innermost in memory: the order in which TensorIterator walks an output."""
    strides = strides_of(self)
    return tuple(sorted(range(len(strides)), key=lambda d: -strides[d]))


def _in_memory_order(self, values: np.ndarray) -> np.ndarray:
    return np.transpose(values, _memory_order_axes(self)).reshape(-1)


def _from_memory_order(self, values: np.ndarray) -> np.ndarray:
    """``values``, drawn in ``self``'s memory order, as an array of ``self``'s shape."""
    axes, shape = _memory_order_axes(self), shape_of(self)
    return np.transpose(values.reshape([shape[d] for d in axes]), np.argsort(axes))


def _fill_in_memory_order(self, values: np.ndarray) -> None:
    """Write ``values`` (one per element, in the order they were drawn) the way the kernel walks ``self``."""
    xp = xp_of(self)
    values = np.asarray(values).astype(st.to_numpy_dtype(self._dtype))
    axes = _memory_order_axes(self)
    if axes == tuple(range(len(axes))) or type(self._data) is not np.ndarray:
        self._data[...] = xp.asarray(values.reshape(shape_of(self)), dtype=xp_dtype(xp, self._dtype),
                                     device=self._data.device)
        return
    target = np.transpose(self._data, axes)
    target[...] = values.reshape(target.shape)


def _fma32(a, b, c):
    """float32 ``a * b + c`` with one rounding (``helpers.fused_multiply_add``)."""
    return fused_multiply_add(np_xp, a, b, c)


def _fma64(a, b, c):
    """float64 ``a * b + c`` with one rounding (``helpers.fused_multiply_add_float64``)."""
    return fused_multiply_add_float64(np_xp, np.asarray(a, np.float64), b, c)
