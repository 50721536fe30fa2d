"""The special functions behind ``digamma``, ``polygamma``, ``erfinv``, ``lgamma`` and ``erfc``, over NumPy arrays.

Models ``aten/src/ATen/native/Math.h`` (``calc_digamma``, ``calc_trigamma``, ``zeta``, ``calc_polygamma``,
``calc_erfinv``). NumPy has none of them and picotorch depends on NumPy alone (no SciPy), so each is written here
with the algorithm PyTorch's CPU kernel uses, step for step in the array's own dtype (float32 or float64), so that
the last bits agree as well as the library functions underneath (``log``, ``tan``, ``erf``) allow:

- ``digamma``: reflection for negative x, the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to 10, then the
  asymptotic series (Cephes' coefficients): accurate to float64 rounding.
- ``trigamma``: reflection below 0.5, six steps of the recurrence, then four terms of the asymptotic series. This
  is PyTorch's formula and only about 1e-9 accurate (``polygamma(1, 1.)`` is 1.6449340676 where pi^2/6 is
  1.6449340668): reproducing PyTorch means reproducing that error too.
- ``zeta`` (Hurwitz, Cephes' Euler-Maclaurin summation, in float64 for float32 too: ATen's CPU ``acc_type``) and
  ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` for n >= 2, with ``n!`` as ``exp(lgamma(n + 1))``.
- ``erfinv``: a rational first guess and two Newton steps on ``erf`` (float64: C's ``erf``, accurate to rounding).
- ``lgamma`` and ``erfc``: C's (``math.lgamma``, ``math.erfc``) in float64.

Each function takes and returns a NumPy array of one floating dtype; the kernels in ``unary_ops.py`` move arrays
of other devices to NumPy and back.
"""

from __future__ import annotations

import math

import numpy as np

# ----------------------------------------------------------------------------- digamma

_PSI_10 = 2.25175258906672110764  # digamma(10)
_DIGAMMA_SERIES = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
                   -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
                   8.33333333333333333333e-2)


def digamma(x):
    """psi(x) = d/dx log Gamma(x): -inf at +0, +inf at -0, NaN at the negative integers and -inf."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        negative = x < 0
        fraction = np.modf(x)[0]  # tan(pi * r) of the fractional part is more accurate than tan(pi * x)
        reflection = (math.pi / np.tan(math.pi * fraction.astype(np.float64))).astype(x.dtype)
        result = _digamma_positive(np.where(negative, t(1) - x, x))
        result = np.where(negative, result - reflection, result)
        result = np.where(negative & (x == np.trunc(x)), t(np.nan), result)
        return np.where(x == 0, np.copysign(t(np.inf), -x), result).astype(x.dtype)


def _digamma_positive(x):
    t = x.dtype.type
    result = np.zeros_like(x)
    while True:  # at most ten steps (more for NaN-free tiny x: one step takes it to 1)
        below = x < 10
        if not below.any():
            break
        result = np.where(below, result - t(1) / x, result)
        x = np.where(below, x + t(1), x)
    z = t(1) / (x * x)
    series = _polevl(z, _DIGAMMA_SERIES, t)
    y = np.where(x < t(1e17), z * series, t(0))
    return np.where(x == 10, result + t(_PSI_10), result + np.log(x) - t(0.5) / x - y)


def _polevl(z, coefficients, t):
    """The polynomial with these coefficients (highest power first) at z, by Horner's rule in ``t``."""
    total = np.full_like(z, t(coefficients[0]))
    for c in coefficients[1:]:
        total = total * z + t(c)
    return total


# ----------------------------------------------------------------------------- trigamma, zeta, polygamma


def trigamma(x):
    """psi'(x) as PyTorch computes it (see the module's docstring for its accuracy)."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        reflect = x < t(0.5)
        sin_pi_x = np.sin(t(math.pi) * x)
        result = np.where(reflect, -(t(math.pi) * t(math.pi)) / (sin_pi_x * sin_pi_x), t(0))
        x = np.where(reflect, t(1) - x, x)
        for _ in range(6):
            result = result + t(1) / (x * x)
            x = x + t(1)
        ixx = t(1) / (x * x)
        tail = t(1) / t(6) - ixx * (t(1) / t(30) - ixx * (t(1) / t(42)))
        result = result + (t(1) + t(1) / (t(2) * x) + ixx * tail) / x
        return np.where(reflect, -result, result).astype(x.dtype)


_MACHEP = 1.11022302462515654042e-16
_ZETA_SERIES = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                1.8152105401943546773e17, -7.1661652561756670113e18)  # (2k)! / B_2k


def zeta(s: float, q):
    """The Hurwitz zeta function sum_k (k + q)^-s of a float64 array ``q``, by Euler-Maclaurin summation: terms
    are added until they no longer count or ``q + k`` passes 9, then the tail is the series of Bernoulli terms."""
    q = np.asarray(q, dtype=np.float64)
    if s == 1:
        return np.full_like(q, np.inf)
    if s < 1:
        return np.full_like(q, np.nan)
    result = np.full_like(q, np.nan)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        result[pole] = np.inf
        active = ~pole
        if s != math.floor(s):  # (negative q)^-s is not real
            active &= q > 0
        total, a, b = q ** -s, q.copy(), np.zeros_like(q)
        steps = 0
        while True:
            summing = active & ((steps < 9) | (a <= 9))
            if not summing.any():
                break
            steps += 1
            a = np.where(summing, a + 1, a)
            b = np.where(summing, a ** -s, b)
            total = np.where(summing, total + b, total)
            active = _settle(result, active, summing & (-_MACHEP * total < b) & (b < _MACHEP * total), total)
        w = a
        total = total + b * w / (s - 1) - 0.5 * b
        factor, k = 1.0, 0.0
        for coefficient in _ZETA_SERIES:
            factor *= s + k
            b = b / w
            term = factor * b / coefficient
            total = total + term
            active = _settle(result, active, active & (np.abs(term / total) < _MACHEP), total)
            k += 1
            factor *= s + k
            b = b / w
            k += 1
        result[active] = total[active]
    return result


def _settle(result, active, done, total):
    """Record ``total`` where the summation is ``done`` and return the elements still summing."""
    result[done] = total[done]
    return active & ~done


def polygamma(n: int, x):
    """The n-th derivative of digamma: digamma itself for n = 0, trigamma for n = 1, from zeta above that."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    t = x.dtype.type
    factorial = t(math.factorial(n))
    sign = t(1) if n % 2 else t(-1)
    with np.errstate(all="ignore"):
        return (sign * factorial * zeta(float(n + 1), x.astype(np.float64)).astype(x.dtype)).astype(x.dtype)


