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

import numpy as np

from ..c10 import scalar_type as st
from .cpu_generator import default_cpu_generator
from .device import to_numpy
from .helpers import shape_of, strides_of, xp_dtype, xp_of
from .tensor_impl import TensorImpl, new_tensor

_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)


def generator_impl(generator):
    """The generator's bits: a ``torch.Generator``'s (its ``_impl``), or the default CPU generator's."""
    if generator is None:
        return default_cpu_generator()
    return getattr(generator, "_impl", generator)


# ----------------------------------------------------------------------------- uniform


def uniform_(self, from_=0, to=1, generator=None):
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
    _check_floating(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
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
    for _ in range(n):
        spare = gen.next_double_normal_sample
        if spare is not None:
            gen.next_double_normal_sample = None
            values.append(spare)
            continue
        u1, u2 = (float(u) for u in uniform_values(gen, 2, st.float64))
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen.next_double_normal_sample = radius * math.sin(theta)
        values.append(radius * math.cos(theta))
    return _fma64(np.array(values, np.float64), np.float64(std), np.float64(mean))


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
    return (sin_value.view(np.int32) ^ sign_sin).view(np.float32), (cos_value.view(np.int32) ^ sign_cos).view(np.float32)


# ----------------------------------------------------------------------------- bernoulli (dropout's mask)


def bernoulli(self, generator=None):
    """A new tensor of ``self``'s dtype: 1 with probability ``self[i]``, else 0."""
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


# ----------------------------------------------------------------------------- integers


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
    return strides_of(self) == _row_major(shape_of(self))


def _row_major(shape) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


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
    """float32 ``a * b + c`` with one rounding: the product of two float32 is exact in float64."""
    return (np.asarray(a, np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(np.float32)


def _fma64(a, b, c):
    """float64 ``a * b + c`` as a fused multiply-add: the product's rounding error (Dekker's two-product)
    is added back before the last rounding."""
    a = np.asarray(a, np.float64)
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(np.asarray(b, np.float64))
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    back = total - product
    total_error = (product - (total - back)) + (c - back)
    return total + (total_error + error)


def _split(x):
    """Veltkamp's split of a float64 into two halves of 26 bits whose product terms are exact."""
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high
