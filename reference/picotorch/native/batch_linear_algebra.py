"""Determinants and inverses through an LU factorisation: ``_linalg_det``, ``_linalg_slogdet``, ``linalg_inv_ex``,
and the composites over them (``det``, ``logdet``, ``slogdet``, ``inverse``, ``matrix_power``).

Models ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` and ``LinearAlgebra.cpp``. The factorisation is LAPACK's
``getrf`` with partial pivoting (the first entry of largest magnitude in the column; a zero pivot is recorded in
``info`` and left in place), followed here column by column in float64-or-float32 NumPy; ``LU`` comes out
column-major as LAPACK writes it and ``pivots`` 1-based int32. ``det`` is the product of ``U``'s diagonal times
the permutation's sign (so a singular matrix with an odd permutation gives ``-0.``); ``slogdet`` is that sign and
the sum of ``log|U_ii|``; the inverse solves ``A X = I`` with the factors (``getrs``), so a singular matrix gives
the infinities and NaNs its zero pivot makes. The last bits may differ from LAPACK's blocked kernels.
"""

from __future__ import annotations

import numpy as np

from ..c10 import scalar_type as st
from ..c10.layout import contiguous_format
from .device import to_numpy
from .dispatcher import ops
from .helpers import wrap, xp_of


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix the operation cannot handle (a singular one, for an inverse)."""


_LinAlgError.__module__ = "picotorch._C"


# ----------------------------------------------------------------------------- checks (LinearAlgebraUtils.h)


def square_check(A, name):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def floating_check(A, name, low_precision=True):
    if not A.dtype.is_floating_point and not A.dtype.is_complex:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.c10_name}")
    if not low_precision and A.dtype in (st.float16, st.bfloat16):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {A.dtype.c10_name}")


def _lu_dtype_check(A):
    if A.dtype in (st.float16, st.bfloat16):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{A.dtype.c10_name}'")


# ----------------------------------------------------------------------------- the factorisation


def _lu(a: np.ndarray):
    """``getrf`` on each matrix of ``a`` (``..., n, n``): (LU, 0-based pivots, info: 1 + the first zero pivot's
    index, 0 when none)."""
    lu = np.array(a, copy=True)
    n = lu.shape[-1]
    batch = lu.shape[:-2]
    flat = lu.reshape((int(np.prod(batch)), n, n))
    pivots = np.zeros((flat.shape[0], n), dtype=np.int64)
    info = np.zeros(flat.shape[0], dtype=np.int64)
    rows = np.arange(flat.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(n):
            p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
            pivots[:, j] = p
            upper, lower = flat[rows, j, :].copy(), flat[rows, p, :].copy()
            flat[rows, j, :], flat[rows, p, :] = lower, upper
            pivot = flat[:, j, j]
            zero = pivot == 0
            info = np.where(zero & (info == 0), j + 1, info)
            scale = np.where(zero, 1, pivot)[:, None]
            flat[:, j + 1:, j] = np.where(zero[:, None], flat[:, j + 1:, j], flat[:, j + 1:, j] / scale)
            flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return flat.reshape(a.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _permutation_sign(pivots: np.ndarray) -> np.ndarray:
    swaps = (pivots != np.arange(pivots.shape[-1])).sum(axis=-1)
    return np.where(swaps % 2 == 1, -1.0, 1.0)


def _column_major(array: np.ndarray) -> np.ndarray:
    """``array`` with each matrix stored column by column (LAPACK's layout), batches row-major."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(array, -1, -2)), -1, -2)


def _factors(A, transposed=True):
    """The factors LAPACK computes: of ``A``'s memory read column by column, which for a row-major real ``A``
    is ``A^T`` (no copy; ``det`` and ``slogdet`` do not change, the saved ``LU`` and ``pivots`` do)."""
    data = to_numpy(A._data)
    lu, pivots, info = _lu(np.swapaxes(data, -1, -2) if transposed and A.is_contiguous() else data)
    return data, lu, pivots, info


def _tensor(like, array, dtype=None):
    return wrap(like, xp_of(like).asarray(array, device=like._data.device), dtype)


def _lu_outputs(A, lu, pivots):
    return _tensor(A, _column_major(lu)), _tensor(A, (pivots + 1).astype(np.int32), st.int32)


# ----------------------------------------------------------------------------- det, slogdet


def _linalg_det(A):
    square_check(A, "linalg.det")
    floating_check(A, "linalg.det")
    _lu_dtype_check(A)
    _, lu, pivots, _ = _factors(A)
    det = np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1) * _permutation_sign(pivots)
    return (_tensor(A, np.asarray(det, dtype=lu.dtype)), *_lu_outputs(A, lu, pivots))


def _linalg_slogdet(A):
    square_check(A, "linalg.slogdet")
    floating_check(A, "linalg.slogdet", low_precision=False)
    _, lu, pivots, _ = _factors(A)
    diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitudes = np.abs(diagonal)
        if A.dtype.is_complex:  # the sign is a complex number of modulus 1 (0 for a singular matrix)
            phases = np.where(magnitudes == 0, 0, diagonal / np.where(magnitudes == 0, 1, magnitudes))
            sign = np.prod(phases, axis=-1) * _permutation_sign(pivots)
        else:
            sign = np.sign(np.prod(diagonal, axis=-1)) * _permutation_sign(pivots)
        logabsdet = np.sum(np.log(magnitudes), axis=-1)
    real = A.dtype.to_real()
    return (_tensor(A, np.asarray(sign, dtype=lu.dtype)),
            _tensor(A, np.asarray(logabsdet, dtype=st.to_numpy_dtype(real)), real), *_lu_outputs(A, lu, pivots))


def linalg_det(A):
    return ops._linalg_det(A)[0]