# ----------------------------------------------------------------------------- erfinv, lgamma, erfc

_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)
_ERF = np.frompyfunc(math.erf, 1, 1)


def erfinv(y):
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside): a rational guess (one for |y| <= 0.7, one for
    the tails), then two Newton steps."""
    t = y.dtype.type
    a, b, c, d = ([t(v) for v in coefficients] for coefficients in (_ERFINV_A, _ERFINV_B, _ERFINV_C, _ERFINV_D))
    with np.errstate(all="ignore"):
        y_abs = np.abs(y)
        z = y * y
        central = y * (((a[3] * z + a[2]) * z + a[1]) * z + a[0]) / ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z
                                                                    + t(1))
        w = np.sqrt(-np.log((t(1) - y_abs) / t(2)))
        tails = np.copysign(((c[3] * w + c[2]) * w + c[1]) * w + c[0], y) / ((d[1] * w + d[0]) * w + t(1))
        x = np.where(y_abs <= t(0.7), central, tails)
        slope = t(2) / t(math.sqrt(math.pi))
        for _ in range(2):
            x = x - (_erf(x) - y) / (slope * np.exp(-x * x))
        x = np.where(y_abs == 1, np.copysign(t(np.inf), y), x)
        return np.where(y_abs > 1, t(np.nan), x).astype(y.dtype)


def _erf(x):
    return np.asarray(_ERF(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # a pole: 0 or a negative integer
        return math.inf


_LGAMMA = np.frompyfunc(_lgamma, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def lgamma(x):
    """log |Gamma(x)| in float64: +inf at the poles (0 and the negative integers) and at +-inf."""
    return np.asarray(_LGAMMA(x), dtype=np.float64)


def erfc(x):
    """1 - erf(x) in float64, without the cancellation of computing it that way."""
    return np.asarray(_ERFC(x), dtype=np.float64)


# ----------------------------------------------------------------------------- i0, i1 (modified Bessel functions)
# PyTorch's ``calc_i0``/``calc_i1`` are Cephes' Chebyshev expansions times ``exp(|x|)`` (over ``sqrt(|x|)`` past 8),
# computed in the dtype's opmath type: float32 for float32, float16 and bfloat16, so ``exp`` overflows there from
# ``log(FLT_MAX)`` on and the result is inf while the true value is still finite. Computed here in float64 (NumPy's
# ``i0`` is the same Cephes expansion; ``i1`` a power series, then the asymptotic one), with that overflow kept.

_EXP_OVERFLOW = {np.dtype(np.float64): math.log(np.finfo(np.float64).max),
                 np.dtype(np.float32): math.log(np.finfo(np.float32).max)}


def i0(x: np.ndarray, opmath) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        return _overflowed(x, np.i0(x), opmath)


def i1(x: np.ndarray, opmath) -> np.ndarray:
    x = x.astype(np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        small = ax <= 15
        # the power series (x/2) sum (x^2/4)^k / (k! (k+1)!)
        quarter, term, series = (ax * ax) / 4, ax / 2, ax / 2
        for k in range(1, 60):
            term = term * quarter / (k * (k + 1))
            series = series + term
        # the asymptotic series exp(x)/sqrt(2 pi x) sum (-1)^k a_k / x^k, a_k = prod (4 - (2j-1)^2) / (k! 8^k)
        big = np.where(small, 16.0, ax)
        term, asymptotic = np.ones_like(big), np.ones_like(big)
        for k in range(1, 30):
            term = -term * (4 - (2 * k - 1) ** 2) / (k * 8 * big)
            asymptotic = asymptotic + term
        asymptotic = np.exp(big) * asymptotic / np.sqrt(2 * math.pi * big)
        result = np.copysign(np.where(small, series, asymptotic), x)
        return np.copysign(_overflowed(x, result, opmath), x)  # odd: -inf where exp overflows below zero


def _overflowed(x, result, opmath):
    """inf where ``exp(|x|)`` overflows in ``opmath``; NaN at +-inf (``exp(inf) / sqrt(inf)``)."""
    return np.where(np.isinf(x), np.nan, np.where(np.abs(x) > _EXP_OVERFLOW[np.dtype(opmath)], np.inf, result))
