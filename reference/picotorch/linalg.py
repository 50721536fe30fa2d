"""``picotorch.linalg``: the part of ``torch/linalg/__init__.py`` picotorch has: ``vector_norm``, ``cross``,
``det``, ``slogdet``, ``inv``, ``inv_ex``, ``matrix_power``, ``matrix_exp``, and ``LinAlgError``.

PyTorch's module re-exports the generated bindings of ``torch._C._linalg`` (ops declared with
``python_module: linalg``) under their short names: ``linalg_vector_norm`` becomes ``vector_norm``.
"""

from __future__ import annotations

from . import _C
from .native.batch_linear_algebra import _LinAlgError

LinAlgError = _LinAlgError
cross = _C._linalg.linalg_cross
vector_norm = _C._linalg.linalg_vector_norm
det = _C._linalg.linalg_det
slogdet = _C._linalg.linalg_slogdet
inv = _C._linalg.linalg_inv
inv_ex = _C._linalg.linalg_inv_ex
matrix_power = _C._linalg.linalg_matrix_power
matrix_exp = _C._linalg.linalg_matrix_exp

__all__ = ["LinAlgError", "cross", "det", "inv", "inv_ex", "matrix_exp", "matrix_power", "slogdet", "vector_norm"]