def det(self):
    return ops.linalg_det(self)


def linalg_slogdet(A):
    sign, logabsdet, _, _ = ops._linalg_slogdet(A)
    return sign, logabsdet


def slogdet(self):
    return ops.linalg_slogdet(self)


def logdet(self):
    """``log(det)``: ``logabsdet`` where the sign is positive, NaN where it is negative (a ``where``)."""
    square_check(self, "logdet")
    floating_check(self, "logdet", low_precision=False)
    sign, logabsdet = ops.linalg_slogdet(self)
    if self.dtype.is_complex:
        return ops.add(ops.log(sign), logabsdet)
    return ops.where(ops.eq(sign, -1.0), float("nan"), logabsdet)


# ----------------------------------------------------------------------------- inverse


def linalg_inv_ex(A, check_errors=False):
    square_check(A, "linalg.inv")
    floating_check(A, "linalg.inv", low_precision=False)
    data, lu, pivots, info = _factors(A, transposed=False)
    inverse = _solve_identity(lu, pivots)
    if check_errors:
        check_errors_of(info, "linalg.inv_ex", A.dim() == 2)
    return _tensor(A, _column_major(inverse)), _tensor(A, info.astype(np.int32), st.int32)


def _solve_identity(lu, pivots):
    """``getrs`` of ``A X = I``: the rows of I permuted as the pivots swapped them, then unit-lower and upper
    triangular substitution (a zero pivot divides by zero, as LAPACK does)."""
    n = lu.shape[-1]
    count = int(np.prod(lu.shape[:-2]))
    flat_lu = lu.reshape((count, n, n))
    flat_pivots = pivots.reshape((count, n))
    x = np.broadcast_to(np.eye(n, dtype=lu.dtype), flat_lu.shape).copy()
    rows = np.arange(flat_lu.shape[0])
    for j in range(n):
        p = flat_pivots[:, j]
        upper, lower = x[rows, j, :].copy(), x[rows, p, :].copy()
        x[rows, j, :], x[rows, p, :] = lower, upper
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(n):
            x[:, k, :] -= np.einsum("bi,bij->bj", flat_lu[:, k, :k], x[:, :k, :])
        for k in reversed(range(n)):
            x[:, k, :] = (x[:, k, :] - np.einsum("bi,bij->bj", flat_lu[:, k, k + 1:], x[:, k + 1:, :])) \
                / flat_lu[:, k, k, None]
    return x.reshape(lu.shape)


def check_errors_of(info, name, single):
    """``_linalg_check_errors``: the first matrix whose factorisation hit a zero pivot."""
    flat = np.asarray(info).reshape(-1)
    for b, code in enumerate(flat):
        if code > 0:
            where = "" if single else f"(Batch element {b}): "
            raise _LinAlgError(f"{name}: {where}The diagonal element {code} is zero, the inversion could not be "
                               "completed because the input matrix is singular.")


def linalg_inv(A):
    inverse, info = ops.linalg_inv_ex(A)
    check_errors_of(to_numpy(info._data), "linalg.inv", A.dim() == 2)
    return inverse


def inverse(self):
    return ops.linalg_inv(self)


# ----------------------------------------------------------------------------- matrix_power


def linalg_matrix_power(A, n):
    square_check(A, "linalg.matrix_power")
    if n == 0:
        eye = ops.expand(_eye_like(A), list(A.shape))
        return ops.copy_(ops.clone(A, memory_format=contiguous_format), eye)
    if n == 1:
        return ops.clone(A, memory_format=contiguous_format)
    if n < 0:
        A, n = ops.linalg_inv(A), -n
    if n == 2:
        return ops.matmul(A, A)
    if n == 3:
        return ops.matmul(ops.matmul(A, A), A)
    z = result = None
    while n > 0:  # the bits of n, lowest first: square z each step, multiply it in where a bit is set
        bit, n = n % 2, n // 2
        z = A if z is None else ops.matmul(z, z)
        if bit:
            result = z if result is None else ops.matmul(result, z)
    return result


def matrix_power(self, n):
    return ops.linalg_matrix_power(self, n)


def _eye_like(A):
    size = A.shape[-1]
    return _tensor(A, np.eye(size, dtype=A.dtype._numpy))


# ----------------------------------------------------------------------------- matrix_exp
# ``linalg_matrix_exp``: scaling and squaring with a degree-13 Padé approximant (Higham 2005), in float64 for
# float32 and float64 inputs; torch's own degree choice (Taylor polynomials up to 18) rounds differently in the
# last bits. A 1 x 1 matrix is ``exp`` of its entry.

_PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
            10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA_13 = 5.371920351148152


def linalg_matrix_exp(self):
    square_check(self, "linalg.matrix_exp")
    floating_check(self, "linalg.matrix_exp")
    data = to_numpy(self._data).astype(np.complex128 if self.dtype.is_complex else np.float64)
    if data.size == 0:
        result = data
    elif data.shape[-1] == 1:
        result = np.exp(data)
    else:
        result = np.empty_like(data)
        flat_in, flat_out = data.reshape((-1,) + data.shape[-2:]), result.reshape((-1,) + data.shape[-2:])
        for k in range(flat_in.shape[0]):
            flat_out[k] = _expm(flat_in[k])
    return _tensor(self, np.ascontiguousarray(result.astype(self.dtype._numpy)))


def _expm(a: np.ndarray) -> np.ndarray:
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm / _THETA_13)))) if norm > _THETA_13 else 0
    a = a / 2.0 ** squarings
    b = _PADE_13
    eye = np.eye(a.shape[0])
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    result = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        result = result @ result
    return result


def matrix_exp(self):
    return ops.linalg_matrix_exp(self)
