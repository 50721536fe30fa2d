"""picotorch: a small, faithful model of PyTorch's internals, usable as ``import picotorch as torch``.

Models ``torch/__init__.py``: import the extension module ``_C`` (which builds the tensor type, its
generated methods and the engine), define ``Tensor`` in Python, copy the generated functions of
``_C._VariableFunctions`` into this namespace, and export every ``_C`` name that does not start with
``_`` and does not end with ``Base``.
"""

from __future__ import annotations

from . import _C
from ._C import *  # noqa: F403
from ._tensor import Tensor, norm
from ._tensor_str import set_printoptions
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .c10.size import Size

__version__ = "0.1.0"  # the course's version (pyproject.toml); torch.__version__ names PyTorch's release

__all__ = [name for name in dir(_C) if not name.startswith("_") and not name.endswith("Base")]

for _name in dir(_C._VariableFunctions):
    if _name.startswith("__"):
        continue
    _fn = getattr(_C._VariableFunctions, _name)
    _fn.__module__ = __name__
    globals()[_name] = _fn
    if not _name.startswith("_"):
        __all__.append(_name)


def matmul(input, other):
    return _C._VariableFunctions.matmul(input, other)


return_types = _C._return_types  # torch.return_types: the named tuples of max(dim=...) and friends


def split(tensor, split_size_or_sections, dim=0):
    """``torch.functional.split``: ``tensor.split``, which picks ``split`` or ``split_with_sizes``."""
    return tensor.split(split_size_or_sections, dim)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


from . import autograd, cuda, linalg, nn, optim, overrides, utils  # noqa: E402, F401
from .autograd import inference_mode  # noqa: E402
from .utils import data as _utils_data  # noqa: E402, F401  (loads picotorch.utils.data, as torch does)
from .utils.serialization import load, save  # noqa: E402

__all__ += ["Tensor", "Size", "autograd", "cuda", "nn", "optim", "utils", "no_grad", "enable_grad", "set_grad_enabled",
            "is_grad_enabled", "set_printoptions", "is_tensor", "numel", "inference_mode", "load", "save",
            "norm", "linalg", "return_types"]
del _name, _fn
