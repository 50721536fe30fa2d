"""``picotorch.linalg``: the part of ``torch/linalg/__init__.py`` picotorch has, ``vector_norm`` and ``cross``.

PyTorch's module re-exports the generated bindings of ``torch._C._linalg`` (ops declared with
``python_module: linalg``) under their short names: ``linalg_vector_norm`` becomes ``vector_norm``.
"""

from __future__ import annotations

from . import _C

cross = _C._linalg.linalg_cross
vector_norm = _C._linalg.linalg_vector_norm

__all__ = ["cross", "vector_norm"]
